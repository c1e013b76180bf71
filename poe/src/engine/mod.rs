//! One run of the POE algorithm: takes the MPI calls of every rank as they
//! arrive, forms match sets, and answers the calls that wait.
//!
//! The engine never touches the outside world. The driver feeds it
//! [`fib_wire::Up`] messages in whatever order the ranks produce them and
//! sends on the [`Down`] answers that [`Engine::advance`] returns. Every
//! decision the engine takes is independent of that arrival order: the
//! deterministic match sets (collectives, completions, send/receive pairs
//! with a specific source) have a unique outcome under MPI's non-overtaking
//! rule, and every real choice (which send a wildcard receive or probe gets,
//! which request a `Waitany` returns, which requests a `Waitsome` returns, a
//! poll answered "not yet") is taken only when every rank is blocked, so that
//! all candidates are known. Choices are taken from a replay prefix when one
//! is given, which is how the depth-first strategy of the explorer walks
//! the tree of interleavings.
//!
//! [`Engine`] is a facade over three concerns, each with its own state and
//! module: `matching` (MPI's rules: candidates, non-overtaking, collectives,
//! completions, choice points), `causality` (which choices each event
//! follows, race detection) and `path` (the plan, the choices taken,
//! divergence). The types they share live in `model`. Where a step needs two
//! concerns, the facade asks one and tells the other.

mod causality;
mod exchange;
mod matching;
mod model;
mod params;
mod path;
mod rows;
mod threads;
mod timed;

use fib_wire::{Down, Op, Site};

use causality::{cancel_matched, completion_races, Causality};
use matching::{Matching, Ready};
use model::Handles as _;
use path::{with_defers, Path};
use timed::Input;

pub use exchange::{predict, Exchange, Vouch, Vouched};
pub use matching::SOME_SUBSETS_UP_TO;
pub use model::{
    call_name, Access, Alternative, Choice, ChoicePoint, CollWhat, Config, Differs, Fired,
    FiredList, Kind, Leak, Mismatch, OpId, OpRec, Ops, Outcome, Outcomes, Peer, Planned, Policy,
    Rank, RankView, RunEnd, ThreadView, Timed, WinSync,
};
pub use rows::WaitRow;

/// Whether `op` is a report that goes with the call after it (its
/// arguments, its blocks by peer) rather than a call.
fn is_report(op: &Op) -> bool {
    matches!(op, Op::Args { .. } | Op::Exchange { .. } | Op::Data { .. })
}

/// How many rounds of failing polls, with nothing else happening, count as a
/// livelock.
const LIVELOCK_ROUNDS: u32 = 10_000;

/// What a run did, moved out of its engine ([`Engine::into_trace`]).
pub struct Trace {
    pub choices: Vec<Choice>,
    pub fired: FiredList,
    pub ops: Vec<Ops>,
}

/// The state of one run of the program under POE.
pub struct Engine {
    cfg: Config,
    /// Every rank's calls and what MPI's rules made of them.
    matching: Matching,
    /// What each event causally follows.
    causality: Causality,
    /// The plan and the choices taken.
    path: Path,
    end: Option<RunEnd>,
    /// Rounds of failing polls with nothing else happening.
    false_rounds: u32,
    /// The arguments the ranks reported for their calls.
    params: params::Params,
    /// The run's rows of `MPI_Waitany`, once concluded.
    rows: Vec<WaitRow>,
    /// Once concluded: the rows of wildcard receives that would be
    /// exchangeable blocks if the caller vouched for their sites
    /// ([`Engine::untried`]).
    untried: Vec<Exchange>,
    /// Whether the run made an `MPI_ANY_SOURCE` receive or blocking probe,
    /// without which it has no exchangeable block, and an `MPI_Waitany`,
    /// without which it has no row: [`Engine::conclude`] then skips the
    /// scans of every call.
    wildcard_recvs: bool,
    waitanys: bool,
    /// Under [`Policy::Follow`], whether more outcomes may still come
    /// ([`Engine::follow`]): a choice none of whose alternatives is known
    /// yet waits until [`Engine::followed_all`].
    more_outcomes: bool,
    /// Whether the engine takes no choice and declares no deadlock for now
    /// ([`Engine::hold`]).
    holding: bool,
    /// Tests a followed run says returned something ([`Engine::polled`]):
    /// never answered "not yet".
    sure: rustc_hash::FxHashSet<OpId>,
    /// The threads of the ranks that have several.
    threads: threads::Threads,
    /// What the time rule did, and in a replay what the plan says it did.
    timing: timed::Timing,
}

impl Engine {
    /// A run that takes its choices from `plan` while it lasts and the first
    /// alternative after that.
    pub fn new(cfg: Config, plan: Vec<Planned>) -> Engine {
        Engine::with_policy(cfg, plan, Policy::First)
    }

    /// A run that takes its choices from `plan` while it lasts and as
    /// `policy` says after that.
    pub fn with_policy(cfg: Config, plan: Vec<Planned>, policy: Policy) -> Engine {
        let timing = timed::Timing::new(&plan);
        Engine {
            cfg,
            matching: Matching::new(cfg.nprocs),
            causality: Causality::new(cfg.nprocs),
            path: Path::new(plan, policy),
            end: None,
            false_rounds: 0,
            params: params::Params::default(),
            rows: Vec::new(),
            untried: Vec::new(),
            wildcard_recvs: false,
            waitanys: false,
            more_outcomes: false,
            holding: false,
            sure: Default::default(),
            threads: Default::default(),
            timing,
        }
    }

    /// With `on`, the engine does what needs no choice and takes no choice
    /// nor declares a deadlock, until called again without: a followed
    /// run's reports come in bulk, and what every rank waits in is known
    /// only once every rank has said it waits. (A choice's alternatives
    /// are the sends every rank has made by then.)
    pub fn hold(&mut self, on: bool) {
        self.holding = on;
    }

    /// A run that takes its choices from `plan` while it lasts, then
    /// follows a run made without the scheduler whose outcomes come as it
    /// goes ([`Engine::follow`], until [`Engine::followed_all`]).
    pub fn following(cfg: Config, plan: Vec<Planned>) -> Engine {
        let mut e = Engine::with_policy(cfg, plan, Policy::Follow(Outcomes::new()));
        e.more_outcomes = true;
        e
    }

    /// Under [`Policy::Follow`]: the call `at` took `outcome` in the run
    /// the engine follows. Said before the engine chooses there (a choice
    /// whose outcomes are all unknown waits), in any order.
    pub fn follow(&mut self, at: OpId, outcome: Outcome) {
        self.path.follow(at, outcome);
    }

    /// A followed run's test (`MPI_Test*`, `MPI_Request_get_status`,
    /// `MPI_Win_test`) or nonblocking probe, the call `rank` made last,
    /// returned something in
    /// MPI: it is never failed, and waits until the engine completes what
    /// it returned (the positions a `Testany` or `Testsome` returned, and
    /// whose message a wildcard probe found, come as its outcome,
    /// [`Engine::follow`]). (A followed run's tests that return nothing
    /// are not the engine's: they change nothing, and how many a run
    /// makes is timing.)
    pub fn polled(&mut self, rank: Rank) {
        let Some(index) = self.matching.blocked_on(rank) else {
            return;
        };
        let id = OpId { rank, index };
        if matches!(
            self.matching.op(id).kind,
            Kind::Wait { test: true, .. }
                | Kind::Win {
                    sync: WinSync::Wait { test: true },
                    ..
                }
                | Kind::Probe {
                    blocking: false,
                    ..
                }
                // An `MPI_Improbe`.
                | Kind::Recv { .. }
        ) {
            self.sure.insert(id);
        }
    }

    /// Under [`Policy::Follow`]: every outcome of the followed run is
    /// known; a choice none of whose alternatives is one of them now ends
    /// the run as a [`RunEnd::Divergence`].
    pub fn followed_all(&mut self) {
        self.more_outcomes = false;
    }

    /// What the ranks left behind, once the run has completed (empty for any
    /// other ending: a deadlocked run leaves its calls pending by nature).
    pub fn leaks(&self) -> Vec<Leak> {
        if self.end != Some(RunEnd::Completed) {
            return Vec::new();
        }
        self.matching.leaks()
    }

    /// The run's end, once it has one.
    pub fn end(&self) -> Option<&RunEnd> {
        self.end.as_ref()
    }

