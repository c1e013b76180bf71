//! What one run shows: the finding its ending is (a deadlock, a crash, a
//! divergent replay, ...), the outcome it counts as, and whether exploring
//! further makes sense; and the deadlock the run's calls would reach
//! without buffering.

use fib_report::codes::Code;
use fib_report::codes::{
    self, Abort, BufferingDeadlock, ChoiceAt, CollectiveMismatch, Crash, Deadlock, ExplorationCut,
    FailingExit, InvalidCall, Livelock, LostTrack, MpiError, NoFinalize, ReadySendUnposted,
    ReplayDiverged, Rule, Timeout, Unsupported,
};
use fib_report::{Finding, Outcome, RankState};
use poe::engine::{ChoicePoint, RankView, RunEnd};

use crate::record::{Ending, RunRecord};
use crate::sites::{FileNames, Resolver};
use crate::timeline;

/// What one run's ending shows.
pub struct Judged {
    pub finding: Option<Finding>,
    pub outcome: Outcome,
    /// Whether exploring further makes no sense (fib cannot follow the
    /// program).
    pub stop: bool,
    /// The code of the error the run ended with, if any.
    pub code: Option<&'static Code>,
}

/// Judges one run, whose replay token is `token`; `short` says a replayed
/// token named more choices than the run had.
pub fn judge(sites: &Resolver, rec: &RunRecord, token: &str, short: bool) -> Judged {
    let (finding, outcome, stop) = ending_finding(sites, rec, token.to_string(), short);
    Judged {
        code: finding.as_ref().map(|f| f.code),
        finding,
        outcome,
        stop,
    }
}

fn ending_finding(
    sites: &Resolver,
    rec: &RunRecord,
    replay: String,
    short: bool,
) -> (Option<Finding>, Outcome, bool) {
    let files = &rec.files;
    let place = |site, callee: &str| sites.place(site, callee, files);
    let stderr = rec.stderr.clone();
    let (f, outcome, stop) = match &rec.ending {
        Ending::Engine(RunEnd::Completed) if short => (
            ReplayDiverged::TooManyChoices { replay }.finding(),
            Outcome::Unsupported,
            true,
        ),
        Ending::Engine(RunEnd::Completed) => return (None, Outcome::Ok, false),
        Ending::Engine(end) => return engine_finding(sites, rec, end, replay),
        Ending::Crash { .. }
        | Ending::Abort { .. }
        | Ending::MpiError { .. }
        | Ending::NoFinalize { .. }
        | Ending::BadExit { .. } => {
            let f = rank_failure(sites, rec, replay);
            (f, Outcome::Crash, false)
        }
        Ending::Unsupported { rank, name, site } => {
            let f = Unsupported::Reached {
                rank: *rank,
                call: name.clone(),
                place: place(*site, name),
                scope: crate::support::scope(name),
                replay,
            };
            (f.finding(), Outcome::Unsupported, true)
        }
        Ending::Invalid {
            rank,
            message,
            site,
        } => {
            let f = InvalidCall {
                rank: *rank,
                message: message.clone(),
                place: place(*site, ""),
                earlier: None,
                replay,
            };
            (f.finding(), Outcome::Crash, false)
        }
        Ending::Reused { rank, site, first } => {
            let call = sites.call_name(*site, "", files);
            let earlier = match sites.call_name(*first, "", files) {
                name if name.is_empty() => "MPI call".to_string(),
                name => name,
            };
            let at = place(*first, "");
            let whose = match (&at.file, at.line) {
                (Some(file), Some(line)) => format!("the {earlier} at {file}:{line}"),
                _ => format!("an earlier {earlier}"),
            };
            let call = if call.is_empty() {
                "the call".to_string()
            } else {
                call
            };
            let f = InvalidCall {
                rank: *rank,
                message: format!(
                    "{call} writes its request into a variable that still holds the active \
                     request of {whose}, which could then never be completed"
                ),
                place: place(*site, ""),
                earlier: Some((at, format!("the {earlier} whose request would be lost"))),
                replay,
            };
            (f.finding(), Outcome::Crash, false)
        }
        Ending::OneSided {
            rank,
            site,
            call,
            win,
            made,
            fault,
        } => {
            let e = crate::onesided::OneSided {
                rank: *rank,
                site: *site,
                call,
                win: *win,
                made: *made,
                fault,
            };
            let f = crate::onesided::finding(sites, files, &e, replay);
            (f, Outcome::Crash, false)
        }
        Ending::Overflow {
            rank,
            site,
            call,
            fault,
        } => {
            let f = crate::extents::finding(sites, files, *rank, *site, call, fault, replay);
            (f, Outcome::Crash, false)
        }
        Ending::Timeout => {
            let f = Timeout {
                ranks: with_threads(rank_states(sites, files, &rec.ranks), &rec.ranks, rec),
                last: rec
                    .ranks
                    .iter()
                    .find(|v| v.call.is_none() && !v.finalized)
                    .and_then(|v| v.last.map(|c| sites.call_name(v.site, c, files))),
                replay,
            };
            (f.finding(), Outcome::Timeout, false)
        }
        Ending::LaunchFailed { status } => {
            let f = NoFinalize::LaunchEnded {
                status: status.clone(),
                calls: rec.calls,
                stderr,
                replay,
            };
            (f.finding(), Outcome::Crash, false)
        }
        Ending::Protocol { rank, message } => {
            let f = LostTrack {
                rank: *rank,
                message: message.clone(),
                replay,
            };
            (f.finding(), Outcome::Unsupported, true)
        }
    };
    (Some(f), outcome, stop)
}

