//! The Fib pass against the oracle (the pass as it was before it was made
//! near-linear, `common/oracle.rs`) on every interleaving of thousands of
//! random straight-line programs run through the POE engine without MPI:
//! the same barrier match sets, the same relevant ones with the same
//! (wildcard, rival) witness, each barrier group alone and grouped; and each
//! witness path a real completes-before path from the receive to the send
//! through the barrier it names.
//!
//! The programs mix blocking, synchronous and nonblocking sends, named and
//! wildcard receives (source, tag or both), probes and polls, the waits and
//! tests of the nonblocking calls, barriers on the world and on the halves
//! of a split (some of them `MPI_Ibarrier`s, completed at once or later,
//! by a wait, a test or never), other collectives, and messages that cross barriers or never
//! find a partner (so some runs end in deadlock). `FIB_EQ_COUNT` programs
//! (default 2000) from consecutive seeds starting at `FIB_EQ_SEED`
//! (default 1).

mod common;

use std::collections::{BTreeSet, HashSet};

use common::oracle;
use fib::{Analysis, Node};
use fib_wire::{CollKind, Op, SendMode, WaitKind, ANY, COMM_WORLD, FIRST_USER_COMM};
use poe::engine::{Config, Fired, FiredList, OpId, Ops};
use poe::sim::{explore, Program, Step, Turns};

/// A small xorshift generator: the programs depend on the seed only.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// A call being placed in a rank's phase, before request ids are known.
enum Call {
    Send {
        dst: usize,
        tag: i32,
        mode: SendMode,
        nb: bool,
    },
    Recv {
        src: Option<usize>,
        tag: Option<i32>,
        nb: bool,
    },
    Probe {
        src: Option<usize>,
        tag: Option<i32>,
        poll: bool,
    },
    Coll(CollKind, u32),
}