    /// Whether the receives `recvs` take their messages alike site by site:
    /// the receives made at one site all ask for the same count of the same
    /// datatype (a dispatch, where each message goes to the site its
    /// status picks whatever the order).
    fn alike_by_site(&self, recvs: &[OpId]) -> bool {
        let mut by_site: rustc_hash::FxHashMap<Site, Vec<OpId>> = Default::default();
        for &r in recvs {
            by_site.entry(self.matching.op(r).site).or_default().push(r);
        }
        by_site.values().all(|rs| self.params.alike(rs))
    }

    /// Once the run has ended: its exchangeable blocks and its rows of
    /// `MPI_Waitany` (none unless [`Config::exchange`]), whose choices'
    /// other alternatives it marks [`Choice::predicted`]: this run stands
    /// for them. Call it before handing the choices to the exploration.
    /// What only the caller can tell ([`Vouch`]): `alike(sites)`, whether
    /// receives made at these sites may stand for each other, as what they
    /// receive steers none of the program's calls (that they take any
    /// message alike, the same count of the same datatype, the engine
    /// checks); `free(site)`, whether what an `MPI_Waitany` made there
    /// returns (the index and the status) reaches nothing MPI sees; and
    /// `probes(probe, recv)`, whether a probe's status reaches only the
    /// source, count and tag of the receive after it, and whether that
    /// count and that tag are made from it ([`Vouched`]: each receive then
    /// must fit its own message, which the engine checks).
    pub fn conclude(&mut self, caller: &Vouch) -> Vec<Exchange> {
        if !self.cfg.exchange || self.end.is_none() {
            return Vec::new();
        }
        let mut blocks = if self.wildcard_recvs {
            exchange::blocks(&self.matching, &self.causality, &self.path, caller)
        } else {
            Vec::new()
        };
        // Which receive gets a long message must not decide whether it is
        // truncated: the receives take any message alike, or (sized from a
        // probe's status) each is made for the message its probe found.
        blocks.retain(|x| {
            let recvs = if x.takers.is_empty() {
                &x.recvs
            } else {
                &x.takers
            };
            // Consecutive calls of a rank of threads may be different
            // threads', whose programs differ: only one thread's stand
            // for each other.
            self.one_thread(&x.recvs)
                && self.one_thread(&x.takers)
                && (self.params.alike(recvs)
                    || x.sized && self.params.fitted(recvs)
                    || x.dispatch && self.alike_by_site(recvs))
        });
        if self.wildcard_recvs {
            self.untried = self.untried_blocks(caller, &blocks);
        }
        if self.waitanys {
            self.rows = rows::rows(&self.matching, caller.free);
            let rows = std::mem::take(&mut self.rows);
            self.rows = (rows.into_iter())
                .filter(|r| self.one_thread(&r.waits))
                .collect();
        }
        let choices = self.path.choices_mut();
        for x in &blocks {
            exchange::predict(choices, x);
        }
        let waits: rustc_hash::FxHashSet<OpId> = self
            .rows
            .iter()
            .flat_map(|r| r.waits.iter().copied())
            .collect();
        for c in choices.iter_mut() {
            if waits.contains(&c.point.at) {
                c.predicted = (0..c.point.alternatives.len())
                    .filter(|&i| i != c.taken)
                    .collect();
                c.wake.clear();
            }
        }
        blocks
    }

    /// Whether the calls `ids` were all made by one thread (of one rank).
    fn one_thread(&self, ids: &[OpId]) -> bool {
        let mut threads = ids.iter().map(|&id| (id.rank, self.thread_of(id)));
        let first = threads.next();
        threads.all(|t| Some(t) == first)
    }

    /// Once the run has been concluded: the rows of `MPI_ANY_SOURCE`
    /// receives (not probes) that meet every condition of an exchangeable
    /// block but the caller's word on their sites (`Vouch::alike`): what
    /// their data and statuses reach may depend on the order. The caller
    /// may run their other orders ([`Exchange::orders`]) and, when every
    /// rank does the same in each, let this run stand for them
    /// ([`exchange::predict`]); see the `exchange` module.
    pub fn untried(&self) -> &[Exchange] {
        &self.untried
    }

    /// The blocks `blocks` would hold if the caller vouched for every
    /// receive site, but those of `blocks`, and rows of probes.
    fn untried_blocks(&self, caller: &Vouch, blocks: &[Exchange]) -> Vec<Exchange> {
        let taken: rustc_hash::FxHashSet<OpId> = blocks
            .iter()
            .flat_map(|x| x.recvs.iter().copied())
            .collect();
        let mut out = exchange::blocks(
            &self.matching,
            &self.causality,
            &self.path,
            &Vouch {
                alike: &|_| true,
                free: caller.free,
                probes: &|_, _| None,
            },
        );
        out.retain(|x| {
            x.takers.is_empty()
                && !x.dispatch
                && x.recvs.iter().all(|r| {
                    !taken.contains(r) && matches!(self.matching.op(*r).kind, Kind::Recv { .. })
                })
                && self.params.alike(&x.recvs)
                && self.one_thread(&x.recvs)
        });
        out
    }

    /// Once the run has been concluded: its rows of `MPI_Waitany`
    /// ([`WaitRow`]).
    pub fn rows(&self) -> &[WaitRow] {
        &self.rows
    }

    /// The choices taken so far.
    pub fn choices(&self) -> &[Choice] {
        self.path.choices()
    }

    /// The match sets fired so far.
    pub fn fired(&self) -> &FiredList {
        self.matching.fired()
    }

    /// Every rank's operations, in program order.
    pub fn ops(&self, rank: Rank) -> &Ops {
        self.matching.ops(rank)
    }

    /// Once the run is over: its choices, match sets and every rank's
    /// operations ([`Engine::choices`], [`Engine::fired`], [`Engine::ops`]),
    /// moved out rather than copied (a long run has millions).
    pub fn into_trace(self) -> Trace {
        let (fired, ops) = self.matching.into_trace();
        Trace {
            choices: self.path.into_choices(),
            fired,
            ops,
        }
    }

    /// The operation `id`.
    pub fn op(&self, id: OpId) -> &OpRec {
        self.matching.op(id)
    }

    /// Whether the run can go no further because ranks wait in MPI for
    /// sends the engine has completed but MPI has not (`stuck`, per rank,
    /// says which ranks told the scheduler so): every rank waits for the
    /// engine or has finalized, but for stuck ones that have a send no
    /// receive has matched. Their sends' receives can then come only from a
    /// choice, which the engine makes only once every rank waits, or never.
    /// A stuck rank whose sends have all matched is not held: MPI finishes
    /// them once the receives, already posted or on their way, are there.
    pub fn held_by_sends(&self, stuck: &[bool]) -> bool {
        // A rank of threads whose threads all wait (at its gate too: their
        // calls enter only once every rank waits) waits as well.
        let gated = |r: Rank| self.threads.of(r).is_some_and(|rt| rt.waiting());
        self.end.is_none() && self.matching.held_by_sends(stuck, gated)
    }

    /// Where every rank stands now.
    pub fn rank_views(&self) -> Vec<RankView> {
        let mut views = self.matching.rank_views();
        for r in self.threads.ranks() {
            let rt = self.threads.of(r).expect("a rank of threads");
            views[r].threads = (rt.state.iter())
                .filter_map(|(&thread, s)| match *s {
                    threads::State::Blocked(i) => {
                        let op = self.matching.op(OpId { rank: r, index: i });
                        Some(ThreadView {
                            thread,
                            call: Some((op.name, op.site)),
                        })
                    }
                    threads::State::Parked => Some(ThreadView { thread, call: None }),
                    _ => None,
                })
                .collect();
            // The thread that waits in the rank's first blocked call (the
            // view's) comes first.
            if let Some(&first) = self.matching.blocked_all(r).first() {
                let by = rt.thread_of(first);
                views[r].threads.sort_by_key(|v| v.thread != by);
            }
        }
        views
    }

    /// Whether the replay plan has been used up (a run that ends before
    /// reaching all its planned choices diverged).
    pub fn plan_exhausted(&self) -> bool {
        self.path.exhausted()
    }

    /// Takes one intercepted call of `rank`. The call's answer, if it waits
    /// for one, comes from a later [`Engine::advance`]. (Of a rank that
    /// has had several threads, it is the main thread's call.)
    pub fn call(&mut self, rank: Rank, site: Site, op: Op) {
        if self.threads.of(rank).is_some() {
            self.call_on(rank, 0, site, op);
        } else {
            self.enter_call(rank, site, op);
        }
    }

    /// Thread `thread` of `rank` (not its main thread, 0) started: from
    /// now on, every call of the rank waits at its gate (see the
    /// `threads` module) and is answered [`Down::Entered`] as it enters,
    /// ahead of its own answer if it waits in MPI
    /// ([`Engine::advance_threads`]).
    pub fn thread_started(&mut self, rank: Rank, thread: u32) {
        let made = self.matching.ops(rank).len();
        self.threads.start(rank, thread, made);
    }

