//! Runs straight-line MPI programs through the engine without MPI: each
//! simulated rank issues its calls in order and waits where a real rank
//! would. Used by the engine's tests and by the comparison with brute-force
//! enumeration.
//!
//! Like the interposition library, a simulated rank leaves the requests that
//! a wait or test has completed out of its later completion calls (the
//! program's handles are `MPI_REQUEST_NULL` by then) and answers a call left
//! with none itself, so that `MPI_Waitany` followed by `MPI_Waitall` on the
//! same requests runs as it does under MPI.

use std::collections::{HashSet, VecDeque};

use fib_wire::{Down, Op, Site};

use crate::engine::{
    Choice, Config, Engine, Exchange, FiredList, Leak, Ops, Planned, Policy, RunEnd, WaitRow,
};
use crate::explore::{self as ex, DepthFirst, Ran, Stopped, Token};

/// One step of a simulated rank.
#[derive(Clone, Debug)]
pub enum Step {
    /// Make this call once.
    Call(Op),
    /// Make this poll (`MPI_Test*`, `MPI_Iprobe`) until it says yes.
    Poll(Op),
    /// Make this test once, as a run made without the scheduler reports
    /// one that returned something ([`Engine::polled`]): the engine answers
    /// it only with what it returned, never "not yet".
    Sure(Op),
    /// In a rank of several threads ([`ThreadedProgram`]), wait outside
    /// MPI until every thread of the rank has come here (an OpenMP
    /// barrier): what each does next follows what all did before.
    ThreadBarrier,
}

/// The source (or tag) of a simulated receive that takes the message the
/// rank's last probe found: `MPI_Recv(..., status.MPI_SOURCE,
/// status.MPI_TAG, ...)` after an `MPI_Probe(MPI_ANY_SOURCE, ...)`. The
/// receive is issued from the source (with the tag) the probe reported.
pub const PROBED: i32 = i32::MIN + 1;

/// A program: the steps of each rank. Every rank should end with
/// `Op::Finalize`.
pub type Program = Vec<Vec<Step>>;

/// What one simulated run did.
#[derive(Clone, Debug)]
pub struct RunResult {
    pub end: RunEnd,
    pub choices: Vec<Choice>,
    pub fired: FiredList,
    pub token: Token,
    /// Every rank's operations, in program order.
    pub ops: Vec<Ops>,
    /// What a completed run left behind.
    pub leaks: Vec<Leak>,
    /// Its exchangeable blocks ([`Engine::conclude`]).
    pub exchanges: Vec<Exchange>,
    /// Its rows of `MPI_Waitany` ([`Engine::conclude`]).
    pub rows: Vec<WaitRow>,
}

/// The order in which simulated ranks take turns; the engine's decisions
/// must not depend on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Turns {
    Forward,
    Backward,
}

/// Runs `program` once, following `plan`.
pub fn run_once(program: &Program, cfg: Config, plan: Vec<Planned>, turns: Turns) -> RunResult {
    run_once_with(program, cfg, plan, turns, Policy::First)
}

/// Runs `program` once, following `plan`, then `policy`.
pub fn run_once_with(
    program: &Program,
    cfg: Config,
    plan: Vec<Planned>,
    turns: Turns,
    policy: Policy,
) -> RunResult {
    let steps = |r: usize, pc: usize| {
        program[r].get(pc).map(|s| {
            let (op, made) = step_op(s);
            (site_of(pc), op, made)
        })
    };
    run(program.len(), cfg, plan, turns, policy, &steps)
}

/// The site of a simulated rank's `pc`-th step: line `pc + 1` of file 1.
fn site_of(pc: usize) -> Site {
    Site::Line {
        file: 1,
        line: pc as u32 + 1,
    }
}

/// Every rank's calls, each at the site [`run_once`] gives it, as a real
/// run would record them for [`rerun_calls`] (a poll once).
pub fn calls_of(program: &Program) -> Vec<Vec<(Site, Op)>> {
    program
        .iter()
        .map(|steps| {
            steps
                .iter()
                .enumerate()
                .map(|(pc, s)| (site_of(pc), step_op(s).0.clone()))
                .collect()
        })
        .collect()
}

