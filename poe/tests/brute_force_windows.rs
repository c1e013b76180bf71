//! Compares POE with an independent brute-force enumeration of MPI
//! executions for programs that use one window besides messages.
//!
//! The enumerator below knows nothing of the engine. It walks every
//! reachable state of a straight-line program, one call of one rank at a
//! time, under MPI's rules: a receive takes the earliest unmatched send of a
//! sender it accepts (a synchronous send returns then); window creation,
//! `MPI_Barrier` and `MPI_Finalize` on `MPI_COMM_WORLD`, and `MPI_Win_fence`
//! and `MPI_Win_free` on the window, return once every rank has reached
//! them, in each communicator's order; `MPI_Win_start` returns once each
//! target has posted to the rank (the k-th post taken by the k-th start),
//! `MPI_Win_wait` once every origin of the post has completed;
//! `MPI_Win_lock` returns once no conflicting lock is held on the target (an
//! exclusive lock conflicts with every other, a shared one with exclusive
//! ones), `MPI_Win_lock_all` once no exclusive lock is held on any rank;
//! everything else returns at once. For each terminal state it records
//! whether the run completed, which send every `MPI_ANY_SOURCE` receive got,
//! which pairs of conflicting lock epochs were ordered (the first unlocked
//! before the second was granted), and for every `MPI_Put` the call of its
//! rank that completes it (the first later unlock or flush of its target,
//! `MPI_Win_unlock_all`, `MPI_Win_flush_all`, `MPI_Win_complete`, fence or
//! free). POE must find exactly the same set of outcomes, whichever order
//! the ranks' calls arrive in. Programs come from a small seeded generator
//! (`FIB_BRUTE_SEEDS` seeds), so a failure names the seed and prints the
//! program.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::time::Instant;

use fib_wire::{CollKind, FlushKind, Op, RmaKind, SendMode, Site, WinFlavor, ANY, COMM_WORLD};
use poe::engine::{Fired, Kind, Outcomes, Peer, Policy, WinSync};
use poe::sim::{explore, run_once_with, Program, RunResult, Step, Turns};
use poe::{Config, Leak, OpId, RunEnd};

mod common;
use common::Rng;

/// The window every program makes: the first new id.
const WIN: u32 = 2;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Call {
    Create,
    Free,
    Fence,
    Barrier,
    Finalize,
    Send {
        dst: usize,
        tag: i32,
        sync: bool,
    },
    /// `None`: `MPI_ANY_SOURCE`, `MPI_ANY_TAG`.
    Recv {
        src: Option<usize>,
        tag: Option<i32>,
    },
    Put {
        target: usize,
    },
    Post {
        group: Vec<usize>,
    },
    Start {
        group: Vec<usize>,
    },
    Complete,
    /// `MPI_Win_wait`, or with `test` a loop of `MPI_Win_test`.
    Wait {
        test: bool,
    },
    Lock {
        target: usize,
        exclusive: bool,
    },
    Unlock {
        target: usize,
    },
    LockAll,
    UnlockAll,
    Flush {
        how: FlushKind,
        target: usize,
    },
}

impl Call {
    /// The communicator of a collective: 0 for `MPI_COMM_WORLD`, 1 for
    /// the window.
    fn collective(&self) -> Option<usize> {
        match self {
            Call::Create | Call::Barrier | Call::Finalize => Some(0),
            Call::Fence | Call::Free => Some(1),
            _ => None,
        }
    }
}

type Prog = Vec<Vec<Call>>;
type CallId = (usize, usize);

/// What a terminal state shows: whether it completed, the wildcard
/// receives' sends, the ordered pairs of conflicting lock epochs (by their
/// lock calls), and the completing call of each put.
type Outcome = (
    bool,
    BTreeMap<CallId, CallId>,
    BTreeSet<(CallId, CallId)>,
    BTreeMap<CallId, CallId>,
);

fn show(prog: &Prog) -> String {
    let mut s = String::new();
    for (r, calls) in prog.iter().enumerate() {
        s += &format!("  rank {r}:");
        for (i, c) in calls.iter().enumerate() {
            s += &format!(" {i}:{c:?};");
        }
        s.push('\n');
    }
    s
}

/// The lock calls of a program: each epoch's targets and whether it is
/// exclusive.
fn epoch_of(prog: &Prog, id: CallId) -> Option<(Vec<usize>, bool)> {
    match prog[id.0][id.1] {
        Call::Lock { target, exclusive } => Some((vec![target], exclusive)),
        Call::LockAll => Some(((0..prog.len()).collect(), false)),
        _ => None,
    }
}