    /// Thread `thread` of `rank` will make no more calls.
    pub fn thread_ended(&mut self, rank: Rank, thread: u32) {
        self.input(rank, thread, Input::Ended);
    }

    /// Thread `thread` of `rank` waits, outside MPI, for another thread of
    /// its rank (`parked`: a join, a lock), or goes on (not `parked`): the
    /// engine does not wait for a parked thread's next call before
    /// entering the others'.
    pub fn thread_parked(&mut self, rank: Rank, thread: u32, parked: bool) {
        self.input(rank, thread, Input::Parked(parked));
    }

    /// The threads of `rank` that run have made no call for a long while
    /// (they compute, or wait for each other in a way the engine is not
    /// told of): they are taken as waiting outside MPI until they make
    /// their next call, so that the calls at the gate can enter; but the
    /// run does not end stuck while one of them may still call. The run
    /// records it (see the `timed` module). A replay does only what its
    /// plan says until the plan is used up, unless the rank has been
    /// quiet for far longer (`overdue`): the program did something else
    /// this time. Returns whether any thread ran.
    pub fn threads_idle(&mut self, rank: Rank, overdue: bool) -> bool {
        if self.timing.scripted && !self.path.exhausted() && !overdue {
            return false;
        }
        let Some(rt) = self.threads.of(rank) else {
            return false;
        };
        let running: Vec<u32> = (rt.state.iter())
            .filter(|(_, s)| **s == threads::State::Running)
            .map(|(&t, _)| t)
            .collect();
        for &t in &running {
            let inputs = self.timing.inputs(rank, t);
            self.idle(rank, t, inputs);
        }
        !running.is_empty()
    }

    /// Takes thread `t` of `rank`, which has had `inputs` inputs, as idle,
    /// and records it.
    fn idle(&mut self, rank: Rank, t: u32, inputs: u64) {
        let ops = self.matching.ops(rank).len();
        if let Some(rt) = self.threads.of_mut(rank) {
            rt.state.insert(t, threads::State::Idle);
        }
        (self.timing.log).push(Timed::Idle {
            rank,
            thread: t,
            inputs,
            ops,
        });
    }

    /// In a replay, the idlings of threads the plan says the time rule
    /// made at the place the run has reached, to call when the run stands
    /// still. Returns whether any thread ran.
    pub fn replay_idles(&mut self) -> bool {
        if !self.timing.pending() {
            return false;
        }
        let choices = self.path.choices().len();
        let (matching, threads) = (&self.matching, &self.threads);
        let due = self.timing.due_idles(
            choices,
            |r| matching.ops(r).len(),
            |r, t| threads.of(r).is_some_and(|rt| rt.state.contains_key(&t)),
        );
        let mut any = false;
        for (rank, t, inputs) in due {
            let running = (self.threads.of(rank))
                .is_some_and(|rt| rt.state.get(&t) == Some(&threads::State::Running));
            if running {
                self.idle(rank, t, inputs);
                any = true;
            }
        }
        any
    }

    /// In a replay, takes the inputs the plan held until the place the
    /// run has reached (all of them once the plan is used up); a thread
    /// whose input is due but has not come is waited for. Returns whether
    /// anything changed.
    fn timed_inputs(&mut self) -> bool {
        if !self.timing.pending() {
            return false;
        }
        let choices = self.path.choices().len();
        let done = self.path.exhausted();
        let matching = &self.matching;
        let due = self
            .timing
            .due_inputs(choices, |r| matching.ops(r).len(), done);
        let any = !due.is_empty();
        for (rank, t, inputs, wait) in due {
            if inputs.is_empty() && wait {
                if let Some(rt) = self.threads.of_mut(rank) {
                    if rt.state.get(&t) == Some(&threads::State::Idle) {
                        rt.state.insert(t, threads::State::Running);
                    }
                }
            }
            for i in inputs {
                self.take_input(rank, t, i);
            }
        }
        any
    }

    /// An input about thread `t` of `rank`: taken now, or in a replay
    /// held until the place its run took it.
    fn input(&mut self, rank: Rank, t: u32, input: Input) {
        if self.threads.of(rank).is_none() {
            return;
        }
        if let Some(i) = self.timing.arrive(rank, t, input) {
            self.take_input(rank, t, i);
        }
    }

    /// Takes an input about thread `t` of `rank`; if the thread idled,
    /// records where its input came.
    fn take_input(&mut self, rank: Rank, t: u32, input: Input) {
        let Some(rt) = self.threads.of_mut(rank) else {
            return;
        };
        // A report (what goes with the call after it) leaves the thread
        // as it is; so does a join, which follows its step.
        let report = matches!(&input, Input::Call(_, op) if is_report(op));
        let leaves = !report && !matches!(input, Input::Joined(_));
        if leaves && rt.state.get(&t) == Some(&threads::State::Idle) {
            let ops = self.matching.ops(rank).len();
            (self.timing.log).push(Timed::Came {
                rank,
                thread: t,
                ops,
            });
        }
        let rt = self.threads.of_mut(rank).expect("a rank of threads");
        match input {
            Input::Call(site, op) => {
                rt.gated.entry(t).or_default().push((site, op));
                if !report {
                    rt.state.insert(t, threads::State::Gated);
                }
            }
            Input::Parked(parked) => {
                let s = if parked {
                    threads::State::Parked
                } else {
                    threads::State::Running
                };
                rt.state.insert(t, s);
            }
            Input::Joined(joined) => {
                // Once `t`'s state is the causality's, `joined`'s is kept
                // with the others'.
                self.on_thread(rank, t);
                let Some(theirs) =
                    (self.threads.of(rank)).and_then(|rt| rt.deps.get(&joined).cloned())
                else {
                    return;
                };
                self.causality.learn_deps(rank, &theirs);
            }
            Input::Ended => {
                rt.state.remove(&t);
                rt.gated.remove(&t);
            }
        }
    }

    /// The run ended outside the engine (a rank crashed, aborted or
    /// exited): the calls still held at a gate enter, without answers
    /// and without a choice, so that their races with the run's entry
    /// choices are known. They were made; only the rank's quiet (a sibling
    /// that had not called again) held them, and the run's end would
    /// otherwise hide, by timing, the other orders of the calls they race
    /// with.
    pub fn drain_gates(&mut self) {
        for r in self.threads.ranks().collect::<Vec<_>>() {
            let waiting: Vec<u32> = (self.threads.of(r))
                .map(|rt| rt.gated.keys().copied().collect())
                .unwrap_or_default();
            for t in waiting {
                if self.end.is_some() {
                    return;
                }
                self.enter(r, t, None);
            }
        }
    }

    /// Thread `joiner` of `rank` goes on after thread `joined` of it (a
    /// join, a lock one released and the other took): what `joiner` does
    /// next follows what `joined` did. (Without it, the engine takes the
    /// two for unordered, which costs runs, never outcomes.)
    pub fn thread_joined(&mut self, rank: Rank, joiner: u32, joined: u32) {
        self.input(rank, joiner, Input::Joined(joined));
    }

    /// Takes one intercepted call of thread `thread` of `rank`: it waits
    /// at the rank's gate until the engine enters it, and its answer comes
    /// from a later [`Engine::advance_threads`].
    pub fn call_on(&mut self, rank: Rank, thread: u32, site: Site, op: Op) {
        if self.end.is_some() {
            return;
        }
        if self.threads.of(rank).is_none() {
            return self.enter_call(rank, site, op);
        }
        self.input(rank, thread, Input::Call(site, op));
    }

    /// The thread of its rank that made the call `id` (0, the main one,
    /// for a rank of one thread).
    pub fn thread_of(&self, id: OpId) -> u32 {
        self.threads.thread_of(id.rank, id.index)
    }

    /// [`Engine::advance`], each answer with the thread it is for.
    pub fn advance_threads(&mut self) -> Vec<(Rank, u32, Down)> {
        self.run_on();
        let out = self.matching.take_out_ops();
        out.into_iter()
            .map(|(id, d)| (id.rank, self.thread_of(id), d))
            .collect()
    }