/// A random program: phases of point-to-point traffic separated by
/// barriers; most messages have both ends in one phase, some cross into the
/// next, a few have one end only.
fn generate(seed: u64) -> (Program, usize, bool) {
    let mut rng = Rng::new(seed);
    let n = if rng.chance(15) { 2 } else { 3 + rng.below(2) };
    let split = n >= 3 && rng.chance(40);
    let phases = 1 + rng.below(3);
    let mut calls: Vec<Vec<Vec<Call>>> = (0..n)
        .map(|_| (0..=phases).map(|_| Vec::new()).collect())
        .collect();
    let mut wildcards = 0;
    let budget = 2 + rng.below(5);
    let tag = |rng: &mut Rng| rng.below(2) as i32;
    for phase in 0..phases {
        let messages = 1 + rng.below(4);
        for _ in 0..messages {
            // Rank 0 collects most messages.
            let dst = if rng.chance(60) { 0 } else { rng.below(n) };
            let src = (dst + 1 + rng.below(n - 1)) % n;
            let t = tag(&mut rng);
            let mode = if rng.chance(15) {
                SendMode::Sync
            } else {
                SendMode::Standard
            };
            let send = Call::Send {
                dst,
                tag: t,
                mode,
                nb: rng.chance(30),
            };
            let wild_src = wildcards < budget && rng.chance(55);
            wildcards += usize::from(wild_src);
            let recv_src = (!wild_src).then_some(src);
            let recv_tag = if rng.chance(20) { None } else { Some(t) };
            let one_sided = rng.chance(6);
            if !(one_sided && rng.chance(50)) {
                calls[src][phase].push(send);
            }
            if !one_sided || rng.chance(50) {
                let at = if rng.chance(25) { phase + 1 } else { phase };
                if rng.chance(12) {
                    calls[dst][at].push(Call::Probe {
                        src: recv_src,
                        tag: recv_tag,
                        poll: rng.chance(20),
                    });
                }
                calls[dst][at].push(Call::Recv {
                    src: recv_src,
                    tag: recv_tag,
                    nb: rng.chance(30),
                });
            }
        }
        if rng.chance(15) {
            for rank in calls.iter_mut() {
                rank[phase].push(Call::Coll(CollKind::Allreduce, COMM_WORLD));
            }
        }
        // Most ranks send before they receive in a phase; some shuffle
        // their calls (any order is a program, if one that may deadlock).
        for rank in calls.iter_mut() {
            let list = &mut rank[phase];
            if rng.chance(70) {
                list.sort_by_key(|c| !matches!(c, Call::Send { .. }));
            } else {
                for i in (1..list.len()).rev() {
                    list.swap(i, rng.below(i + 1));
                }
            }
        }
    }
    let sub = |r: usize| FIRST_USER_COMM + (r % 2) as u32;
    let on_sub: Vec<bool> = (0..phases).map(|_| split && rng.chance(30)).collect();
    // Which phases end in an MPI_Ibarrier, from a stream of its own so that
    // the seeds give the programs they always gave otherwise.
    let mut irng = Rng::new(seed ^ 0x1ba2);
    let ibarrier: Vec<bool> = (0..phases).map(|_| irng.chance(30)).collect();
    let mut program: Program = Vec::new();
    for (r, rank) in calls.into_iter().enumerate() {
        let mut steps: Vec<Step> = Vec::new();
        if split {
            steps.push(Step::Call(Op::CommSplit {
                comm: COMM_WORLD,
                color: (r % 2) as i32,
                key: r as i32,
            }));
        }
        let mut open: Vec<u32> = Vec::new();
        for (phase, list) in rank.into_iter().enumerate() {
            for c in list {
                let req = steps.len() as u32;
                let step = match c {
                    Call::Send { dst, tag, mode, nb } => {
                        if nb {
                            open.push(req);
                        }
                        Step::Call(Op::Send {
                            mode,
                            dest: dst as i32,
                            tag,
                            comm: COMM_WORLD,
                            req: nb.then_some(req),
                        })
                    }
                    Call::Recv { src, tag, nb } => {
                        if nb {
                            open.push(req);
                        }
                        Step::Call(Op::Recv {
                            src: src.map_or(ANY, |s| s as i32),
                            tag: tag.unwrap_or(ANY),
                            comm: COMM_WORLD,
                            req,
                            blocking: !nb,
                        })
                    }
                    Call::Probe { src, tag, poll } => {
                        let op = Op::Probe {
                            src: src.map_or(ANY, |s| s as i32),
                            tag: tag.unwrap_or(ANY),
                            comm: COMM_WORLD,
                            blocking: !poll,
                        };
                        if poll {
                            Step::Poll(op)
                        } else {
                            Step::Call(op)
                        }
                    }
                    Call::Coll(kind, comm) => Step::Call(Op::Coll {
                        kind,
                        comm,
                        root: 0,
                    }),
                };
                steps.push(step);
                // Now and then complete some open requests.
                if !open.is_empty() && rng.chance(30) {
                    steps.push(complete(&mut rng, &mut open));
                }
            }
            if !open.is_empty() && rng.chance(60) {
                steps.push(complete(&mut rng, &mut open));
            }
            if phase < phases {
                let comm = if on_sub[phase] { sub(r) } else { COMM_WORLD };
                if ibarrier[phase] {
                    // Completed at once, or left open for a later wait or
                    // test (or never).
                    let req = steps.len() as u32;
                    steps.push(Step::Call(Op::Icoll {
                        kind: CollKind::Ibarrier,
                        comm,
                        root: 0,
                        req,
                    }));
                    if irng.chance(50) {
                        steps.push(Step::Call(Op::Wait {
                            kind: WaitKind::One,
                            reqs: vec![req],
                        }));
                    } else {
                        open.push(req);
                    }
                } else {
                    steps.push(Step::Call(Op::Coll {
                        kind: CollKind::Barrier,
                        comm,
                        root: 0,
                    }));
                }
            }
        }
        // Leftover requests: waited for all at once, or left as leaks.
        if !open.is_empty() && rng.chance(80) {
            steps.push(Step::Call(Op::Wait {
                kind: WaitKind::All,
                reqs: std::mem::take(&mut open),
            }));
        }
        steps.push(Step::Call(Op::Finalize));
        program.push(steps);
    }
    let zero_buffer = rng.chance(15);
    (program, n, zero_buffer)
}

