//! MPI errors: the library's error handler on `MPI_COMM_WORLD` and
//! `MPI_COMM_SELF` (and so, by inheritance, on every communicator made from
//! them) is replaced by one that reports [`fib_wire::Up::MpiError`] with the
//! site of the rank's current call before ending the rank, as MPI's default
//! handler would. A program that installs its own handler keeps it.

use std::os::raw::{c_char, c_int};

use fib_wire::Up;
use mpi_sys::*;

use crate::conn::log;
use crate::state::try_lib;

/// The status a rank leaves with after an MPI error.
const EXIT_STATUS: c_int = 1;

/// MPI's text for an error code or class.
unsafe fn error_text(code: c_int) -> Option<String> {
    let mut buf = [0 as c_char; MPI_MAX_ERROR_STRING as usize + 1];
    let mut len: c_int = 0;
    if PMPI_Error_string(code, buf.as_mut_ptr(), &mut len) != 0 {
        return None;
    }
    let bytes = std::slice::from_raw_parts(buf.as_ptr().cast::<u8>(), len.max(0) as usize);
    Some(String::from_utf8_lossy(bytes).trim().to_string())
}

/// What to tell the user about error `code`: the text of its class (the
/// full text of a code is an error stack through the library's internals,
/// which names calls the program never made), and the stack's last line
/// when it says more than the class.
unsafe fn describe(code: c_int) -> String {
    let mut class: c_int = code;
    PMPI_Error_class(code, &mut class);
    let general = error_text(class).unwrap_or_else(|| format!("error class {class}"));
    let last = error_text(code)
        .and_then(|t| t.lines().last().map(str::to_string))
        .map(|l| strip_origin(&l).to_string())
        .unwrap_or_default();
    if last.is_empty() || last == general || general.contains(&last) {
        general
    } else {
        format!("{general}: {last}")
    }
}

/// A line of MPICH's error stack without the `function(line)...: ` it
/// starts with.
fn strip_origin(line: &str) -> &str {
    for (i, _) in line.match_indices(':').rev() {
        if line[..i].trim_end_matches('.').ends_with(')') {
            return line[i + 1..].trim();
        }
    }
    line.trim()
}

unsafe extern "C" fn on_error(_comm: *mut MPI_Comm, code: *mut c_int) {
    let code = if code.is_null() { -1 } else { *code };
    let text = describe(code);
    match try_lib() {
        Some(l) => {
            let site = l.site();
            l.push(Up::MpiError {
                site,
                code,
                text: text.clone(),
            });
            l.conn.flush();
        }
        None => log(&format!("MPI error: {text}")),
    }
    libc::_exit(EXIT_STATUS);
}

/// Installs the reporting handler on the predefined communicators.
pub unsafe fn install() {
    type Plain = unsafe extern "C" fn(*mut MPI_Comm, *mut c_int);
    // SAFETY: MPI calls the handler as `fn(MPI_Comm *, int *, ...)`. On the
    // supported ABIs (x86-64 and AArch64 System V) a function that takes
    // only the two named arguments can be called that way: the variadic
    // part is passed where it is never read.
    let f: MPI_Comm_errhandler_function = Some(std::mem::transmute::<
        Plain,
        unsafe extern "C" fn(*mut MPI_Comm, *mut c_int, ...),
    >(on_error));
    let mut handler: MPI_Errhandler = std::mem::zeroed();
    if PMPI_Comm_create_errhandler(f, &mut handler) != 0 {
        return;
    }
    PMPI_Comm_set_errhandler(RSMPI_COMM_WORLD, handler);
    PMPI_Comm_set_errhandler(RSMPI_COMM_SELF, handler);
}

#[cfg(test)]
mod tests {
    use super::strip_origin;

    #[test]
    fn the_origin_of_a_stack_line_is_dropped() {
        assert_eq!(
            strip_origin("internal_Isend(61).: Negative count, value is -1"),
            "Negative count, value is -1"
        );
        assert_eq!(
            strip_origin("(unknown)(): Message truncated"),
            "Message truncated"
        );
        assert_eq!(strip_origin("Message truncated"), "Message truncated");
    }
}