    /// Enters the calls thread `t` of `rank` has at the gate, by the
    /// `by`-th choice of the run if a choice entered them.
    fn enter(&mut self, rank: Rank, t: u32, by: Option<usize>) {
        let Some(list) = self.threads.of_mut(rank).and_then(|rt| rt.gated.remove(&t)) else {
            return;
        };
        // Something was done: calls left for later are offered again.
        self.threads.clear_later();
        self.on_thread(rank, t);
        // What the thread does next is not taken as following the entry
        // choice: entry choices race with nothing there (no call chose at
        // them, and no point defers to one), and a rank of threads makes a
        // choice at nearly every entry, so each of its calls would carry a
        // set as long as the run.
        for (site, op) in list {
            if is_report(&op) {
                self.enter_call(rank, site, op);
                continue;
            }
            let index = self.matching.ops(rank).len();
            let waits = op.expects_reply(self.cfg.zero_buffer);
            let id = OpId { rank, index };
            // The thread hears that its call entered before anything
            // answers the call itself.
            self.matching.say(id, Down::Entered);
            self.enter_call(rank, site, op);
            if self.end.is_some() {
                return;
            }
            let kind = &self.matching.op(id).kind;
            (self.threads.of_mut(rank).expect("a rank of threads")).entered(t, index, by, kind);
            self.entry_races(id, t);
            let rt = self.threads.of_mut(rank).expect("a rank of threads");
            if waits {
                rt.state.insert(t, threads::State::Blocked(index));
            } else {
                rt.state.insert(t, threads::State::Running);
            }
        }
    }

    /// The call `h`, just entered for thread `t`, races with the calls of
    /// other threads of its rank that entered before it and whose place it
    /// depends on (see [`threads::entry_races`]).
    fn entry_races(&mut self, h: OpId, t: u32) {
        for g in threads::entry_races(&self.matching, &mut self.threads, h, t) {
            self.race(g, h);
        }
    }

    /// The calls `g` and `h` of two threads of one rank, `g` entered
    /// first, depend on each other's place: if a choice entered `g`, the
    /// choice's alternative that lets `h`'s thread go first is worth a run
    /// (entering its call then; with the thread waiting in a call then,
    /// every other alternative, since which of them leads to its answer
    /// first is not known). Only such
    /// alternatives of an entry point are run (the others are
    /// [`Choice::predicted`]): orders of calls that do not depend on each
    /// other's place give the same outcomes.
    fn race(&mut self, g: OpId, h: OpId) {
        let (g, h) = if g.index < h.index { (g, h) } else { (h, g) };
        let Some(rt) = self.threads.of(g.rank) else {
            return;
        };
        let Some(k) = rt.chosen(g.index) else {
            return;
        };
        let t = rt.thread_of(h.index);
        let c = &mut self.path.choices_mut()[k];
        let alts = &c.point.alternatives;
        let wake: Vec<usize> = match alts.iter().position(|a| *a == Alternative::Enter(t)) {
            Some(w) => vec![w],
            None => (0..alts.len()).collect(),
        };
        for w in wake {
            if w != c.taken && !c.wake.contains(&w) {
                c.wake.push(w);
            }
        }
    }

    /// Hands the causal state of thread `t` of `rank` to the causality,
    /// which acts for it next.
    fn on_thread(&mut self, rank: Rank, t: u32) {
        let Some(rt) = self.threads.of_mut(rank) else {
            return;
        };
        if rt.current != t {
            let mine = rt.deps.remove(&t).unwrap_or_default();
            let theirs = self.causality.swap(rank, mine);
            rt.deps.insert(rt.current, theirs);
            rt.current = t;
        }
    }

    /// The threads whose entered call has been answered run again.
    fn sync_threads(&mut self) {
        for r in self.threads.ranks().collect::<Vec<_>>() {
            let blocked = self.matching.blocked_all(r).to_vec();
            let rt = self.threads.of_mut(r).expect("a rank of threads");
            for s in rt.state.values_mut() {
                if let threads::State::Blocked(i) = *s {
                    if !blocked.contains(&i) {
                        *s = threads::State::Running;
                    }
                }
            }
        }
    }

    /// Enters the gated call whose place is not a choice: the only one of
    /// a rank none of whose other threads runs or waits in a call.
    fn enter_forced(&mut self) -> bool {
        let mut entered = false;
        for r in self.threads.ranks().collect::<Vec<_>>() {
            let rt = self.threads.of(r).expect("a rank of threads");
            if !rt.quiet() || rt.any_blocked() {
                continue;
            }
            let ts: Vec<u32> = rt.gated_calls().map(|(t, _)| t).collect();
            if let [t] = ts[..] {
                self.enter(r, t, None);
                if self.end.is_some() {
                    return true;
                }
                entered = true;
            }
        }
        entered
    }

    /// With every rank waiting: the entry point of the first rank of
    /// threads with calls at its gate, none of whose threads runs and that
    /// was not left for later. `others`: whether something else can be
    /// done first (a choice, or a failing poll).
    fn entry_point(&self, others: bool) -> Option<ChoicePoint> {
        let mut ready = self.threads.ranks().filter(|&r| {
            let rt = self.threads.of(r).expect("a rank of threads");
            rt.quiet() && !rt.later && rt.gated_calls().next().is_some()
        });
        let r = ready.next()?;
        let rt = self.threads.of(r).expect("a rank of threads");
        let later = rt.any_blocked() && (others || ready.next().is_some());
        let alternatives = threads::entry_alternatives(rt, later);
        let (t, _) = rt.gated_calls().next()?;
        let site = rt.gated[&t].last().map(|(s, _)| *s).unwrap_or_default();
        Some(ChoicePoint {
            at: OpId {
                rank: r,
                index: self.matching.ops(r).len(),
            },
            site,
            alternatives,
        })
    }

    /// Whether every rank waits: for a rank of threads, none runs and one
    /// waits, or it has finalized.
    fn all_waiting(&self) -> bool {
        if !self.threads.any() {
            return self.matching.all_waiting();
        }
        (0..self.cfg.nprocs).all(|r| match self.threads.of(r) {
            Some(rt) => self.matching.finalized(r) || rt.waiting(),
            None => self.matching.waiting(r),
        })
    }

    /// Takes one intercepted call of `rank` into its sequence of calls.
    fn enter_call(&mut self, rank: Rank, site: Site, op: Op) {
        if self.end.is_some() || self.params.take(rank, &op) {
            return;
        }
        let index = self.matching.ops(rank).len();
        let id = OpId { rank, index };
        match model::model(&self.matching, rank, &op, self.cfg.zero_buffer) {
            Ok(kind) => {
                let is_poll = matches!(
                    kind,
                    Kind::Wait { test: true, .. }
                        | Kind::Probe {
                            blocking: false,
                            ..
                        }
                        | Kind::Win {
                            sync: WinSync::Wait { test: true },
                            ..
                        }
                ) || matches!(
                    op,
                    Op::Mprobe {
                        blocking: false,
                        ..
                    }
                );
                if !is_poll {
                    self.false_rounds = 0;
                }
                if let Kind::Send {
                    dst: Peer::Rank(dst),
                    comm,
                    tag,
                    ready: true,
                    ..
                } = kind
                {
                    if !self.matching.receive_posted(rank, dst, comm, tag) {
                        self.end = Some(RunEnd::ReadyUnposted {
                            op: id,
                            site,
                            call: self.name(rank, &op),
                            dst,
                        });
                        return;
                    }
                }
                // A named receive right after a probe with `MPI_ANY_SOURCE`
                // may take what the probe found as part of a row of probes,
                // whose receives' arguments the run's end compares.
                let probed = matches!(kind, Kind::Recv { blocking: true, .. })
                    && index > 0
                    && matches!(
                        self.matching.ops(rank)[index - 1].kind,
                        Kind::Probe {
                            src: Peer::Any,
                            blocking: true,
                            ..
                        }
                    );
                match kind {
                    Kind::Recv { src: Peer::Any, .. }
                    | Kind::Probe {
                        src: Peer::Any,
                        blocking: true,
                        ..
                    } => self.wildcard_recvs = true,
                    Kind::Wait {
                        kind: fib_wire::WaitKind::Any,
                        test: false,
                        ..
                    } => self.waitanys = true,
                    _ => {}
                }
                let rec = OpRec {
                    site,
                    name: self.name(rank, &op),
                    complete: false,
                    matched: None,
                    kind,
                };
                // A matched probe has no data of its own: its `MPI_Mrecv`'s
                // arguments are compared with the send it took.
                if matches!(op, Op::Mprobe { .. }) {
                    self.params.matched_probe(id);
                } else {
                    self.params.issued(id, &rec.kind, probed);
                }
                self.issue(id, rec, op.expects_reply(self.cfg.zero_buffer));
                match op {
                    Op::Mprobe { req, .. } => {
                        if is_poll {
                            self.matching.mark_poll(id);
                        }
                        self.matching.note_probe(id, req);
                    }
                    Op::Mrecv { probe, .. } => {
                        let taken = self.matching.probe_received(rank, probe);
                        let mismatch =
                            taken.and_then(|index| self.params.mrecv(id, OpId { rank, index }));
                        if let (Some(mismatch), None) = (mismatch, &self.end) {
                            self.end = Some(RunEnd::ArgsDiffer {
                                collective: false,
                                mismatch,
                            });
                        }
                    }
                    Op::RequestGetStatus { .. } => self.matching.mark_peek(id),
                    _ => {}
                }
            }
            Err(message) => {
                self.end = Some(RunEnd::Invalid {
                    op: id,
                    site,
                    message: format!("{}: {message}", self.name(rank, &op)),
                });
            }
        }
    }