fn conflict(prog: &Prog, a: CallId, b: CallId) -> bool {
    match (epoch_of(prog, a), epoch_of(prog, b)) {
        (Some((ta, ea)), Some((tb, eb))) => (ea || eb) && ta.iter().any(|t| tb.contains(t)),
        _ => false,
    }
}

#[derive(Clone, PartialEq, Eq, Hash)]
struct State {
    pc: Vec<usize>,
    /// Whether the synchronous send each rank is at has been sent.
    out: Vec<bool>,
    /// Unmatched messages per (sender, receiver), in order: tag, send call.
    queues: BTreeMap<(usize, usize), Vec<(i32, usize)>>,
    /// Locks held per target: the lock call and whether it is exclusive.
    held: BTreeMap<usize, Vec<(CallId, bool)>>,
    /// Epochs unlocked so far, by their lock calls.
    released: BTreeSet<CallId>,
    /// Untaken posts and completes per (target, origin).
    posts: BTreeMap<(usize, usize), usize>,
    completes: BTreeMap<(usize, usize), usize>,
    /// The origins of each target's open post, the targets of each
    /// origin's open start.
    exposure: BTreeMap<usize, Vec<usize>>,
    access: BTreeMap<usize, Vec<usize>>,
    /// Puts not completed yet, per rank.
    pending: BTreeMap<usize, Vec<usize>>,
    wild: BTreeMap<CallId, CallId>,
    pairs: BTreeSet<(CallId, CallId)>,
    done: BTreeMap<CallId, CallId>,
}

struct Brute<'a> {
    prog: &'a Prog,
    seen: HashSet<State>,
    outcomes: BTreeSet<Outcome>,
}

