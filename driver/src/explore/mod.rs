//! Explores a program's interleavings: a [`Strategy`] decides which
//! interleaving runs next ([`poe::explore`]), [`run::run`] runs it for real,
//! and the pure [`Exploration`] turns each run into findings and keeps what
//! the barrier verdicts need.

pub mod launch;
pub mod run;

use fib_analysis::{Exploration, Explored, Keep, Resolver};
use poe::explore::{Ran, Stopped, Strategy};
use poe::Token;

use crate::DriverError;
pub use run::RunSpec;

/// Runs interleavings as `strategy` hands them out, at most `limit` of
/// them, until it has none left or a run says to stop. With `log_first`,
/// the first run keeps its calls for the check of deadlocks that buffering
/// hides.
pub fn explore(
    spec: &RunSpec,
    strategy: &mut dyn Strategy,
    limit: usize,
    log_first: bool,
    sites: &Resolver,
    keep: Keep,
) -> Result<Explored, DriverError> {
    let mut exploration = Exploration::new(sites, keep);
    let mut first = true;
    let stopped = poe::explore::explore(strategy, limit, |plan| {
        let planned = plan.len();
        let rec = run::run(spec, plan, log_first && first)?;
        first = false;
        let choices = rec.choices.clone();
        let token = Token::of(&choices).to_string();
        let stop = exploration.add(rec, token, planned);
        Ok::<_, DriverError>(Ran { choices, stop })
    })?;
    if stopped == Stopped::Limit {
        exploration.cut(limit);
    }
    Ok(exploration.finish())
}
