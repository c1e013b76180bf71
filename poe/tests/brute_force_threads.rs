//! Compares POE on ranks of several threads with an independent enumeration
//! of what MPI allows them.
//!
//! Under `MPI_THREAD_MULTIPLE`, MPI makes the calls of a rank's threads as
//! if one after another, in an order their timing picks: the enumerator
//! below knows nothing of the engine's gates and choices. It walks every
//! reachable state of a program whose ranks have one to three threads,
//! each a straight line of sends (standard, synchronous, nonblocking),
//! receives (named or wildcard source and tag, blocking or not), waits and
//! `MPI_Barrier` (made by any one thread of each rank). A step is either a
//! thread making its next call, which joins its rank's sequence of calls
//! at the end, or one send/receive pair that MPI's rules allow to match in
//! the ranks' sequences (a receive takes the earliest unmatched send of a
//! sender that it accepts; a send goes to the earliest posted unmatched
//! receive that accepts it). A thread waits in a blocking call (only
//! itself); the barriers of all ranks complete together once each has
//! entered its own; the threads of a rank may pass a barrier of theirs
//! together (outside MPI, as an OpenMP barrier); a rank's main thread
//! finalizes once its other threads have ended. Each terminal state gives
//! which send every receive got and whether some thread is stuck; POE must
//! find exactly the same set, whatever order the threads' calls reach it
//! in. Programs come from a seeded generator, so a failure names the seed
//! and prints the program.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt::Write as _;

use fib_wire::{CollKind, Op, SendMode, Site, WaitKind, ANY, COMM_WORLD};
use poe::engine::Fired;
use poe::sim::{explore_threads, Step, ThreadedProgram, Turns};
use poe::{Config, OpId, RunEnd};

mod common;
use common::Rng;

/// One call of a generated thread.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Call {
    /// `MPI_Send` (`MPI_Ssend` when `sync`), or `MPI_Isend` (`MPI_Issend`)
    /// when `nb`.
    Send {
        dst: usize,
        tag: i32,
        sync: bool,
        nb: bool,
    },
    /// `MPI_Recv`, or `MPI_Irecv` when `nb`; `None` is a wildcard.
    Recv {
        src: Option<usize>,
        tag: Option<i32>,
        nb: bool,
    },
    /// `MPI_Wait` on the request of the thread's call at this position.
    Wait { of: usize },
    /// A barrier of the rank's threads, outside MPI (every thread of the
    /// rank has one).
    Barrier,
    /// `MPI_Barrier` on `MPI_COMM_WORLD` (one thread of every rank has
    /// one).
    Coll,
}

/// Per rank, per thread, the calls (the main thread's `MPI_Finalize` is
/// implied at its end).
type Prog = Vec<Vec<Vec<Call>>>;

/// A call: rank, thread, position in the thread.
type CallId = (usize, usize, usize);

/// Which send each receive got, and whether some thread is stuck.
type Outcome = (BTreeMap<CallId, CallId>, bool);

fn show(prog: &Prog) -> String {
    let mut s = String::new();
    for (r, threads) in prog.iter().enumerate() {
        for (t, calls) in threads.iter().enumerate() {
            let _ = writeln!(s, "rank {r} thread {t}: {calls:?}");
        }
    }
    s
}

/// The request of the call at `pc` of thread `t`: unique in its rank.
fn req(t: usize, pc: usize) -> u32 {
    (t * 100 + pc + 1) as u32
}

fn to_sim(prog: &Prog) -> ThreadedProgram {
    prog.iter()
        .map(|threads| {
            threads
                .iter()
                .enumerate()
                .map(|(t, calls)| {
                    let mut steps: Vec<Step> = calls
                        .iter()
                        .enumerate()
                        .map(|(pc, c)| {
                            Step::Call(match *c {
                                Call::Send { dst, tag, sync, nb } => Op::Send {
                                    mode: if sync {
                                        SendMode::Sync
                                    } else {
                                        SendMode::Standard
                                    },
                                    dest: dst as i32,
                                    tag,
                                    comm: COMM_WORLD,
                                    req: nb.then(|| req(t, pc)),
                                },
                                Call::Recv { src, tag, nb } => Op::Recv {
                                    src: src.map_or(ANY, |s| s as i32),
                                    tag: tag.unwrap_or(ANY),
                                    comm: COMM_WORLD,
                                    req: req(t, pc),
                                    blocking: !nb,
                                },
                                Call::Wait { of } => Op::Wait {
                                    kind: WaitKind::One,
                                    reqs: vec![req(t, of)],
                                },
                                Call::Barrier => return Step::ThreadBarrier,
                                Call::Coll => Op::Coll {
                                    kind: CollKind::Barrier,
                                    comm: COMM_WORLD,
                                    root: 0,
                                },
                            })
                        })
                        .collect();
                    if t == 0 {
                        steps.push(Step::Call(Op::Finalize));
                    }
                    steps
                })
                .collect()
        })
        .collect()
}