impl Brute<'_> {
    /// Completes rank `r`'s pending puts whose target `which` accepts by its
    /// call `by`.
    fn complete(&self, st: &mut State, r: usize, by: usize, which: impl Fn(usize) -> bool) {
        let prog = self.prog;
        if let Some(list) = st.pending.get_mut(&r) {
            list.retain(|&i| match prog[r][i] {
                Call::Put { target } if which(target) => {
                    st.done.insert((r, i), (r, by));
                    false
                }
                _ => true,
            });
        }
    }

    /// Grants the lock call `id` on `targets`.
    fn grant(&self, st: &mut State, id: CallId, targets: &[usize], exclusive: bool) {
        for &t in targets {
            st.held.entry(t).or_default().push((id, exclusive));
        }
        for &a in &st.released {
            if conflict(self.prog, a, id) {
                st.pairs.insert((a, id));
            }
        }
    }

    /// Rank `r` releases its locks that `which` picks (by lock call).
    fn release(&self, st: &mut State, r: usize, which: impl Fn(CallId) -> bool) {
        for h in st.held.values_mut() {
            h.retain(|&(id, _)| {
                if id.0 == r && which(id) {
                    st.released.insert(id);
                    false
                } else {
                    true
                }
            });
        }
        st.held.retain(|_, h| !h.is_empty());
    }

    /// The states one step of rank `r` leads to.
    fn steps(&self, st: &State, r: usize) -> Vec<State> {
        let prog = self.prog;
        let Some(call) = prog[r].get(st.pc[r]) else {
            return Vec::new();
        };
        let i = st.pc[r];
        let mut next = st.clone();
        next.pc[r] += 1;
        match call {
            Call::Create | Call::Free | Call::Fence | Call::Barrier | Call::Finalize => {
                return Vec::new();
            }
            Call::Send { dst, tag, sync } => {
                if *sync {
                    // Out, then blocked until a receive takes it (the
                    // receive moves the sender on).
                    if st.out[r] {
                        return Vec::new();
                    }
                    next.pc[r] -= 1;
                    next.out[r] = true;
                }
                next.queues.entry((r, *dst)).or_default().push((*tag, i));
            }
            Call::Recv { src, tag } => {
                let mut out = Vec::new();
                for (s, sender) in prog.iter().enumerate() {
                    if s == r || src.is_some_and(|x| x != s) {
                        continue;
                    }
                    let Some(q) = st.queues.get(&(s, r)) else {
                        continue;
                    };
                    let Some(k) = q.iter().position(|m| tag.is_none_or(|t| t == m.0)) else {
                        continue;
                    };
                    let mut n = next.clone();
                    let q = n.queues.get_mut(&(s, r)).unwrap();
                    let (_, send) = q.remove(k);
                    if q.is_empty() {
                        n.queues.remove(&(s, r));
                    }
                    if matches!(sender[send], Call::Send { sync: true, .. }) {
                        n.pc[s] += 1;
                        n.out[s] = false;
                    }
                    if src.is_none() {
                        n.wild.insert((r, i), (s, send));
                    }
                    out.push(n);
                }
                return out;
            }
            Call::Put { .. } => next.pending.entry(r).or_default().push(i),
            Call::Post { group } => {
                for &o in group {
                    *next.posts.entry((r, o)).or_default() += 1;
                }
                next.exposure.insert(r, group.clone());
            }
            Call::Start { group } => {
                if !group
                    .iter()
                    .all(|&t| st.posts.get(&(t, r)).is_some_and(|&n| n > 0))
                {
                    return Vec::new();
                }
                for &t in group {
                    *next.posts.get_mut(&(t, r)).unwrap() -= 1;
                }
                next.posts.retain(|_, n| *n > 0);
                next.access.insert(r, group.clone());
            }
            Call::Complete => {
                for t in next.access.remove(&r).unwrap_or_default() {
                    *next.completes.entry((t, r)).or_default() += 1;
                }
                self.complete(&mut next, r, i, |_| true);
            }
            Call::Wait { .. } => {
                let origins = st.exposure.get(&r).cloned().unwrap_or_default();
                if !origins
                    .iter()
                    .all(|&o| st.completes.get(&(r, o)).is_some_and(|&n| n > 0))
                {
                    return Vec::new();
                }
                for o in origins {
                    *next.completes.get_mut(&(r, o)).unwrap() -= 1;
                }
                next.completes.retain(|_, n| *n > 0);
                next.exposure.remove(&r);
            }
            Call::Lock { target, exclusive } => {
                let free = st
                    .held
                    .get(target)
                    .is_none_or(|h| !*exclusive && h.iter().all(|x| !x.1));
                if !free {
                    return Vec::new();
                }
                self.grant(&mut next, (r, i), &[*target], *exclusive);
            }
            Call::LockAll => {
                if st.held.values().flatten().any(|x| x.1) {
                    return Vec::new();
                }
                let all: Vec<usize> = (0..prog.len()).collect();
                self.grant(&mut next, (r, i), &all, false);
            }
            Call::Unlock { target } => {
                let t = *target;
                self.release(&mut next, r, |id| {
                    prog[id.0][id.1]
                        == Call::Lock {
                            target: t,
                            exclusive: true,
                        }
                        || prog[id.0][id.1]
                            == Call::Lock {
                                target: t,
                                exclusive: false,
                            }
                });
                self.complete(&mut next, r, i, |x| x == t);
            }
            Call::UnlockAll => {
                self.release(&mut next, r, |id| prog[id.0][id.1] == Call::LockAll);
                self.complete(&mut next, r, i, |_| true);
            }
            Call::Flush { how, target } => match how {
                FlushKind::Flush => {
                    let t = *target;
                    self.complete(&mut next, r, i, |x| x == t);
                }
                FlushKind::FlushAll => self.complete(&mut next, r, i, |_| true),
                _ => {}
            },
        }
        vec![next]
    }

    /// The collective every rank is at, if they all are at one of one
    /// communicator: the state after it.
    fn collective(&self, st: &State) -> Option<State> {
        let prog = self.prog;
        let calls: Vec<&Call> = (0..prog.len())
            .map(|r| prog[r].get(st.pc[r]))
            .collect::<Option<_>>()?;
        let comm = calls[0].collective()?;
        if calls.iter().any(|c| c.collective() != Some(comm)) {
            return None;
        }
        let mut next = st.clone();
        for (r, c) in calls.iter().enumerate() {
            if matches!(c, Call::Fence | Call::Free) {
                let by = st.pc[r];
                self.complete(&mut next, r, by, |_| true);
            }
            next.pc[r] += 1;
        }
        Some(next)
    }

    fn walk(&mut self, st: State) {
        if !self.seen.insert(st.clone()) {
            return;
        }
        let mut any = false;
        if let Some(n) = self.collective(&st) {
            any = true;
            self.walk(n);
        }
        for r in 0..self.prog.len() {
            for n in self.steps(&st, r) {
                any = true;
                self.walk(n);
            }
        }
        if !any {
            let completed = (0..self.prog.len()).all(|r| st.pc[r] == self.prog[r].len());
            self.outcomes
                .insert((completed, st.wild, st.pairs, st.done));
        }
    }
}