/// Runs calls recorded from a real run once more, each at its own site,
/// under `cfg`: how the same calls fare with other buffering. Sound for
/// calls whose sequence does not depend on timing (no wildcard receives or
/// probes, no polls, no `Waitany`/`Waitsome`), which the caller checks.
pub fn rerun_calls(calls: &[Vec<(Site, Op)>], cfg: Config) -> RunResult {
    let mut rerun = Rerun::new(calls.len(), cfg);
    for (r, rank) in calls.iter().enumerate() {
        for (site, op) in rank {
            rerun.push(r, *site, op.clone());
        }
    }
    rerun.finish()
}

/// [`rerun_calls`] fed as the calls arrive: each [`Rerun::advance`] takes
/// the run as far as the calls pushed so far allow, so that most of the
/// work is done by the time the last call is in ([`Rerun::finish`]). The
/// result is the same: the calls do not depend on timing, and a rank that
/// waits in the engine needs no later call of its own to be answered.
pub struct Rerun {
    sim: Sim,
    /// Per rank, its calls from the one it is at on, and how many before
    /// that have been dropped: a long run keeps only what is still to come.
    calls: Vec<(usize, VecDeque<(Site, Op)>)>,
    end: Option<RunEnd>,
}

impl Rerun {
    pub fn new(nprocs: usize, cfg: Config) -> Rerun {
        Rerun {
            sim: Sim::new(nprocs, cfg, Vec::new(), Turns::Forward, Policy::First),
            calls: vec![(0, VecDeque::new()); nprocs],
            end: None,
        }
    }

    /// Rank `r`'s next call.
    pub fn push(&mut self, r: usize, site: Site, op: Op) {
        self.calls[r].1.push_back((site, op));
    }

    /// Runs the calls pushed so far as far as they go.
    pub fn advance(&mut self) {
        let calls = &self.calls;
        let steps = |r: usize, pc: usize| {
            let (dropped, list) = &calls[r];
            list.get(pc - dropped)
                .map(|(site, op)| (*site, op, Made::Once))
        };
        while self.end.is_none() {
            match self.sim.round(&steps) {
                Round::Moved => {}
                Round::Stalled => break,
                Round::Ended(end) => self.end = Some(end),
            }
        }
        for ((dropped, list), &pc) in self.calls.iter_mut().zip(&self.sim.pc) {
            let done = (pc - *dropped).min(list.len());
            list.drain(..done);
            *dropped += done;
        }
    }

    /// Every call is in: the run's end.
    pub fn finish(mut self) -> RunResult {
        self.advance();
        match self.end {
            Some(end) => self.sim.ended(end),
            None => self.sim.ran_off(),
        }
    }
}

/// How a step makes its call.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Made {
    Once,
    Poll,
    Sure,
}

/// The `pc`-th step of rank `r`, if it has one: its site, its call, and
/// how it makes it.
type Steps<'a> = dyn Fn(usize, usize) -> Option<(Site, &'a Op, Made)> + 'a;

fn run(
    n: usize,
    cfg: Config,
    plan: Vec<Planned>,
    turns: Turns,
    policy: Policy,
    steps: &Steps,
) -> RunResult {
    let mut sim = Sim::new(n, cfg, plan, turns, policy);
    loop {
        match sim.round(steps) {
            Round::Moved => {}
            Round::Stalled => return sim.ran_off(),
            Round::Ended(end) => return sim.ended(end),
        }
    }
}

/// A simulated run under way: the engine, and where each rank is.
struct Sim {
    engine: Engine,
    zero_buffer: bool,
    pc: Vec<usize>,
    waiting: Vec<bool>,
    /// Requests a completion call returned, and the requests of the
    /// completion call each rank waits in, as the engine got them.
    released: Vec<HashSet<u32>>,
    listed: Vec<Vec<u32>>,
    order: Vec<usize>,
    /// Per rank, the source and tag its last probe found ([`PROBED`]).
    probed: Vec<(i32, i32)>,
    /// The sites of receives whose tag was [`PROBED`].
    tagged: HashSet<Site>,
}

/// What one round of a simulated run did.
enum Round {
    /// The engine answered a call.
    Moved,
    /// No rank can go on with the steps it has: each waits or has none.
    Stalled,
    Ended(RunEnd),
}

impl Sim {
    fn new(n: usize, cfg: Config, plan: Vec<Planned>, turns: Turns, policy: Policy) -> Sim {
        Sim {
            engine: Engine::with_policy(cfg, plan, policy),
            zero_buffer: cfg.zero_buffer,
            pc: vec![0; n],
            waiting: vec![false; n],
            released: vec![HashSet::new(); n],
            listed: vec![Vec::new(); n],
            order: match turns {
                Turns::Forward => (0..n).collect(),
                Turns::Backward => (0..n).rev().collect(),
            },
            probed: vec![(PROBED, PROBED); n],
            tagged: HashSet::new(),
        }
    }