    /// The MPI function `op` of `rank` is: a nonblocking send or receive on
    /// a persistent request is its `MPI_Start`.
    fn name(&self, rank: Rank, op: &Op) -> &'static str {
        let req = match op {
            Op::Send { req: Some(q), .. } => Some(*q),
            Op::Recv {
                req,
                blocking: false,
                ..
            } => Some(*req),
            _ => None,
        };
        match req {
            Some(q) if self.matching.persistent(rank, q).is_some() => "MPI_Start",
            _ => call_name(op),
        }
    }

    /// Records the call, and wakes the choices a new send races with.
    fn issue(&mut self, id: OpId, rec: OpRec, waits: bool) {
        let cancel = match rec.kind {
            Kind::Cancel { op } => Some(OpId {
                rank: id.rank,
                index: op,
            }),
            _ => None,
        };
        let is_send = self.matching.issue(id, rec, waits);
        self.causality.issued(id.rank);
        if is_send {
            let matching = &self.matching;
            self.causality
                .send_races(id, self.path.choosers_mut(), |at| matching.rival(id, at));
        }
        if let Some(recv) = cancel {
            self.causality
                .cancel_races(id, recv, self.path.choices_mut());
        }
    }

    /// Fires every match set that can fire now and returns the answers to
    /// send, in order. Sets [`Engine::end`] when the run cannot go on.
    pub fn advance(&mut self) -> Vec<(Rank, Down)> {
        self.run_on();
        let out = self.matching.take_out_ops();
        out.into_iter().map(|(id, d)| (id.rank, d)).collect()
    }

    /// Fires every match set that can fire now, as [`Engine::advance`].
    fn run_on(&mut self) {
        if self.end.is_some() {
            return;
        }
        let threaded = self.threads.any();
        loop {
            if self.timed_inputs() {
                continue;
            }
            let mut changed = self.fire_collectives();
            if self.end.is_some() {
                break;
            }
            changed |= self.fire_send_recv();
            for r in 0..self.cfg.nprocs {
                while self.answer(r) {
                    changed = true;
                }
            }
            if changed {
                self.false_rounds = 0;
                continue;
            }
            // A call entered is progress unless it is a poll (the call
            // itself says so).
            if threaded {
                self.sync_threads();
                let entered = self.enter_forced();
                if self.end.is_some() {
                    break;
                }
                if entered {
                    continue;
                }
            }
            if self.all_waiting() {
                if self.holding || !self.at_quiescence() {
                    break;
                }
                continue;
            }
            break;
        }
    }

    /// Collectives (and `MPI_Finalize`) whose every member has arrived.
    fn fire_collectives(&mut self) -> bool {
        if self.matching.at_finalize() {
            // Messages that can still be matched (nonblocking calls never
            // waited for) are matched first, so that what the run leaves
            // behind does not depend on when the ranks' calls arrived; and
            // so are nonblocking collectives every member made.
            if self.fire_send_recv() || self.fire_ready_collectives() {
                return true;
            }
            // So are wildcard receives the program freed (their requests
            // were never to be waited for); each is still a choice.
            let points = self.path.awake(self.matching.freed_points());
            if let Some(point) = with_defers(points) {
                self.choose(point);
                return true;
            }
            self.matching.finalize();
            self.end = Some(RunEnd::Completed);
            return true;
        }
        self.fire_ready_collectives()
    }

    /// The collectives whose every member has made its call.
    fn fire_ready_collectives(&mut self) -> bool {
        let mut fired = false;
        for (comm, members) in self.matching.ready_collectives() {
            match self.matching.fire_collective(comm, &members) {
                Ok(ids) => {
                    for &id in &ids {
                        self.on_thread(id.rank, self.threads.thread_of(id.rank, id.index));
                    }
                    let matching = &self.matching;
                    let dep = self.causality.join(&ids, |o| matching.nonblocking_coll(o));
                    // A nonblocking collective's request completes now: a
                    // Waitany/Waitsome that chose before, without it, may
                    // race with it.
                    if !self.path.choices().is_empty() {
                        let (choices, among) = self.path.choosers_mut();
                        for &o in ids.iter().filter(|&&o| matching.nonblocking_coll(o)) {
                            completion_races(&dep, (&mut *choices, among), |at| {
                                matching.lists(at, o)
                            });
                        }
                    }
                    fired = true;
                    let members: Vec<_> = ids.iter().map(|&i| (i, self.matching.op(i))).collect();
                    // The members of a collective on an intercommunicator
                    // give counts and roots by group: not compared.
                    let inter = self.matching.is_inter(comm);
                    if let Some(mismatch) = self.params.collective(&members).filter(|_| !inter) {
                        self.end = Some(RunEnd::ArgsDiffer {
                            collective: true,
                            mismatch,
                        });
                        return fired;
                    }
                }
                Err(end) => {
                    self.end = Some(end);
                    return fired;
                }
            }
        }
        fired
    }

    /// Send/receive pairs whose receive names its source: each has exactly
    /// one possible partner.
    fn fire_send_recv(&mut self) -> bool {
        let mut fired = false;
        while let Some((send, recv)) = self.matching.named_pair() {
            self.match_pair(send, recv, false);
            fired = true;
        }
        fired
    }

    /// Matches `send` with `recv`; `wildcard` when the last choice made it.
    fn match_pair(&mut self, send: OpId, recv: OpId, wildcard: bool) {
        if self.matching.cancelling(recv) {
            cancel_matched(self.path.choices_mut(), recv);
        }
        let p = self.matching.pair(send, recv);
        let n = self.path.choices().len();
        let m = self.causality.matched(&p, n, wildcard);
        // The receive completes now, and so does a synchronous send.
        if n > 0 {
            let matching = &self.matching;
            let (choices, among) = self.path.choosers_mut();
            completion_races(&m, (&mut *choices, among), |at| matching.lists(at, recv));
            if p.sync {
                completion_races(&m, (choices, among), |at| matching.lists(at, send));
            }
        }
        self.matching.match_pair(&p, wildcard);
        if self.threads.any() {
            if let (Kind::Send { tag, .. }, Kind::Recv { src, tag: rtag, .. }) =
                (&self.matching.op(send).kind, &self.matching.op(recv).kind)
            {
                (self.threads).matched(send, *tag, recv, *src, *rtag, p.comm);
            }
            for (a, b) in threads::match_races(&self.matching, &mut self.threads, send, recv) {
                self.race(a, b);
            }
        }
        if self.end.is_none() {
            if let Some(mismatch) = self.params.pair(send, recv) {
                self.end = Some(RunEnd::ArgsDiffer {
                    collective: false,
                    mismatch,
                });
            }
        }
    }

    /// Answers the call `rank` waits in if its answer no longer depends on
    /// anything still to come.
    fn answer(&mut self, r: Rank) -> bool {
        let Some(ready) = self.matching.ready(r) else {
            return false;
        };
        let at = ready.at();
        self.on_thread(r, self.threads.thread_of(r, at.index));
        let down = match ready {
            Ready::Complete(id) => {
                self.causality.learn_match(r, id);
                Down::Go
            }
            Ready::Wait(id, indices) => self.complete_wait(id, indices),
            Ready::Probe(id, send) => self.probe_answer(id, send),
            Ready::NullProbe(id) => self.matching.null_probe(id),
            Ready::Window(id) => {
                let (down, from) = self.matching.window_fire(id);
                for f in from {
                    self.causality.learn_issue(r, f);
                }
                down
            }
        };
        self.matching.release(at, down);
        true
    }

    fn complete_wait(&mut self, id: OpId, indices: Vec<u32>) -> Down {
        let (down, completed) = self.matching.complete_wait(id, indices);
        for o in completed {
            // A buffered send was complete when issued: what its match
            // follows is no cause of the completion (and taking it would hide
            // races of this rank's later sends and completions).
            if !self.matching.buffered_send(o) {
                self.causality.learn_match(id.rank, o);
            }
        }
        down
    }

    fn probe_answer(&mut self, probe: OpId, send: OpId) -> Down {
        self.causality.learn_issue(probe.rank, send);
        self.matching.probe(probe, send)
    }

    /// Every rank waits and nothing deterministic is left: answer failing
    /// polls, take a choice, or declare the run stuck. Returns whether the
    /// engine did something.
    fn at_quiescence(&mut self) -> bool {
        // A lock request that conflicts with a lock an earlier choice
        // granted, and that does not follow that choice, could have been
        // granted first under other timing.
        if !self.path.choices().is_empty() {
            for b in self.matching.lock_waiting() {
                let matching = &self.matching;
                self.causality
                    .lock_races(b, self.path.choices_mut(), |a| matching.lock_conflict(a, b));
            }
        }
        let locks = self.matching.lock_choices();
        let (mut points, mut polls) = self.matching.choice_points();
        // A test the followed run says succeeded waits for what it
        // returned; if nothing else is left, the engine cannot complete
        // what MPI did.
        let sure = &self.sure;
        let stalled = polls.iter().any(|at| sure.contains(at));
        polls.retain(|at| !sure.contains(at));
        points.extend(locks);
        // Alternatives explored in another branch stay asleep, unless nothing
        // else is left.
        let points = self.path.awake(points);
        // Calls at a gate enter first, or are left for later (and offered
        // again when nothing else is left).
        if self.threads.any() {
            let others = !points.is_empty() || !polls.is_empty();
            let mut entry = self.entry_point(others);
            if entry.is_none() && !others {
                self.threads.clear_later();
                entry = self.entry_point(others);
            }
            if let Some(point) = entry {
                match point.alternatives[..] {
                    [Alternative::Enter(t)] => self.enter(point.at.rank, t, None),
                    _ => self.choose(point),
                }
                return self.end.is_none();
            }
        }
        // A test of a receive the program asked to cancel and that no send
        // can reach does not fail: the choices are taken first (MPI
        // libraries cancel such a receive at once).
        let polled_cancel = points.iter().any(|p| {
            p.alternatives == [Alternative::Cancel] && self.matching.tests(p.at.rank, p.at.index)
        });
        // A thread that idles outside MPI may still call: polls fail for
        // as long as it does, and the run is not stuck.
        let idling = self.threads.idling();
        let limit = if polled_cancel {
            0
        } else if points.is_empty() && idling {
            u32::MAX
        } else if points.is_empty() {
            LIVELOCK_ROUNDS
        } else {
            1
        };
        if !polls.is_empty() && self.false_rounds < limit {
            self.false_rounds += 1;
            self.threads.clear_later();
            self.matching.fail_polls(polls);
            return true;
        }
        if let Some(point) = with_defers(points) {
            if self.path.awaits(&point, self.more_outcomes) {
                return false;
            }
            self.choose(point);
            return self.end.is_none();
        }
        if stalled && polls.is_empty() {
            self.end = Some(RunEnd::Divergence {
                index: self.path.choices().len(),
                expected: None,
                found: None,
            });
            return false;
        }
        if idling {
            return false;
        }
        let ranks = self.rank_views();
        self.end = Some(if polls.is_empty() {
            RunEnd::Deadlock { ranks }
        } else {
            RunEnd::Livelock { ranks }
        });
        false
    }

    /// Takes a choice at `point` and carries it out.
    fn choose(&mut self, point: ChoicePoint) {
        let (at, alt) = match self.path.take(point) {
            Ok(taken) => taken,
            Err(end) => {
                self.end = Some(end);
                return;
            }
        };
        let k = self.path.choices().len() - 1;
        self.path.choices_mut()[k].before = std::mem::take(&mut self.timing.log);
        if matches!(alt, Alternative::Enter(_) | Alternative::Later) {
            // Another order of entry is run only when a race wakes it.
            let c = self
                .path
                .choices_mut()
                .last_mut()
                .expect("the choice taken");
            c.predicted = (0..c.point.alternatives.len())
                .filter(|&i| i != c.taken)
                .collect();
        }
        match alt {
            Alternative::Later => {
                if let Some(rt) = self.threads.of_mut(at.rank) {
                    rt.later = true;
                }
                return;
            }
            // (Entering a call is progress unless it is a poll: the call
            // itself says so.)
            Alternative::Enter(t) => return self.enter(at.rank, t, Some(k)),
            _ => self.threads.clear_later(),
        }
        self.false_rounds = 0;
        self.on_thread(at.rank, self.threads.thread_of(at.rank, at.index));
        match (&self.matching.op(at).kind, alt) {
            (Kind::Recv { .. }, Alternative::Send(send)) => {
                self.match_pair(send, at, true);
            }
            (Kind::Recv { .. }, Alternative::Cancel) => {
                let m = self.causality.cancelled(at, k);
                let matching = &self.matching;
                completion_races(&m, self.path.choosers_mut(), |c| matching.lists(c, at));
                self.matching.cancel(at);
            }
            (Kind::Probe { .. }, Alternative::Send(send)) => {
                self.causality.learn_choice(at.rank, k);
                let d = self.probe_answer(at, send);
                self.matching.release(at, d);
            }
            (Kind::Wait { .. }, Alternative::Index(i)) => {
                self.causality.learn_choice(at.rank, k);
                let d = self.complete_wait(at, vec![i]);
                self.matching.release(at, d);
            }
            (Kind::Win { .. }, Alternative::Grant(id)) => {
                self.causality.learn_choice(id.rank, k);
                let from = self.matching.grant(id);
                for &u in &from {
                    self.causality.learn_issue(id.rank, u);
                }
                let matching = &self.matching;
                self.causality
                    .grant_races(id, &from, self.path.choices_mut(), |a| {
                        matching.lock_conflict(a, id)
                    });
                // A grant that conflicts with an asleep one does not
                // commute with it: granting that one after this one is an
                // order no other branch explored.
                let matching = &self.matching;
                self.path.wake_asleep(
                    |a| matches!(a, Alternative::Grant(x) if matching.lock_conflict(*x, id)),
                );
            }
            (Kind::Wait { .. }, Alternative::Subset(ks)) => {
                self.causality.learn_choice(at.rank, k);
                let d = self.complete_wait(at, ks);
                self.matching.release(at, d);
            }
            _ => unreachable!("choice point of an unexpected kind"),
        }
    }
}