fn brute_force(prog: &Prog) -> BTreeSet<Outcome> {
    let mut b = Brute {
        prog,
        seen: HashSet::new(),
        outcomes: BTreeSet::new(),
    };
    b.walk(State {
        pc: vec![0; prog.len()],
        out: vec![false; prog.len()],
        queues: BTreeMap::new(),
        held: BTreeMap::new(),
        released: BTreeSet::new(),
        posts: BTreeMap::new(),
        completes: BTreeMap::new(),
        exposure: BTreeMap::new(),
        access: BTreeMap::new(),
        pending: BTreeMap::new(),
        wild: BTreeMap::new(),
        pairs: BTreeSet::new(),
        done: BTreeMap::new(),
    });
    b.outcomes
}

fn to_sim(prog: &Prog) -> Program {
    let call = |op| Step::Call(op);
    prog.iter()
        .map(|calls| {
            calls
                .iter()
                .map(|c| match c {
                    Call::Create => call(Op::WinCreate {
                        comm: COMM_WORLD,
                        flavor: WinFlavor::Allocate,
                    }),
                    Call::Free => call(Op::WinFree { win: WIN }),
                    Call::Fence => call(Op::WinFence { win: WIN }),
                    Call::Barrier => call(Op::Coll {
                        kind: CollKind::Barrier,
                        comm: COMM_WORLD,
                        root: 0,
                    }),
                    Call::Finalize => call(Op::Finalize),
                    Call::Send { dst, tag, sync } => call(Op::Send {
                        mode: if *sync {
                            SendMode::Sync
                        } else {
                            SendMode::Standard
                        },
                        dest: *dst as i32,
                        tag: *tag,
                        comm: COMM_WORLD,
                        req: None,
                    }),
                    Call::Recv { src, tag } => call(Op::Recv {
                        src: src.map_or(ANY, |s| s as i32),
                        tag: tag.unwrap_or(ANY),
                        comm: COMM_WORLD,
                        req: 1000,
                        blocking: true,
                    }),
                    Call::Put { target } => call(Op::Rma {
                        win: WIN,
                        kind: RmaKind::Put,
                        target: *target as i32,
                        disp: 0,
                        bytes: 8,
                        req: None,
                        op: String::new(),
                        dtype: String::new(),
                    }),
                    Call::Post { group } => call(Op::WinPost {
                        win: WIN,
                        group: group.iter().map(|&g| g as u32).collect(),
                    }),
                    Call::Start { group } => call(Op::WinStart {
                        win: WIN,
                        group: group.iter().map(|&g| g as u32).collect(),
                    }),
                    Call::Complete => call(Op::WinComplete { win: WIN }),
                    Call::Wait { test: false } => call(Op::WinWait {
                        win: WIN,
                        test: false,
                    }),
                    Call::Wait { test: true } => Step::Poll(Op::WinWait {
                        win: WIN,
                        test: true,
                    }),
                    Call::Lock { target, exclusive } => call(Op::WinLock {
                        win: WIN,
                        target: *target as i32,
                        exclusive: *exclusive,
                    }),
                    Call::Unlock { target } => call(Op::WinUnlock {
                        win: WIN,
                        target: *target as i32,
                    }),
                    Call::LockAll => call(Op::WinLockAll { win: WIN }),
                    Call::UnlockAll => call(Op::WinUnlockAll { win: WIN }),
                    Call::Flush { how, target } => call(Op::WinFlush {
                        win: WIN,
                        how: *how,
                        target: *target as i32,
                    }),
                })
                .collect()
        })
        .collect()
}