/// A call in a rank's sequence.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Entered {
    id: CallId,
    call: Call,
    matched: Option<CallId>,
    complete: bool,
}

/// A state of the enumeration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct State {
    /// Per rank and thread: its next call, and the position in the rank's
    /// sequence of the call it waits in.
    pc: Vec<Vec<usize>>,
    blocked: Vec<Vec<Option<usize>>>,
    /// Per rank, its calls in the order they entered MPI.
    entered: Vec<Vec<Entered>>,
}

struct Brute<'a> {
    prog: &'a Prog,
    seen: HashSet<State>,
    outcomes: BTreeSet<Outcome>,
}

fn accepts(recv: &Call, from: usize, tag: i32) -> bool {
    let Call::Recv { src, tag: t, .. } = recv else {
        return false;
    };
    src.is_none_or(|s| s == from) && t.is_none_or(|t| t == tag)
}

impl Brute<'_> {
    /// Whether thread `t` of rank `r` is done: every call made and answered.
    fn done(&self, s: &State, r: usize, t: usize) -> bool {
        s.blocked[r][t].is_none() && s.pc[r][t] > self.prog[r][t].len()
            || t > 0 && s.blocked[r][t].is_none() && s.pc[r][t] == self.prog[r][t].len()
    }

    /// Threads whose call has completed go on.
    fn settle(&self, s: &mut State) {
        for r in 0..s.pc.len() {
            for t in 0..s.pc[r].len() {
                if let Some(i) = s.blocked[r][t] {
                    if s.entered[r][i].complete {
                        s.blocked[r][t] = None;
                        s.pc[r][t] += 1;
                    }
                }
            }
        }
    }

    /// Thread `t` of rank `r` makes its next call, if it can.
    fn step(&self, s: &State, r: usize, t: usize) -> Option<State> {
        if s.blocked[r][t].is_some() {
            return None;
        }
        let pc = s.pc[r][t];
        let calls = &self.prog[r][t];
        if pc > calls.len() || t > 0 && pc == calls.len() {
            return None;
        }
        let mut n = s.clone();
        if pc == calls.len() {
            // The main thread finalizes once the others are done.
            if (1..s.pc[r].len()).any(|u| !self.done(s, r, u)) {
                return None;
            }
            n.pc[r][t] += 1;
            return Some(n);
        }
        let call = &calls[pc];
        let (complete, waits) = match *call {
            // The rank's threads pass their barrier together (`barriers`).
            Call::Barrier => return None,
            // Every rank's completes together (`collectives`).
            Call::Coll => (false, true),
            Call::Send { sync, nb, .. } => (!sync, !nb && sync),
            Call::Recv { nb, .. } => (false, !nb),
            Call::Wait { of } => {
                let i = (s.entered[r].iter())
                    .position(|e| e.id == (r, t, of))
                    .expect("a wait after its call");
                n.blocked[r][t] = Some(i);
                self.settle(&mut n);
                return Some(n);
            }
        };
        n.entered[r].push(Entered {
            id: (r, t, pc),
            call: call.clone(),
            matched: None,
            complete,
        });
        if waits {
            n.blocked[r][t] = Some(n.entered[r].len() - 1);
        } else {
            n.pc[r][t] += 1;
        }
        Some(n)
    }

    /// Whether every rank has entered its `MPI_Barrier` and none has
    /// completed: they complete together then.
    fn collective(&self, s: &State) -> bool {
        let colls: Vec<Option<&Entered>> = (s.entered.iter())
            .map(|seq| seq.iter().find(|e| e.call == Call::Coll))
            .collect();
        colls.iter().all(|c| c.is_some_and(|e| !e.complete))
    }

    /// The ranks whose threads all wait at their barrier.
    fn barriers(&self, s: &State) -> Vec<usize> {
        (0..s.pc.len())
            .filter(|&r| {
                s.pc[r].len() > 1
                    && (0..s.pc[r].len()).all(|t| {
                        s.blocked[r][t].is_none()
                            && self.prog[r][t].get(s.pc[r][t]) == Some(&Call::Barrier)
                    })
            })
            .collect()
    }

    /// Every send/receive pair that MPI's rules let match now.
    fn pairs(&self, s: &State) -> Vec<(usize, usize, usize, usize)> {
        let mut out = Vec::new();
        for (a, sends) in s.entered.iter().enumerate() {
            for (i, e) in sends.iter().enumerate() {
                let Call::Send { dst, tag, .. } = e.call else {
                    continue;
                };
                if e.matched.is_some() {
                    continue;
                }
                for (j, rv) in s.entered[dst].iter().enumerate() {
                    if rv.matched.is_some() || !accepts(&rv.call, a, tag) {
                        continue;
                    }
                    let overtakes = sends[..i].iter().any(|x| {
                        x.matched.is_none()
                            && matches!(x.call, Call::Send { dst: d, tag: xt, .. }
                                if d == dst && accepts(&rv.call, a, xt))
                    });
                    let claimed = s.entered[dst][..j]
                        .iter()
                        .any(|x| x.matched.is_none() && accepts(&x.call, a, tag));
                    if !overtakes && !claimed {
                        out.push((a, i, dst, j));
                    }
                }
            }
        }
        out
    }

    fn walk(&mut self, s: State) {
        if !self.seen.insert(s.clone()) {
            return;
        }
        let mut moved = false;
        for r in 0..s.pc.len() {
            for t in 0..s.pc[r].len() {
                if let Some(n) = self.step(&s, r, t) {
                    moved = true;
                    self.walk(n);
                }
            }
        }
        if self.collective(&s) {
            moved = true;
            let mut n = s.clone();
            for seq in &mut n.entered {
                for e in seq.iter_mut().filter(|e| e.call == Call::Coll) {
                    e.complete = true;
                }
            }
            self.settle(&mut n);
            self.walk(n);
        }
        for r in self.barriers(&s) {
            moved = true;
            let mut n = s.clone();
            for pc in &mut n.pc[r] {
                *pc += 1;
            }
            self.walk(n);
        }
        for (a, i, b, j) in self.pairs(&s) {
            moved = true;
            let mut n = s.clone();
            let send = n.entered[a][i].id;
            let recv = n.entered[b][j].id;
            n.entered[a][i].matched = Some(recv);
            n.entered[a][i].complete = true;
            n.entered[b][j].matched = Some(send);
            n.entered[b][j].complete = true;
            self.settle(&mut n);
            self.walk(n);
        }
        if !moved {
            let map = (s.entered.iter().flatten())
                .filter(|e| matches!(e.call, Call::Recv { .. }))
                .filter_map(|e| e.matched.map(|m| (e.id, m)))
                .collect();
            let stuck = (0..s.pc.len()).any(|r| (0..s.pc[r].len()).any(|t| !self.done(&s, r, t)));
            self.outcomes.insert((map, stuck));
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
        pc: prog.iter().map(|ts| vec![0; ts.len()]).collect(),
        blocked: prog.iter().map(|ts| vec![None; ts.len()]).collect(),
        entered: vec![Vec::new(); prog.len()],
    });
    b.outcomes
}

