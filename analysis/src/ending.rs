//! Which ending of a run wins. The socket loop reports what it sees — each
//! rank's hello, calls, reports and end of file, the engine's end, the
//! launcher's exit, the time limit — and [`Endings`] decides how the run
//! ended. The first report that explains a failure wins; a rank that dies
//! without a report is the ending only when nothing read after it explains
//! it (another rank's crash, abort or MPI error, which the launcher answers
//! by killing the job).
//!
//! A rank that finds an argument MPI does not accept (or a call fib does
//! not model) says so before the call and waits to be ended. Ranks of one
//! program often do so at once, each at its own call: which report comes
//! first is timing, and the ending would change from run to run. Such
//! reports are held ([`Endings::checks_pending`]) while the other ranks go
//! on, until each has made one, waits, or is gone (or a short while has
//! passed: the loop's call, [`Endings::settle_checks`]); the lowest rank's
//! then wins, and wins over anything read after the first of them.

use fib_wire::{Op, RmaFault, Site};
use poe::engine::RunEnd;

use crate::record::Ending;

/// What the loop has seen of each rank, and the ending decided so far.
pub struct Endings {
    decided: Option<Ending>,
    hello: Vec<bool>,
    finalized: Vec<bool>,
    gone: Vec<bool>,
    last_site: Vec<Site>,
    /// Failing exit statuses the ranks reported.
    exit_status: Vec<Option<i32>>,
    /// The site of each rank's last MPI call when it exited (any MPI call,
    /// not only those the engine sees), if it said.
    exit_site: Vec<Option<Site>>,
    /// Whether each rank said it was exiting (it ended by itself, rather
    /// than being killed by the launcher).
    exited: Vec<bool>,
    /// Ranks whose connection closed before `MPI_Finalize` with no report
    /// of a failure: the ending unless a report read after it explains it.
    quiet: Vec<usize>,
    /// The argument checks (and unmodelled calls) reported while nothing
    /// was decided, in the order read: the lowest rank's is the ending.
    checks: Vec<(usize, Ending)>,
}

impl Endings {
    /// Nothing seen yet of a run of `nprocs` ranks.
    pub fn new(nprocs: usize) -> Endings {
        Endings {
            decided: None,
            hello: vec![false; nprocs],
            finalized: vec![false; nprocs],
            gone: vec![false; nprocs],
            last_site: vec![Site::Unknown; nprocs],
            exit_status: vec![None; nprocs],
            exit_site: vec![None; nprocs],
            exited: vec![false; nprocs],
            quiet: Vec::new(),
            checks: Vec::new(),
        }
    }

    /// The ending, once decided.
    pub fn decided(&self) -> Option<&Ending> {
        self.decided.as_ref()
    }

    /// Takes the decided ending.
    pub fn take(&mut self) -> Option<Ending> {
        self.decided.take()
    }

    /// Decides `e`, unless an ending was decided or argument checks came
    /// before it (the lowest rank's of them wins).
    fn decide(&mut self, e: Ending) {
        self.settle_checks();
        self.decided.get_or_insert(e);
    }

    /// Rank `r` reported the argument check (or unmodelled call) `e`: held
    /// until [`Endings::settle_checks`].
    fn check(&mut self, r: usize, e: Ending) {
        if self.decided.is_none() {
            self.checks.push((r, e));
        }
    }

    /// Whether argument checks wait to be settled: the loop lets the other
    /// ranks go on until each has reported one ([`Endings::checked`]), waits
    /// or is gone, for a short while at most.
    pub fn checks_pending(&self) -> bool {
        self.decided.is_none() && !self.checks.is_empty()
    }

    /// Whether rank `r` reported an argument check, or is gone.
    pub fn checked(&self, r: usize) -> bool {
        self.gone[r] || self.checks.iter().any(|&(c, _)| c == r)
    }

    /// Decides the lowest rank's argument check (its first), if any.
    pub fn settle_checks(&mut self) {
        if self.decided.is_some() || self.checks.is_empty() {
            return;
        }
        let checks = std::mem::take(&mut self.checks);
        let lowest = checks.iter().map(|&(r, _)| r).min();
        self.decided = checks
            .into_iter()
            .find(|&(r, _)| Some(r) == lowest)
            .map(|(_, e)| e);
    }

    /// Rank `r` connected.
    pub fn hello(&mut self, r: usize) {
        self.hello[r] = true;
    }

    /// Rank `r` made a call.
    pub fn call(&mut self, r: usize, site: Site, op: &Op) {
        self.last_site[r] = site;
        if matches!(op, Op::Finalize) {
            self.finalized[r] = true;
        }
    }

    /// Rank `r` called `MPI_Abort`.
    pub fn abort(&mut self, r: usize, site: Site, code: i32) {
        self.decide(Ending::Abort {
            rank: r,
            code,
            site,
        });
    }