/// The outcome of one engine run, read from its trace.
fn outcome_of(prog: &Prog, run: &RunResult) -> Result<Outcome, String> {
    let completed = match &run.end {
        RunEnd::Completed => true,
        // A poll that can never succeed spins: the enumerator sees no step.
        RunEnd::Deadlock { .. } | RunEnd::Livelock { .. } => false,
        other => return Err(format!("run ended {other:?}")),
    };
    // A failing `MPI_Win_test` is a call of its own: calls are named by
    // the program's step, which the simulator gives as the line.
    let step = |r: usize, i: usize| match run.ops[r][i].site {
        Site::Line { line, .. } => line as usize - 1,
        other => panic!("{other:?}"),
    };
    let cid = |o: OpId| (o.rank, step(o.rank, o.index));
    let mut wild = BTreeMap::new();
    // Edges between epochs: an unlock's epoch before the grant it let go.
    let mut after: BTreeMap<CallId, BTreeSet<CallId>> = BTreeMap::new();
    let epoch = |u: OpId| -> CallId {
        let u = cid(u);
        let want_all = matches!(prog[u.0][u.1], Call::UnlockAll);
        let t = match prog[u.0][u.1] {
            Call::Unlock { target } => Some(target),
            _ => None,
        };
        let j = (0..u.1)
            .rev()
            .find(|&j| match prog[u.0][j] {
                Call::LockAll => want_all,
                Call::Lock { target, .. } => Some(target) == t,
                _ => false,
            })
            .expect("an unlock follows its lock");
        (u.0, j)
    };
    for f in run.fired.iter() {
        match f {
            Fired::SendRecv {
                send,
                recv,
                wildcard: true,
            } => {
                wild.insert(cid(*recv), cid(*send));
            }
            Fired::Sync { from, to } if epoch_of(prog, cid(*to)).is_some() => {
                for u in from {
                    after.entry(epoch(*u)).or_default().insert(cid(*to));
                }
            }
            _ => {}
        }
    }
    // Every epoch ordered before another, through the edges.
    let mut pairs = BTreeSet::new();
    for &a in after.keys() {
        let mut stack: Vec<CallId> = after[&a].iter().copied().collect();
        let mut reached = BTreeSet::new();
        while let Some(b) = stack.pop() {
            if reached.insert(b) {
                stack.extend(after.get(&b).into_iter().flatten().copied());
            }
        }
        for b in reached {
            if conflict(prog, a, b) {
                pairs.insert((a, b));
            }
        }
    }
    let mut done = BTreeMap::new();
    for (r, ops) in run.ops.iter().enumerate() {
        for (i, op) in ops.iter().enumerate() {
            if let Kind::Rma(a) = &op.kind {
                if let Some(by) = a.done {
                    done.insert((r, step(r, i)), (r, step(r, by)));
                }
            }
        }
    }
    Ok((completed, wild, pairs, done))
}

/// A tiny xorshift generator, so that seeds mean the same thing everywhere.
/// A rank other than `not`.
fn other(rng: &mut Rng, n: usize, not: usize) -> usize {
    (not + 1 + rng.below(n - 1)) % n
}

/// A program of 2 or 3 ranks: window creation, a few blocks of messages,
/// barriers, fence epochs, lock epochs (nested ones too), lock_all epochs
/// and PSCW epochs, each block appended to the ranks it involves, then the
/// window's free and `MPI_Finalize`.
fn generate(seed: u64) -> Prog {
    let mut rng = Rng::new(seed);
    let n = if rng.chance(1, 4) { 2 } else { 3 };
    generate_on(rng, n)
}

