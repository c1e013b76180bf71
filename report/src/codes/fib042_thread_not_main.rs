//! FIB042: a thread other than the main one called MPI under a thread
//! level that lets only the main thread call it.

use super::common::{leak_message, leak_rank};
use super::{Code, Rule};
use crate::finding::{Finding, Place, Severity};

/// A call from a thread that is not the one that initialised MPI, under
/// `MPI_THREAD_SINGLE` or `MPI_THREAD_FUNNELED`.
pub const FIB042: Code = Code {
    code: "FIB042",
    name: "thread-not-main",
    severity: Severity::Error,
    tool_failure: false,
    summary: "A thread other than the one that initialised MPI called MPI, under MPI_THREAD_SINGLE or MPI_THREAD_FUNNELED.",
    explanation: "\
## What it means

MPI_Init_thread returns in `provided` the level of thread support the
library gives; MPI_Init gives MPI_THREAD_SINGLE (MPICH's default). Under
MPI_THREAD_SINGLE only one thread may run, and under MPI_THREAD_FUNNELED
the process may have many threads but only the main one, the thread
that initialised MPI, may call MPI. A rank called MPI from another
thread: an OpenMP worker (a call in a parallel region that is not inside
`omp master`), or a thread the program created.

The finding points at the call and names the level and the call that
initialised MPI. fib knows which thread calls, so the finding holds
whatever the timing of the run. A call written inside `omp single`, in a
team of several threads, is reported even when the main thread made it:
whichever thread reaches the construct first runs it, so in another run
a worker makes the call. So is one in a `sections` block or a `task`,
which the runtime hands to any thread of the team. Each site is reported once.

## Why it matters

A library that gives MPI_THREAD_FUNNELED may keep its state without
locks and assume the main thread's stack, thread-local storage and
progress engine: a call from another thread corrupts it, or works on one
machine and hangs on another. MPI_Is_thread_main tells which thread may
call.

## Example

    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    #pragma omp parallel
    {
        if (omp_get_thread_num() == 1)   /* not the main thread */
            MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    }

## What to do

Make the call from the main thread (`#pragma omp master` or `masked`,
not `single`, `sections` or `task`, or after the parallel region), or ask for MPI_THREAD_SERIALIZED or
MPI_THREAD_MULTIPLE and check that `provided` is at least that.
",
};

/// Calls at one site from threads other than the main one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadNotMain {
    pub ranks: Vec<usize>,
    /// The first such thread's number (0 is the main thread; the others
    /// in the order of their first MPI call).
    pub thread: u32,
    /// The OpenMP construct (`single`, `sections`, `task`) of a team of
    /// several threads the call is in, which any of them may run,
    /// whichever did in the run.
    pub construct: Option<String>,
    pub call: String,
    pub place: Place,
    /// The level provided, such as `MPI_THREAD_FUNNELED`.
    pub level: String,
    /// The call that initialised MPI, and where.
    pub init_call: String,
    pub init_place: Place,
    pub replay: String,
}

impl Rule for ThreadNotMain {
    const CODE: &'static Code = &FIB042;

    fn finding(&self) -> Finding {
        let what = if let Some(c) = &self.construct {
            format!(
                "{} inside `omp {c}` under {}: any thread of the team may make the call, and only the thread that initialised MPI may call MPI",
                self.call, self.level
            )
        } else {
            format!(
                "{} called from thread {} under {}, where only the thread that initialised MPI may call MPI",
                self.call, self.thread, self.level
            )
        };
        let mut f = Finding::new(Self::CODE, leak_message(&self.ranks, &what, 1)).at(&self.place);
        f.rank = leak_rank(&self.ranks);
        f.replay = Some(self.replay.clone());
        f.label_at(
            &self.init_place,
            format!(
                "the {} that initialised MPI, on the main thread, at {}",
                self.init_call, self.level
            ),
        );
        f.help = Some(format!(
            "make the {} from the main thread (#pragma omp master or masked instead of single, sections or task, or outside the parallel region), or initialise MPI with MPI_Init_thread at MPI_THREAD_SERIALIZED or MPI_THREAD_MULTIPLE and check `provided`",
            self.call
        ));
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_thread_the_level_and_the_init() {
        let at = |line| Place {
            file: Some("a.c".into()),
            line: Some(line),
            column: Some(5),
            span: None,
        };
        let f = ThreadNotMain {
            ranks: vec![1],
            thread: 1,
            construct: None,
            call: "MPI_Recv".into(),
            place: at(14),
            level: "MPI_THREAD_FUNNELED".into(),
            init_call: "MPI_Init_thread".into(),
            init_place: at(6),
            replay: "0".into(),
        }
        .finding();
        assert_eq!(
            f.message,
            "rank 1: MPI_Recv called from thread 1 under MPI_THREAD_FUNNELED, where only the thread that initialised MPI may call MPI"
        );
        assert_eq!((f.line, f.rank), (Some(14), Some(1)));
        assert_eq!(f.labels[0].line, 6);
        let f = ThreadNotMain {
            ranks: vec![0],
            thread: 0,
            construct: Some("single".into()),
            call: "MPI_Send".into(),
            place: at(9),
            level: "MPI_THREAD_FUNNELED".into(),
            init_call: "MPI_Init_thread".into(),
            init_place: at(6),
            replay: "0".into(),
        }
        .finding();
        assert_eq!(
            f.message,
            "rank 0: MPI_Send inside `omp single` under MPI_THREAD_FUNNELED: any thread of the team may make the call, and only the thread that initialised MPI may call MPI"
        );
    }
}