#[cfg(test)]
mod tests {
    use fib_wire::{SendMode, ANY, COMM_WORLD};

    use super::*;

    fn cfg(nprocs: usize) -> Config {
        Config {
            nprocs,
            zero_buffer: false,
            exchange: false,
        }
    }

    fn site(line: u32) -> Site {
        Site::Line { file: 1, line }
    }

    fn ssend(dest: i32) -> Op {
        Op::Send {
            mode: SendMode::Sync,
            dest,
            tag: 0,
            comm: COMM_WORLD,
            req: None,
        }
    }

    fn recv(src: i32) -> Op {
        Op::Recv {
            src,
            tag: ANY,
            comm: COMM_WORLD,
            req: 1,
            blocking: true,
        }
    }

    fn id(rank: usize, index: usize) -> OpId {
        OpId { rank, index }
    }

    #[test]
    fn a_named_pair_completes_and_the_run_finalizes() {
        let mut e = Engine::new(cfg(2), vec![]);
        e.call(0, site(1), ssend(1));
        assert!(e.advance().is_empty());
        e.call(1, site(2), recv(0));
        let out = e.advance();
        assert_eq!(
            out,
            vec![
                (
                    1,
                    Down::PostRecv {
                        req: 1,
                        src: 0,
                        tag: 0
                    }
                ),
                (0, Down::Go),
                (1, Down::Go),
            ]
        );
        e.call(0, site(3), Op::Finalize);
        e.call(1, site(4), Op::Finalize);
        assert_eq!(e.advance(), vec![(0, Down::Go), (1, Down::Go)]);
        assert_eq!(e.end(), Some(&RunEnd::Completed));
        assert!(e.leaks().is_empty());
        assert!(e.choices().is_empty());
        assert_eq!(e.fired().len(), 2);
    }

    /// Ranks 1 and 2 each send to rank 0, which receives from anyone twice.
    fn wildcard_run(plan: Vec<Planned>) -> Engine {
        let mut e = Engine::new(cfg(3), plan);
        e.call(1, site(1), ssend(0));
        e.call(2, site(2), ssend(0));
        e.call(0, site(3), recv(ANY));
        e.advance();
        e
    }

