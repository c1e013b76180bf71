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

use std::collections::HashSet;

use fib_wire::{Down, Op, Site};

use crate::engine::{
    Choice, Config, Engine, Exchange, Fired, Leak, OpRec, Planned, RunEnd, WaitRow,
};
use crate::explore::{self as ex, DepthFirst, Ran, Stopped, Token};

/// One step of a simulated rank.
#[derive(Clone, Debug)]
pub enum Step {
    /// Make this call once.
    Call(Op),
    /// Make this poll (`MPI_Test*`, `MPI_Iprobe`) until it says yes.
    Poll(Op),
}

/// A program: the steps of each rank. Every rank should end with
/// `Op::Finalize`.
pub type Program = Vec<Vec<Step>>;

/// What one simulated run did.
#[derive(Clone, Debug)]
pub struct RunResult {
    pub end: RunEnd,
    pub choices: Vec<Choice>,
    pub fired: Vec<Fired>,
    pub token: Token,
    /// Every rank's operations, in program order.
    pub ops: Vec<Vec<OpRec>>,
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
    let at = |_: usize, pc: usize| Site::Line {
        file: 1,
        line: pc as u32 + 1,
    };
    run(program, cfg, plan, turns, &at)
}

/// Runs calls recorded from a real run once more, each at its own site,
/// under `cfg`: how the same calls fare with other buffering. Sound for
/// calls whose sequence does not depend on timing (no wildcard receives or
/// probes, no polls, no `Waitany`/`Waitsome`), which the caller checks.
pub fn rerun_calls(calls: &[Vec<(Site, Op)>], cfg: Config) -> RunResult {
    let program: Program = calls
        .iter()
        .map(|rank| rank.iter().map(|(_, op)| Step::Call(op.clone())).collect())
        .collect();
    let at = |r: usize, pc: usize| calls[r].get(pc).map(|(s, _)| *s).unwrap_or_default();
    run(&program, cfg, Vec::new(), Turns::Forward, &at)
}

fn run(
    program: &Program,
    cfg: Config,
    plan: Vec<Planned>,
    turns: Turns,
    site_of: &dyn Fn(usize, usize) -> Site,
) -> RunResult {
    let n = program.len();
    let mut engine = Engine::new(cfg, plan);
    let mut pc = vec![0usize; n];
    let mut waiting = vec![false; n];
    // Requests a completion call returned, and the requests of the
    // completion call each rank waits in, as the engine got them.
    let mut released: Vec<HashSet<u32>> = vec![HashSet::new(); n];
    let mut listed: Vec<Vec<u32>> = vec![Vec::new(); n];
    let order: Vec<usize> = match turns {
        Turns::Forward => (0..n).collect(),
        Turns::Backward => (0..n).rev().collect(),
    };
    loop {
        for &r in &order {
            // Issue calls until one waits for an answer.
            while !waiting[r] && pc[r] < program[r].len() {
                let (op, _) = step_op(&program[r][pc[r]]);
                let Some(op) = without_released(op, &mut released[r], &mut listed[r]) else {
                    // Only null requests: MPI answers at once.
                    pc[r] += 1;
                    continue;
                };
                let site = site_of(r, pc[r]);
                let waits = op.expects_reply(cfg.zero_buffer);
                engine.call(r, site, op);
                if waits {
                    waiting[r] = true;
                } else {
                    pc[r] += 1;
                }
            }
        }
        let answers = engine.advance();
        for (r, d) in &answers {
            let r = *r;
            if matches!(d, Down::PostRecv { .. } | Down::Cancelled { .. }) {
                continue;
            }
            let (op, poll) = step_op(&program[r][pc[r]]);
            // The communicator an `MPI_Comm_idup` made comes ahead of the
            // answer of the wait or test that completes it.
            if matches!(d, Down::NewComm { .. }) && matches!(op, Op::Wait { .. } | Op::Test { .. })
            {
                continue;
            }
            waiting[r] = false;
            match d {
                // `MPI_Request_get_status` leaves its request active.
                Down::Done { .. } if matches!(op, Op::RequestGetStatus { .. }) => {}
                Down::Done { indices } => {
                    for &i in indices {
                        released[r].insert(listed[r][i as usize]);
                    }
                }
                _ => {}
            }
            let negative = matches!(d, Down::Done { indices } if indices.is_empty())
                || matches!(d, Down::Probed { found: false, .. });
            if !(poll && negative) {
                pc[r] += 1;
            }
        }
        if let Some(end) = engine.end().cloned() {
            // Simulated receives have no buffers: any takes a message alike.
            let exchanges = engine.conclude(&|_| true, &|_| true);
            return RunResult {
                end,
                choices: engine.choices().to_vec(),
                fired: engine.fired().to_vec(),
                token: Token::of(engine.choices()),
                ops: (0..n).map(|r| engine.ops(r).to_vec()).collect(),
                leaks: engine.leaks(),
                exchanges,
                rows: engine.rows().to_vec(),
            };
        }
        let stuck = answers.is_empty() && (0..n).all(|r| waiting[r] || pc[r] >= program[r].len());
        if stuck {
            // A rank ran off the end of its program without MPI_Finalize.
            return RunResult {
                end: RunEnd::Deadlock {
                    ranks: engine.rank_views(),
                },
                choices: engine.choices().to_vec(),
                fired: engine.fired().to_vec(),
                token: Token::of(engine.choices()),
                ops: (0..n).map(|r| engine.ops(r).to_vec()).collect(),
                leaks: Vec::new(),
                exchanges: Vec::new(),
                rows: Vec::new(),
            };
        }
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

fn step_op(s: &Step) -> (&Op, bool) {
    match s {
        Step::Call(op) => (op, false),
        Step::Poll(op) => (op, true),
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
    let mut out = Vec::new();
    let run = |plan| {
        let r = run_once(program, cfg, plan, turns);
        let choices = r.choices.clone();
        out.push(r);
        Ok::<_, std::convert::Infallible>(Ran {
            choices,
            stop: false,
        })
    };
    let Ok(stopped) = ex::explore(&mut DepthFirst::new(), 1_000_000, run);
    assert_eq!(stopped, Stopped::Exhausted, "runaway exploration");
    out
}