/// [`generate`] on `n` ranks.
fn generate_on(mut rng: Rng, n: usize) -> Prog {
    let mut prog: Prog = vec![vec![Call::Create]; n];
    let blocks = 3 + rng.below(6);
    let flushes = [
        FlushKind::Flush,
        FlushKind::FlushAll,
        FlushKind::FlushLocal,
        FlushKind::FlushLocalAll,
        FlushKind::Sync,
    ];
    for _ in 0..blocks {
        match rng.below(9) {
            0 | 1 => {
                let s = rng.below(n);
                let d = other(&mut rng, n, s);
                let tag = rng.below(2) as i32;
                let sync = rng.chance(1, 3);
                prog[s].push(Call::Send { dst: d, tag, sync });
                let src = (!rng.chance(1, 2)).then_some(s);
                let tag = (!rng.chance(1, 4)).then_some(tag);
                prog[d].push(Call::Recv { src, tag });
            }
            2 => {
                for calls in prog.iter_mut() {
                    calls.push(Call::Barrier);
                }
            }
            3 => {
                for calls in prog.iter_mut() {
                    calls.push(Call::Fence);
                }
                for calls in prog.iter_mut() {
                    if rng.chance(1, 2) {
                        calls.push(Call::Put {
                            target: rng.below(n),
                        });
                    }
                }
                for calls in prog.iter_mut() {
                    calls.push(Call::Fence);
                }
            }
            4 | 5 => {
                let r = rng.below(n);
                let target = rng.below(n);
                let exclusive = rng.chance(2, 3);
                prog[r].push(Call::Lock { target, exclusive });
                if rng.chance(2, 3) {
                    prog[r].push(Call::Put { target });
                }
                if rng.chance(1, 3) {
                    let how = flushes[rng.below(flushes.len())];
                    prog[r].push(Call::Flush { how, target });
                    prog[r].push(Call::Put { target });
                }
                prog[r].push(Call::Unlock { target });
            }
            6 => {
                let r = rng.below(n);
                let t1 = rng.below(n);
                let t2 = other(&mut rng, n, t1);
                let (e1, e2) = (rng.chance(2, 3), rng.chance(2, 3));
                prog[r].push(Call::Lock {
                    target: t1,
                    exclusive: e1,
                });
                prog[r].push(Call::Lock {
                    target: t2,
                    exclusive: e2,
                });
                prog[r].push(Call::Put { target: t2 });
                prog[r].push(Call::Unlock { target: t2 });
                prog[r].push(Call::Unlock { target: t1 });
            }
            7 => {
                let r = rng.below(n);
                prog[r].push(Call::LockAll);
                let target = rng.below(n);
                prog[r].push(Call::Put { target });
                if rng.chance(1, 2) {
                    let how = flushes[rng.below(flushes.len())];
                    prog[r].push(Call::Flush { how, target });
                }
                prog[r].push(Call::UnlockAll);
            }
            _ => {
                let t = rng.below(n);
                let o1 = other(&mut rng, n, t);
                let mut origins = vec![o1];
                if n >= 3 && rng.chance(1, 3) {
                    let o2 = (0..n).find(|&o| o != t && o != o1).unwrap();
                    origins.push(o2);
                    origins.sort();
                }
                prog[t].push(Call::Post {
                    group: origins.clone(),
                });
                prog[t].push(Call::Wait {
                    test: rng.chance(1, 3),
                });
                for o in origins {
                    prog[o].push(Call::Start { group: vec![t] });
                    prog[o].push(Call::Put { target: t });
                    prog[o].push(Call::Complete);
                }
            }
        }
    }
    for calls in prog.iter_mut() {
        calls.push(Call::Free);
        calls.push(Call::Finalize);
    }
    prog
}

fn cfg(nprocs: usize) -> Config {
    Config {
        nprocs,
        zero_buffer: false,
        exchange: false,
    }
}

/// How many seeds: `FIB_BRUTE_SEEDS`, 1000 by default.
fn seeds() -> u64 {
    std::env::var("FIB_BRUTE_SEEDS").map_or(1000, |v| v.parse().expect("FIB_BRUTE_SEEDS: a number"))
}

/// Compares one program; returns (outcomes, engine runs).
fn check(seed: u64, prog: &Prog) -> Result<(usize, usize), String> {
    let want = brute_force(prog);
    let runs = explore(&to_sim(prog), cfg(prog.len()), Turns::Forward);
    let mut got = BTreeSet::new();
    for run in &runs {
        got.insert(outcome_of(prog, run).map_err(|e| format!("seed {seed}: {e}\n{}", show(prog)))?);
    }
    if got != want {
        let lost: Vec<_> = want.difference(&got).collect();
        let extra: Vec<_> = got.difference(&want).collect();
        return Err(format!(
            "seed {seed}: POE lost {lost:?}\nPOE found that MPI does not allow {extra:?}\n{}",
            show(prog)
        ));
    }
    Ok((want.len(), runs.len()))
}

#[test]
fn poe_finds_exactly_the_outcomes_mpi_allows_with_a_window() {
    let begun = Instant::now();
    let (mut outcomes, mut runs, mut failures) = (0, 0, Vec::new());
    let n = seeds();
    for seed in 0..n {
        match check(seed, &generate(seed)) {
            Ok((o, r)) => {
                outcomes += o;
                runs += r;
            }
            Err(e) => failures.push(e),
        }
    }
    eprintln!(
        "{n} programs, {outcomes} outcomes, {runs} runs, {:?}",
        begun.elapsed()
    );
    assert!(
        failures.is_empty(),
        "{} of {n} programs disagree:\n{}",
        failures.len(),
        failures[..failures.len().min(5)].join("\n")
    );
}