/// POE's outcomes of `prog` when its calls reach the engine in `turns`
/// order, and how many runs it made.
fn poe(prog: &Prog, turns: Turns) -> Result<(BTreeSet<Outcome>, usize), String> {
    let cfg = Config {
        nprocs: prog.len(),
        zero_buffer: false,
        exchange: false,
    };
    let runs = explore_threads(&to_sim(prog), cfg, turns);
    let mut out = BTreeSet::new();
    for run in &runs {
        let call = |o: &OpId| match run.ops[o.rank][o.index].site {
            Site::Line { file, line } => (o.rank, file as usize - 1, line as usize - 1),
            s => panic!("simulated calls have lines, not {s:?}"),
        };
        let map = (run.fired.iter())
            .filter_map(|f| match f {
                Fired::SendRecv { send, recv, .. } => Some((call(recv), call(send))),
                _ => None,
            })
            .collect();
        let stuck = match &run.end {
            RunEnd::Completed => false,
            // A loop of tests that never succeeds is the deadlock of the
            // wait it stands for.
            RunEnd::Deadlock { .. } | RunEnd::Livelock { .. } => true,
            other => return Err(format!("run {} ended in {other:?}", run.token)),
        };
        out.insert((map, stuck));
    }
    Ok((out, runs.len()))
}

