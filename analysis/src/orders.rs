//! Rows of wildcard receives whose order is tried: whether another order
//! of a row changes anything other ranks can see.
//!
//! A run's row of `MPI_ANY_SOURCE` receives that meets every condition of
//! an exchangeable block (the engine's `exchange` module) but whose data or
//! statuses may reach what the program does next ([`poe::Engine::untried`])
//! is run again in each of its other orders, every other choice of the run
//! the same ([`plan`]): the *probe runs*. When each probe run completes and
//! every rank made the same calls, with the same arguments, at the same
//! sites, and sent the same data (the [`Stream`](crate::stream::Stream) of each rank: its calls
//! and the hashes of the data of its sends and collectives, [`same`]), the
//! row is an exchangeable block: the run stands for its other orders.
//!
//! Why rows of different ranks (or of one rank at different places) can be
//! tried one at a time, each with the others in this run's order, so that
//! their cost is the sum of their orders, not the product. Take any
//! combination of orders of tried rows, and suppose some run under it
//! differs from this run outside the rows' matches. Take a first
//! difference in causal order: a call of a rank `r`, or the data of a
//! message. Everything `r` received before it came from sends earlier in
//! causal order, so with this run's data; `r` is deterministic, and its
//! wildcard receives outside the rows took what they took in this run, so
//! `r` is where it was in the probe run of its own row's order (or in this
//! run, if `r` has no tried row), whose calls and data are this run's. So
//! the first difference cannot be a call of `r`. A message's data is its
//! sender's, which the same argument places in that sender's probe run,
//! where it sent this run's data. So no difference exists: every rank
//! makes this run's calls and sends this run's data, and the orders differ
//! only in which receive of a row took which message. That is what an
//! exchangeable block's reduction needs, so the same rules give the pairs
//! and the barrier verdicts.
//!
//! What the streams do not show, a probe run must not have: window memory
//! (whose accesses fib orders across ranks), a call whose data the ranks
//! could not hash ([`Stream::opaque`](crate::stream::Stream::opaque)), an ending other than completion.
//! Each rank's accesses to memory its own pending operations own are
//! compared as its calls are.
//!
//! Data that differs between two runs of the same choices (a time a rank
//! measured and reduced, say) breaks fib's assumption that a rank's
//! matches decide what it does, in every run alike. When a probe run
//! differs from the run only in data, one more run of the run's own
//! choices ([`again`]) finds that data, and the comparison leaves it out:
//! what the proof above needs of it, the row's order cannot give, since
//! two runs of one order do not agree on it either.

use poe::engine::{Alternative, Choice, Exchange, Planned};

use crate::record::RunRecord;

/// The plan of the probe run that takes the run's `choices` again but has
/// the receives of `row` take `order`'s sends.
pub fn plan(choices: &[Choice], row: &Exchange, order: &[poe::OpId]) -> Vec<Planned> {
    choices
        .iter()
        .enumerate()
        .map(|(i, c)| match row.choices.iter().position(|&k| k == i) {
            Some(j) => Planned {
                expect: None,
                taken: 0,
                prefer: Some(Alternative::Send(order[j])),
                before: Some(c.before.clone()),
            },
            None => Planned {
                expect: Some(c.point.clone()),
                taken: c.taken,
                prefer: None,
                before: Some(c.before.clone()),
            },
        })
        .collect()
}

/// Each rank's accesses to memory MPI owned, in its program order.
fn by_rank(r: &RunRecord) -> Vec<Vec<&crate::record::OwnedAccess>> {
    let mut out: Vec<Vec<&crate::record::OwnedAccess>> = Vec::new();
    for a in &r.owned {
        if out.len() <= a.rank {
            out.resize_with(a.rank + 1, Vec::new);
        }
        out[a.rank].push(a);
    }
    out
}

/// The plan of a run that takes the run's `choices` again: the twin whose
/// data tells which of the run's data is not decided by its matches
/// ([`same`]).
pub fn again(choices: &[Choice]) -> Vec<Planned> {
    choices
        .iter()
        .map(|c| Planned {
            expect: Some(c.point.clone()),
            taken: c.taken,
            prefer: None,
            before: Some(c.before.clone()),
        })
        .collect()
}

/// How the probe run `probe` of `row` compares with `base`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compared {
    /// It did what `base` did.
    Same,
    /// It did something else.
    Differs,
    /// It differs from `base` only in data it sent: a twin of `base`
    /// ([`again`]) tells whether that data differs between runs of the same
    /// choices too.
    DataOnly,
}

/// Whether the probe run `probe` of `row` did what `base` did: both
/// completed with nothing in window memory, the same choices outside the
/// row, every rank the same calls, none opaque, the same accesses to
/// memory MPI owned (a rank's own pending buffers: what it does to them
/// follows from its calls and data, like its calls), and the same data
/// sent. With `twin`, a run of `base`'s choices again, data that the twin
/// sent otherwise than `base` is not compared: it comes from a clock or
/// another source outside the matches (fib's determinism assumption does
/// not hold for it, in any run), not from the row's order.
pub fn same(
    base: &RunRecord,
    probe: &RunRecord,
    row: &Exchange,
    twin: Option<&RunRecord>,
) -> Compared {
    let clean = |r: &RunRecord| {
        r.ending.completed()
            && r.watched.is_empty()
            && r.streams
                .as_ref()
                .is_some_and(|s| s.iter().all(|x| !x.opaque()))
    };
    let choices = base.choices.len() == probe.choices.len()
        && base
            .choices
            .iter()
            .zip(&probe.choices)
            .enumerate()
            .all(|(i, (a, b))| {
                if row.choices.contains(&i) {
                    a.point.at == b.point.at
                } else {
                    a.point == b.point && a.taken == b.taken
                }
            });
    if !(clean(base) && clean(probe) && choices && by_rank(base) == by_rank(probe)) {
        return Compared::Differs;
    }
    let (Some(b), Some(p)) = (&base.streams, &probe.streams) else {
        return Compared::Differs;
    };
    if b.len() != p.len() {
        return Compared::Differs;
    }
    if b.iter().zip(p).all(|(x, y)| x == y) {
        return Compared::Same;
    }
    let twins = twin.and_then(|t| t.streams.as_ref().filter(|_| t.ending.completed()));
    match twins {
        None if b.iter().zip(p).all(|(x, y)| x.calls_alike(y)) => Compared::DataOnly,
        None => Compared::Differs,
        Some(t) if t.len() == b.len() => {
            let alike = b
                .iter()
                .zip(p)
                .zip(t)
                .all(|((x, y), z)| x.calls_alike(z) && x.alike(y, z));
            if alike {
                Compared::Same
            } else {
                Compared::Differs
            }
        }
        Some(_) => Compared::Differs,
    }
}