/// The finding of a run in which a rank failed: crashed, aborted, hit an
/// MPI error, exited without finalizing or with a failing status after.
fn rank_failure(sites: &Resolver, rec: &RunRecord, replay: String) -> Finding {
    let files = &rec.files;
    let place = |site, callee: &str| sites.place(site, callee, files);
    let stderr = rec.stderr.clone();
    match &rec.ending {
        Ending::Crash { rank, signal, site } => {
            let f = Crash {
                rank: *rank,
                signal: *signal,
                place: place(*site, ""),
                after_call: site.is_known(),
                stderr,
                replay,
            };
            f.finding()
        }
        Ending::Abort { rank, code, site } => {
            let f = Abort {
                rank: *rank,
                error_code: *code,
                place: place(*site, "MPI_Abort"),
                stderr,
                replay,
            };
            f.finding()
        }
        Ending::MpiError {
            rank, text, site, ..
        } => {
            let f = MpiError {
                rank: *rank,
                call: sites.call_site(*site, "", files).map(|s| s.callee.clone()),
                text: text.clone(),
                place: place(*site, ""),
                replay,
            };
            f.finding()
        }
        Ending::NoFinalize { rank, site, status } => {
            let f = NoFinalize::Exited {
                rank: *rank,
                status: *status,
                place: place(*site, ""),
                last_call: site.is_known(),
                stderr,
                replay,
            };
            f.finding()
        }
        Ending::BadExit { rank, status, site } => {
            let f = FailingExit {
                rank: *rank,
                status: *status,
                place: place(*site, "MPI_Finalize"),
                stderr,
                replay,
            };
            f.finding()
        }
        other => unreachable!("not a rank failure: {other:?}"),
    }
}

/// The finding of a run the engine ended with something other than
/// completion; a deadlock, livelock or collective mismatch with the
/// picture of the run.
fn engine_finding(
    sites: &Resolver,
    rec: &RunRecord,
    end: &RunEnd,
    replay: String,
) -> (Option<Finding>, Outcome, bool) {
    let files = &rec.files;
    let stuck = |views| Some(timeline::stuck(sites, files, &rec.ops, &rec.fired, views));
    let (f, outcome, stop) = match end {
        RunEnd::Completed => return (None, Outcome::Ok, false),
        RunEnd::ArgsDiffer {
            collective,
            mismatch,
        } => (
            crate::params::finding(sites, rec, *collective, mismatch, replay),
            Outcome::Crash,
            false,
        ),
        RunEnd::Deadlock { ranks: views } => {
            let ranks = with_threads(rank_states(sites, files, views), views, rec);
            (
                Deadlock { ranks, replay }
                    .finding()
                    .with_timeline(stuck(views)),
                Outcome::Deadlock,
                false,
            )
        }
        RunEnd::Livelock { ranks: views } => {
            let ranks = with_threads(rank_states(sites, files, views), views, rec);
            (
                Livelock { ranks, replay }
                    .finding()
                    .with_timeline(stuck(views)),
                Outcome::Deadlock,
                false,
            )
        }
        RunEnd::CollectiveMismatch { comm, calls } => {
            let ranks = calls
                .iter()
                .map(|(id, name, site)| {
                    let call = sites.call_name(*site, name, files);
                    rank_state(id.rank, call, sites.place(*site, name, files))
                })
                .collect();
            let f = CollectiveMismatch {
                comm: comm_name(*comm),
                ranks,
                replay,
            };
            let ids: Vec<_> = calls.iter().map(|(id, _, _)| *id).collect();
            let picture = timeline::mismatch(sites, files, &rec.ops, &rec.fired, &ids);
            (
                f.finding().with_timeline(Some(picture)),
                Outcome::Deadlock,
                false,
            )
        }
        RunEnd::Divergence {
            index,
            expected,
            found,
        } => {
            let f = ReplayDiverged::Diverged {
                index: *index,
                expected: expected.as_ref().map(choice_at),
                found: found.as_ref().map(choice_at),
                place: found
                    .as_ref()
                    .map(|p| sites.place(p.site, "", files))
                    .unwrap_or_default(),
                replay,
            };
            (f.finding(), Outcome::Unsupported, true)
        }
        RunEnd::Invalid { op, site, message } => {
            let f = InvalidCall {
                rank: op.rank,
                message: message.clone(),
                place: sites.place(*site, "", files),
                earlier: None,
                replay,
            };
            (f.finding(), Outcome::Crash, false)
        }
        RunEnd::ReadyUnposted {
            op,
            site,
            call: name,
            dst,
        } => {
            let f = ReadySendUnposted {
                rank: op.rank,
                call: sites.call_name(*site, name, files),
                dest: *dst,
                place: sites.place(*site, name, files),
                replay,
            };
            (f.finding(), Outcome::Crash, false)
        }
    };
    (Some(f), outcome, stop)
}

