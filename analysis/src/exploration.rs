//! One exploration's results, gathered run by run: the findings (each shown
//! once, with the first interleaving that showed it), the worst outcome, the
//! runs the Fib pass needs, and the signature the proof by removal compares.

use fib_report::{Finding, Outcome};
use poe::engine::RunEnd;

use crate::confirm::Signature;
use crate::record::{Ending, RunRecord};
use crate::runs;
use crate::sites::Resolver;
use crate::trace::RunTrace;

/// How a run failed to follow the choices its plan named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Diverged {
    /// At the plan's choice `choice` (from 0) the program offered
    /// `alternatives` (`None`: it made no choice there).
    At {
        choice: usize,
        alternatives: Option<usize>,
    },
    /// The plan named `planned` choices; the program completed after
    /// `took`.
    Short { planned: usize, took: usize },
}

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
    /// How many of them completed.
    pub completed: usize,
    /// MPI calls intercepted over every run.
    pub calls: u64,
    /// Probe runs that tried orders of rows of wildcard receives
    /// ([`RunRecord::probes`]), not counted in `interleavings`.
    pub probes: usize,
    /// Whether exploration stopped at the interleaving limit.
    pub cut: bool,
    /// Whether the user interrupted exploration: `interleavings` runs were
    /// made, and the one in progress is not among them.
    pub interrupted: bool,
    /// The first run that did not follow its plan, if any.
    pub diverged: Option<Diverged>,
    pub traces: Vec<RunTrace>,
    pub signature: Signature,
}

impl Explored {
    /// How every interleaving ended, as a past participle, when none
    /// completed: what kept the ranks away from the calls they never made.
    pub fn all_failed(&self) -> Option<&'static str> {
        if self.completed > 0 || self.interleavings == 0 {
            return None;
        }
        Some(match self.outcome {
            Outcome::Deadlock => "deadlocked",
            Outcome::Timeout => "ran past the time limit",
            Outcome::Crash => "failed (a rank crashed, aborted or exited early)",
            _ => "stopped",
        })
    }
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
                completed: 0,
                calls: 0,
                probes: 0,
                cut: false,
                interrupted: false,
                diverged: None,
                traces: Vec::new(),
                signature: Signature::default(),
            },
        }
    }

    /// Adds one run whose replay token is `token`, made to follow a plan of
    /// `planned` choices. Returns whether exploration must stop.
    pub fn add(&mut self, mut rec: RunRecord, token: String, planned: usize) -> bool {
        // A run that ends before a choice its plan names did not behave as
        // the run the plan came from.
        let short = rec.choices.len() < planned;
        self.note_divergence(&rec, planned);
        self.done.interleavings += 1;
        self.done.calls += rec.calls;
        self.done.probes += rec.probes;
        let judged = runs::judge(self.sites, &rec, &token, short);
        self.done.outcome = runs::worse(self.done.outcome, judged.outcome);
        if judged.outcome == Outcome::Ok {
            self.done.completed += 1;
        }
        if let Some(f) = judged.finding {
            self.push_once(f, runs::same_run_finding);
        }
        if !short {
            for f in crate::leaks::findings(self.sites, &rec, &token) {
                self.push_once(f, crate::leaks::same_leak);
            }
        }
        // Calls another input would have the ranks disagree on, in a run
        // that passed (a failing one has its failure to show).
        if judged.outcome == Outcome::Ok && !short {
            for f in crate::inputs::findings(self.sites, &rec, &token) {
                self.push_once(f, crate::inputs::same);
            }
        }
        // An access to owned memory counts whatever became of the run.
        for f in crate::memory::findings(self.sites, &rec, &token) {
            self.push_once(f, crate::memory::same);
        }
        // The threads' calls against the thread level, however the run
        // ended.
        for f in crate::threads::findings(self.sites, &rec, &token) {
            self.push_once(f, crate::threads::same);
        }
        // A struct datatype against the C struct of its buffer, however
        // the run ended.
        for f in crate::structs::findings(self.sites, &rec) {
            self.push_once(f, crate::structs::same);
        }
        // The race rules' input, for FIB038 and, kept with the trace, for
        // the barrier verdicts.
        let input = crate::memrun::uses_windows(&rec).then(|| crate::memrun::input(&rec));
        if let Some(input) = &input {
            for f in crate::races::findings(self.sites, &rec, input, &token) {
                self.push_once(f, crate::races::same);
            }
        }
        if let Some(rerun) = &rec.unbuffered {
            if let Some(f) = runs::without_buffering(self.sites, &rec.files, rerun, &token) {
                self.done.findings.push(f);
            }
        }
        if self.keep.traces || self.keep.signature {
            let memory = input.map(|input| crate::memrun::MemoryTrace {
                input,
                watched: std::mem::take(&mut rec.watched),
            });
            let trace = RunTrace {
                token,
                ops: rec.ops,
                fired: rec.fired,
                exchanges: rec.exchanges,
                files: rec.files,
                memory,
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

    fn note_divergence(&mut self, rec: &RunRecord, planned: usize) {
        if self.done.diverged.is_some() {
            return;
        }
        self.done.diverged = match &rec.ending {
            Ending::Engine(RunEnd::Divergence { index, found, .. }) => Some(Diverged::At {
                choice: *index,
                alternatives: found.as_ref().map(|p| p.alternatives.len()),
            }),
            Ending::Engine(RunEnd::Completed) if rec.choices.len() < planned => {
                Some(Diverged::Short {
                    planned,
                    took: rec.choices.len(),
                })
            }
            _ => None,
        };
    }

    /// Exploration stopped after `limit` interleavings with more to run.
    pub fn cut(&mut self, limit: usize) {
        self.done.cut = true;
        self.done.findings.push(runs::exploration_cut(limit));
    }

    /// The user interrupted exploration; the run in progress was thrown
    /// away, so nothing of it is added.
    pub fn interrupt(&mut self) {
        self.done.interrupted = true;
    }

    /// What the runs so far could do (kept with [`Keep::signature`]).
    pub fn signature(&self) -> &Signature {
        &self.done.signature
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
