//! FIB006: the program calls an MPI function fib does not model.

use super::{Code, Rule};
use crate::finding::{Finding, Place, Severity};

/// The program uses an MPI function fib does not model.
pub const FIB006: Code = Code {
    code: "FIB006",
    name: "unsupported-mpi-call",
    severity: Severity::Error,
    tool_failure: false,
    summary:
        "The program calls an MPI function that fib does not model, so it could not be verified.",
    explanation: "\
## What it means

The program calls an MPI function that communicates, matches messages,
synchronises, or creates or completes requests or communicators in a way
fib's scheduler does not model yet, such as partitioned or generalized
requests, neighbourhood collectives, or intercommunicators. One-sided communication
(MPI_Win_*, MPI_Put, MPI_Get, MPI_Accumulate, ...) and dynamic process
management (MPI_Comm_spawn, MPI_Comm_connect, ...) are out of fib's scope
for now.

fib finds these calls before running anything, in the list of every MPI
call of the program, and reports each one at its line, whether or not a
run would reach it; it then does not run the program (outcome
`unsupported`). With `--run-unsupported` it runs the program anyway: the
calls are still reported, and a run that reaches one of them stops there
and reports it with its rank and replay token, because letting the call
through would make the scheduler's picture of the program wrong.

Local calls (MPI_Comm_rank, MPI_Wtime, datatypes, groups, info objects,
attributes, error handlers, ...) are not reported: MPI runs them untouched.

Threads: a program may call MPI from several threads one after the other,
checked against the level MPI provided (FIB042, FIB043, FIB044). Under
`MPI_THREAD_MULTIPLE`, POSIX and OpenMP threads may be inside MPI at
once: fib enters their calls into the rank's sequence in every order that
matters. When a thread fib was not told of (started before `MPI_Init`, or
by a library fib did not compile) calls MPI while another thread of the
same rank is inside an MPI call (say, blocked in a receive), fib reports
`MPI_THREAD_MULTIPLE` as unsupported at that call and stops the run: it
would otherwise take the second thread's wait for a deadlock. (Under a lower level the clash is the
program's error, FIB043, and the second thread waits its turn.)

## Why it matters

fib cannot tell anything about a program it cannot model: this is a limit of
fib, not a bug in the program. Without `--run-unsupported`, fib exits with
code 2.

## Example

    if (argc > 5)   /* MPI 4.0's send and receive with one request: not modelled */
        MPI_Isendrecv(out, 1, MPI_INT, next, 0, in, 1, MPI_INT, prev, 0,
                      MPI_COMM_WORLD, &req);

## What to do

Check the list of supported functions in the guide (docs/src/supported.md).
Where the program has a choice, use a modelled function (MPI_Sendrecv
instead of MPI_Isendrecv followed at once by MPI_Wait) to verify the rest
of the logic.
When the call sits on a path your runs do not take, `--run-unsupported`
checks the rest of the program; a `fib: allow FIB006` comment on the line
then keeps the finding out of the exit code.
",
};

/// Why fib does not model a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// fib does not model it yet.
    NotYet,
    /// One-sided communication: out of scope for now.
    OneSided,
    /// Dynamic process management: out of scope for now.
    DynamicProcesses,
    /// MPI called from two threads of a rank at once.
    Threads,
}

/// A call to an MPI function fib does not model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unsupported {
    /// A call found in the program's site table before running. `ran` says
    /// whether the program was run anyway (`--run-unsupported`), in which
    /// case no run reached the call (a run that did reports it as
    /// [`Unsupported::Reached`]).
    Listed {
        /// The MPI function, such as `MPI_Cancel`.
        call: String,
        place: Place,
        scope: Scope,
        ran: bool,
    },
    /// A run reached the call, which stopped it.
    Reached {
        rank: usize,
        call: String,
        place: Place,
        scope: Scope,
        replay: String,
    },
}

/// `MPI_Put_c is not supported by fib yet: the large-count forms of one-sided communication are out of
/// scope for now`.
fn message(call: &str, scope: Scope) -> String {
    let why = match scope {
        Scope::NotYet => "",
        Scope::OneSided => {
            ": the large-count forms of one-sided communication are out of scope for now"
        }
        Scope::DynamicProcesses => ": dynamic process management is out of scope for now",
        Scope::Threads => {
            ": a thread of this rank called MPI while another of its threads was inside an MPI call, and fib was not told when they started (before MPI_Init, or in a library it did not compile)"
        }
    };
    format!("{call} is not supported by fib yet{why}")
}

impl Rule for Unsupported {
    const CODE: &'static Code = &FIB006;

    fn finding(&self) -> Finding {
        match self {
            Unsupported::Listed {
                call,
                place,
                scope,
                ran,
            } => {
                let mut f = Finding::new(Self::CODE, message(call, *scope)).at(place);
                if *ran {
                    f.notes.push(
                        "found before running; the program was run anyway (--run-unsupported), and no run reached this call"
                            .to_string(),
                    );
                } else {
                    f.notes.push(
                        "found before running: fib does not run a program that calls a function it does not model, whether or not a run would reach the call"
                            .to_string(),
                    );
                    f.help = Some(
                        "use a function fib models, or check the rest of the program with --run-unsupported"
                            .to_string(),
                    );
                }
                f
            }
            Unsupported::Reached {
                rank,
                call,
                place,
                scope,
                replay,
            } => {
                let mut f = Finding::new(Self::CODE, message(call, *scope)).at(place);
                f.rank = Some(*rank);
                f.replay = Some(replay.clone());
                f
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place() -> Place {
        Place {
            file: Some("a.c".into()),
            line: Some(3),
            column: Some(1),
            span: Some((30, 40)),
        }
    }

    #[test]
    fn a_reached_call_names_the_function_rank_and_token() {
        let f = Unsupported::Reached {
            rank: 0,
            call: "MPI_Cancel".into(),
            place: place(),
            scope: Scope::NotYet,
            replay: "0".into(),
        }
        .finding();
        assert_eq!(f.message, "MPI_Cancel is not supported by fib yet");
        assert_eq!((f.line, f.span, f.rank), (Some(3), Some((30, 40)), Some(0)));
        assert_eq!(f.replay.as_deref(), Some("0"));
    }

    #[test]
    fn a_listed_call_says_it_was_found_before_running_and_has_no_rank() {
        let f = Unsupported::Listed {
            call: "MPI_Put_c".into(),
            place: place(),
            scope: Scope::OneSided,
            ran: false,
        }
        .finding();
        assert_eq!(
            f.message,
            "MPI_Put_c is not supported by fib yet: the large-count forms of one-sided communication are out of scope for now"
        );
        assert_eq!((f.line, f.rank, f.replay.as_deref()), (Some(3), None, None));
        assert!(f.notes[0].starts_with("found before running: fib does not run"));
        assert!(f.help.as_deref().unwrap().contains("--run-unsupported"));

        let f = Unsupported::Listed {
            call: "MPI_Comm_spawn".into(),
            place: place(),
            scope: Scope::DynamicProcesses,
            ran: true,
        }
        .finding();
        assert!(f
            .message
            .ends_with("dynamic process management is out of scope for now"));
        assert!(f.notes[0].contains("no run reached this call"));
        assert_eq!(f.help, None);
    }
}
