//! Explores a program's interleavings: a [`Strategy`] decides which
//! interleaving runs next ([`poe::explore`]), [`run::run`] runs it for real,
//! and the pure [`Exploration`] turns each run into findings and keeps what
//! the barrier verdicts need. An interrupt ([`launch::interrupted`]) ends
//! exploration with what the runs made before it showed.

pub mod launch;
pub mod run;

use fib_analysis::{Exploration, Explored, Keep, Resolver};
use poe::explore::{Ran, Stopped, Strategy};
use poe::Token;

use crate::progress::Tracker;
use crate::DriverError;
pub use run::RunSpec;

/// Runs interleavings as `strategy` hands them out, at most `limit` of
/// them, until it has none left, a run says to stop or the user interrupts
/// fib ([`Explored::interrupted`]), telling `progress` after each run. With
/// `log_first`, the first run keeps its calls for the check of deadlocks
/// that buffering hides.
pub(crate) fn explore(
    spec: &RunSpec,
    strategy: &mut dyn Strategy,
    limit: usize,
    log_first: bool,
    sites: &Resolver,
    keep: Keep,
    progress: &mut Tracker,
) -> Result<Explored, DriverError> {
    let mut exploration = Exploration::new(sites, keep);
    let mut first = true;
    let stopped = poe::explore::explore_watched(
        strategy,
        limit,
        |plan| {
            let planned = plan.len();
            let rec = run::run(spec, plan, log_first && first)?;
            first = false;
            let choices = rec.choices.clone();
            let token = Token::of(&choices).to_string();
            let stop = exploration.add(rec, token, planned);
            Ok::<_, DriverError>(Ran { choices, stop })
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