    /// Every rank issues its calls until one waits for an answer; then the
    /// engine answers what it can.
    fn round(&mut self, steps: &Steps) -> Round {
        for &r in &self.order {
            while !self.waiting[r] {
                let Some((site, op, made)) = steps(r, self.pc[r]) else {
                    break;
                };
                let from_probed;
                let op = match *op {
                    Op::Recv { src, tag, .. } if src == PROBED || tag == PROBED => {
                        let mut o = op.clone();
                        if let Op::Recv { src, tag, .. } = &mut o {
                            if *src == PROBED {
                                *src = self.probed[r].0;
                            }
                            if *tag == PROBED {
                                *tag = self.probed[r].1;
                                self.tagged.insert(site);
                            }
                        }
                        from_probed = o;
                        &from_probed
                    }
                    _ => op,
                };
                let Some(op) = without_released(op, &mut self.released[r], &mut self.listed[r])
                else {
                    // Only null requests: MPI answers at once.
                    self.pc[r] += 1;
                    continue;
                };
                let waits = op.expects_reply(self.zero_buffer);
                self.engine.call(r, site, op);
                if made == Made::Sure {
                    self.engine.polled(r);
                }
                if waits {
                    self.waiting[r] = true;
                } else {
                    self.pc[r] += 1;
                }
            }
        }
        let answers = self.engine.advance();
        for (r, d) in &answers {
            let r = *r;
            if matches!(d, Down::PostRecv { .. } | Down::Cancelled { .. }) {
                continue;
            }
            let (_, op, made) = steps(r, self.pc[r]).expect("an answered rank has a call");
            // The communicator an `MPI_Comm_idup` made comes ahead of the
            // answer of the wait or test that completes it.
            if matches!(d, Down::NewComm { .. }) && matches!(op, Op::Wait { .. } | Op::Test { .. })
            {
                continue;
            }
            self.waiting[r] = false;
            match d {
                Down::Probed {
                    found: true,
                    src,
                    tag,
                } => self.probed[r] = (*src, *tag),
                // `MPI_Request_get_status` leaves its request active.
                Down::Done { .. } if matches!(op, Op::RequestGetStatus { .. }) => {}
                // A successful `MPI_Win_test` releases no request.
                Down::Done { .. } if matches!(op, Op::WinWait { .. }) => {}
                Down::Done { indices } => {
                    for &i in indices {
                        self.released[r].insert(self.listed[r][i as usize]);
                    }
                }
                _ => {}
            }
            let negative = matches!(d, Down::Done { indices } if indices.is_empty())
                || matches!(d, Down::Probed { found: false, .. });
            if !(made == Made::Poll && negative) {
                self.pc[r] += 1;
            }
        }
        if let Some(end) = self.engine.end() {
            return Round::Ended(end.clone());
        }
        let stalled = answers.is_empty()
            && (0..self.pc.len()).all(|r| self.waiting[r] || steps(r, self.pc[r]).is_none());
        if stalled {
            Round::Stalled
        } else {
            Round::Moved
        }
    }

    /// The result of a run the engine ended.
    fn ended(mut self, end: RunEnd) -> RunResult {
        let tagged = std::mem::take(&mut self.tagged);
        finish(self.engine, Some(end), &tagged)
    }

    /// The result of a run in which a rank ran off the end of its program
    /// without `MPI_Finalize`, and the others wait.
    fn ran_off(self) -> RunResult {
        finish(self.engine, None, &HashSet::new())
    }
}

/// `op` as the rank makes it: completion calls leave out the requests an
/// earlier one released (`None` when none is left) and record the rest in
/// `listed`; a new request may reuse a released id.
fn without_released(op: &Op, released: &mut HashSet<u32>, listed: &mut Vec<u32>) -> Option<Op> {
    Some(match op {
        Op::Wait { kind, reqs } | Op::Test { kind, reqs } => {
            let reqs: Vec<u32> = reqs
                .iter()
                .copied()
                .filter(|q| !released.contains(q))
                .collect();
            if reqs.is_empty() {
                return None;
            }
            *listed = reqs.clone();
            if matches!(op, Op::Wait { .. }) {
                Op::Wait { kind: *kind, reqs }
            } else {
                Op::Test { kind: *kind, reqs }
            }
        }
        // On a request already released, MPI answers at once.
        Op::RequestGetStatus { req } if released.contains(req) => return None,
        Op::Send { req: Some(q), .. }
        | Op::Recv {
            req: q,
            blocking: false,
            ..
        }
        | Op::Mrecv {
            req: q,
            blocking: false,
            ..
        } => {
            released.remove(q);
            op.clone()
        }
        _ => op.clone(),
    })
}

