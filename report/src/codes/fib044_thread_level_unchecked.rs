//! FIB044: threads called MPI before the program read the level
//! `MPI_Init_thread` provided.

use super::common::{leak_message, leak_rank};
use super::{Code, Rule};
use crate::finding::{Finding, Place, Severity};

/// A call from a thread other than the main one, made before the program
/// read the `provided` argument of `MPI_Init_thread`.
pub const FIB044: Code = Code {
    code: "FIB044",
    name: "thread-level-unchecked",
    severity: Severity::Warning,
    tool_failure: false,
    summary: "A thread other than the main one called MPI before the program read the level MPI_Init_thread provided.",
    explanation: "\
## What it means

MPI_Init_thread may give less thread support than the program asks for:
`provided` says what it gave. A rank called MPI from a thread other than
the main one, and until then the program had not read `provided` at all.
It relies on a level it never checked.

fib watches the `provided` variable from MPI_Init_thread's return and
counts its first load by the program (a comparison, a print, a copy) as
the check; it sees loads when it builds the program with memory checking
(the guide's memory checking page), which it does for every program that
calls MPI_Init_thread. The finding points at the first such call of each
site and labels MPI_Init_thread.

## Why it matters

The program works with the MPI it was tested with and misbehaves with
one built without thread support, or launched with a setting that lowers
the level (MPICH's MPIR_CVAR_DEFAULT_THREAD_LEVEL, Open MPI built
without MPI_THREAD_MULTIPLE): calls from threads then corrupt the
library's state instead of failing cleanly at start-up.

## Example

    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    /* provided is never read */
    #pragma omp parallel
    MPI_Send(...);

## What to do

Check the level right after MPI_Init_thread and stop when it is too low:

    if (provided < MPI_THREAD_MULTIPLE)
        MPI_Abort(MPI_COMM_WORLD, 1);
",
};

/// Calls at one site from threads other than the main one before
/// `provided` was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadLevelUnchecked {
    pub ranks: Vec<usize>,
    pub thread: u32,
    pub call: String,
    pub place: Place,
    /// The level asked for and the one provided.
    pub required: String,
    pub level: String,
    pub init_place: Place,
    pub replay: String,
}

impl Rule for ThreadLevelUnchecked {
    const CODE: &'static Code = &FIB044;

    fn finding(&self) -> Finding {
        let what = format!(
            "{} called from thread {} before the program read the level MPI_Init_thread provided",
            self.call, self.thread
        );
        let mut f = Finding::new(Self::CODE, leak_message(&self.ranks, &what, 1)).at(&self.place);
        f.rank = leak_rank(&self.ranks);
        f.replay = Some(self.replay.clone());
        f.label_at(&self.init_place, format!(
                    "MPI_Init_thread asked for {} and provided {} here; `provided` is not read before the threads call MPI",
                    self.required, self.level
                ));
        f.help = Some(format!(
            "check `provided` right after MPI_Init_thread: if (provided < {}) MPI_Abort(MPI_COMM_WORLD, 1);",
            self.required
        ));
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_call_and_labels_the_init() {
        let at = |line| Place {
            file: Some("a.c".into()),
            line: Some(line),
            column: Some(5),
            span: None,
        };
        let f = ThreadLevelUnchecked {
            ranks: vec![0, 1],
            thread: 1,
            call: "MPI_Send".into(),
            place: at(12),
            required: "MPI_THREAD_MULTIPLE".into(),
            level: "MPI_THREAD_MULTIPLE".into(),
            init_place: at(5),
            replay: "0".into(),
        }
        .finding();
        assert_eq!(
            f.message,
            "ranks 0, 1: MPI_Send called from thread 1 before the program read the level MPI_Init_thread provided"
        );
        assert_eq!(f.labels[0].line, 5);
        assert_eq!(f.severity(), Severity::Warning);
    }
}
