//! The check for deadlocks that buffering hides. A buffered run whose calls
//! cannot depend on timing keeps them as the ranks sent them; once
//! it has completed, its trace says whether the same calls also complete
//! with no send buffered ([`poe::unbuffered::completes`], one pass over the
//! trace). Only when that check cannot say yes are the calls rerun in the
//! engine without buffering ([`poe::sim::Rerun`]), for the deadlock
//! and the ranks' states in it.
//!
//! The run loop hands each call to [`Rerun::push`]; a run whose calls turn
//! out to depend on timing, or that does not complete, drops its `Rerun`.

use fib_wire::{Frames, Up};
use poe::engine::{Config, Fired, OpRec};
use poe::sim::RunResult;

pub(crate) struct Rerun {
    /// Per rank, its calls as the [`Up::Op`] frames it sent: a call-heavy
    /// run keeps millions, at a few bytes each.
    calls: Vec<Vec<u8>>,
}

impl Rerun {
    /// Keeps the calls of a run of `nprocs` ranks.
    pub(crate) fn start(nprocs: usize) -> Rerun {
        Rerun {
            calls: vec![Vec::new(); nprocs],
        }
    }

    /// Rank `r` made the call whose [`Up::Op`] frame body is `body`.
    pub(crate) fn push(&mut self, r: usize, body: &[u8]) {
        let calls = &mut self.calls[r];
        calls.extend_from_slice(&(body.len() as u32).to_le_bytes());
        calls.extend_from_slice(body);
    }

    /// The run completed with these operations and matches: `None` when
    /// its calls also complete without buffering, or else the engine's
    /// rerun of them without buffering.
    pub(crate) fn finish(self, ops: &[Vec<OpRec>], fired: &[Fired]) -> Option<RunResult> {
        if poe::unbuffered::completes(ops, fired) {
            return None;
        }
        let nprocs = self.calls.len();
        let mut rerun = poe::sim::Rerun::new(
            nprocs,
            Config {
                nprocs,
                zero_buffer: true,
                exchange: false,
            },
        );
        for (r, bytes) in self.calls.iter().enumerate() {
            let mut frames = Frames::default();
            frames.push(bytes);
            while let Some(body) = frames.next_body() {
                match Up::decode(body) {
                    Ok(Up::Op { site, op }) => rerun.push(r, site, op),
                    other => unreachable!("a kept call decodes as one: {other:?}"),
                }
            }
        }
        Some(rerun.finish())
    }
}