#[test]
fn poe_finds_exactly_the_outcomes_mpi_allows_with_a_window_on_four_ranks() {
    let begun = Instant::now();
    let (mut outcomes, mut runs, mut failures) = (0, 0, Vec::new());
    let n = seeds() / 4;
    for seed in 0..n {
        let prog = generate_on(Rng::new(seed ^ 0x4444), 4);
        match check(seed, &prog) {
            Ok((o, r)) => {
                outcomes += o;
                runs += r;
            }
            Err(e) => failures.push(e),
        }
    }
    eprintln!(
        "{n} programs on 4 ranks, {outcomes} outcomes, {runs} runs, {:?}",
        begun.elapsed()
    );
    assert!(
        failures.is_empty(),
        "{} of {n} programs disagree:\n{}",
        failures.len(),
        failures[..failures.len().min(5)].join("\n")
    );
}

#[test]
fn a_shared_request_grantable_now_can_still_follow_an_exclusive_one() {
    // Rank 0 holds a shared lock on rank 3 until its wildcard receive gets
    // rank 4's message; rank 1's exclusive request waits for it, and rank
    // 2's shared one could be granted at once. MPI may still grant rank 1
    // first (rank 0 unlocks before rank 2 asks), and POE must find that.
    use Call::*;
    let shared = |t| Lock {
        target: t,
        exclusive: false,
    };
    let prog: Prog = vec![
        vec![
            Create,
            shared(3),
            Recv {
                src: None,
                tag: None,
            },
            Unlock { target: 3 },
            Free,
            Finalize,
        ],
        vec![
            Create,
            Lock {
                target: 3,
                exclusive: true,
            },
            Put { target: 3 },
            Unlock { target: 3 },
            Free,
            Finalize,
        ],
        vec![
            Create,
            shared(3),
            Put { target: 3 },
            Unlock { target: 3 },
            Free,
            Finalize,
        ],
        vec![Create, Free, Finalize],
        vec![
            Create,
            Send {
                dst: 0,
                tag: 0,
                sync: false,
            },
            Free,
            Finalize,
        ],
    ];
    let want = brute_force(&prog);
    let orders: BTreeSet<bool> = want
        .iter()
        .map(|o| o.2.contains(&((1, 1), (2, 1))))
        .collect();
    assert_eq!(
        orders,
        BTreeSet::from([false, true]),
        "both orders are MPI's"
    );
    let (outcomes, _) = check(0, &prog).unwrap();
    assert_eq!(outcomes, want.len());
}

/// Every run of the exploration (and so, by the comparison above, every
/// execution MPI allows) can be followed from what a recorded run's ranks
/// report of it: each wildcard receive's sender, and each lock grant's
/// number at each of its targets (the grants at a window's target counted
/// in the order they were made, neighbouring shared ones in either order,
/// some numbers skipped). The engine, taking past its empty plan what
/// those say ([`Policy::Follow`]; a lock once the conflicting grants
/// numbered before it are made), makes that run again: the same
/// completion or deadlock, the same wildcard matches, the same order of
/// conflicting lock epochs, the same completing call of every put.
#[test]
fn every_run_with_a_window_can_be_followed_from_its_grant_numbers() {
    let (mut followed, mut grants, mut failures) = (0, 0, Vec::new());
    for seed in 0..seeds() {
        let prog = generate(seed);
        // A failing `MPI_Win_test` is a call of its own in the engine, as
        // many as timing makes (a recorded run reports none): the calls of
        // such a run cannot be named in advance.
        if prog
            .iter()
            .flatten()
            .any(|c| matches!(c, Call::Wait { test: true }))
        {
            continue;
        }
        let sim = to_sim(&prog);
        let cfg = cfg(prog.len());
        for run in explore(&sim, cfg, Turns::Forward) {
            let mut outcomes = Outcomes::new();
            // Per window and target, the grants in the order they were
            // made, and whether each is exclusive.
            let mut order: BTreeMap<(u32, usize), Vec<(OpId, bool)>> = BTreeMap::new();
            for f in run.fired.iter() {
                match f {
                    Fired::SendRecv {
                        send,
                        recv,
                        wildcard: true,
                    } => {
                        outcomes.insert(*recv, poe::engine::Outcome::From(send.rank));
                    }
                    Fired::Sync { to, .. } => {
                        let (win, targets, exclusive) = match &run.ops[to.rank][to.index].kind {
                            Kind::Win {
                                win,
                                sync:
                                    WinSync::Lock {
                                        target: Peer::Rank(t),
                                        exclusive,
                                    },
                            } => (*win, vec![*t], *exclusive),
                            Kind::Win {
                                win,
                                sync: WinSync::LockAll,
                            } => (*win, (0..prog.len()).collect(), false),
                            _ => continue,
                        };
                        for t in targets {
                            order.entry((win, t)).or_default().push((*to, exclusive));
                        }
                        grants += 1;
                    }
                    _ => {}
                }
            }
            // Shared grants next to each other at a target may have been
            // taken at once, and numbered in either order there: a
            // recorded run's are, as its ranks race for them; and a number
            // may be missing (a lock-all that gave its shared locks back
            // took it).
            let mut rng = Rng::new(seed);
            // Per lock call: its window, whether exclusive, its numbers.
            type Numbers = (u32, bool, Vec<(usize, u64)>);
            let mut numbers: BTreeMap<OpId, Numbers> = BTreeMap::new();
            for ((win, t), mut at) in order {
                for i in 1..at.len() {
                    if !at[i - 1].1 && !at[i].1 && rng.next().is_multiple_of(2) {
                        at.swap(i - 1, i);
                    }
                }
                let mut n = 0;
                for (x, exclusive) in at {
                    n += rng.next() % 3 / 2;
                    let e = numbers.entry(x).or_insert((win, exclusive, Vec::new()));
                    e.2.push((t, n));
                    n += 1;
                }
            }
            for (x, (win, exclusive, grants)) in numbers {
                outcomes.insert(
                    x,
                    poe::engine::Outcome::Granted {
                        win,
                        exclusive,
                        grants,
                    },
                );
            }
            followed += 1;
            let again = run_once_with(
                &sim,
                cfg,
                Vec::new(),
                Turns::Forward,
                Policy::Follow(outcomes),
            );
            let (want, got) = (outcome_of(&prog, &run), outcome_of(&prog, &again));
            if want.is_err() || want != got {
                failures.push(format!(
                    "seed {seed}: the run {want:?} followed gives {got:?}\n{}",
                    show(&prog)
                ));
            }
        }
    }
    eprintln!("{followed} runs followed, {grants} grants");
    assert!(followed > 0 && grants > 0);
    assert!(
        failures.is_empty(),
        "{} runs could not be followed; first:\n{}",
        failures.len(),
        failures[0]
    );
}