/// A wait or test on some of the open requests.
fn complete(rng: &mut Rng, open: &mut Vec<u32>) -> Step {
    let k = 1 + rng.below(open.len());
    let mut reqs = Vec::new();
    for _ in 0..k {
        reqs.push(open.swap_remove(rng.below(open.len())));
    }
    reqs.sort_unstable();
    match rng.below(6) {
        0 if reqs.len() > 1 => {
            // Waitany returns one; the others stay open.
            let op = Op::Wait {
                kind: WaitKind::Any,
                reqs: reqs.clone(),
            };
            open.extend(reqs);
            Step::Call(op)
        }
        1 if rng.chance(50) => Step::Poll(Op::Test {
            kind: WaitKind::All,
            reqs,
        }),
        _ => Step::Call(Op::Wait {
            kind: if reqs.len() == 1 {
                WaitKind::One
            } else {
                WaitKind::All
            },
            reqs,
        }),
    }
}

/// What the comparison covered.
#[derive(Default, Debug)]
struct Tally {
    programs: u64,
    runs: u64,
    completed: u64,
    compared: u64,
    barriers: u64,
    relevant: u64,
    relevant_grouped: u64,
    same_path: u64,
    /// Relevant match sets that are `MPI_Ibarrier`s.
    relevant_ibarriers: u64,
}

/// Checks that `path` is a completes-before path of the oracle's graph from
/// the receive to the send, through `barrier`.
fn check_path(g: &oracle::CbGraph, w: &fib::Relevant, what: &str) {
    assert_eq!(w.path.first(), Some(&Node::Op(w.recv)), "{what}");
    assert_eq!(w.path.last(), Some(&Node::Op(w.send)), "{what}");
    assert!(w.path.contains(&Node::Collective(w.barrier)), "{what}");
    for pair in w.path.windows(2) {
        let (a, b) = (g.get(pair[0]).unwrap(), g.get(pair[1]).unwrap());
        assert!(g.graph.contains_edge(a, b), "{what}: no edge {pair:?}");
    }
}

/// The relevant match sets with their witness pairs.
fn verdicts(a: &Analysis) -> Vec<(usize, OpId, OpId)> {
    a.relevant
        .iter()
        .map(|r| (r.barrier, r.recv, r.send))
        .collect()
}

fn compare(ops: &[Ops], fired: &FiredList, what: &str, tally: &mut Tally) {
    let old = oracle::analyze(ops, fired);
    let new = fib::analyze(ops, fired);
    assert_eq!(new.barriers, old.barriers, "{what}");
    assert_eq!(verdicts(&new), verdicts(&old), "{what}");
    let g = oracle::cb_graph(ops, fired);
    for (w, o) in new.relevant.iter().zip(&old.relevant) {
        check_path(&g, w, what);
        tally.same_path += u64::from(w.path == o.path);
    }
    tally.barriers += new.barriers.len() as u64;
    tally.relevant += new.relevant.len() as u64;
    tally.relevant_ibarriers += new
        .relevant
        .iter()
        .filter(|r| {
            let m = &new.barriers.iter().find(|b| b.0 == r.barrier).unwrap().1[0];
            matches!(
                ops[m.rank][m.index].kind,
                poe::engine::Kind::Coll { req: Some(_), .. }
            )
        })
        .count() as u64;
    // Grouped: barriers at the same place of their ranks' programs, modulo
    // two, are one group, so groups have several match sets that may lie on
    // different paths.
    let key = |m: &[OpId]| m[0].index % 2;
    let old = oracle::analyze_grouped(ops, fired, &key);
    let new = fib::analyze_grouped(ops, fired, &key);
    let groups = |a: &Analysis| -> BTreeSet<usize> {
        a.relevant
            .iter()
            .map(|r| key(&a.barriers.iter().find(|b| b.0 == r.barrier).unwrap().1))
            .collect()
    };
    assert_eq!(groups(&new), groups(&old), "{what} (grouped)");
    let pairs = |a: &Analysis| -> HashSet<(usize, OpId, OpId)> {
        a.relevant
            .iter()
            .map(|r| {
                let m = &a.barriers.iter().find(|b| b.0 == r.barrier).unwrap().1;
                (key(m), r.recv, r.send)
            })
            .collect()
    };
    assert_eq!(pairs(&new), pairs(&old), "{what} (grouped)");
    for w in &new.relevant {
        check_path(&g, w, what);
    }
    tally.relevant_grouped += new.relevant.len() as u64;
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).map_or(default, |v| v.parse().expect("a number"))
}