    #[test]
    fn a_wildcard_receive_chooses_only_when_all_wait() {
        let e = wildcard_run(vec![]);
        assert_eq!(e.choices().len(), 1);
        let c = &e.choices()[0];
        assert_eq!(c.point.at, id(0, 0));
        assert_eq!(
            c.point.alternatives,
            vec![Alternative::Send(id(1, 0)), Alternative::Send(id(2, 0))]
        );
        assert_eq!(e.op(id(0, 0)).matched, Some(id(1, 0)));
        // The plan takes the other send.
        let e = wildcard_run(vec![Planned {
            expect: None,
            taken: 1,
            prefer: None,
            before: None,
        }]);
        assert_eq!(e.op(id(0, 0)).matched, Some(id(2, 0)));
        assert!(e.plan_exhausted());
    }

    /// [`wildcard_run`] past an empty plan under `policy`.
    fn wildcard_run_with(policy: Policy) -> Engine {
        let mut e = Engine::with_policy(cfg(3), vec![], policy);
        e.call(1, site(1), ssend(0));
        e.call(2, site(2), ssend(0));
        e.call(0, site(3), recv(ANY));
        e.advance();
        e
    }

    #[test]
    fn a_followed_run_takes_what_the_receive_took_and_diverges_without_it() {
        let took = |rank| Policy::Follow([(id(0, 0), Outcome::From(rank))].into_iter().collect());
        let e = wildcard_run_with(took(2));
        assert_eq!(e.op(id(0, 0)).matched, Some(id(2, 0)));
        // The choice is the engine's own, with both alternatives: the walk
        // runs the other one next.
        assert_eq!(e.choices()[0].taken, 1);
        assert_eq!(e.choices()[0].point.alternatives.len(), 2);
        // A receive that took a message no send of the run could give is
        // no run the engine can make.
        let e = wildcard_run_with(took(0));
        assert!(matches!(
            e.end(),
            Some(RunEnd::Divergence { index: 0, expected: None, found: Some(p) }) if p.at == id(0, 0)
        ));
    }

    #[test]
    fn a_following_engine_waits_for_what_the_receive_took() {
        let mut e = Engine::following(cfg(3), vec![]);
        e.call(1, site(1), ssend(0));
        e.call(2, site(2), ssend(0));
        e.call(0, site(3), recv(ANY));
        // Nothing is known of the receive yet: no choice, no end.
        assert!(e.advance().is_empty());
        assert!(e.choices().is_empty());
        assert_eq!(e.end(), None);
        e.follow(id(0, 0), Outcome::From(2));
        e.advance();
        assert_eq!(e.op(id(0, 0)).matched, Some(id(2, 0)));
        // Once every outcome is known, a choice that has none diverges.
        let mut e = Engine::following(cfg(3), vec![]);
        e.call(1, site(1), ssend(0));
        e.call(2, site(2), Op::Finalize);
        e.call(0, site(3), recv(ANY));
        e.follow(id(0, 0), Outcome::From(2));
        e.advance();
        assert_eq!(e.end(), None);
        e.followed_all();
        e.advance();
        assert!(
            matches!(e.end(), Some(RunEnd::Divergence { index: 0, .. })),
            "{:?}",
            e.end()
        );
    }

    #[test]
    fn a_plan_that_expects_another_point_diverges() {
        let expect = ChoicePoint {
            at: id(0, 0),
            site: site(9),
            alternatives: vec![Alternative::Send(id(1, 0))],
        };
        let e = wildcard_run(vec![Planned {
            expect: Some(expect.clone()),
            taken: 0,
            prefer: None,
            before: None,
        }]);
        assert!(matches!(
            e.end(),
            Some(RunEnd::Divergence { index: 0, expected: Some(x), found: Some(_) }) if *x == expect
        ));
    }

    #[test]
    fn nothing_left_to_match_is_a_deadlock() {
        let mut e = Engine::new(cfg(2), vec![]);
        e.call(0, site(1), recv(1));
        e.call(1, site(2), recv(0));
        assert!(e.advance().is_empty());
        let Some(RunEnd::Deadlock { ranks }) = e.end() else {
            panic!("{:?}", e.end())
        };
        assert_eq!(ranks.len(), 2);
        assert_eq!(ranks[1].call, Some("MPI_Recv"));
        assert_eq!(ranks[1].site, site(2));
        assert!(e.leaks().is_empty(), "only a completed run has leaks");
    }

    /// Ranks 1 and 2 send to rank 0, whose main thread takes two messages
    /// from anyone while its second thread sends to rank 1 (which never
    /// receives it; only where it enters matters here).
    fn idle_run(plan: Vec<Planned>, early: bool) -> Engine {
        let send = |dest| Op::Send {
            mode: SendMode::Standard,
            dest,
            tag: 0,
            comm: COMM_WORLD,
            req: None,
        };
        let mut e = Engine::new(cfg(3), plan);
        e.thread_started(0, 1);
        if early {
            e.call_on(0, 1, site(9), send(1));
        }
        e.call(1, site(1), send(0));
        e.call(2, site(2), send(0));
        e.call(1, site(5), Op::Finalize);
        e.call(2, site(5), Op::Finalize);
        e.call_on(0, 0, site(3), recv(ANY));
        e.advance_threads();
        e
    }

    #[test]
    fn a_replay_idles_a_thread_where_its_run_did_and_holds_its_call() {
        // The run: thread 1 computes; the time rule idles it, and the
        // receive chooses.
        let mut e = idle_run(vec![], false);
        assert!(e.choices().is_empty(), "thread 1 runs");
        assert!(e.threads_idle(0, false));
        e.advance_threads();
        assert_eq!(e.choices().len(), 1);
        let idled = Timed::Idle {
            rank: 0,
            thread: 1,
            inputs: 0,
            ops: 0,
        };
        assert_eq!(e.choices()[0].before, vec![idled.clone()]);
        // Thread 1's send comes after the main thread's next receive.
        e.call_on(0, 0, site(4), recv(ANY));
        e.advance_threads();
        let first = e.choices()[0].clone();

        // The replay of its other alternative, whose thread 1 sends at
        // once: the clock does nothing before the plan's choice, the
        // thread idles where it did, and its send waits until the plan
        // is used up.
        let plan = vec![Planned {
            expect: Some(first.point.clone()),
            taken: 1,
            prefer: None,
            before: Some(first.before.clone()),
        }];
        let mut e = idle_run(plan, true);
        assert_eq!(e.matching.ops(0).len(), 0, "nothing entered yet");
        assert!(!e.threads_idle(0, false), "the plan says when");
        assert!(e.replay_idles());
        e.advance_threads();
        assert_eq!(e.end(), None, "{:?}", e.end());
        assert_eq!(e.choices().len(), 1);
        assert_eq!(e.choices()[0].point, first.point, "the run's point");
        assert_eq!(e.choices()[0].taken, 1);
        // The receive entered first; the held send is at the gate now,
        // and enters with the main thread's next call.
        let names =
            |e: &Engine| -> Vec<&str> { e.matching.ops(0).iter().map(|o| o.name).collect() };
        assert_eq!(names(&e), ["MPI_Recv"]);
        e.call_on(0, 0, site(4), recv(ANY));
        e.advance_threads();
        assert_eq!(names(&e), ["MPI_Recv", "MPI_Recv", "MPI_Send"]);
        // With a token's plan, which does not say, the clock decides.
        let plan = vec![Planned {
            expect: Some(first.point.clone()),
            taken: 1,
            prefer: None,
            before: None,
        }];
        let mut e = idle_run(plan, false);
        assert!(e.threads_idle(0, false));
    }

    #[test]
    fn a_thread_that_idles_may_still_call_so_the_run_is_not_stuck() {
        // Rank 0's main thread waits for rank 1, which waits for rank 0's
        // second thread: that one computes, then sends.
        let mut e = Engine::new(cfg(2), vec![]);
        e.thread_started(0, 1);
        e.call_on(0, 0, site(1), recv(1));
        e.call(1, site(2), recv(0));
        e.advance_threads();
        assert!(e.threads_idle(0, false), "thread 1 ran");
        assert!(!e.threads_idle(0, false), "and now idles");
        e.advance_threads();
        assert_eq!(e.end(), None, "thread 1 may still send");
        e.call_on(0, 1, site(3), ssend(1));
        e.advance_threads();
        assert_eq!(e.end(), None);
        assert_eq!(e.fired().len(), 1, "its send matched");
        // Once it has ended, nothing can answer rank 0's receive, nor
        // rank 1's next.
        e.call(1, site(4), recv(0));
        e.advance_threads();
        assert_eq!(e.end(), None);
        e.thread_ended(0, 1);
        e.advance_threads();
        let Some(RunEnd::Deadlock { ranks }) = e.end() else {
            panic!("{:?}", e.end())
        };
        assert_eq!(ranks[0].threads[0].thread, 0);
        assert_eq!(ranks[0].call, Some("MPI_Recv"));
    }

