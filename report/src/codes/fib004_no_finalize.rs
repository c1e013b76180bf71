//! FIB004: a rank's process ended without calling `MPI_Finalize`.

use super::common::program_stderr;
use super::{Code, Rule};
use crate::finding::{Finding, Place, Severity};

/// A rank exited without `MPI_Finalize`.
pub const FIB004: Code = Code {
    code: "FIB004",
    name: "exit-without-finalize",
    severity: Severity::Error,
    tool_failure: false,
    summary: "A rank's process exited after MPI_Init without calling MPI_Finalize.",
    explanation: "\
## What it means

A rank returned from main or called exit() after initialising MPI, without
calling MPI_Finalize first. The finding gives the rank, its exit status and
the last MPI call it made.

## Why it matters

MPI requires every process to call MPI_Finalize. Without it, messages the
rank sent may never be delivered and other ranks can wait forever; many MPI
implementations also end the whole job with an error.

## Example

    if (rank == 1 && n == 0) {
        fprintf(stderr, \"nothing to do\\n\");
        return 1;            /* leaves without MPI_Finalize */
    }

## What to do

Call MPI_Finalize on every path that leaves the program after MPI_Init, or
MPI_Abort when the whole job must stop because of an error.
",
};

/// A rank's process that ended without `MPI_Finalize`: one rank that
/// exited, or the whole launch before every rank reached `MPI_Init`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoFinalize {
    /// A rank exited after `MPI_Init` without `MPI_Finalize`.
    Exited {
        rank: usize,
        /// The exit status, when the rank reported a failing one.
        status: Option<i32>,
        /// The rank's last MPI call, when it reported one.
        place: Place,
        /// Whether the rank reported its last MPI call (the place is that
        /// call's), which the message then mentions.
        last_call: bool,
        /// The program's standard error, as the launcher passed it on.
        stderr: String,
        replay: String,
    },
    /// `mpiexec` ended before every rank called `MPI_Init`.
    LaunchEnded {
        /// How `mpiexec` ended, as in "exited with status: 1".
        status: String,
        /// The MPI calls the run intercepted.
        calls: u64,
        /// The program's standard error, as the launcher passed it on.
        stderr: String,
        replay: String,
    },
}

impl Rule for NoFinalize {
    const CODE: &'static Code = &FIB004;

    fn finding(&self) -> Finding {
        match self {
            NoFinalize::Exited {
                rank,
                status,
                place,
                last_call,
                stderr,
                replay,
            } => {
                let mut message = format!("rank {rank} exited without calling MPI_Finalize");
                if let Some(s) = status {
                    message.push_str(&format!(", with status {s}"));
                }
                if *last_call {
                    message.push_str(" (its last MPI call is shown)");
                }
                let mut f = Finding::new(Self::CODE, message).at(place);
                f.rank = Some(*rank);
                f.replay = Some(replay.clone());
                f.notes = program_stderr(stderr);
                f
            }
            NoFinalize::LaunchEnded {
                status,
                calls,
                stderr,
                replay,
            } => {
                let message = if *calls == 0 && status.ends_with("status: 0") {
                    "the program ended with status 0 before every rank called MPI_Init; fib checks MPI programs (does every rank call MPI_Init?)".to_string()
                } else {
                    format!(
                        "the program ended before every rank called MPI_Init (mpiexec {status})"
                    )
                };
                let mut f = Finding::new(Self::CODE, message);
                f.replay = Some(replay.clone());
                f.notes = program_stderr(stderr);
                f
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exit_gives_its_status_and_last_call() {
        let exited = |status, last_call| NoFinalize::Exited {
            rank: 1,
            status,
            place: Place {
                file: Some("a.c".into()),
                line: Some(4),
                column: Some(2),
                span: None,
            },
            last_call,
            stderr: "nothing to do\n".into(),
            replay: "0".into(),
        };
        let f = exited(Some(1), true).finding();
        assert_eq!(
            f.message,
            "rank 1 exited without calling MPI_Finalize, with status 1 (its last MPI call is shown)"
        );
        assert_eq!((f.line, f.rank), (Some(4), Some(1)));
        assert_eq!(f.notes, vec!["nothing to do".to_string()]);
        assert_eq!(
            exited(None, false).finding().message,
            "rank 1 exited without calling MPI_Finalize"
        );
    }

    #[test]
    fn a_launch_that_ended_early_says_how() {
        let ended = |status: &str, calls| NoFinalize::LaunchEnded {
            status: status.into(),
            calls,
            stderr: String::new(),
            replay: "0".into(),
        };
        assert_eq!(
            ended("exited with status: 0", 0).finding().message,
            "the program ended with status 0 before every rank called MPI_Init; fib checks MPI programs (does every rank call MPI_Init?)"
        );
        let f = ended("exited with status: 0", 3).finding();
        assert_eq!(
            f.message,
            "the program ended before every rank called MPI_Init (mpiexec exited with status: 0)"
        );
        assert_eq!(
            (f.file, f.rank, f.replay.as_deref()),
            (None, None, Some("0"))
        );
    }
}
