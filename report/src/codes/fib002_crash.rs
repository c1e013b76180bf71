//! FIB002: a rank was killed by a signal, including an `assert` that failed.

use super::common::{program_stderr, signal_name};
use super::{Code, Rule};
use crate::finding::{Finding, Place, Severity};

/// A rank died from a fatal signal.
pub const FIB002: Code = Code {
    code: "FIB002",
    name: "crash",
    severity: Severity::Error,
    tool_failure: false,
    summary:
        "A rank was killed by a fatal signal (a segmentation fault, a failed assert, abort(), ...).",
    explanation: "\
## What it means

In some interleaving a rank ended with a fatal signal such as SIGSEGV, SIGBUS,
SIGFPE or SIGABRT. A failed `assert` calls abort() and shows up here too. The
finding names the signal, the rank, the last MPI call the rank made and the
program's own error output.

## Why it matters

A crash that happens only in some interleavings usually means the program
assumes an order of messages that MPI does not guarantee, for example that
the first message from MPI_ANY_SOURCE comes from a particular rank.

## Example

    MPI_Recv(&from, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
    /* Holds only if rank 1 happens to send first. */
    assert(from == 1);

## What to do

Replay the interleaving with its token and look at the notes for the
program's error output. Check every assumption about which message arrives
first; use explicit sources or the status returned by the receive instead.
",
};

/// A rank killed by a fatal signal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Crash {
    pub rank: usize,
    /// The signal's number (`SIGSEGV`, ...).
    pub signal: i32,
    /// The rank's last MPI call, when it reported one.
    pub place: Place,
    /// Whether the rank reported its last MPI call (the place is that
    /// call's), which the message then mentions.
    pub after_call: bool,
    /// The program's standard error, as the launcher passed it on.
    pub stderr: String,
    pub replay: String,
}

impl Rule for Crash {
    const CODE: &'static Code = &FIB002;

    fn finding(&self) -> Finding {
        let rank = self.rank;
        let mut f = Finding::new(
            Self::CODE,
            format!(
                "rank {rank} crashed with {}{}",
                signal_name(self.signal),
                if self.after_call {
                    " after its last MPI call"
                } else {
                    ""
                }
            ),
        )
        .at(&self.place);
        f.rank = Some(rank);
        f.replay = Some(self.replay.clone());
        f.notes = program_stderr(&self.stderr);
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_signal_and_shows_the_error_output() {
        let mut c = Crash {
            rank: 1,
            signal: libc::SIGSEGV,
            place: Place {
                file: Some("a.c".into()),
                line: Some(7),
                column: Some(5),
                span: Some((70, 80)),
            },
            after_call: true,
            stderr: "boom\n=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n".into(),
            replay: "0".into(),
        };
        let f = c.finding();
        assert_eq!(
            f.message,
            "rank 1 crashed with SIGSEGV (segmentation fault) after its last MPI call"
        );
        assert_eq!(
            (f.line, f.column, f.span, f.rank),
            (Some(7), Some(5), Some((70, 80)), Some(1))
        );
        assert_eq!(f.notes, vec!["boom".to_string()]);
        assert_eq!(f.replay.as_deref(), Some("0"));
        c.after_call = false;
        c.signal = 99;
        assert_eq!(c.finding().message, "rank 1 crashed with a fatal signal");
    }
}