#[test]
fn the_pass_agrees_with_the_oracle_on_random_programs() {
    let first = env_u64("FIB_EQ_SEED", 1);
    let count = env_u64("FIB_EQ_COUNT", 2000);
    let mut tally = Tally::default();
    for seed in first..first + count {
        let (program, n, zero_buffer) = generate(seed);
        let runs = explore(
            &program,
            Config {
                nprocs: n,
                zero_buffer,
                exchange: false,
            },
            Turns::Forward,
        );
        tally.programs += 1;
        for (i, run) in runs.iter().enumerate() {
            tally.runs += 1;
            tally.completed += u64::from(run.end == poe::engine::RunEnd::Completed);
            // Polls that spin for long make runs of thousands of calls, too
            // slow for the oracle in the debug profile.
            if run.ops.iter().map(Ops::len).sum::<usize>() > 1000 {
                continue;
            }
            tally.compared += 1;
            let what = format!("seed {seed}, run {i}: {program:?}");
            compare(&run.ops, &run.fired, &what, &mut tally);
        }
    }
    eprintln!("{tally:?}");
    assert_eq!(tally.programs, count);
    // The programs must exercise the pass: many runs, barriers, relevant
    // ones.
    assert!(3 * tally.runs >= 4 * count, "{tally:?}");
    assert!(tally.completed * 2 >= tally.runs, "{tally:?}");
    assert!(tally.relevant * 10 >= tally.runs, "{tally:?}");
    assert!(tally.compared * 100 >= tally.runs * 95, "{tally:?}");
    assert!(tally.barriers > tally.relevant, "{tally:?}");
    assert!(tally.relevant_ibarriers * 20 >= tally.relevant, "{tally:?}");
}

/// A program where rank 0 collects one message from most ranks per phase
/// with a row of blocking wildcard receives, phases closed by barriers,
/// and now and then a message sent right after a barrier that rank 0 takes
/// in the next phase: the barrier keeps it from the row. With `waitany`,
/// the receives are nonblocking and a row of `MPI_Waitany` takes them (now
/// and then one call short, ended by an `MPI_Waitall`), in at most two
/// phases.
/// How [`gather_program_of`] takes its rows' messages.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Probes {
    /// With wildcard receives.
    None,
    /// With `MPI_Probe` from any source, each followed by the receive from
    /// the source (and sometimes with the tag) it found.
    Plain,
    /// With `MPI_Mprobe` from any source, each followed by its `MPI_Mrecv`.
    Matched,
}

fn gather_program(seed: u64, waitany: bool) -> (Program, usize, bool) {
    gather_program_of(seed, waitany, false, Probes::None)
}

