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
use poe::engine::{Config, FiredList, Ops};
use poe::sim::RunResult;

pub(crate) struct Rerun {
    /// Per rank, its calls as the [`Up::Op`] frames it sent: a call-heavy
    /// run keeps millions, at a few bytes each. They
    /// are kept in blocks that are never reallocated, so that a long run
    /// does not copy them as they grow (see [`poe::segmented`]).
    calls: Vec<Vec<Vec<u8>>>,
    /// A call's frame while it is made, before it goes to its block.
    scratch: Vec<u8>,
}

/// The first block's size; each further block is twice its predecessor,
/// up to [`LARGEST_BLOCK`].
const FIRST_BLOCK: usize = 4096;
const LARGEST_BLOCK: usize = 1 << 20;

impl Rerun {
    /// Keeps the calls of a run of `nprocs` ranks.
    pub(crate) fn start(nprocs: usize) -> Rerun {
        Rerun {
            calls: vec![Vec::new(); nprocs],
            scratch: Vec::new(),
        }
    }

    /// Rank `r` made the call whose [`Up::Op`] frame body is `body`.
    pub(crate) fn push(&mut self, r: usize, body: &[u8]) {
        self.block(r, fib_wire::FRAME_HEADER + body.len());
        fib_wire::frame(body, self.calls[r].last_mut().expect("a block with room"));
    }

    /// Rank `r` made the call `op` at `site` (as the engine takes it).
    pub(crate) fn push_call(&mut self, r: usize, site: fib_wire::Site, op: &fib_wire::Op) {
        self.scratch.clear();
        fib_wire::encode_call(site, op, &mut self.scratch);
        self.block(r, self.scratch.len());
        let block = self.calls[r].last_mut().expect("a block with room");
        block.extend_from_slice(&self.scratch);
    }

    /// Makes room for `need` more bytes in rank `r`'s last block.
    fn block(&mut self, r: usize, need: usize) {
        let blocks = &mut self.calls[r];
        let room = blocks
            .last()
            .is_some_and(|b| b.capacity() - b.len() >= need);
        if !room {
            let next = blocks
                .last()
                .map_or(FIRST_BLOCK, |b| (2 * b.capacity()).min(LARGEST_BLOCK));
            blocks.push(Vec::with_capacity(next.max(need)));
        }
    }

    /// The run completed with these operations and matches: `None` when
    /// its calls also complete without buffering, or else the engine's
    /// rerun of them without buffering.
    pub(crate) fn finish(self, ops: &[Ops], fired: &FiredList) -> Option<RunResult> {
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
        for (r, blocks) in self.calls.iter().enumerate() {
            // Each block holds whole frames.
            let mut frames = Frames::default();
            for bytes in blocks {
                frames.push(bytes);
                while let Some(body) = frames.next_body() {
                    match Up::decode(body) {
                        Ok(Up::Op { site, op }) => rerun.push(r, site, op),
                        other => unreachable!("a kept call decodes as one: {other:?}"),
                    }
                }
            }
        }
        Some(rerun.finish())
    }
}