fn step_op(s: &Step) -> (&Op, Made) {
    match s {
        Step::Call(op) => (op, Made::Once),
        Step::Poll(op) => (op, Made::Poll),
        Step::Sure(op) => (op, Made::Sure),
        Step::ThreadBarrier => panic!("a thread barrier is no call"),
    }
}

/// [`explore`] on `jobs` workers ([`ex::explore_parallel`]): the same
/// runs in the same order.
pub fn explore_jobs(program: &Program, cfg: Config, turns: Turns, jobs: usize) -> Vec<RunResult> {
    let mut out = Vec::new();
    let Ok(stopped) = ex::explore_parallel(
        &mut DepthFirst::new(),
        1_000_000,
        jobs,
        |plan, _| Ok::<_, std::convert::Infallible>(run_once(program, cfg, plan, turns)),
        |_, r| {
            let choices = r.choices.clone();
            out.push(r);
            Ran {
                choices,
                stop: false,
            }
        },
        |_, _| {},
    );
    assert_eq!(stopped, Stopped::Exhausted, "runaway exploration");
    out
}

/// Explores every interleaving of `program` and returns one result per run.
pub fn explore(program: &Program, cfg: Config, turns: Turns) -> Vec<RunResult> {
    explore_with(program, cfg, turns, Policy::First)
}

/// [`explore`] with the choices past each run's plan taken as `policy`
/// says.
pub fn explore_with(
    program: &Program,
    cfg: Config,
    turns: Turns,
    policy: Policy,
) -> Vec<RunResult> {
    explore_runs(|plan| run_once_with(program, cfg, plan, turns, policy.clone()))
}

/// The runs of a depth-first walk that makes each run with `run`.
fn explore_runs(mut run: impl FnMut(Vec<Planned>) -> RunResult) -> Vec<RunResult> {
    let mut out = Vec::new();
    let walk = |plan| {
        let r = run(plan);
        let choices = r.choices.clone();
        out.push(r);
        Ok::<_, std::convert::Infallible>(Ran {
            choices,
            stop: false,
        })
    };
    let Ok(stopped) = ex::explore(&mut DepthFirst::new(), 1_000_000, walk);
    assert_eq!(stopped, Stopped::Exhausted, "runaway exploration");
    out
}

/// A program whose ranks may have several threads: per rank, the steps of
/// each of its threads, the main one first. Every thread starts with its
/// rank; the main thread's `Op::Finalize` (its last step) waits until the
/// others have ended, as a program joins its threads before finalizing.
pub type ThreadedProgram = Vec<Vec<Vec<Step>>>;

/// The site of thread `t`'s `pc`-th step: line `pc + 1` of file `t + 1`
/// (the main thread's steps are where [`run_once`] puts them).
pub fn thread_site(t: usize, pc: usize) -> Site {
    Site::Line {
        file: t as u32 + 1,
        line: pc as u32 + 1,
    }
}

/// Runs `program` once, following `plan`. A rank of several threads
/// makes calls ([`Step::Call`]) and polls ([`Step::Poll`]).
pub fn run_threads_once(
    program: &ThreadedProgram,
    cfg: Config,
    plan: Vec<Planned>,
    turns: Turns,
) -> RunResult {
    let n = program.len();
    let mut engine = Engine::new(cfg, plan);
    for (r, threads) in program.iter().enumerate() {
        for t in 1..threads.len() {
            engine.thread_started(r, t as u32);
        }
    }
    let mut sim = ThreadSim {
        engine,
        zero_buffer: cfg.zero_buffer,
        pc: program.iter().map(|ts| vec![0; ts.len()]).collect(),
        waiting: program.iter().map(|ts| vec![false; ts.len()]).collect(),
        ended: program.iter().map(|ts| vec![false; ts.len()]).collect(),
        released: vec![HashSet::new(); n],
        listed: program
            .iter()
            .map(|ts| vec![Vec::new(); ts.len()])
            .collect(),
        parked: vec![false; n],
        barred: program.iter().map(|ts| vec![false; ts.len()]).collect(),
        turns,
    };
    loop {
        match sim.round(program) {
            Round::Moved => {}
            Round::Stalled => return finish(sim.engine, None, &HashSet::new()),
            Round::Ended(end) => return finish(sim.engine, Some(end), &HashSet::new()),
        }
    }
}

