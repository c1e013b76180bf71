//! FIB033: a null pointer passed where MPI writes a status.

use super::{Code, Rule};
use crate::finding::{Finding, Place, Severity};

/// A status argument written as a null pointer instead of
/// `MPI_STATUS_IGNORE` or `MPI_STATUSES_IGNORE`.
pub const FIB033: Code = Code {
    code: "FIB033",
    name: "null-status",
    severity: Severity::Error,
    tool_failure: false,
    summary: "A null pointer is passed where MPI writes a status, instead of MPI_STATUS_IGNORE or MPI_STATUSES_IGNORE.",
    explanation: "\
## What it means

An MPI call that writes a status (MPI_Recv, MPI_Sendrecv,
MPI_Sendrecv_replace, MPI_Probe, MPI_Iprobe, MPI_Mprobe, MPI_Improbe,
MPI_Mrecv, MPI_Wait, MPI_Test, MPI_Waitany, MPI_Testany,
MPI_Request_get_status) or an array of statuses (MPI_Waitall,
MPI_Testall, MPI_Waitsome, MPI_Testsome) is given a null pointer there,
written as `NULL`, `0`, `nullptr` or such a constant cast to a pointer.
MPI wants the address of a status (of an array of them), or
MPI_STATUS_IGNORE (MPI_STATUSES_IGNORE for an array) when the program
does not read it. fib finds these arguments in the source before running
anything, under every MPI library alike; the finding points at the call.
The program is still run and checked as usual.

A null pointer that reaches the call through a variable is not found:
fib sees only what is written in the call.

## Why it matters

MPI_STATUS_IGNORE is not a null pointer in every MPI library. In MPICH
it is `(MPI_Status *)1`: a null status is an invalid argument, and the
call fails with an MPI error (which aborts the program) or, where the
library does not check, writes through the null pointer and crashes. In
Open MPI MPI_STATUS_IGNORE happens to be a null pointer, so the same
program works there: it breaks when it is built against another library.

## Example

    MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL);
    MPI_Wait(&req, NULL);
    MPI_Waitall(2, reqs, NULL);

## What to do

Pass MPI_STATUS_IGNORE (MPI_STATUSES_IGNORE for the array of MPI_Waitall,
MPI_Testall, MPI_Waitsome and MPI_Testsome), or the address of an
MPI_Status variable (of an array of them) when the program reads the
status.
",
};

/// A status argument written as a null pointer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NullStatus {
    /// The MPI function, such as `MPI_Recv`.
    pub call: String,
    /// The argument as written (`NULL`).
    pub arg: String,
    /// Whether it is an array of statuses (`MPI_Waitall`).
    pub array: bool,
    /// The call.
    pub place: Place,
}

impl Rule for NullStatus {
    const CODE: &'static Code = &FIB033;

    fn finding(&self) -> Finding {
        let (what, ignore) = if self.array {
            ("array of statuses", "MPI_STATUSES_IGNORE")
        } else {
            ("status", "MPI_STATUS_IGNORE")
        };
        let mut f = Finding::new(
            Self::CODE,
            format!(
                "{}'s {what} is a null pointer (`{}`), not {ignore}",
                self.call, self.arg
            ),
        )
        .at(&self.place);
        f.notes.push(format!(
            "found before running: MPI writes the {what} there; {ignore} is a null pointer in \
             Open MPI but not in MPICH, where this call fails"
        ));
        f.help = Some(if self.array {
            "pass MPI_STATUSES_IGNORE, or an array of MPI_Status with one element per request"
                .into()
        } else {
            "pass MPI_STATUS_IGNORE, or the address of an MPI_Status variable".into()
        });
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at() -> Place {
        Place {
            file: Some("a.c".into()),
            line: Some(9),
            column: Some(5),
            span: Some((100, 150)),
        }
    }

    #[test]
    fn names_the_call_and_what_to_pass() {
        let f = NullStatus {
            call: "MPI_Recv".into(),
            arg: "NULL".into(),
            array: false,
            place: at(),
        }
        .finding();
        assert_eq!(
            f.message,
            "MPI_Recv's status is a null pointer (`NULL`), not MPI_STATUS_IGNORE"
        );
        assert_eq!((f.line, f.column, f.rank), (Some(9), Some(5), None));
        assert_eq!(
            f.help.as_deref(),
            Some("pass MPI_STATUS_IGNORE, or the address of an MPI_Status variable")
        );
    }

    #[test]
    fn an_array_asks_for_statuses_ignore() {
        let f = NullStatus {
            call: "MPI_Waitall".into(),
            arg: "0".into(),
            array: true,
            place: at(),
        }
        .finding();
        assert_eq!(
            f.message,
            "MPI_Waitall's array of statuses is a null pointer (`0`), not MPI_STATUSES_IGNORE"
        );
    }
}