/// [`gather_program`], where with `several` a sender may send two messages
/// to the row (which takes them all), in one or two phases.
fn gather_program_of(
    seed: u64,
    waitany: bool,
    several: bool,
    probes: Probes,
) -> (Program, usize, bool) {
    let mut rng = Rng::new(seed ^ 0x6a7e);
    let n = 3 + rng.below(2);
    let phases = 1 + rng.below(if waitany || several { 2 } else { 3 });
    let mut program: Program = vec![Vec::new(); n];
    let send = |dst: usize, tag: i32, mode: SendMode, req: Option<u32>| Op::Send {
        mode,
        dest: dst as i32,
        tag,
        comm: COMM_WORLD,
        req,
    };
    let recv = |src: i32, tag: i32, req: u32| Op::Recv {
        src,
        tag,
        comm: COMM_WORLD,
        req,
        blocking: true,
    };
    let mut late: Vec<usize> = Vec::new();
    for _ in 0..phases {
        let tag = rng.below(2) as i32;
        let any_tag = rng.chance(30);
        // Last phase's late messages, taken by name first.
        for &r in &late {
            let req = program[0].len() as u32;
            program[0].push(Step::Call(recv(r as i32, tag, req)));
        }
        let mut senders = 0;
        for steps in program.iter_mut().skip(1) {
            if rng.chance(10) {
                continue;
            }
            senders += 1;
            let mode = if rng.chance(10) {
                SendMode::Sync
            } else {
                SendMode::Standard
            };
            let messages = if several { 1 + rng.below(2) } else { 1 };
            senders += messages - 1;
            for _ in 0..messages {
                let nb = rng.chance(25);
                let req = steps.len() as u32;
                let t = if rng.chance(8) { 1 - tag } else { tag };
                steps.push(Step::Call(send(0, t, mode, nb.then_some(req))));
                if nb {
                    steps.push(Step::Call(Op::Wait {
                        kind: WaitKind::One,
                        reqs: vec![req],
                    }));
                }
            }
        }
        // One row in three is of nonblocking receives, waited for together.
        let nb = probes == Probes::None && (rng.chance(33) || waitany);
        let mut reqs = Vec::new();
        for _ in 0..senders {
            let req = program[0].len() as u32;
            let t = if any_tag { ANY } else { tag };
            if probes == Probes::Matched {
                // A matched probe for any sender takes the message for the
                // MPI_Mrecv after it (now and then a wildcard receive with
                // another tag comes between, ending the row).
                program[0].push(Step::Call(Op::Mprobe {
                    src: ANY,
                    tag: t,
                    comm: COMM_WORLD,
                    req,
                    blocking: true,
                }));
                if rng.chance(3) {
                    program[0].push(Step::Call(recv(ANY, 1 - tag, req + 2000)));
                }
                program[0].push(Step::Call(Op::Mrecv {
                    req: req + 1000,
                    blocking: true,
                    probe: req,
                }));
                continue;
            }
            if probes == Probes::Plain {
                // A probe for any sender, then the receive of what it found
                // (after a probe for any tag, mostly with the tag it found;
                // now and then a receive with another tag filter, which may
                // not take the probed message).
                program[0].push(Step::Call(Op::Probe {
                    src: ANY,
                    tag: t,
                    comm: COMM_WORLD,
                    blocking: true,
                }));
                let other = if rng.chance(2) {
                    1 - tag
                } else if t == ANY && rng.chance(70) {
                    poe::sim::PROBED
                } else {
                    t
                };
                program[0].push(Step::Call(recv(poe::sim::PROBED, other, req + 1)));
                continue;
            }
            program[0].push(Step::Call(Op::Recv {
                src: ANY,
                tag: t,
                comm: COMM_WORLD,
                req,
                blocking: !nb,
            }));
            reqs.push(req);
        }
        if waitany && !reqs.is_empty() {
            let short = rng.chance(20);
            for i in 0..reqs.len() {
                let all = short && i + 1 == reqs.len();
                program[0].push(Step::Call(Op::Wait {
                    kind: if all { WaitKind::All } else { WaitKind::Any },
                    reqs: reqs.clone(),
                }));
            }
        } else if nb && !reqs.is_empty() {
            program[0].push(Step::Call(Op::Wait {
                kind: WaitKind::All,
                reqs,
            }));
        }
        let barrier = rng.chance(80);
        if barrier {
            for steps in program.iter_mut() {
                steps.push(Step::Call(Op::Coll {
                    kind: CollKind::Barrier,
                    comm: COMM_WORLD,
                    root: 0,
                }));
            }
        }
        late.clear();
        for (r, steps) in program.iter_mut().enumerate().skip(1) {
            if rng.chance(25) {
                steps.push(Step::Call(send(0, tag, SendMode::Standard, None)));
                late.push(r);
            }
        }
    }
    for &r in &late {
        let req = program[0].len() as u32;
        program[0].push(Step::Call(recv(r as i32, ANY, req)));
    }
    for steps in program.iter_mut() {
        steps.push(Step::Call(Op::Finalize));
    }
    let zero_buffer = rng.chance(15);
    (program, n, zero_buffer)
}