/// A program of two or three ranks, at least one of them with two
/// threads, made of messages: each a send of one thread and a receive of a
/// thread of another rank, placed at the ends of those threads in the
/// order drawn. A nonblocking call's wait comes right after it or at the
/// thread's end.
fn generate(seed: u64) -> Prog {
    generate_sized(seed, 2, 3)
}

/// [`generate`] with up to `threads` threads per rank and `2 + more`
/// messages at most.
fn generate_sized(seed: u64, threads: usize, more: usize) -> Prog {
    let mut g = Rng::new(seed);
    let n = 2 + g.below(2);
    let mut prog: Prog = (0..n)
        .map(|r| {
            let t = if r == 0 { 2 } else { 1 + g.below(threads) };
            vec![Vec::new(); t.max(1)]
        })
        .collect();
    let mut later: Vec<Vec<Vec<usize>>> =
        prog.iter().map(|ts| vec![Vec::new(); ts.len()]).collect();
    let messages = 2 + g.below(more);
    for _ in 0..messages {
        let a = g.below(n);
        let b = (a + 1 + g.below(n - 1)) % n;
        let ta = g.below(prog[a].len());
        let tb = g.below(prog[b].len());
        let tag = g.below(2) as i32;
        let nb = g.chance(1, 3);
        let send = Call::Send {
            dst: b,
            tag,
            sync: g.chance(1, 3),
            nb,
        };
        let recv_nb = g.chance(1, 3);
        let recv = Call::Recv {
            src: (!g.chance(1, 2)).then_some(a),
            tag: (!g.chance(1, 3)).then_some(tag),
            nb: recv_nb,
        };
        let mut place = |r: usize, t: usize, c: Call, nb: bool, g: &mut Rng| {
            let pc = prog[r][t].len();
            prog[r][t].push(c);
            if nb {
                if g.chance(1, 2) {
                    prog[r][t].push(Call::Wait { of: pc });
                } else {
                    later[r][t].push(pc);
                }
            }
        };
        if g.chance(1, 2) {
            place(a, ta, send, nb, &mut g);
            place(b, tb, recv, recv_nb, &mut g);
        } else {
            place(b, tb, recv, recv_nb, &mut g);
            place(a, ta, send, nb, &mut g);
        }
    }
    for (r, threads) in later.into_iter().enumerate() {
        for (t, pcs) in threads.into_iter().enumerate() {
            for of in pcs {
                prog[r][t].push(Call::Wait { of });
            }
        }
    }
    // Some programs have an `MPI_Barrier`, made by any thread of each rank.
    if g.chance(1, 3) {
        for threads in prog.iter_mut() {
            let t = g.below(threads.len());
            let calls = &mut threads[t];
            let at = g.below(calls.len() + 1);
            for c in calls.iter_mut() {
                if let Call::Wait { of } = c {
                    if *of >= at {
                        *of += 1;
                    }
                }
            }
            calls.insert(at, Call::Coll);
        }
    }
    // Some ranks of threads pass a barrier of their threads somewhere.
    for threads in prog.iter_mut().filter(|ts| ts.len() > 1) {
        if !g.chance(1, 3) {
            continue;
        }
        for calls in threads.iter_mut() {
            let at = g.below(calls.len() + 1);
            for c in calls.iter_mut() {
                if let Call::Wait { of } = c {
                    if *of >= at {
                        *of += 1;
                    }
                }
            }
            calls.insert(at, Call::Barrier);
        }
    }
    prog
}

