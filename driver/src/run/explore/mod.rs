//! Explores a program's interleavings: a [`Strategy`] decides which
//! interleaving runs next ([`poe::explore`]), [`run::run`] runs it for real,
//! and the pure [`Exploration`] turns each run into findings and keeps what
//! the barrier verdicts need. An interrupt
//! ([`crate::processes::interrupted`]) ends exploration with what the runs
//! made before it showed.

mod ahead;
mod launch;
mod listen;
mod recorded;
mod rerun;
mod run;

use std::sync::Mutex;

use fib_analysis::confirm::Signature;
use fib_analysis::{Exploration, Explored, Keep, Resolver, RunRecord};
use poe::explore::{Ran, Stopped, Strategy};
use poe::Token;
use rustc_hash::FxHashSet as HashSet;

use super::progress::Tracker;
use crate::DriverError;
use recorded::Ordinals;
pub use run::{Exchangeable, RunSpec};

/// How a program's interleavings are explored.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Walk {
    /// At most this many interleavings.
    pub limit: usize,
    /// How many interleavings may run at once (`--jobs`).
    pub jobs: usize,
    /// The first run keeps its calls for the check of deadlocks that
    /// buffering hides.
    pub log_first: bool,
    /// The first run keeps the files it wrote into its scratch directory
    /// ([`RunSpec::scratch`]).
    pub keep_first: bool,
}

/// Runs interleavings as `strategy` hands them out, at most `walk.limit`
/// of them, until it has none left, a run says to stop or the user
/// interrupts fib ([`Explored::interrupted`]), telling `progress` after
/// each run. Up to `walk.jobs` run at once; the runs are taken in the
/// strategy's order whatever the number of jobs
/// ([`poe::explore::explore_parallel`]), so the result is the same.
pub(crate) fn explore(
    spec: &RunSpec,
    strategy: &mut dyn Strategy,
    walk: Walk,
    sites: &Resolver,
    keep: Keep,
    progress: &mut Tracker,
) -> Result<Explored, DriverError> {
    explore_until(spec, strategy, walk, sites, keep, progress, None)
}

/// [`explore`] that stops, when `differs_from` is given, at the first run
/// after which what the exploration has shown ([`Keep::signature`]) differs
/// from it: removal has then proved a barrier group relevant, and the rest
/// of the program without it need not run.
pub(crate) fn explore_until(
    spec: &RunSpec,
    strategy: &mut dyn Strategy,
    walk: Walk,
    sites: &Resolver,
    keep: Keep,
    progress: &mut Tracker,
    differs_from: Option<&Signature>,
) -> Result<Explored, DriverError> {
    let mut exploration = Exploration::new(sites, keep);
    // What forces a recorded run's plan: learnt from the runs before it.
    let ordinals = Ordinals::default();
    let limit = walk.limit;
    let order_matters = Mutex::new(HashSet::default());
    let stopped = poe::explore::explore_parallel(
        strategy,
        limit,
        walk.jobs,
        |plan, first| {
            let mut rec = run::run(
                spec,
                plan,
                walk.log_first && first,
                walk.keep_first && first,
                &ordinals,
            )?;
            try_orders(spec, &mut rec, &order_matters, &ordinals)?;
            Ok(rec)
        },
        |plan, rec| {
            let choices = rec.choices.clone();
            let token = Token::of(&choices).to_string();
            let mut stop = exploration.add(rec, token, plan.len());
            if let Some(base) = differs_from {
                stop |= base.lacks_some_of(exploration.signature());
            }
            Ran { choices, stop }
        },
        |runs, pending| progress.ran(runs, pending, limit.saturating_sub(runs)),
    );
    match stopped {
        Ok(Stopped::Limit) => exploration.cut(limit),
        Ok(_) => {}
        // The run in progress was killed and thrown away, or none started.
        Err(DriverError::Interrupted) => exploration.interrupt(),
        Err(e) => return Err(e),
    }
    Ok(exploration.finish())
}

/// At most this many other orders of one row are tried (a row of 4
/// receives from 4 senders has 23).
const MAX_ORDERS: usize = 23;

/// Tries the other orders of `rec`'s rows of wildcard receives that
/// nothing vouched for ([`RunRecord::untried`]), each in probe runs with
/// every other choice as `rec` took it; a row whose every order does what
/// `rec` did becomes one of its exchangeable blocks, so that `rec` stands
/// for its other orders (`fib_analysis::orders`). The probe runs are not
/// interleavings of the exploration: what they show is `rec`'s. When a
/// probe run differs only in data sent, one run of `rec`'s choices again
/// tells which of that data no order decides (`orders::same`).
///
/// A row of a rank whose receives were made at sites where another order
/// once did something else (`order_matters`, shared by the runs of one
/// exploration) is not tried again: the programs where it matters would
/// otherwise pay a probe run for every such row of every interleaving.
fn try_orders(
    spec: &RunSpec,
    rec: &mut RunRecord,
    order_matters: &Mutex<HashSet<(usize, Vec<fib_wire::Site>)>>,
    ordinals: &Ordinals,
) -> Result<(), DriverError> {
    use fib_analysis::orders;
    if rec.untried.is_empty() || rec.streams.is_none() || !rec.ending.completed() {
        return Ok(());
    }
    let lock = || order_matters.lock().unwrap_or_else(|e| e.into_inner());
    // A run of `rec`'s choices again, made the first time a probe run
    // differs only in data sent.
    let mut twin: Option<RunRecord> = None;
    for row in std::mem::take(&mut rec.untried) {
        let rank = row.recvs.first().map_or(0, |r| r.rank);
        let sites: (usize, Vec<fib_wire::Site>) = (
            rank,
            row.recvs
                .iter()
                .filter_map(|r| rec.ops.get(r.rank)?.get(r.index).map(|o| o.site))
                .collect(),
        );
        if lock().contains(&sites) {
            continue;
        }
        let orders = row.orders(MAX_ORDERS);
        if orders.is_empty() {
            continue;
        }
        let mut alike = true;
        for order in &orders {
            let plan = orders::plan(&rec.choices, &row, order);
            // An interrupted probe run ends the trying, not the run that
            // finished: it is an interleaving like any other, its rows left
            // for the exploration (which sees the interruption next).
            let Some(probe) = finished(run::run(spec, plan, false, false, ordinals))? else {
                return Ok(());
            };
            rec.probes += 1;
            let mut compared = orders::same(rec, &probe, &row, twin.as_ref());
            if compared == orders::Compared::DataOnly {
                let Some(again) = finished(run::run(
                    spec,
                    orders::again(&rec.choices),
                    false,
                    false,
                    ordinals,
                ))?
                else {
                    return Ok(());
                };
                rec.probes += 1;
                compared = orders::same(rec, &probe, &row, Some(&again));
                twin = Some(again);
            }
            if compared != orders::Compared::Same {
                alike = false;
                lock().insert(sites);
                break;
            }
        }
        if alike {
            poe::engine::predict(&mut rec.choices, &row);
            rec.exchanges.push(row);
        }
    }
    Ok(())
}

/// A probe run's record, or `None` when the user interrupted it.
fn finished(run: Result<RunRecord, DriverError>) -> Result<Option<RunRecord>, DriverError> {
    match run {
        Ok(rec) => Ok(Some(rec)),
        Err(DriverError::Interrupted) => Ok(None),
        Err(e) => Err(e),
    }
}