/// Explores every interleaving of `program` ([`run_threads_once`]) and
/// returns one result per run.
pub fn explore_threads(program: &ThreadedProgram, cfg: Config, turns: Turns) -> Vec<RunResult> {
    explore_runs(|plan| run_threads_once(program, cfg, plan, turns))
}

/// A simulated run of a [`ThreadedProgram`] under way.
struct ThreadSim {
    engine: Engine,
    zero_buffer: bool,
    /// Per rank and thread: the step it is at, whether it waits for an
    /// answer, whether it has ended.
    pc: Vec<Vec<usize>>,
    waiting: Vec<Vec<bool>>,
    ended: Vec<Vec<bool>>,
    /// Per rank, the requests a completion call released; per thread, the
    /// requests of the completion call it waits in.
    released: Vec<HashSet<u32>>,
    listed: Vec<Vec<Vec<u32>>>,
    /// Per rank, whether its main thread waits for the others to end; per
    /// rank and thread, whether it waits at a thread barrier.
    parked: Vec<bool>,
    barred: Vec<Vec<bool>>,
    turns: Turns,
}

impl ThreadSim {
    /// Whether thread `t` of rank `r` can make its next call now.
    fn can_move(&self, program: &ThreadedProgram, r: usize, t: usize) -> bool {
        program[r][t].get(self.pc[r][t]).is_some()
            && !self.waiting[r][t]
            && !self.joining(program, r, t)
            && !self.at_barrier(program, r, t)
    }

    /// Whether thread `t` of rank `r` is at a thread barrier.
    fn at_barrier(&self, program: &ThreadedProgram, r: usize, t: usize) -> bool {
        matches!(program[r][t].get(self.pc[r][t]), Some(Step::ThreadBarrier))
    }

    /// Thread `t` of rank `r` comes to a thread barrier: it parks, and when
    /// every thread of the rank that has not ended is there, all go on,
    /// each after what the others did.
    fn barrier(&mut self, program: &ThreadedProgram, r: usize, t: usize) {
        if !self.barred[r][t] {
            self.barred[r][t] = true;
            self.engine.thread_parked(r, t as u32, true);
        }
        let nt = program[r].len();
        if (0..nt).all(|u| self.ended[r][u] || self.barred[r][u]) {
            for u in (0..nt).filter(|&u| self.barred[r][u]) {
                self.engine.thread_parked(r, u as u32, false);
                for v in (0..nt).filter(|&v| v != u) {
                    self.engine.thread_joined(r, u as u32, v as u32);
                }
            }
            for u in 0..nt {
                if self.barred[r][u] {
                    self.barred[r][u] = false;
                    self.pc[r][u] += 1;
                }
            }
        }
    }

    /// Whether thread `t` of rank `r` is the main one, about to finalize
    /// but for the other threads it waits for.
    fn joining(&self, program: &ThreadedProgram, r: usize, t: usize) -> bool {
        t == 0
            && (program[r][t].get(self.pc[r][t]))
                .is_some_and(|step| matches!(step, Step::Call(Op::Finalize)))
            && self.ended[r][1..].iter().any(|e| !e)
    }

