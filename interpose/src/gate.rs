//! The rank's gate. Under `MPI_THREAD_MULTIPLE`, once the program starts
//! a thread while MPI runs, the rank's threads may be inside MPI at once,
//! and the scheduler decides in which order their calls enter the rank's
//! sequence of calls, as MPI would have made them one after another (the
//! engine's `threads` module). From then on:
//! - each call goes with the number of its thread ([`fib_wire::Up::By`])
//!   and waits until the scheduler enters it ([`fib_wire::Down::Entered`]);
//!   its operation goes to MPI only then, and only once every call that
//!   entered before it has handed its own to MPI, so that MPI matches a
//!   rank's messages in the order the engine did (`progress.rs`: the
//!   answers are read by whichever thread waits, and left for their
//!   thread);
//! - a thread that waits for the scheduler or for MPI lets go of the
//!   state meanwhile (`held::pause`);
//! - what the threads do that the gate needs is told as it happens
//!   ([`fib_wire::Up::ThreadStep`]: a thread starts, waits in a join, goes
//!   on after the thread it joined, ends), from the thread wrappers.
//!
//! A recorded run cannot follow a rank whose threads the scheduler orders:
//! its rank stops at the first thread ([`fib_wire::Up::Unrecorded`]) and
//! the interleaving is explored scheduled.

use std::sync::atomic::Ordering;

use fib_wire::{ThreadStep, Up};

use crate::held::{with_lib, GATE};

/// Tells the scheduler what thread `thread` did, turning the gate on at
/// the first thread that starts; whether the gate is on.
fn step(thread: u32, step: ThreadStep) -> bool {
    with_lib(|l| {
        if !l.gate.on {
            if step != ThreadStep::Started {
                return false;
            }
            if l.record.is_some() {
                l.unrecorded();
            }
            l.gate.on = true;
            // Nothing goes ahead of the scheduler: it orders the threads'
            // calls.
            l.ahead = false;
            GATE.store(true, Ordering::Release);
        }
        l.push(Up::ThreadStep { thread, step });
        l.conn.flush();
        true
    })
    .unwrap_or(false)
}

/// Lets the thread wrappers tell the gate what the threads do.
pub fn install() {
    crate::threads::on_steps(step);
}