    #[test]
    fn a_call_held_at_the_gate_when_the_run_ends_still_races() {
        // Two threads of rank 0 send to rank 1: which enters first is a
        // choice. The first's send completes (buffered) and its thread runs
        // on, so the second's waits at the gate: had the run ended there
        // (a rank crashed), the race of the two sends would go unseen.
        let send = Op::Send {
            mode: SendMode::Standard,
            dest: 1,
            tag: 0,
            comm: COMM_WORLD,
            req: None,
        };
        let mut e = Engine::new(cfg(2), vec![]);
        e.thread_started(0, 1);
        e.thread_started(0, 2);
        e.thread_parked(0, 0, true);
        e.call_on(0, 1, site(1), send.clone());
        e.call_on(0, 2, site(2), send);
        e.call(1, site(3), recv(0));
        e.advance_threads();
        assert_eq!(e.choices().len(), 1);
        assert_eq!(e.choices()[0].point.alternatives.len(), 2);
        assert!(e.choices()[0].wake.is_empty(), "thread 2 waits at the gate");
        assert_eq!(e.matching.ops(0).len(), 1);
        e.drain_gates();
        assert_eq!(e.matching.ops(0).len(), 2, "thread 2's send entered");
        assert_eq!(e.choices()[0].wake, vec![1], "and woke the other order");
        assert_eq!(e.choices().len(), 1, "without a choice of its own");
    }

    #[test]
    fn a_bad_call_ends_the_run() {
        let mut e = Engine::new(cfg(2), vec![]);
        e.call(1, site(5), ssend(4));
        assert_eq!(
            e.end(),
            Some(&RunEnd::Invalid {
                op: id(1, 0),
                site: site(5),
                message: "MPI_Ssend: rank 4 is out of range for a communicator of 2 processes"
                    .into(),
            })
        );
        e.call(0, site(6), ssend(1));
        assert!(e.ops(0).is_empty(), "calls after the end are ignored");
    }

    #[test]
    fn a_later_send_after_the_choice_wakes_its_defer() {
        // Ranks 0 and 1 receive from anyone; rank 2 sends to rank 1, then
        // to rank 0; rank 3 sends to rank 0.
        let mut e = Engine::new(cfg(4), vec![]);
        e.call(0, site(1), recv(ANY));
        e.call(1, site(2), recv(ANY));
        e.call(2, site(3), ssend(1));
        e.call(3, site(4), ssend(0));
        e.advance();
        assert_eq!(e.choices().len(), 1);
        e.call(0, site(6), Op::Finalize);
        e.call(3, site(7), Op::Finalize);
        e.advance();
        // Choice 0: rank 0 took rank 3's send, with rank 1's choice as a
        // Defer; choice 1: rank 1 took rank 2's send.
        assert_eq!(e.choices().len(), 2);
        let defer = Alternative::Defer {
            at: id(1, 0),
            alt: Box::new(Alternative::Send(id(2, 0))),
        };
        assert_eq!(
            e.choices()[0].point.alternatives,
            vec![Alternative::Send(id(3, 0)), defer]
        );
        assert!(e.choices()[0].wake.is_empty());
        // Rank 2's second send follows choice 1 and not choice 0, and rank
        // 0's receive could have taken it: the Defer is woken.
        e.call(2, site(5), ssend(0));
        assert_eq!(e.choices()[0].wake, vec![1]);
        assert!(e.choices()[1].wake.is_empty());
    }

    fn idup(req: u32) -> Op {
        Op::CommIdup {
            comm: COMM_WORLD,
            req,
            info: false,
        }
    }

    fn wait(req: u32) -> Op {
        Op::Wait {
            kind: fib_wire::WaitKind::One,
            reqs: vec![req],
        }
    }

    #[test]
    fn an_idup_is_no_fence_and_its_wait_learns_the_communicator() {
        // Rank 0 starts an MPI_Comm_idup, then sends synchronously to rank
        // 1, which receives before its own MPI_Comm_idup: no deadlock.
        let mut e = Engine::new(cfg(2), vec![]);
        e.call(0, site(1), idup(5));
        e.call(0, site(2), ssend(1));
        assert!(e.advance().is_empty());
        e.call(1, site(3), recv(0));
        assert_eq!(e.advance().len(), 3, "the pair matched");
        e.call(0, site(4), wait(5));
        assert!(e.advance().is_empty(), "rank 1 has not called it yet");
        e.call(1, site(5), idup(7));
        let new = fib_wire::FIRST_USER_COMM as i32;
        assert_eq!(
            e.advance(),
            vec![
                (0, Down::NewComm { id: new }),
                (0, Down::Done { indices: vec![0] }),
            ]
        );
        e.call(1, site(6), wait(7));
        assert_eq!(
            e.advance(),
            vec![
                (1, Down::NewComm { id: new }),
                (1, Down::Done { indices: vec![0] }),
            ]
        );
        e.call(0, site(7), Op::CommFree { comm: new as u32 });
        e.call(0, site(8), Op::Finalize);
        e.call(1, site(9), Op::Finalize);
        e.advance();
        assert_eq!(e.end(), Some(&RunEnd::Completed));
        // Rank 1 never freed it: leaked at its MPI_Comm_idup.
        assert_eq!(
            e.leaks(),
            vec![Leak::Comm {
                op: id(1, 1),
                comm: new as u32
            }]
        );
    }

    #[test]
    fn an_idup_never_completed_is_a_leaked_request_not_a_communicator() {
        let mut e = Engine::new(cfg(2), vec![]);
        e.call(0, site(1), idup(5));
        e.call(1, site(2), idup(5));
        e.call(1, site(3), wait(5));
        let out = e.advance();
        assert_eq!(out.len(), 2, "{out:?}");
        let new = fib_wire::FIRST_USER_COMM;
        e.call(1, site(4), Op::CommFree { comm: new });
        e.call(0, site(5), Op::Finalize);
        e.call(1, site(6), Op::Finalize);
        e.advance();
        assert_eq!(e.end(), Some(&RunEnd::Completed));
        assert_eq!(e.leaks(), vec![Leak::Request { op: id(0, 0) }]);
    }

    #[test]
    fn create_group_matches_among_its_members_alone() {
        // Ranks 0 and 2 make a communicator of theirs while rank 1 is
        // already in an MPI_Allreduce on MPI_COMM_WORLD, which they join
        // next.
        let allreduce = |comm| Op::Coll {
            kind: fib_wire::CollKind::Allreduce,
            comm,
            root: 0,
        };
        let create = Op::CommCreateGroup {
            comm: COMM_WORLD,
            members: vec![0, 2],
            tag: 4,
        };
        let mut e = Engine::new(cfg(3), vec![]);
        e.call(1, site(1), allreduce(COMM_WORLD));
        e.call(2, site(2), create.clone());
        assert!(e.advance().is_empty());
        e.call(0, site(2), create);
        let new = fib_wire::FIRST_USER_COMM;
        assert_eq!(
            e.advance(),
            vec![
                (0, Down::NewComm { id: new as i32 }),
                (2, Down::NewComm { id: new as i32 }),
            ]
        );
        for r in [0, 2] {
            e.call(r, site(3), allreduce(COMM_WORLD));
        }
        assert_eq!(e.advance().len(), 3);
        for r in [2, 0] {
            e.call(r, site(4), allreduce(new));
        }
        assert_eq!(e.advance(), vec![(0, Down::Go), (2, Down::Go)]);
        for r in 0..3 {
            e.call(r, site(5), Op::Finalize);
        }
        e.advance();
        assert_eq!(e.end(), Some(&RunEnd::Completed));
        assert_eq!(e.leaks().len(), 2);
    }

    #[test]
    fn create_group_refuses_a_caller_outside_its_group() {
        let mut e = Engine::new(cfg(3), vec![]);
        let create = Op::CommCreateGroup {
            comm: COMM_WORLD,
            members: vec![0, 2],
            tag: 0,
        };
        e.call(1, site(1), create);
        assert!(matches!(
            e.end(),
            Some(RunEnd::Invalid { message, .. })
                if message == "MPI_Comm_create_group: rank 1 is not a member of the group it passes"
        ));
    }
}