/// What a whole exploration shows the barrier verdicts and the proof by
/// removal: the barrier match sets (by their members' calls) some run
/// finds relevant, every barrier match set, the wildcard pairs (with the
/// orders of exchangeable blocks), and the ends.
#[derive(Debug, PartialEq, Eq)]
struct Shown {
    relevant: BTreeSet<Vec<OpId>>,
    barriers: BTreeSet<Vec<OpId>>,
    pairs: BTreeSet<(OpId, OpId)>,
    ends: BTreeSet<String>,
}

/// What an exploration showed, how many runs it took, and whether a run had
/// an exchangeable block and a row of `MPI_Waitany`.
fn shown(
    program: &Program,
    n: usize,
    zero_buffer: bool,
    exchange: bool,
) -> (Shown, usize, bool, bool) {
    let runs = explore(
        program,
        Config {
            nprocs: n,
            zero_buffer,
            exchange,
        },
        Turns::Forward,
    );
    let mut s = Shown {
        relevant: BTreeSet::new(),
        barriers: BTreeSet::new(),
        pairs: BTreeSet::new(),
        ends: BTreeSet::new(),
    };
    let (mut blocks, mut rows) = (false, false);
    for run in &runs {
        rows |= !run.rows.is_empty();
        let a = fib::analyze_exchanged(&run.ops, &run.fired, &run.exchanges, &|m: &[OpId]| m[0]);
        for r in &a.relevant {
            let m = &a.barriers.iter().find(|b| b.0 == r.barrier).unwrap().1;
            s.relevant.insert(m.clone());
        }
        s.barriers.extend(a.barriers.iter().map(|b| b.1.clone()));
        for f in &run.fired {
            if let Fired::SendRecv {
                send,
                recv,
                wildcard: true,
            } = f
            {
                s.pairs.insert((*recv, *send));
            }
            if let Fired::Probe { probe, send } = f {
                if matches!(
                    run.ops[probe.rank][probe.index].kind,
                    poe::engine::Kind::Probe {
                        src: poe::engine::Peer::Any,
                        ..
                    }
                ) {
                    s.pairs.insert((*probe, *send));
                }
            }
        }
        for x in &run.exchanges {
            blocks = true;
            s.pairs.extend(x.pairs());
        }
        s.ends.insert(format!("{:?}", run.end));
    }
    (s, runs.len(), blocks, rows)
}

/// What comparing the reduced explorations of programs with full ones
/// counted: runs without and with the reductions, programs whose runs had
/// a reduction (a block, or with `rows` a row of `MPI_Waitany`), and of
/// those, programs with a relevant barrier.
struct Compared {
    full: usize,
    reduced: usize,
    with: usize,
    relevant: usize,
}

impl Compared {
    /// Prints what the comparison of `count` programs with `what` counted,
    /// and checks that at least one in ten had a relevant barrier too.
    fn report(&self, what: &str, count: u64) {
        eprintln!(
            "{} programs with {what} ({} with a relevant barrier): {} runs instead of {}",
            self.with, self.relevant, self.reduced, self.full
        );
        assert!(
            self.relevant * 10 >= count as usize,
            "{} of {count}",
            self.relevant
        );
    }
}

