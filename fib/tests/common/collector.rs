//! A generated trace of the shape that made the pass quadratic: rank 0
//! collects one message from every other rank per round, by name or (every
//! `wildcard_every` rounds) with `MPI_ANY_SOURCE`, and every rank meets in a
//! barrier after every `barrier_every` rounds. Built as the engine would
//! record it, without running the engine.

use fib_wire::{CollKind, Site};
use poe::engine::{CollWhat, Fired, FiredList, Kind, OpId, OpRec, Ops, Peer};

/// The shape of a collector trace.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub ranks: usize,
    pub rounds: usize,
    pub barrier_every: usize,
    pub wildcard_every: usize,
}

impl Shape {
    /// Whether a barrier follows round `t`.
    pub fn barrier_after(&self, t: usize) -> bool {
        t % self.barrier_every == self.barrier_every - 1
    }

    /// Whether rank 0 receives with `MPI_ANY_SOURCE` in round `t`.
    pub fn wildcards_in(&self, t: usize) -> bool {
        t.is_multiple_of(self.wildcard_every)
    }

    /// How many barrier match sets the trace has.
    pub fn barriers(&self) -> usize {
        (0..self.rounds).filter(|&t| self.barrier_after(t)).count()
    }

    /// The barriers that keep a later round's message from a wildcard
    /// receive: those right after a round of wildcards (with at least two
    /// senders, a wildcard that got one sender's message has the other's
    /// next one as rival, and only the barrier orders the two).
    pub fn relevant(&self) -> usize {
        (0..self.rounds.saturating_sub(1))
            .filter(|&t| self.barrier_after(t) && self.wildcards_in(t))
            .count()
    }

    /// How many calls the trace has.
    pub fn calls(&self) -> usize {
        2 * self.rounds * (self.ranks - 1) + self.barriers() * self.ranks + self.ranks
    }
}

fn rec(kind: Kind, name: &'static str, line: u32, matched: Option<OpId>) -> OpRec {
    OpRec {
        site: Site::Line { file: 1, line },
        name,
        kind,
        matched,
        complete: true,
    }
}

/// The trace's operations per rank and the match sets fired, in order.
pub fn trace(s: Shape) -> (Vec<Ops>, FiredList) {
    let mut ops: Vec<Ops> = vec![Ops::new(); s.ranks];
    let mut fired = Vec::new();
    let coll = |kind| Kind::Coll {
        what: CollWhat::Coll { kind, root: 0 },
        comm: 0,
        req: None,
    };
    for t in 0..s.rounds {
        let wild = s.wildcards_in(t);
        // Wildcards take the senders last to first, named receives first
        // to last.
        for j in 0..s.ranks - 1 {
            let q = if wild { s.ranks - 1 - j } else { 1 + j };
            let send = OpId {
                rank: q,
                index: ops[q].len(),
            };
            let recv = OpId {
                rank: 0,
                index: ops[0].len(),
            };
            ops[q].push(rec(
                Kind::Send {
                    dst: Peer::Rank(0),
                    tag: 0,
                    comm: 0,
                    sync: false,
                    req: None,
                    ready: false,
                },
                "MPI_Send",
                10,
                Some(recv),
            ));
            let src = if wild { Peer::Any } else { Peer::Rank(q) };
            ops[0].push(rec(
                Kind::Recv {
                    src,
                    tag: 0,
                    comm: 0,
                    req: 0,
                    blocking: true,
                },
                "MPI_Recv",
                if wild { 20 } else { 21 },
                Some(send),
            ));
            fired.push(Fired::SendRecv {
                send,
                recv,
                wildcard: wild,
            });
        }
        if s.barrier_after(t) {
            let mut members = Vec::new();
            for (r, list) in ops.iter_mut().enumerate() {
                members.push(OpId {
                    rank: r,
                    index: list.len(),
                });
                list.push(rec(coll(CollKind::Barrier), "MPI_Barrier", 30, None));
            }
            fired.push(Fired::Collective { ops: members });
        }
    }
    let mut members = Vec::new();
    for (r, list) in ops.iter_mut().enumerate() {
        members.push(OpId {
            rank: r,
            index: list.len(),
        });
        list.push(rec(Kind::Finalize, "MPI_Finalize", 40, None));
    }
    fired.push(Fired::Collective { ops: members });
    (ops, fired.into())
}