fn choice_at(p: &ChoicePoint) -> ChoiceAt {
    ChoiceAt {
        rank: p.at.rank,
        call: p.at.index,
        alternatives: p.alternatives.len(),
    }
}

fn rank_state(rank: usize, call: String, p: fib_report::Place) -> RankState {
    RankState {
        rank,
        call,
        file: p.file,
        line: p.line,
        column: p.column,
        span: p.span,
        thread: None,
    }
}

/// The ranks' states with, for a rank that had several threads, the
/// thread of the call it waits in: the first of the engine's view's
/// threads when its threads were inside MPI at once, else its last call's
/// ([`RunRecord::call_threads`]).
fn with_threads(mut ranks: Vec<RankState>, views: &[RankView], rec: &RunRecord) -> Vec<RankState> {
    for s in &mut ranks {
        let Some(last) = rec.ops.get(s.rank).and_then(|o| o.len().checked_sub(1)) else {
            continue;
        };
        if matches!(s.call.as_str(), "finished" | "running") {
            continue;
        }
        let waiting = views.get(s.rank).and_then(|v| v.threads.first());
        s.thread = match waiting {
            Some(t) if t.call.is_some() => Some(t.thread),
            _ => rec
                .call_threads
                .iter()
                .rev()
                .find(|c| c.rank == s.rank && c.call == last as u64)
                .map(|c| c.thread),
        };
    }
    ranks
}

/// Where every rank stood: the call it was blocked in, or whether it had
/// finished or was still running.
fn rank_states(sites: &Resolver, files: &FileNames, views: &[RankView]) -> Vec<RankState> {
    views
        .iter()
        .map(|v| {
            let p = sites.place(v.site, v.call.unwrap_or(""), files);
            let call = match (v.call, v.finalized) {
                (Some(c), _) => sites.call_name(v.site, c, files),
                (None, true) => "finished".to_string(),
                (None, false) => "running".to_string(),
            };
            rank_state(v.rank, call, p)
        })
        .collect()
}

fn comm_name(comm: u32) -> String {
    match comm {
        fib_wire::COMM_WORLD => "MPI_COMM_WORLD".into(),
        fib_wire::COMM_SELF => "MPI_COMM_SELF".into(),
        c => format!("communicator #{c}"),
    }
}

/// The deadlock that the calls of a completed buffered run show when
/// rerun in the engine without buffering ([`RunRecord::unbuffered`]): the
/// program completed only because MPI buffered a standard send, which large
/// messages or another MPI library do not.
pub fn without_buffering(
    sites: &Resolver,
    files: &FileNames,
    rerun: &poe::sim::RunResult,
    token: &str,
) -> Option<Finding> {
    let RunEnd::Deadlock { ranks } = &rerun.end else {
        return None;
    };
    let f = BufferingDeadlock {
        ranks: rank_states(sites, files, ranks),
        replay: token.to_string(),
    };
    let picture = timeline::stuck(sites, files, &rerun.ops, &rerun.fired, ranks);
    Some(f.finding().with_timeline(Some(picture)))
}

/// Exploration stopped at the interleaving limit.
pub fn exploration_cut(limit: usize) -> Finding {
    ExplorationCut {
        max_interleavings: limit,
    }
    .finding()
}

/// The program did not build.
pub fn build_failed(
    program: &str,
    stage: codes::BuildStage,
    file: Option<String>,
    line: Option<u32>,
    output: &str,
) -> Finding {
    codes::BuildFailed {
        program: program.to_string(),
        stage,
        file,
        line,
        output: output.to_string(),
    }
    .finding()
}

/// The worse of two outcomes: a program that cannot be built or followed is
/// worse than one that crashes, deadlocks or times out.
pub fn worse(a: Outcome, b: Outcome) -> Outcome {
    let rank = |o: Outcome| match o {
        Outcome::Ok => 0,
        Outcome::Timeout => 1,
        Outcome::Deadlock => 2,
        Outcome::Crash => 3,
        Outcome::Unsupported => 4,
        Outcome::BuildFailed => 5,
    };
    if rank(b) > rank(a) {
        b
    } else {
        a
    }
}

/// Whether two runs' endings show the same finding (one is reported once).
pub fn same_run_finding(a: &Finding, b: &Finding) -> bool {
    a.code == b.code && a.message == b.message && a.ranks == b.ranks
}