    fn round(&mut self, program: &ThreadedProgram) -> Round {
        let n = program.len();
        let ranks: Vec<usize> = match self.turns {
            Turns::Forward => (0..n).collect(),
            Turns::Backward => (0..n).rev().collect(),
        };
        for r in ranks {
            let nt = program[r].len();
            let threads: Vec<usize> = match self.turns {
                Turns::Forward => (0..nt).rev().collect(),
                Turns::Backward => (0..nt).collect(),
            };
            for t in threads {
                loop {
                    if self.pc[r][t] >= program[r][t].len() {
                        if t > 0 && !self.ended[r][t] {
                            self.ended[r][t] = true;
                            self.engine.thread_ended(r, t as u32);
                        }
                        break;
                    }
                    if t == 0 && nt > 1 {
                        let joining = self.joining(program, r, t);
                        if joining != self.parked[r] {
                            self.parked[r] = joining;
                            self.engine.thread_parked(r, 0, joining);
                            if !joining {
                                for u in 1..nt {
                                    self.engine.thread_joined(r, 0, u as u32);
                                }
                            }
                        }
                    }
                    if self.at_barrier(program, r, t) && !self.waiting[r][t] {
                        let before = self.pc[r][t];
                        self.barrier(program, r, t);
                        if self.pc[r][t] == before {
                            break;
                        }
                        continue;
                    }
                    if !self.can_move(program, r, t) {
                        break;
                    }
                    let pc = self.pc[r][t];
                    let (op, made) = step_op(&program[r][t][pc]);
                    assert!(
                        nt == 1 || made != Made::Sure,
                        "a rank of threads is not followed"
                    );
                    let Some(op) =
                        without_released(op, &mut self.released[r], &mut self.listed[r][t])
                    else {
                        self.pc[r][t] += 1;
                        continue;
                    };
                    let waits = nt > 1 || op.expects_reply(self.zero_buffer);
                    self.engine.call_on(r, t as u32, thread_site(t, pc), op);
                    if waits {
                        self.waiting[r][t] = true;
                    } else {
                        self.pc[r][t] += 1;
                    }
                }
            }
        }
        let answers = self.engine.advance_threads();
        for (r, t, d) in &answers {
            let (r, t) = (*r, *t as usize);
            if matches!(d, Down::PostRecv { .. } | Down::Cancelled { .. }) {
                continue;
            }
            // A call that waits in MPI waits for its own answer once
            // entered; any other is done.
            if matches!(d, Down::Entered) {
                let op = program[r][t].get(self.pc[r][t]).map(step_op);
                if op.is_some_and(|(op, _)| op.expects_reply(self.zero_buffer)) {
                    continue;
                }
            }
            self.waiting[r][t] = false;
            if let Down::Done { indices } = d {
                for &i in indices {
                    self.released[r].insert(self.listed[r][t][i as usize]);
                }
            }
            // A poll that found nothing is made again.
            let poll = matches!(program[r][t].get(self.pc[r][t]), Some(Step::Poll(_)));
            let negative = matches!(d, Down::Done { indices } if indices.is_empty())
                || matches!(d, Down::Probed { found: false, .. });
            if !(poll && negative) {
                self.pc[r][t] += 1;
            }
        }
        if let Some(end) = self.engine.end() {
            return Round::Ended(end.clone());
        }
        let moves = (0..n).any(|r| {
            (0..program[r].len()).any(|t| {
                self.can_move(program, r, t)
                    || t > 0 && !self.ended[r][t] && self.pc[r][t] >= program[r][t].len()
                    // A thread about to park (or to go on from its park).
                    || t == 0 && program[r].len() > 1 && self.joining(program, r, t) != self.parked[r]
                    || self.at_barrier(program, r, t) && !self.waiting[r][t] && !self.barred[r][t]
            })
        });
        if answers.is_empty() && !moves {
            Round::Stalled
        } else {
            Round::Moved
        }
    }
}

/// The result of a run of `engine` that ended with `end`, or, with none,
/// in which a rank ran off the end of its program and the others wait.
/// `tagged`: the sites of receives whose tag was [`PROBED`].
fn finish(mut engine: Engine, end: Option<RunEnd>, tagged: &HashSet<Site>) -> RunResult {
    let Some(end) = end else {
        let ranks = engine.rank_views();
        let trace = engine.into_trace();
        return RunResult {
            end: RunEnd::Deadlock { ranks },
            token: Token::of(&trace.choices),
            choices: trace.choices,
            fired: trace.fired,
            ops: trace.ops,
            leaks: Vec::new(),
            exchanges: Vec::new(),
            rows: Vec::new(),
        };
    };
    // Simulated receives have no buffers: any takes a message alike.
    let exchanges = engine.conclude(&crate::engine::Vouch {
        alike: &|_| true,
        free: &|_| true,
        probes: &|_, recv| {
            Some(crate::engine::Vouched {
                sized: true,
                tagged: tagged.contains(&recv),
                dispatch: false,
            })
        },
    });
    let leaks = engine.leaks();
    let rows = engine.rows().to_vec();
    let trace = engine.into_trace();
    RunResult {
        end,
        token: Token::of(&trace.choices),
        choices: trace.choices,
        fired: trace.fired,
        ops: trace.ops,
        leaks,
        exchanges,
        rows,
    }
}
