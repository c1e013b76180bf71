//! The barrier verdicts of a program once explored: the Fib pass over the
//! exploration's runs ([`fib_analysis::barriers`]), and with `--confirm`
//! the proof of every verdict by removal (each covered group deleted, the
//! program explored again, and what its messages can do compared,
//! [`fib_analysis::confirm`]).

use std::time::{Duration, Instant};

use fib_analysis::{barriers, confirm, Explored, GroupVerdict, Keep, Resolver};
use fib_report::{Finding, Outcome, Verdict};
use poe::explore::DepthFirst;

use super::explore::{self, RunSpec};
use super::progress::{Phase, Tracker};
use super::Options;
use crate::DriverError;

/// The barrier verdicts of one program, the findings that show them, and
/// what they cost.
pub(super) struct Barriers {
    pub groups: Vec<GroupVerdict>,
    pub findings: Vec<Finding>,
    /// MPI calls of the re-explorations without each group.
    pub calls: u64,
    /// The user interrupted a re-exploration; the groups not yet settled
    /// keep the fast method's verdicts.
    pub interrupted: bool,
    pub fib: Duration,
    pub confirm: Option<Duration>,
}

/// The Fib pass over the exploration's runs of `program`, and with
/// `--confirm` the proof of every verdict by removal. After an interrupt,
/// only what the runs made prove: no group is called irrelevant.
pub(super) fn judge_barriers(
    spec: &RunSpec,
    sites: &Resolver,
    base: &Explored,
    opts: &Options,
    program: &str,
    tracker: &mut Tracker,
) -> Result<Barriers, DriverError> {
    let phase = Instant::now();
    let mut groups = barriers::classify(sites, &base.traces, base.interleavings);
    let fib = phase.elapsed();
    if base.interrupted {
        barriers::undecided(&mut groups);
        let cx = barriers::Context {
            failing: base.outcome != Outcome::Ok,
            interrupted: Some(base.interleavings),
            ..Default::default()
        };
        return Ok(Barriers {
            findings: barriers::findings(&groups, cx),
            groups,
            calls: 0,
            interrupted: true,
            fib,
            confirm: None,
        });
    }
    let phase = Instant::now();
    // The fast method assumes a program without deadlocks or crashes: in one
    // that has them, a barrier can matter through the failure itself, which
    // only removal sees.
    let failing = base.outcome != Outcome::Ok;
    let removal = match opts.confirm {
        true => confirm_groups(spec, sites, base, opts, program, tracker, &mut groups)?,
        false => Removal::default(),
    };
    let interrupted = removal.interrupted;
    if interrupted && failing {
        // In a failing program the fast method's verdicts stand only once
        // removal has settled them; an unsettled "irrelevant" is no verdict.
        for g in groups
            .iter_mut()
            .filter(|g| !g.report.confirmed && g.report.verdict == Verdict::Irrelevant)
        {
            g.report.verdict = Verdict::Undecided;
            g.report.witness = None;
        }
    }
    let cx = barriers::Context {
        failing,
        confirmed: opts.confirm,
        cut: base.cut,
        all_failed: base.all_failed(),
        interrupted: interrupted.then_some(base.interleavings),
    };
    let mut findings = barriers::findings(&groups, cx);
    findings.extend(removal.disagreements);
    Ok(Barriers {
        groups,
        findings,
        calls: removal.calls,
        interrupted,
        fib,
        confirm: opts.confirm.then(|| phase.elapsed()),
    })
}

/// What the proof by removal did.
#[derive(Default)]
struct Removal {
    /// MPI calls of the re-explorations.
    calls: u64,
    /// Groups on which the fast method and removal disagree (FIB017).
    disagreements: Vec<Finding>,
    /// The user interrupted it: the groups not reached keep the fast
    /// verdicts.
    interrupted: bool,
}

/// `--confirm`: re-explores the program without each covered group and
/// settles its verdict with what removal shows.
fn confirm_groups(
    spec: &RunSpec,
    sites: &Resolver,
    base: &Explored,
    opts: &Options,
    program: &str,
    tracker: &mut Tracker,
    groups: &mut [GroupVerdict],
) -> Result<Removal, DriverError> {
    let mut out = Removal::default();
    let failing = base.outcome != Outcome::Ok;
    let covered = groups
        .iter()
        .filter(|g| g.report.verdict != Verdict::NotCovered)
        .count();
    for (k, g) in groups
        .iter_mut()
        .filter(|g| g.report.verdict != Verdict::NotCovered)
        .enumerate()
    {
        tracker.phase(Phase::Confirming {
            group: k + 1,
            groups: covered,
        });
        let removed = RunSpec {
            elide: Some(barriers::elide_spec(sites, &g.sites)),
            ..*spec
        };
        let keep = Keep {
            traces: false,
            signature: true,
        };
        let mut strategy = DepthFirst::new();
        let walk = explore::Walk {
            limit: opts.max_interleavings,
            jobs: opts.jobs,
            log_first: false,
            keep_first: false,
        };
        let without = explore::explore_until(
            &removed,
            &mut strategy,
            walk,
            sites,
            keep,
            tracker,
            Some(&base.signature),
        )?;
        out.calls += without.calls;
        if without.interrupted {
            // Removal saw only part of the program without the group: this
            // group and the ones after it keep the fast verdicts.
            out.interrupted = true;
            break;
        }
        out.disagreements.extend(confirm::settle(
            program,
            g,
            failing,
            base.interleavings,
            &base.signature,
            &without.signature,
        ));
    }
    Ok(out)
}
