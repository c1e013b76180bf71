//! Races on memory MPI owns, in one interleaving: pairs of accesses to
//! overlapping bytes, at least one a write, that MPI's synchronisation
//! leaves unordered whatever the run's timing was.
//!
//! The input ([`Run`]) is each rank's memory events and synchronisation in
//! program order, the match sets and messages as the engine matched them,
//! and the grant order of the lock epochs on each target. From it:
//!
//! - [`Order`] (`order.rs`): the happens-before order as an explicit graph
//!   (events, one node per collective and fence match set; edges for
//!   program order, match sets, messages, PSCW and lock grants), with vector
//!   clocks for [`Order::ordered`] and a search for
//!   [`Order::ordered_without`], which the Fib pass asks whether a pair is
//!   ordered only through a barrier group's match sets;
//! - `effects.rs`: every access with the interval it may happen in (a load
//!   or store at its event; an RMA call's effect at the target and its use
//!   of the origin's buffers from the call to the call that completes them);
//! - `sweep.rs`: the conflicting pairs neither of which is before the other
//!   (the end of one ordered before the start of the other), found per
//!   memory in one sweep.
//!
//! The rules are written out in `ARCHITECTURE.md` ("Memory races"); the
//! brute-force comparison (`fib/tests/memory_brute_force.rs`) checks them
//! against every execution of small generated programs. Like the rest of
//! the crate, this is pure.

mod effects;
mod locks;
mod order;
mod record;
mod sweep;

pub use effects::{Access, AccessKind, Loc, Mode, Side};
pub use locks::{handoffs, swapped, Handoff, LockOrder};
pub use order::{Node, Order, Removed};
pub use record::{
    AccOp, BasicType, Bytes, Event, EventId, FlushTarget, Grants, InputError, Place, Rank, Rma,
    RmaKind, Run, Threads, Win,
};
pub use sweep::{Race, RaceRule};

/// What the rules found in one run.
#[derive(Clone, Debug)]
pub struct Races {
    /// The run's happens-before order.
    pub order: Order,
    /// Every access, rank by rank in program order.
    pub accesses: Vec<Access>,
    /// The races, each once, sorted by their accesses' `(event, side)`.
    pub races: Vec<Race>,
}

impl Races {
    /// Whether `a` happens before `b` whatever the timing: `a`'s end is
    /// ordered before `b`'s start.
    pub fn before(&self, a: &Access, b: &Access) -> bool {
        sweep::before(&self.order, a, b)
    }

    /// The pairs of conflicting lock epochs of `run` (the run these races
    /// were found in), in grant order, each with whether this order forces
    /// it (`locks.rs`).
    pub fn lock_orders(&self, run: &Run) -> Vec<LockOrder> {
        locks::lock_orders(run, &self.order, &self.accesses)
    }

    /// Whether `a` happens before `b` through a path that avoids every node
    /// of `removed` (a barrier group's match sets, say).
    pub fn before_without(&self, a: &Access, b: &Access, removed: &[Node]) -> bool {
        a.end.is_some_and(|end| {
            self.order
                .ordered_without(Node::Event(end), Node::Event(b.start), removed)
        })
    }
}

/// Finds the races of one run.
pub fn races(run: &Run) -> Result<Races, InputError> {
    races_without(run, &Removed::default())
}

/// Finds the races of one run as if the match sets and messages of
/// `removed` were not there (a barrier group deleted): the races of the
/// same interleaving of the program without them.
pub fn races_without(run: &Run, removed: &Removed) -> Result<Races, InputError> {
    let order = Order::build_without(run, removed)?;
    let accesses = effects::accesses(run);
    let races = sweep::races(&order, &accesses);
    Ok(Races {
        order,
        accesses,
        races,
    })
}