    /// Rank `r` died of `signal`.
    pub fn crash(&mut self, r: usize, site: Site, signal: i32) {
        self.decide(Ending::Crash {
            rank: r,
            signal,
            site,
        });
    }

    /// Rank `r` called a function fib does not model.
    pub fn unsupported(&mut self, r: usize, site: Site, name: String) {
        self.check(
            r,
            Ending::Unsupported {
                rank: r,
                name,
                site,
            },
        );
    }

    /// Rank `r` found an argument of its call at `site` that MPI does not
    /// accept.
    pub fn invalid(&mut self, r: usize, site: Site, message: String) {
        self.check(
            r,
            Ending::Invalid {
                rank: r,
                message,
                site,
            },
        );
    }

    /// Rank `r`'s call at `site` was to write its new request's handle
    /// over the active request made at `first`.
    pub fn reused(&mut self, r: usize, site: Site, first: Site) {
        self.check(
            r,
            Ending::Reused {
                rank: r,
                site,
                first,
            },
        );
    }

    /// Rank `r`'s call `call` at `site` has a buffer that runs past its
    /// memory, as `fault` says.
    pub fn overflow(&mut self, r: usize, site: Site, call: String, fault: fib_wire::Overflow) {
        self.check(
            r,
            Ending::Overflow {
                rank: r,
                site,
                call,
                fault,
            },
        );
    }

    /// Rank `r`'s one-sided call `call` at `site`, on window `win` made at
    /// `made`, is wrong as `fault` says.
    pub fn one_sided(
        &mut self,
        r: usize,
        site: Site,
        call: String,
        win: Option<u32>,
        made: Site,
        fault: RmaFault,
    ) {
        self.check(
            r,
            Ending::OneSided {
                rank: r,
                site,
                call,
                win,
                made,
                fault,
            },
        );
    }

    /// The MPI library raised an error in rank `r`'s call.
    pub fn mpi_error(&mut self, r: usize, site: Site, code: i32, text: String) {
        self.decide(Ending::MpiError {
            rank: r,
            code,
            text,
            site,
        });
    }

    /// Rank `r` is exiting with `status`, its last MPI call at `site`.
    pub fn exit_status(&mut self, r: usize, site: Site, status: i32) {
        self.exited[r] = true;
        if site.is_known() {
            self.exit_site[r] = Some(site);
        }
        if status == 0 {
            return;
        }
        self.exit_status[r] = Some(status);
        if self.finalized[r] {
            self.decide(Ending::BadExit {
                rank: r,
                status,
                site,
            });
        }
    }

    /// A rank (if known) broke the protocol.
    pub fn protocol(&mut self, rank: Option<usize>, message: String) {
        self.decide(Ending::Protocol { rank, message });
    }

    /// Rank `r`'s connection closed; `engine_finalized` says whether the
    /// engine let it pass `MPI_Finalize`.
    pub fn eof(&mut self, r: usize, engine_finalized: bool) {
        self.gone[r] = true;
        if self.decided.is_some() || self.finalized[r] || engine_finalized {
            return;
        }
        self.quiet.push(r);
    }

    /// Rank `r` ended without `MPI_Finalize`.
    fn no_finalize(&self, r: usize) -> Ending {
        Ending::NoFinalize {
            rank: r,
            site: self.last_call(r),
            status: self.exit_status[r],
        }
    }

    /// Of the ranks in `candidates`, the one to blame for leaving early: the
    /// first that ended by itself (the launcher kills the others after it).
    fn first_to_leave(&self, candidates: &[usize]) -> Option<usize> {
        candidates
            .iter()
            .copied()
            .find(|&r| self.exited[r])
            .or(candidates.first().copied())
    }

    /// A rank that said it is exiting without having finalized, though its
    /// connection may not have closed yet: on a loaded machine the launcher
    /// can kill the others, and their connections close, before it does.
    fn leaving(&self) -> Option<usize> {
        (0..self.exited.len()).find(|&r| self.exited[r] && !self.finalized[r])
    }

    /// The site of rank `r`'s last MPI call: as it said when exiting, else
    /// its last call the engine saw.
    fn last_call(&self, r: usize) -> Site {
        self.exit_site[r].unwrap_or(self.last_site[r])
    }

    /// Whether a rank died without a report and nothing explains it yet:
    /// the loop then reads every rank once more and calls
    /// [`Endings::settle_quiet_exit`].
    pub fn quiet_exit_pending(&self) -> bool {
        self.decided.is_none() && !self.quiet.is_empty()
    }

