//! The check for deadlocks that buffering hides, done while the run goes
//! on: a thread of its own reruns the ranks' calls in the engine without
//! buffering ([`poe::sim::Rerun`]) as they arrive, so that a call-heavy run
//! does not wait for a second pass over its calls once it has ended.
//!
//! The run loop hands each call to [`Rerun::push`] and, after each batch it
//! read, [`Rerun::send`]s them on. A run whose calls turn out to depend on
//! timing, or that does not complete, drops its `Rerun`, which stops the
//! thread; a completed one [`Rerun::finish`]es it for the result.

use std::sync::mpsc::{channel, Sender};
use std::thread::JoinHandle;

use fib_wire::{Op, Site};
use poe::engine::Config;
use poe::sim::RunResult;

/// How many calls the thread is handed at a time.
const BATCH: usize = 16 * 1024;

enum Msg {
    Calls(Vec<(usize, Site, Op)>),
    Finish,
}

pub(crate) struct Rerun {
    tx: Sender<Msg>,
    batch: Vec<(usize, Site, Op)>,
    thread: JoinHandle<Option<RunResult>>,
}

impl Rerun {
    /// Starts the rerun of a run of `nprocs` ranks without buffering.
    pub(crate) fn start(nprocs: usize) -> Rerun {
        let (tx, rx) = channel::<Msg>();
        let thread = std::thread::spawn(move || {
            // The run's own loop answers the ranks: the rerun takes what
            // time the cores have left.
            // SAFETY: setpriority on this thread's own id changes nothing
            // but its scheduling.
            unsafe {
                libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 19);
            }
            let mut rerun = poe::sim::Rerun::new(
                nprocs,
                Config {
                    nprocs,
                    zero_buffer: true,
                    exchange: false,
                },
            );
            loop {
                match rx.recv() {
                    Ok(Msg::Calls(calls)) => {
                        for (r, site, op) in calls {
                            rerun.push(r, site, op);
                        }
                        rerun.advance();
                    }
                    Ok(Msg::Finish) => return Some(rerun.finish()),
                    // Dropped: the run's calls are no use.
                    Err(_) => return None,
                }
            }
        });
        Rerun {
            tx,
            batch: Vec::new(),
            thread,
        }
    }

    /// Rank `r` made `op` at `site`.
    pub(crate) fn push(&mut self, r: usize, site: Site, op: &Op) {
        self.batch.push((r, site, op.clone()));
    }

    /// Hands the calls pushed since the last time to the thread, once there
    /// are enough of them: waking the thread for every few calls would cost
    /// a run whose ranks wait for the scheduler's answers more than the
    /// rerun saves.
    pub(crate) fn send(&mut self) {
        if self.batch.len() >= BATCH {
            self.send_now();
        }
    }

    fn send_now(&mut self) {
        if !self.batch.is_empty() {
            // The thread ends only when told to, or on a panic, which the
            // join in `finish` passes on.
            let _ = self.tx.send(Msg::Calls(std::mem::take(&mut self.batch)));
        }
    }

    /// Every call is in: how they fare without buffering.
    pub(crate) fn finish(mut self) -> RunResult {
        self.send_now();
        let _ = self.tx.send(Msg::Finish);
        match self.thread.join() {
            Ok(result) => result.expect("a finished rerun has a result"),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}