/// Checks that the program of every seed in `1..=count` shows the same
/// verdicts, pairs and ends with the reductions as without.
fn compare_reduced(
    count: u64,
    rows: bool,
    program_of: impl Fn(u64) -> (Program, usize, bool),
) -> Compared {
    let mut c = Compared {
        full: 0,
        reduced: 0,
        with: 0,
        relevant: 0,
    };
    for seed in 1..=count {
        let (program, n, zero_buffer) = program_of(seed);
        let (all, runs_all, ..) = shown(&program, n, zero_buffer, false);
        let (some, runs_some, blocks, has_rows) = shown(&program, n, zero_buffer, true);
        assert_eq!(some, all, "seed {seed}: {program:?}");
        let reduced = if rows { has_rows } else { blocks };
        c.full += runs_all;
        c.reduced += runs_some;
        c.with += usize::from(reduced);
        c.relevant += usize::from(reduced && !all.relevant.is_empty());
    }
    c
}

/// The barrier verdicts, the wildcard pairs and the ends that a run per
/// exchangeable block gives are those of every order run.
#[test]
fn exchangeable_blocks_keep_every_verdict_pair_and_end() {
    let count = env_u64("FIB_EQ_COUNT", 2000);
    let c = compare_reduced(count, false, |seed| {
        if seed % 2 == 0 {
            generate(seed)
        } else {
            gather_program(seed, false)
        }
    });
    c.report("exchangeable blocks", count);
    assert!(c.with * 5 >= count as usize, "{} of {count}", c.with);
    assert!(
        c.reduced * 3 < c.full * 2,
        "{} runs, {} without blocks",
        c.reduced,
        c.full
    );
}

/// The barrier verdicts, the wildcard pairs and the ends that a run per
/// row of `MPI_Waitany` gives are those of every order run.
#[test]
fn waitany_rows_keep_every_verdict_pair_and_end() {
    let count = env_u64("FIB_EQ_COUNT", 2000) / 4;
    let c = compare_reduced(count, true, |seed| gather_program(seed, true));
    c.report("rows of MPI_Waitany", count);
    assert!(c.with * 2 >= count as usize, "{} of {count}", c.with);
    assert!(
        c.reduced * 2 < c.full,
        "{} runs, {} without rows",
        c.reduced,
        c.full
    );
}

/// The same for rows that take several messages of one sender: the orders a
/// run stands for keep each sender's messages in its order.
#[test]
fn blocks_of_several_messages_per_sender_keep_every_verdict_pair_and_end() {
    let count = env_u64("FIB_EQ_COUNT", 2000) / 4;
    let c = compare_reduced(count, false, |seed| {
        gather_program_of(seed, false, true, Probes::None)
    });
    c.report("blocks of several messages per sender", count);
    assert!(c.with * 3 >= count as usize, "{} of {count}", c.with);
    assert!(
        c.reduced * 2 < c.full,
        "{} runs, {} without blocks",
        c.reduced,
        c.full
    );
}

/// Compares rows of `probes` (`what`) with full explorations: every
/// program shows the same, at least a third of them have such a row, and
/// the runs come down to less than `at_most` of every order's. A few
/// programs of larger seeds take tens of thousands of runs in full, so the
/// default is the first 250.
fn compare_rows_of(probes: Probes, what: &str, at_most: (usize, usize)) {
    let count = env_u64("FIB_EQ_COUNT", 2000) / 8;
    let c = compare_reduced(count, false, |seed| {
        gather_program_of(seed, false, seed % 4 == 0, probes)
    });
    c.report(what, count);
    assert!(c.with * 3 >= count as usize, "{} of {count}", c.with);
    assert!(
        c.reduced * at_most.1 < c.full * at_most.0,
        "{} runs, {} without blocks",
        c.reduced,
        c.full
    );
}

/// The same for rows of probes with `MPI_ANY_SOURCE`, each followed by the
/// receive of the message it found (from the source the probe reported):
/// one run stands for every order in which the probes find the messages.
#[test]
fn rows_of_probes_keep_every_verdict_pair_and_end() {
    compare_rows_of(Probes::Plain, "rows of probes", (2, 3));
}

/// The same for rows of matched probes from any source, each followed by
/// the `MPI_Mrecv` of the message it took. Most runs are those of a few
/// programs whose rows take synchronous sends, which no run stands for.
#[test]
fn rows_of_matched_probes_keep_every_verdict_pair_and_end() {
    compare_rows_of(Probes::Matched, "rows of matched probes", (4, 5));
}
