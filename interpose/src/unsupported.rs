//! The MPI functions fib does not model ([`fib_wire::UNSUPPORTED`]), one
//! wrapper each, defined from the list itself
//! ([`fib_wire::unsupported_functions!`]). Each wrapper is defined without
//! arguments: it never looks at them, and every one of these functions
//! returns `int` in MPICH's headers (a test below checks it), so ignoring
//! the arguments the caller passed is safe in the C calling convention. It
//! reports [`fib_wire::Up::Unsupported`] with the current site and waits for
//! the scheduler to end the run, instead of letting MPI run a call that
//! would make the scheduler's picture of the run wrong.

use std::os::raw::c_int;

use crate::conn::log;
use crate::state::try_lib;

/// Reports the unsupported function `name` and never returns.
fn report(name: &str) -> ! {
    match try_lib() {
        Some(l) => l.unsupported(name),
        None => {
            log(&format!("{name} is not supported by fib"));
            // SAFETY: `_exit` is always safe to call.
            unsafe { libc::_exit(70) }
        }
    }
}

macro_rules! unsupported {
    ($($name:ident),* $(,)?) => {
        $(
            #[no_mangle]
            pub extern "C" fn $name() -> c_int {
                report(stringify!($name))
            }
        )*
    };
}

fib_wire::unsupported_functions!(unsupported);

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::process::Command;

    use fib_wire::{INTERCEPTED, PASS_THROUGH, UNSUPPORTED};

    /// Every function MPICH's `mpi.h` (through `mpi_proto.h`) and `mpio.h`
    /// declare, with its return type, read from the headers of the MPI
    /// compiler (`FIB_MPICC`, else `mpicc.mpich`).
    fn mpich_functions() -> BTreeMap<String, String> {
        let mpicc = std::env::var("FIB_MPICC").unwrap_or_else(|_| "mpicc.mpich".into());
        let out = Command::new(&mpicc)
            .arg("-show")
            .output()
            .expect("running the MPI compiler");
        let show = String::from_utf8_lossy(&out.stdout);
        let dirs: Vec<&str> = show
            .split_whitespace()
            .filter_map(|w| w.strip_prefix("-I"))
            .collect();
        let mut found = BTreeMap::new();
        for header in ["mpi_proto.h", "mpio.h"] {
            let text = dirs
                .iter()
                .find_map(|d| std::fs::read_to_string(format!("{d}/{header}")).ok())
                .unwrap_or_else(|| panic!("{header} not found in {dirs:?}"));
            for line in text.lines() {
                let mut words = line.split_whitespace();
                let (Some(ret), Some(rest)) = (words.next(), words.next()) else {
                    continue;
                };
                let Some(name) = rest.split('(').next().filter(|n| n.starts_with("MPI_")) else {
                    continue;
                };
                if rest.contains('(') {
                    found.insert(name.to_string(), ret.to_string());
                }
            }
        }
        found
    }

    #[test]
    fn every_wrapped_function_is_declared_by_mpich_and_returns_int() {
        let declared = mpich_functions();
        for name in UNSUPPORTED {
            assert_eq!(
                declared.get(*name).map(String::as_str),
                Some("int"),
                "{name}"
            );
        }
    }

    #[test]
    fn the_lists_cover_every_function_mpich_declares_and_nothing_else() {
        let declared = mpich_functions();
        assert!(declared.len() > 500, "{} functions", declared.len());
        let listed: Vec<&str> = INTERCEPTED
            .iter()
            .chain(UNSUPPORTED)
            .chain(PASS_THROUGH)
            .copied()
            .collect();
        let missing: Vec<&String> = declared
            .keys()
            .filter(|n| !listed.contains(&n.as_str()))
            .collect();
        assert!(missing.is_empty(), "not classified: {missing:?}");
        let unknown: Vec<&&str> = listed
            .iter()
            .filter(|n| !declared.contains_key(**n))
            .collect();
        assert!(unknown.is_empty(), "not in MPICH: {unknown:?}");
    }
}
