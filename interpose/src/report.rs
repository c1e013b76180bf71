//! What a wrapper queues for the scheduler: a message, preceded by the
//! names of the files and modules it has not been told about yet; an
//! intercepted call at the current site; and an unsupported call or object,
//! after which the rank waits for the scheduler to end the run. The batch
//! is written when the rank next waits for an answer, or once it grows
//! large.

use fib_wire::{Op, Site, Up};

use crate::site;
use crate::state::Lib;

impl Lib {
    /// Queues one message (naming new files first).
    pub fn push(&mut self, m: Up) {
        site::announce(&mut self.conn.pending);
        self.conn.push(&m);
    }

    /// Queues an intercepted call at the current site; a call that makes
    /// a request (or starts a persistent one) is remembered as where that
    /// request was made.
    pub fn event(&mut self, op: Op) {
        // A recorded run's rank that kept failing a test and said it is
        // blocked makes another call: it no longer is.
        if let Some(rec) = &mut self.record {
            if rec.spin.take().is_some() && rec.blocked {
                self.blocked(false);
            }
        }
        let site = site::for_call();
        match op {
            Op::Send { req: Some(r), .. }
            | Op::Recv {
                req: r,
                blocking: false,
                ..
            }
            | Op::Mrecv {
                req: r,
                blocking: false,
                ..
            }
            | Op::Icoll { req: r, .. }
            | Op::CommIdup { req: r, .. }
            | Op::RequestInit { req: r, .. }
            | Op::Rma { req: Some(r), .. } => {
                self.origins.insert(r, site);
            }
            _ => {}
        }
        if !matches!(op, Op::Args { .. } | Op::Exchange { .. }) {
            // The loads and stores of the rank's threads in watched memory
            // that this thread has seen go just before its call, the
            // first one ordered after them; at MPI_Finalize, all of them.
            for m in crate::memory::take_seen(matches!(op, Op::Finalize)) {
                self.push(m);
            }
            self.calls += 1;
        }
        // With the gate on, the call names its thread and waits until it
        // enters (a report that goes with a call enters with it).
        let gated = self.gate.on && !matches!(op, Op::Data { .. });
        let enters = gated && !matches!(op, Op::Args { .. } | Op::Exchange { .. });
        if gated {
            self.push(Up::By {
                thread: crate::threads::gate_index(),
            });
        }
        self.push(Up::Op { site, op });
        if enters {
            self.wait_entered();
        }
    }

    /// Reports an unsupported call or object and waits for the scheduler to
    /// end the run.
    pub fn unsupported(&mut self, name: &str) -> ! {
        let site = site::for_call();
        self.push(Up::Unsupported {
            site,
            name: name.to_string(),
        });
        self.conn.wait_for_eof()
    }

    /// The current site (for messages built by hand).
    pub fn site(&self) -> Site {
        site::current()
    }
}