fn seeds() -> u64 {
    std::env::var("FIB_THREAD_ENGINE_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300)
}

/// What comparing generated programs with POE found: the failures, and
/// for the runs in the first arrival order, how many outcomes, runs, and
/// programs that took more than one run.
#[derive(Default)]
struct Tally {
    failures: Vec<String>,
    outcomes: usize,
    runs: usize,
    choosing: usize,
}

/// Compares the programs `generate` makes from `seeds` with POE, its
/// calls reaching the engine in each of `orders`.
fn compare(seeds: u64, generate: impl Fn(u64) -> Prog, orders: &[Turns]) -> Tally {
    let mut t = Tally::default();
    for seed in 0..seeds {
        let prog = generate(seed);
        let want = brute_force(&prog);
        for &turns in orders {
            match poe(&prog, turns) {
                Ok((got, n)) if got == want => {
                    if turns == orders[0] {
                        t.outcomes += want.len();
                        t.runs += n;
                        t.choosing += usize::from(n > 1);
                    }
                }
                Ok((got, _)) => t.failures.push(format!(
                    "seed {seed} ({turns:?}):\n{}POE only: {:?}\nMPI only: {:?}",
                    show(&prog),
                    got.difference(&want).collect::<Vec<_>>(),
                    want.difference(&got).collect::<Vec<_>>(),
                )),
                Err(e) => t.failures.push(format!("seed {seed}:\n{}{e}", show(&prog))),
            }
        }
    }
    assert!(
        t.failures.is_empty(),
        "{}",
        t.failures[..t.failures.len().min(3)].join("\n\n")
    );
    eprintln!(
        "{seeds} programs: {} outcomes in {} runs",
        t.outcomes, t.runs
    );
    t
}

#[test]
fn poe_finds_exactly_the_outcomes_mpi_allows_ranks_of_two_threads() {
    let t = compare(seeds(), generate, &[Turns::Forward, Turns::Backward]);
    // The generator makes choices between threads, not only single runs.
    assert!(
        t.choosing > seeds() as usize / 4,
        "{} programs chose",
        t.choosing
    );
}

#[test]
fn poe_finds_exactly_the_outcomes_mpi_allows_ranks_of_three_threads() {
    let t = compare(
        seeds() / 12,
        |seed| generate_sized(seed, 3, 5),
        &[Turns::Forward],
    );
    assert!(t.choosing > 0);
}

/// Rank `r`'s thread `t` of these steps, made with the simulator.
fn send(dst: i32, tag: i32) -> Step {
    Step::Call(Op::Send {
        mode: SendMode::Standard,
        dest: dst,
        tag,
        comm: COMM_WORLD,
        req: None,
    })
}

fn recv(src: i32, tag: i32) -> Step {
    Step::Call(Op::Recv {
        src,
        tag,
        comm: COMM_WORLD,
        req: 1,
        blocking: true,
    })
}

fn finalize() -> Step {
    Step::Call(Op::Finalize)
}

fn cfg(nprocs: usize) -> Config {
    Config {
        nprocs,
        zero_buffer: false,
        exchange: false,
    }
}

/// Which send (rank, thread, line) each receive got, per run.
fn matches(runs: &[poe::sim::RunResult]) -> BTreeSet<BTreeMap<CallId, CallId>> {
    runs.iter()
        .map(|run| {
            let call = |o: &OpId| match run.ops[o.rank][o.index].site {
                Site::Line { file, line } => (o.rank, file as usize - 1, line as usize - 1),
                s => panic!("simulated calls have lines, not {s:?}"),
            };
            (run.fired.iter())
                .filter_map(|f| match f {
                    Fired::SendRecv { send, recv, .. } => Some((call(recv), call(send))),
                    _ => None,
                })
                .collect()
        })
        .collect()
}

#[test]
fn two_threads_receiving_from_two_peers_take_one_run() {
    let prog: ThreadedProgram = vec![
        vec![vec![recv(1, 0), finalize()], vec![recv(2, 0)]],
        vec![vec![send(0, 0), finalize()]],
        vec![vec![send(0, 0), finalize()]],
    ];
    for turns in [Turns::Forward, Turns::Backward] {
        let runs = explore_threads(&prog, cfg(3), turns);
        assert_eq!(runs.len(), 1, "{turns:?}");
        assert_eq!(runs[0].end, RunEnd::Completed);
        let want: BTreeMap<CallId, CallId> = [((0, 0, 0), (1, 0, 0)), ((0, 1, 0), (2, 0, 0))]
            .into_iter()
            .collect();
        assert_eq!(matches(&runs), [want].into_iter().collect());
    }
}

#[test]
fn wildcard_receives_of_two_threads_choose_between_them() {
    let prog: ThreadedProgram = vec![
        vec![vec![recv(ANY, 0), finalize()], vec![recv(ANY, 0)]],
        vec![vec![send(0, 0), finalize()]],
        vec![vec![send(0, 0), finalize()]],
    ];
    let runs = explore_threads(&prog, cfg(3), Turns::Forward);
    let got = matches(&runs);
    // Either thread can get either message.
    let one: BTreeMap<CallId, CallId> = [((0, 0, 0), (1, 0, 0)), ((0, 1, 0), (2, 0, 0))]
        .into_iter()
        .collect();
    let other: BTreeMap<CallId, CallId> = [((0, 0, 0), (2, 0, 0)), ((0, 1, 0), (1, 0, 0))]
        .into_iter()
        .collect();
    assert_eq!(got, [one, other].into_iter().collect());
    assert!(runs.iter().all(|r| r.end == RunEnd::Completed));
    // Each run's token replays it.
    for run in &runs {
        let again = poe::sim::run_threads_once(&prog, cfg(3), run.token.plan(), Turns::Backward);
        assert_eq!(
            matches(std::slice::from_ref(&again)),
            matches(std::slice::from_ref(run))
        );
    }
}

#[test]
fn a_deadlock_names_each_waiting_thread() {
    // Rank 0's second thread waits for a message with tag 5 that never
    // comes; its main thread, joining it, waits too.
    let prog: ThreadedProgram = vec![
        vec![vec![recv(1, 0), finalize()], vec![recv(1, 5)]],
        vec![vec![send(0, 0), finalize()]],
    ];
    let runs = explore_threads(&prog, cfg(2), Turns::Forward);
    assert_eq!(runs.len(), 1);
    let RunEnd::Deadlock { ranks } = &runs[0].end else {
        panic!("{:?}", runs[0].end)
    };
    let threads: Vec<(u32, Option<&str>)> = ranks[0]
        .threads
        .iter()
        .map(|t| (t.thread, t.call.map(|(name, _)| name)))
        .collect();
    // The thread that waits in the rank's call comes first: reports name
    // it as the rank's.
    assert_eq!(threads, vec![(1, Some("MPI_Recv")), (0, None)]);
    assert_eq!(ranks[0].call, Some("MPI_Recv"));
    assert!(ranks[1].threads.is_empty());
}

#[test]
fn a_thread_multiple_ping_pong_has_one_outcome() {
    // Each thread of rank 0 sends to its twin of rank 1 (by tag) and takes
    // its answer; three rounds.
    let thread = |peer: i32, tag: i32, first: bool| -> Vec<Step> {
        (0..3)
            .flat_map(|_| {
                if first {
                    [send(peer, tag), recv(peer, tag)]
                } else {
                    [recv(peer, tag), send(peer, tag)]
                }
            })
            .collect()
    };
    let rank = |peer, first| {
        let mut main = thread(peer, 0, first);
        main.push(finalize());
        vec![main, thread(peer, 1, first)]
    };
    let prog: ThreadedProgram = vec![rank(1, true), rank(0, false)];
    for turns in [Turns::Forward, Turns::Backward] {
        let runs = explore_threads(&prog, cfg(2), turns);
        assert!(runs.iter().all(|r| r.end == RunEnd::Completed));
        assert_eq!(matches(&runs).len(), 1);
        // The threads' calls never depend on each other's place: one run.
        assert_eq!(runs.len(), 1, "{turns:?}");
    }
}

#[test]
fn a_thread_polls_while_another_sends() {
    // Rank 0's second thread tests its receive until the answer to what
    // the main thread sent is there.
    let test = Step::Poll(Op::Test {
        kind: WaitKind::One,
        reqs: vec![7],
    });
    let irecv = Step::Call(Op::Recv {
        src: 1,
        tag: 1,
        comm: COMM_WORLD,
        req: 7,
        blocking: false,
    });
    let prog: ThreadedProgram = vec![
        vec![vec![send(1, 0), finalize()], vec![irecv, test]],
        vec![vec![recv(0, 0), send(0, 1), finalize()]],
    ];
    for turns in [Turns::Forward, Turns::Backward] {
        let runs = explore_threads(&prog, cfg(2), turns);
        assert!(runs.iter().all(|r| r.end == RunEnd::Completed), "{turns:?}");
        let want: BTreeMap<CallId, CallId> = [((0, 1, 0), (1, 0, 1)), ((1, 0, 0), (0, 0, 0))]
            .into_iter()
            .collect();
        assert_eq!(matches(&runs), [want].into_iter().collect());
    }
}