    /// Every rank has been read once more after a quiet exit: unless that
    /// explained it, the quiet exit is the ending.
    pub fn settle_quiet_exit(&mut self) {
        // A check reported before explains it.
        self.settle_checks();
        if self.decided.is_none() {
            let quiet_exited = self.quiet.iter().copied().find(|&r| self.exited[r]);
            self.decided = quiet_exited
                .or_else(|| self.leaving())
                .or_else(|| self.first_to_leave(&self.quiet))
                .map(|r| self.no_finalize(r));
        }
    }

    /// The engine's end, if any: a failure ends the run at once; a
    /// completed run ends once every rank has exited.
    pub fn engine(&mut self, end: Option<&RunEnd>) {
        match end {
            Some(RunEnd::Completed) if self.gone.iter().all(|&g| g) => {
                self.decide(Ending::Engine(RunEnd::Completed))
            }
            Some(RunEnd::Completed) | None => {}
            Some(e) => self.decide(Ending::Engine(e.clone())),
        }
    }

    /// The launcher exited with `status` (after everything the ranks sent
    /// was read): the run completed if the engine says so; otherwise it
    /// failed to start if some rank never connected, or the first rank that
    /// did not finalize exited without doing so.
    pub fn launcher_exited(&mut self, status: String, engine_completed: bool) {
        // A rank that ended by itself before finalizing is why the launcher
        // ended the others, even those that had not reached MPI_Init yet.
        let left = self.leaving();
        if engine_completed {
            self.decide(Ending::Engine(RunEnd::Completed));
        } else if let Some(r) = left {
            self.decide(self.no_finalize(r));
        } else if self.hello.iter().any(|&h| !h) {
            self.decide(Ending::LaunchFailed { status });
        } else {
            let left: Vec<usize> = (0..self.finalized.len())
                .filter(|&r| !self.finalized[r])
                .collect();
            let r = self.first_to_leave(&left).unwrap_or(0);
            self.decide(self.no_finalize(r));
        }
    }

