//! What a check tells its caller while it goes on: which program, which
//! phase, how many interleavings have run and how many are known to be
//! left. The driver only reports; the caller (the `fib` binary) decides
//! whether and how to show it, through its own [`Progress`].

/// What the check of one program is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Instrumenting and compiling the program (or finding it cached).
    Building,
    /// Running its interleavings.
    Exploring,
    /// Re-exploring it without barrier group `group` (from 1) of `groups`
    /// (`--confirm`).
    Confirming { group: usize, groups: usize },
}

/// Where the check stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    /// The program's main source, as the report names it.
    pub program: String,
    pub nprocs: usize,
    pub phase: Phase,
    /// Interleavings run in this phase.
    pub done: usize,
    /// Interleavings the exploration knows it still has to run in this
    /// phase (new ones can appear as runs reveal choices), when it can tell.
    pub pending: Option<usize>,
}

/// Receives the check's progress. Called on the thread that runs the
/// check, between runs (never while one is being served).
pub trait Progress {
    fn update(&self, status: &Status);
    /// Something the user should hear about while they wait, outside any
    /// one program's check (the interposition library being built).
    fn note(&self, _message: &str) {}
}

/// Progress nobody watches.
pub struct Silent;

impl Progress for Silent {
    fn update(&self, _: &Status) {}
}

/// The status of one program's check, sent to a [`Progress`] as it changes.
pub(crate) struct Tracker<'a> {
    sink: &'a dyn Progress,
    status: Status,
}

impl<'a> Tracker<'a> {
    /// Tells the user `message` while the check goes on.
    pub(crate) fn note(&self, message: &str) {
        self.sink.note(message);
    }

    /// The check of `program` at `nprocs` processes, building first.
    pub(crate) fn new(sink: &'a dyn Progress, program: &str, nprocs: usize) -> Tracker<'a> {
        let t = Tracker {
            sink,
            status: Status {
                program: program.to_string(),
                nprocs,
                phase: Phase::Building,
                done: 0,
                pending: None,
            },
        };
        t.sink.update(&t.status);
        t
    }

    /// A new phase, with nothing run in it yet.
    pub(crate) fn phase(&mut self, phase: Phase) {
        self.status.phase = phase;
        self.status.done = 0;
        self.status.pending = None;
        self.sink.update(&self.status);
    }

    /// `done` interleavings ran in this phase and `pending` are known to be
    /// left; never more than `room` of them can still run (the limit on
    /// interleavings).
    pub(crate) fn ran(&mut self, done: usize, pending: Option<usize>, room: usize) {
        self.status.done = done;
        self.status.pending = pending.map(|p| p.min(room));
        self.sink.update(&self.status);
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;

    /// Keeps every status it is sent.
    #[derive(Default)]
    struct Fake(RefCell<Vec<Status>>);

    impl Progress for Fake {
        fn update(&self, status: &Status) {
            self.0.borrow_mut().push(status.clone());
        }
    }

    #[test]
    fn the_sink_sees_each_phase_and_each_run() {
        let sink = Fake::default();
        let mut t = Tracker::new(&sink, "a.c", 3);
        t.phase(Phase::Exploring);
        t.ran(0, Some(1), 10);
        t.ran(1, Some(4), 10);
        // Past the limit nothing runs, however much is known to be left.
        t.ran(8, Some(5), 2);
        t.phase(Phase::Confirming {
            group: 1,
            groups: 2,
        });
        t.ran(1, None, 10);
        let seen: Vec<(Phase, usize, Option<usize>)> = sink
            .0
            .borrow()
            .iter()
            .map(|s| (s.phase, s.done, s.pending))
            .collect();
        let confirming = Phase::Confirming {
            group: 1,
            groups: 2,
        };
        assert_eq!(
            seen,
            vec![
                (Phase::Building, 0, None),
                (Phase::Exploring, 0, None),
                (Phase::Exploring, 0, Some(1)),
                (Phase::Exploring, 1, Some(4)),
                (Phase::Exploring, 8, Some(2)),
                (confirming, 0, None),
                (confirming, 1, None),
            ]
        );
        assert!(sink
            .0
            .borrow()
            .iter()
            .all(|s| s.program == "a.c" && s.nprocs == 3));
    }
}
