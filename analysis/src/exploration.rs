//! One exploration's results, gathered run by run: the findings (each shown
//! once, with the first interleaving that showed it), the worst outcome, the
//! runs the Fib pass needs, and the signature the proof by removal compares.

use fib_report::{Finding, Outcome};

use crate::confirm::Signature;
use crate::record::RunRecord;
use crate::runs;
use crate::sites::Resolver;
use crate::trace::RunTrace;

/// What to keep of the runs besides findings.
#[derive(Clone, Copy, Debug, Default)]
pub struct Keep {
    /// Every run's operations and match sets, for the Fib pass.
    pub traces: bool,
    /// The signature, for the proof by removal.
    pub signature: bool,
}

/// A finished exploration.
#[derive(Debug)]
pub struct Explored {
    pub findings: Vec<Finding>,
    /// The worst outcome of any run.
    pub outcome: Outcome,
    pub interleavings: usize,
    /// MPI calls intercepted over every run.
    pub calls: u64,
    /// Whether exploration stopped at the interleaving limit.
    pub cut: bool,
    pub traces: Vec<RunTrace>,
    pub signature: Signature,
}

/// An exploration in progress.
pub struct Exploration<'a> {
    sites: &'a Resolver<'a>,
    keep: Keep,
    done: Explored,
}

impl<'a> Exploration<'a> {
    pub fn new(sites: &'a Resolver<'a>, keep: Keep) -> Exploration<'a> {
        Exploration {
            sites,
            keep,
            done: Explored {
                findings: Vec::new(),
                outcome: Outcome::Ok,
                interleavings: 0,
                calls: 0,
                cut: false,
                traces: Vec::new(),
                signature: Signature::default(),
            },
        }
    }

    /// Adds one run whose replay token is `token`; `short` says the run took
    /// fewer choices than the replayed token named. Returns whether
    /// exploration must stop.
    pub fn add(&mut self, rec: RunRecord, token: String, short: bool) -> bool {
        self.done.interleavings += 1;
        self.done.calls += rec.calls;
        let judged = runs::judge(self.sites, &rec, &token, short);
        self.done.outcome = runs::worse(self.done.outcome, judged.outcome);
        if let Some(f) = judged.finding {
            self.push_once(f, runs::same_run_finding);
        }
        if !short {
            for f in crate::leaks::findings(self.sites, &rec, &token) {
                self.push_once(f, crate::leaks::same_leak);
            }
        }
        if let Some(calls) = &rec.calls_log {
            if let Some(f) = runs::without_buffering(self.sites, &rec.files, calls, &token) {
                self.done.findings.push(f);
            }
        }
        if self.keep.traces || self.keep.signature {
            let trace = RunTrace {
                token,
                ops: rec.ops,
                fired: rec.fired,
                files: rec.files,
            };
            if self.keep.signature {
                self.done.signature.add(self.sites, &trace, judged.code);
            }
            if self.keep.traces {
                self.done.traces.push(trace);
            }
        }
        judged.stop
    }

    /// Exploration stopped after `limit` interleavings with more to run.
    pub fn cut(&mut self, limit: usize) {
        self.done.cut = true;
        self.done.findings.push(runs::exploration_cut(limit));
    }

    /// The results.
    pub fn finish(self) -> Explored {
        self.done
    }

    /// Adds a finding unless an earlier run showed the same one.
    fn push_once(&mut self, f: Finding, same: fn(&Finding, &Finding) -> bool) {
        if !self.done.findings.iter().any(|o| same(o, &f)) {
            self.done.findings.push(f);
        }
    }
}