    /// The run went past its time limit.
    pub fn timeout(&mut self) {
        self.decide(Ending::Timeout);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn barrier() -> Op {
        Op::Coll {
            kind: fib_wire::CollKind::Barrier,
            comm: fib_wire::COMM_WORLD,
            root: 0,
        }
    }

    fn started(n: usize) -> Endings {
        let mut e = Endings::new(n);
        for r in 0..n {
            e.hello(r);
        }
        e
    }

    #[test]
    fn argument_checks_of_several_ranks_end_the_run_with_the_lowest_ranks_in_any_order() {
        let invalid = |rank: usize, line: u32| Ending::Invalid {
            rank,
            message: format!("rank {rank}'s bad argument"),
            site: Site::Table(line),
        };
        for order in [[2usize, 1], [1, 2]] {
            let mut e = started(3);
            for &r in &order {
                e.invalid(
                    r,
                    Site::Table(10 + r as u32),
                    format!("rank {r}'s bad argument"),
                );
                assert!(e.checks_pending());
                assert!(e.decided().is_none());
            }
            assert!(e.checked(1) && e.checked(2) && !e.checked(0));
            // Rank 0 waits for them: the loop settles.
            e.settle_checks();
            assert!(!e.checks_pending());
            assert_eq!(e.take(), Some(invalid(1, 11)));
        }
        // A check held when another ending comes wins over it, and a quiet
        // exit after it is explained by it.
        let mut e = started(2);
        e.invalid(1, Site::Table(11), "rank 1's bad argument".into());
        e.timeout();
        assert_eq!(e.take(), Some(invalid(1, 11)));
        let mut e = started(2);
        e.invalid(1, Site::Table(11), "rank 1's bad argument".into());
        e.eof(0, false);
        assert!(e.quiet_exit_pending());
        e.settle_quiet_exit();
        assert_eq!(e.take(), Some(invalid(1, 11)));
        // A failure decided first stays.
        let mut e = started(2);
        e.crash(0, Site::Table(3), 11);
        e.invalid(1, Site::Table(11), "rank 1's bad argument".into());
        assert!(!e.checks_pending());
        assert!(matches!(e.take(), Some(Ending::Crash { rank: 0, .. })));
    }

    #[test]
    fn a_report_read_after_a_quiet_exit_explains_it() {
        let mut e = started(2);
        e.call(0, Site::Table(4), &Op::Finalize);
        e.eof(1, false);
        assert!(e.quiet_exit_pending());
        e.crash(0, Site::Table(3), 11);
        e.settle_quiet_exit();
        assert_eq!(
            e.take(),
            Some(Ending::Crash {
                rank: 0,
                signal: 11,
                site: Site::Table(3)
            })
        );
    }

    #[test]
    fn an_unexplained_quiet_exit_names_the_rank_and_its_last_call() {
        let mut e = started(2);
        e.call(1, Site::Table(7), &Op::Finalize);
        e.call(0, Site::Table(2), &barrier());
        e.exit_status(0, Site::Table(2), 3);
        e.eof(0, false);
        e.settle_quiet_exit();
        assert_eq!(
            e.take(),
            Some(Ending::NoFinalize {
                rank: 0,
                site: Site::Table(2),
                status: Some(3)
            })
        );
    }

    #[test]
    fn a_rank_that_said_it_exits_is_blamed_before_its_connection_closes() {
        // Rank 1 leaves main without MPI_Finalize and says so; the launcher
        // then kills rank 0, whose connection closes first.
        let mut e = started(2);
        e.call(0, Site::Table(5), &barrier());
        e.exit_status(1, Site::Table(2), 0);
        e.eof(0, false);
        e.settle_quiet_exit();
        assert_eq!(
            e.take(),
            Some(Ending::NoFinalize {
                rank: 1,
                site: Site::Table(2),
                status: None
            })
        );
    }

    #[test]
    fn the_first_failure_wins_and_a_finalized_rank_may_exit() {
        let mut e = started(3);
        e.call(2, Site::Table(9), &Op::Finalize);
        e.eof(2, false);
        assert!(!e.quiet_exit_pending(), "rank 2 finalized");
        e.abort(0, Site::Table(1), 4);
        e.crash(1, Site::Table(2), 6);
        e.timeout();
        assert!(matches!(
            e.take(),
            Some(Ending::Abort {
                rank: 0,
                code: 4,
                ..
            })
        ));
    }

    #[test]
    fn an_exit_before_finalize_is_shown_at_the_last_mpi_call_the_rank_made() {
        let mut e = started(2);
        e.call(0, Site::Table(1), &barrier());
        // Rank 1 made only calls the engine does not see (MPI_Comm_rank)
        // and exits with status 0; the launcher then kills rank 0, whose
        // end of file may be read first.
        e.eof(0, false);
        e.exit_status(1, Site::Table(4), 0);
        e.eof(1, false);
        e.settle_quiet_exit();
        assert_eq!(
            e.take(),
            Some(Ending::NoFinalize {
                rank: 1,
                site: Site::Table(4),
                status: None
            })
        );
        // Status 0 after MPI_Finalize is no failure.
        let mut e = started(1);
        e.call(0, Site::Table(1), &Op::Finalize);
        e.exit_status(0, Site::Table(1), 0);
        assert!(e.decided().is_none());
    }

    #[test]
    fn a_rank_that_left_early_explains_a_launch_that_never_finished() {
        // Rank 1 initialized and exited; the launcher killed rank 0 before
        // it reached MPI_Init.
        let mut e = Endings::new(2);
        e.hello(1);
        e.exit_status(1, Site::Table(2), 0);
        e.eof(1, false);
        e.launcher_exited("exit status: 1".into(), false);
        assert_eq!(
            e.take(),
            Some(Ending::NoFinalize {
                rank: 1,
                site: Site::Table(2),
                status: None
            })
        );
    }

    #[test]
    fn a_failing_status_after_finalize_is_a_bad_exit() {
        let mut e = started(1);
        e.exit_status(0, Site::Unknown, 2);
        assert!(
            e.decided().is_none(),
            "before MPI_Finalize it is only noted"
        );
        e.call(0, Site::Table(5), &Op::Finalize);
        e.exit_status(0, Site::Table(5), 2);
        assert_eq!(
            e.take(),
            Some(Ending::BadExit {
                rank: 0,
                status: 2,
                site: Site::Table(5)
            })
        );
    }

    #[test]
    fn a_completed_engine_ends_the_run_once_every_rank_is_gone() {
        let mut e = started(2);
        e.engine(Some(&RunEnd::Completed));
        assert!(e.decided().is_none());
        e.call(0, Site::Table(1), &Op::Finalize);
        e.call(1, Site::Table(1), &Op::Finalize);
        e.eof(0, true);
        e.eof(1, true);
        e.engine(Some(&RunEnd::Completed));
        assert_eq!(e.take(), Some(Ending::Engine(RunEnd::Completed)));
    }

    #[test]
    fn a_launcher_that_exits_early_failed_to_start_or_lost_a_rank() {
        let mut e = Endings::new(2);
        e.hello(0);
        e.launcher_exited("exit status: 1".into(), false);
        assert_eq!(
            e.take(),
            Some(Ending::LaunchFailed {
                status: "exit status: 1".into()
            })
        );
        let mut e = started(2);
        e.call(0, Site::Table(1), &Op::Finalize);
        e.call(1, Site::Table(6), &barrier());
        e.launcher_exited("exit status: 1".into(), false);
        assert!(matches!(e.take(), Some(Ending::NoFinalize { rank: 1, .. })));
        let mut e = started(1);
        e.launcher_exited("exit status: 0".into(), true);
        assert_eq!(e.take(), Some(Ending::Engine(RunEnd::Completed)));
    }
}