/// The runs of an exploration as the arrival order must leave them: each
/// run's token, end, wildcard matches, synchronisations and leaks.
fn runs_key(runs: &[RunResult]) -> Vec<String> {
    runs.iter()
        .map(|r| {
            let syncs: Vec<&Fired> = r
                .fired
                .iter()
                .filter(|f| matches!(f, Fired::Sync { .. } | Fired::SendRecv { .. }))
                .collect();
            format!("{} {:?} {:?} {:?}", r.token, r.end, syncs, r.leaks)
        })
        .collect()
}

#[test]
fn arrival_order_does_not_change_the_interleavings_with_a_window() {
    let n = seeds();
    let mut branching = 0;
    for seed in 0..n {
        let prog = generate(seed);
        let sim = to_sim(&prog);
        let fwd = explore(&sim, cfg(prog.len()), Turns::Forward);
        let bwd = explore(&sim, cfg(prog.len()), Turns::Backward);
        assert_eq!(
            runs_key(&fwd),
            runs_key(&bwd),
            "seed {seed}\n{}",
            show(&prog)
        );
        branching += usize::from(fwd.len() > 1);
    }
    // The comparison means something: many programs branch.
    assert!(branching * 10 > n as usize, "{branching} of {n}");
}

#[test]
fn leaks_do_not_depend_on_arrival_order_with_a_window() {
    // The same programs without `MPI_Win_free`: every completed run leaks
    // the window at each rank's creation, whichever rank's calls come
    // first.
    let n = seeds();
    let mut completed = 0;
    for seed in 0..n {
        let mut prog = generate(seed);
        for calls in prog.iter_mut() {
            calls.retain(|c| *c != Call::Free);
        }
        let sim = to_sim(&prog);
        let want: Vec<Leak> = (0..prog.len())
            .map(|r| Leak::Window {
                op: OpId { rank: r, index: 0 },
                win: WIN,
            })
            .collect();
        for turns in [Turns::Forward, Turns::Backward] {
            for run in explore(&sim, cfg(prog.len()), turns) {
                if run.end == RunEnd::Completed {
                    completed += 1;
                    assert_eq!(run.leaks, want, "seed {seed} {turns:?}\n{}", show(&prog));
                } else {
                    assert_eq!(run.leaks, Vec::new(), "seed {seed} {turns:?}");
                }
            }
        }
    }
    assert!(
        completed > n as usize,
        "{completed} runs of {n} programs completed"
    );
}
