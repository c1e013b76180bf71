//! Compares POE with an independent brute-force enumeration of MPI executions.
//!
//! The enumerator below knows nothing of the engine: it walks every reachable
//! state of a straight-line program under MPI's matching rules (a receive takes
//! the earliest unmatched send of a sender that it accepts, and a send goes to
//! the earliest posted unmatched receive that accepts it; `MPI_Waitany` returns
//! any one of its active requests that is complete, `MPI_Waitsome` any
//! non-empty set of them) and records, for each terminal state, which send
//! every `MPI_ANY_SOURCE` receive got, which requests every `MPI_Waitany` and
//! `MPI_Waitsome` returned, and whether the state is a deadlock. Collectives
//! (`MPI_Barrier` and the nonblocking ones, which return a request at once
//! that a wait completes) match in each rank's order of them: the k-th of
//! every rank together, once every rank has made its k-th. POE must
//! find exactly the same set of outcomes, in at most as many runs as there are
//! outcomes. Programs come from a small seeded generator, so a failure names
//! the seed and prints the program. A program whose messages all go between
//! rank 0 and the others must give POE the same outcomes when it runs on an
//! intercommunicator between those two groups, every rank named by its rank
//! in the remote group.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt;

use fib_wire::{CollKind, Op, SendMode, Site, WaitKind, ANY, COMM_WORLD};
use poe::engine::Policy;
use poe::engine::{Fired, Kind, SOME_SUBSETS_UP_TO};
use poe::sim::{explore, explore_jobs, explore_with, Program, RunResult, Step, Turns};
use poe::{Config, OpId, RunEnd};

mod common;
use common::Rng;

/// One call of a generated program, as the enumerator sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Call {
    /// `MPI_Send`, `MPI_Ssend` (`sync`) or, when `nb`, `MPI_Isend`.
    Send {
        dst: usize,
        tag: i32,
        sync: bool,
        nb: bool,
    },
    /// `MPI_Recv` or, when `nb`, `MPI_Irecv`; `None` is a wildcard.
    Recv {
        src: Option<usize>,
        tag: Option<i32>,
        nb: bool,
    },
    /// `MPI_Wait` (one request) or `MPI_Waitall`, naming calls of the rank.
    Wait {
        reqs: Vec<usize>,
    },
    /// `MPI_Waitany` on these calls of the rank. A request that an earlier
    /// wait of the rank returned is `MPI_REQUEST_NULL` by then and skipped.
    Waitany {
        reqs: Vec<usize>,
    },
    /// `MPI_Waitsome` on these calls of the rank, skipping released requests
    /// as `MPI_Waitany` does.
    Waitsome {
        reqs: Vec<usize>,
    },
    /// `MPI_Request_free` of this call's request (active, or persistent).
    Free {
        req: usize,
    },
    /// `MPI_Cancel` of this call's request, a nonblocking receive: until it
    /// matches, MPI may cancel it instead (it then takes no message, and
    /// completes).
    Cancel {
        req: usize,
    },
    /// `MPI_Send_init`/`MPI_Recv_init` of the persistent request that the
    /// call `of` (a nonblocking send or receive) starts first.
    Init {
        of: usize,
    },
    /// `MPI_Start` again of the persistent request the call `of` started:
    /// the same send or receive, under the same request.
    Restart {
        of: usize,
    },
    /// `MPI_Mprobe` or, with `poll`, a loop of `MPI_Improbe` until it finds
    /// a message; `None` is a wildcard. Either takes the message it finds
    /// as a blocking receive would (the `MPI_Mrecv` of it matches nothing
    /// and is left out).
    Mprobe {
        src: Option<usize>,
        tag: Option<i32>,
        poll: bool,
    },
    Barrier,
    /// A nonblocking collective on `MPI_COMM_WORLD` (`MPI_Ibarrier`,
    /// `MPI_Iallreduce`, `MPI_Ineighbor_alltoall`, ..., or with `idup`
    /// `MPI_Comm_idup`): its request is this call, completed by a wait
    /// once every rank has made its collective of the same rank in order.
    Icoll {
        kind: CollKind,
        idup: bool,
    },
    Finalize,
}

impl fmt::Display for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let opt = |v: Option<i64>| v.map_or("*".to_string(), |x| x.to_string());
        match self {
            Call::Send { dst, tag, sync, nb } => {
                let name = match (sync, nb) {
                    (false, false) => "Send",
                    (true, false) => "Ssend",
                    (false, true) => "Isend",
                    (true, true) => "Issend",
                };
                write!(f, "{name}(to {dst}, tag {tag})")
            }
            Call::Recv { src, tag, nb } => write!(
                f,
                "{}(from {}, tag {})",
                if *nb { "Irecv" } else { "Recv" },
                opt(src.map(|s| s as i64)),
                opt(tag.map(i64::from))
            ),
            Call::Wait { reqs } if reqs.len() == 1 => write!(f, "Wait(#{})", reqs[0]),
            Call::Wait { reqs } => write!(f, "Waitall({reqs:?})"),
            Call::Waitany { reqs } => write!(f, "Waitany({reqs:?})"),
            Call::Waitsome { reqs } => write!(f, "Waitsome({reqs:?})"),
            Call::Free { req } => write!(f, "Request_free(#{req})"),
            Call::Cancel { req } => write!(f, "Cancel(#{req})"),
            Call::Init { of } => write!(f, "Init(for #{of})"),
            Call::Restart { of } => write!(f, "Start(#{of})"),
            Call::Mprobe { src, tag, poll } => write!(
                f,
                "{}(from {}, tag {})",
                if *poll { "Improbe-loop" } else { "Mprobe" },
                opt(src.map(|s| s as i64)),
                opt(tag.map(i64::from))
            ),
            Call::Barrier => write!(f, "Barrier"),
            Call::Icoll { idup: true, .. } => write!(f, "Comm_idup"),
            Call::Icoll { kind, .. } => write!(f, "{}", &kind.mpi_name()[4..]),
            Call::Finalize => write!(f, "Finalize"),
        }
    }
}

type Prog = Vec<Vec<Call>>;

fn show(prog: &Prog) -> String {
    let mut s = String::new();
    for (r, calls) in prog.iter().enumerate() {
        s.push_str(&format!("  rank {r}:"));
        for (i, c) in calls.iter().enumerate() {
            s.push_str(&format!(" #{i} {c};"));
        }
        s.push('\n');
    }
    s
}

/// The same program as simulator steps; a call's request id is its index
/// (a restart's is the one of the call it starts again).
fn to_sim(prog: &Prog) -> Program {
    prog.iter()
        .map(|calls| {
            let req_of = |q: usize| match calls[q] {
                Call::Restart { of } => of,
                _ => q,
            };
            calls
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let (c, i) = match c {
                        Call::Restart { of } => (&calls[*of], *of),
                        c => (c, i),
                    };
                    if let Call::Mprobe { src, tag, poll } = c {
                        let op = Op::Mprobe {
                            src: src.map_or(ANY, |s| s as i32),
                            tag: tag.unwrap_or(ANY),
                            comm: COMM_WORLD,
                            req: i as u32,
                            blocking: !poll,
                        };
                        return if *poll {
                            Step::Poll(op)
                        } else {
                            Step::Call(op)
                        };
                    }
                    Step::Call(match c {
                        Call::Send { dst, tag, sync, nb } => Op::Send {
                            mode: if *sync {
                                SendMode::Sync
                            } else {
                                SendMode::Standard
                            },
                            dest: *dst as i32,
                            tag: *tag,
                            comm: COMM_WORLD,
                            req: nb.then_some(i as u32),
                        },
                        Call::Recv { src, tag, nb } => Op::Recv {
                            src: src.map_or(ANY, |s| s as i32),
                            tag: tag.unwrap_or(ANY),
                            comm: COMM_WORLD,
                            req: i as u32,
                            blocking: !nb,
                        },
                        Call::Wait { reqs } => Op::Wait {
                            kind: if reqs.len() == 1 {
                                WaitKind::One
                            } else {
                                WaitKind::All
                            },
                            reqs: reqs.iter().map(|&q| req_of(q) as u32).collect(),
                        },
                        Call::Waitany { reqs } => Op::Wait {
                            kind: WaitKind::Any,
                            reqs: reqs.iter().map(|&q| q as u32).collect(),
                        },
                        Call::Waitsome { reqs } => Op::Wait {
                            kind: WaitKind::Some,
                            reqs: reqs.iter().map(|&q| q as u32).collect(),
                        },
                        Call::Free { req } => Op::RequestFree {
                            req: req_of(*req) as u32,
                        },
                        Call::Cancel { req } => Op::Cancel {
                            req: req_of(*req) as u32,
                        },
                        Call::Init { of } => Op::RequestInit {
                            req: *of as u32,
                            recv: matches!(calls[*of], Call::Recv { .. }),
                            mode: SendMode::Standard,
                        },
                        Call::Restart { .. } | Call::Mprobe { .. } => {
                            unreachable!("resolved above")
                        }
                        Call::Barrier => Op::Coll {
                            kind: CollKind::Barrier,
                            comm: COMM_WORLD,
                            root: 0,
                        },
                        Call::Icoll { idup: true, .. } => Op::CommIdup {
                            comm: COMM_WORLD,
                            req: i as u32,
                            info: false,
                        },
                        Call::Icoll { kind, .. } => Op::Icoll {
                            kind: *kind,
                            comm: COMM_WORLD,
                            root: 0,
                            req: i as u32,
                        },
                        Call::Finalize => Op::Finalize,
                    })
                })
                .collect()
        })
        .collect()
}

/// A call by rank and index.
type CallId = (usize, usize);

/// The partner of a cancelled receive, in states and outcomes.
const CANCELLED: CallId = (usize::MAX, usize::MAX);

/// What an execution did that POE must reproduce: the send each wildcard
/// receive got, the request each `MPI_Waitany` returned and the requests
/// (ascending) each `MPI_Waitsome` returned, [`CANCELLED`] for each
/// receive cancelled, all keyed by the call, and whether it ended in a
/// deadlock.
type Outcome = (BTreeMap<CallId, Vec<CallId>>, bool);

/// A state of the brute-force enumeration.
#[derive(Clone, PartialEq, Eq, Hash)]
struct State {
    /// How many calls each rank has issued.
    pc: Vec<usize>,
    /// Whether each rank waits in its last issued call.
    blocked: Vec<bool>,
    /// The partner of every matched send or receive.
    partner: Vec<Vec<Option<CallId>>>,
    /// The requests (calls of the same rank, ascending) each `MPI_Waitany`
    /// or `MPI_Waitsome` returned.
    returned: Vec<Vec<Option<Vec<usize>>>>,
    /// How many collectives have matched (each rank's first ones).
    colls: usize,
    /// Every rank passed `MPI_Finalize`.
    finalized: bool,
}

struct Brute<'a> {
    prog: &'a Prog,
    /// For each call, how many collectives its rank made before it.
    ordinal: Vec<Vec<usize>>,
    /// For each rank, the positions of its collectives, in order.
    colls: Vec<Vec<usize>>,
    zero_buffer: bool,
    seen: HashSet<State>,
    outcomes: BTreeSet<Outcome>,
}

impl Brute<'_> {
    fn sync(&self, c: &Call) -> bool {
        matches!(c, Call::Send { sync, .. } if *sync || self.zero_buffer)
    }

    /// Whether a call, once issued, keeps its rank waiting until it completes.
    fn blocking(&self, c: &Call) -> bool {
        match c {
            Call::Send { nb, .. } => !nb && self.sync(c),
            Call::Recv { nb, .. } => !nb,
            Call::Free { .. } | Call::Init { .. } | Call::Icoll { .. } | Call::Cancel { .. } => {
                false
            }
            _ => true,
        }
    }

    /// Whether the send or receive `(r, i)` is complete in MPI's sense.
    fn complete(&self, st: &State, r: usize, i: usize) -> bool {
        match &self.prog[r][i] {
            c @ Call::Send { .. } => !self.sync(c) || st.partner[r][i].is_some(),
            Call::Recv { .. } | Call::Mprobe { .. } => st.partner[r][i].is_some(),
            Call::Icoll { .. } => st.colls > self.ordinal[r][i],
            _ => true,
        }
    }

    /// The requests the `MPI_Waitany` or `MPI_Waitsome` that rank `r` waits
    /// in may return now: those of its list that are complete and that no
    /// earlier wait of the rank returned. `None` when every request of its
    /// list is null.
    fn ready(&self, st: &State, r: usize) -> Option<Vec<usize>> {
        let w = st.pc[r] - 1;
        let (Call::Waitany { reqs } | Call::Waitsome { reqs }) = &self.prog[r][w] else {
            unreachable!()
        };
        let released = |q: usize| {
            (0..w).any(|i| match &self.prog[r][i] {
                Call::Wait { reqs } => reqs.contains(&q),
                Call::Waitany { .. } | Call::Waitsome { .. } => {
                    st.returned[r][i].as_ref().is_some_and(|qs| qs.contains(&q))
                }
                _ => false,
            })
        };
        let active: Vec<usize> = reqs.iter().copied().filter(|&q| !released(q)).collect();
        (!active.is_empty()).then(|| {
            active
                .into_iter()
                .filter(|&q| self.complete(st, r, q))
                .collect()
        })
    }

    /// Takes every local step: issuing calls, returning from completed calls,
    /// firing a barrier or `MPI_Finalize` that every rank waits in. These
    /// steps stay enabled until taken and commute with every match, so taking
    /// them at once loses no outcome.
    fn settle(&self, st: &mut State) {
        let n = self.prog.len();
        loop {
            let mut changed = false;
            for r in 0..n {
                if st.blocked[r] {
                    let i = st.pc[r] - 1;
                    let done = match &self.prog[r][i] {
                        Call::Send { .. } | Call::Recv { .. } | Call::Mprobe { .. } => {
                            self.complete(st, r, i)
                        }
                        // Requests already released are complete too.
                        Call::Wait { reqs } => reqs.iter().all(|&q| self.complete(st, r, q)),
                        // Which requests it returns is a step of its own
                        // (see `walk`), unless every request is null.
                        Call::Waitany { .. } | Call::Waitsome { .. } => self.ready(st, r).is_none(),
                        Call::Barrier => st.colls > self.ordinal[r][i],
                        Call::Finalize => false,
                        Call::Free { .. }
                        | Call::Init { .. }
                        | Call::Icoll { .. }
                        | Call::Cancel { .. } => true,
                        Call::Restart { .. } => unreachable!("resolved"),
                    };
                    if done {
                        st.blocked[r] = false;
                        changed = true;
                    }
                }
                if !st.blocked[r] && st.pc[r] < self.prog[r].len() {
                    st.blocked[r] = self.blocking(&self.prog[r][st.pc[r]]);
                    st.pc[r] += 1;
                    changed = true;
                }
            }
            let all_at =
                |want: &Call| (0..n).all(|r| st.blocked[r] && self.prog[r][st.pc[r] - 1] == *want);
            // The next collective matches once every rank has made it.
            let k = st.colls;
            if (0..n).all(|r| self.colls[r].get(k).is_some_and(|&p| p < st.pc[r])) {
                st.colls += 1;
                changed = true;
            } else if !st.finalized && all_at(&Call::Finalize) {
                st.finalized = true;
            }
            if !changed {
                return;
            }
        }
    }

    /// Every send/receive pair MPI allows to match in `st`.
    fn matches(&self, st: &State) -> Vec<(CallId, CallId)> {
        let n = self.prog.len();
        let mut out = Vec::new();
        let unmatched_recvs = |d: usize| {
            (0..st.pc[d]).filter(move |&i| {
                matches!(self.prog[d][i], Call::Recv { .. } | Call::Mprobe { .. })
                    && st.partner[d][i].is_none()
            })
        };
        let accepts = |d: usize, ri: usize, f: usize, t: i32| match &self.prog[d][ri] {
            Call::Recv { src, tag, .. } | Call::Mprobe { src, tag, .. } => {
                src.is_none_or(|s| s == f) && tag.is_none_or(|x| x == t)
            }
            _ => false,
        };
        for d in 0..n {
            for ri in unmatched_recvs(d) {
                for f in 0..n {
                    // The earliest unmatched send from f to d the receive accepts.
                    let send = (0..st.pc[f]).find(|&si| match &self.prog[f][si] {
                        Call::Send { dst, tag, .. } => {
                            *dst == d && st.partner[f][si].is_none() && accepts(d, ri, f, *tag)
                        }
                        _ => false,
                    });
                    let Some(si) = send else { continue };
                    let Call::Send { tag, .. } = self.prog[f][si] else {
                        unreachable!()
                    };
                    // The receive must be the earliest one that accepts it.
                    let first = unmatched_recvs(d).find(|&r2| accepts(d, r2, f, tag));
                    if first == Some(ri) {
                        out.push(((f, si), (d, ri)));
                    }
                }
            }
        }
        out
    }

    /// Every `MPI_Waitany` or `MPI_Waitsome` return MPI allows in `st`: the
    /// waiting call and the requests it returns (one for `MPI_Waitany`, any
    /// non-empty set of them for `MPI_Waitsome`). A complete request stays
    /// complete, so each stays possible until the call returns.
    fn returns(&self, st: &State) -> Vec<(CallId, Vec<usize>)> {
        let mut out = Vec::new();
        for r in 0..self.prog.len() {
            if !st.blocked[r] {
                continue;
            }
            let w = st.pc[r] - 1;
            let mut ready = match self.prog[r][w] {
                Call::Waitany { .. } | Call::Waitsome { .. } => {
                    self.ready(st, r).unwrap_or_default()
                }
                _ => continue,
            };
            // Outcomes list the requests returned in ascending order.
            ready.sort_unstable();
            if let Call::Waitany { .. } = self.prog[r][w] {
                for q in ready {
                    out.push(((r, w), vec![q]));
                }
            } else {
                for set in 1..1usize << ready.len() {
                    let qs = (0..ready.len())
                        .filter(|b| set >> b & 1 == 1)
                        .map(|b| ready[b])
                        .collect();
                    out.push(((r, w), qs));
                }
            }
        }
        out
    }

    fn walk(&mut self, mut st: State) {
        self.settle(&mut st);
        if !self.seen.insert(st.clone()) {
            return;
        }
        let ms = self.matches(&st);
        let rs = self.returns(&st);
        let cs = self.cancels(&st);
        if ms.is_empty() && rs.is_empty() && cs.is_empty() {
            let mut map = BTreeMap::new();
            for (r, calls) in self.prog.iter().enumerate() {
                for (i, c) in calls.iter().enumerate() {
                    if let (
                        Call::Recv { src: None, .. } | Call::Mprobe { src: None, .. },
                        Some(p),
                    ) = (c, st.partner[r][i])
                    {
                        map.insert((r, i), vec![p]);
                    }
                    if let Some(qs) = &st.returned[r][i] {
                        map.insert((r, i), qs.iter().map(|&q| (r, q)).collect());
                    }
                    if st.partner[r][i] == Some(CANCELLED) {
                        map.insert((r, i), vec![CANCELLED]);
                    }
                }
            }
            self.outcomes.insert((map, !st.finalized));
            return;
        }
        for (s, r) in ms {
            let mut next = st.clone();
            next.partner[s.0][s.1] = Some(r);
            next.partner[r.0][r.1] = Some(s);
            self.walk(next);
        }
        for ((r, w), qs) in rs {
            let mut next = st.clone();
            next.returned[r][w] = Some(qs);
            next.blocked[r] = false;
            self.walk(next);
        }
        for (r, q) in cs {
            let mut next = st.clone();
            next.partner[r][q] = Some(CANCELLED);
            self.walk(next);
        }
    }

    /// The receives MPI may cancel now: those a cancel of their rank asked
    /// to cancel, not matched yet.
    fn cancels(&self, st: &State) -> Vec<CallId> {
        let mut out = Vec::new();
        for (r, calls) in self.prog.iter().enumerate() {
            for c in &calls[..st.pc[r]] {
                let Call::Cancel { req } = c else { continue };
                if st.partner[r][*req].is_none() {
                    out.push((r, *req));
                }
            }
        }
        out
    }
}

/// Every outcome MPI allows for `prog`.
fn brute_force(prog: &Prog, zero_buffer: bool) -> BTreeSet<Outcome> {
    // A restart is its call again, a send or receive of its own to MPI.
    let resolved: Prog = prog
        .iter()
        .map(|calls| {
            calls
                .iter()
                .map(|c| match c {
                    Call::Restart { of } => calls[*of].clone(),
                    c => c.clone(),
                })
                .collect()
        })
        .collect();
    let prog = &resolved;
    let n = prog.len();
    let is_coll = |c: &Call| matches!(c, Call::Barrier | Call::Icoll { .. });
    let mut b = Brute {
        prog,
        ordinal: prog
            .iter()
            .map(|calls| {
                calls
                    .iter()
                    .scan(0, |k, c| {
                        let mine = *k;
                        *k += usize::from(is_coll(c));
                        Some(mine)
                    })
                    .collect()
            })
            .collect(),
        colls: prog
            .iter()
            .map(|calls| (0..calls.len()).filter(|&i| is_coll(&calls[i])).collect())
            .collect(),
        zero_buffer,
        seen: HashSet::new(),
        outcomes: BTreeSet::new(),
    };
    b.walk(State {
        pc: vec![0; n],
        blocked: vec![false; n],
        partner: prog.iter().map(|c| vec![None; c.len()]).collect(),
        returned: prog.iter().map(|c| vec![None; c.len()]).collect(),
        colls: 0,
        finalized: false,
    });
    b.outcomes
}

/// The outcomes of POE's runs, and how many runs it took. Panics on a run
/// that ends in anything but completion or deadlock.
fn poe_outcomes(prog: &Prog, zero_buffer: bool) -> (Vec<Outcome>, Vec<String>) {
    let cfg = Config {
        nprocs: prog.len(),
        zero_buffer,
        exchange: false,
    };
    let runs = explore(&to_sim(prog), cfg, Turns::Forward);
    poe_outcomes_of(prog, &runs)
}

/// The outcome of each run.
fn poe_outcomes_of(prog: &Prog, runs: &[RunResult]) -> (Vec<Outcome>, Vec<String>) {
    poe_outcomes_after(prog, runs, 0)
}

/// [`poe_outcomes_of`] for runs of the program with `skip` calls before
/// each rank's first.
fn poe_outcomes_after(prog: &Prog, runs: &[RunResult], skip: usize) -> (Vec<Outcome>, Vec<String>) {
    let mut out = Vec::new();
    let mut notes = Vec::new();
    for run in runs {
        // The simulator answers a wait on null requests itself, so the
        // engine's operation indices can fall behind the program's; a call's
        // site line is its position in the program.
        let call = |o: &OpId| match run.ops[o.rank][o.index].site {
            Site::Line { line, .. } => (o.rank, line as usize - 1 - skip),
            s => panic!("simulated calls have lines, not {s:?}"),
        };
        let mut map = BTreeMap::new();
        for f in &run.fired {
            match f {
                Fired::SendRecv {
                    send,
                    recv,
                    wildcard: true,
                } => {
                    map.insert(call(recv), vec![call(send)]);
                }
                Fired::Completion { op, completed } => {
                    if let Kind::Wait {
                        kind: WaitKind::Any | WaitKind::Some,
                        ..
                    } = run.ops[op.rank][op.index].kind
                    {
                        let mut calls: Vec<CallId> = completed.iter().map(call).collect();
                        calls.sort_unstable();
                        map.insert(call(op), calls);
                    }
                }
                _ => {}
            }
        }
        // A receive a cancel asked to cancel that completed with no match.
        for (rank, ops) in run.ops.iter().enumerate() {
            for o in ops {
                if let Kind::Cancel { op } = o.kind {
                    let t = &ops[op];
                    if matches!(t.kind, Kind::Recv { .. }) && t.complete && t.matched.is_none() {
                        map.insert(call(&OpId { rank, index: op }), vec![CANCELLED]);
                    }
                }
            }
        }
        let polls = prog
            .iter()
            .flatten()
            .any(|c| matches!(c, Call::Mprobe { poll: true, .. }));
        let deadlock = match &run.end {
            RunEnd::Completed => false,
            RunEnd::Deadlock { .. } => true,
            // An `MPI_Improbe` loop that never finds its message is the
            // deadlock of the blocking receive it stands for.
            RunEnd::Livelock { .. } if polls => true,
            other => {
                notes.push(format!("run {} ended in {other:?}", run.token));
                true
            }
        };
        out.push((map, deadlock));
    }
    (out, notes)
}

/// A tiny xorshift generator, so that seeds mean the same thing everywhere.
/// Which call that returns some of its requests a generated program may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Partial {
    /// Neither: the programs the seeds always gave.
    Never,
    Waitany,
    /// `MPI_Waitsome` wherever [`Partial::Waitany`] puts `MPI_Waitany`: the
    /// same random draws, so the same programs but for that call.
    Waitsome,
}

impl Partial {
    /// The call on these requests.
    fn call(self, reqs: Vec<usize>) -> Call {
        match self {
            Partial::Never => unreachable!("no such call in this mode"),
            Partial::Waitany => Call::Waitany { reqs },
            Partial::Waitsome => Call::Waitsome { reqs },
        }
    }
}

/// A random straight-line program of 2 or 3 ranks, 2 to 6 calls each, every
/// request waited before `MPI_Finalize`. With `partial`, some waits are
/// `MPI_Waitany` (or `MPI_Waitsome`) on every open request, which stay open
/// (a later wait skips those it returned); without, the program is the one
/// the seed always gave, as no random draw is added.
fn generate(seed: u64, partial: Partial) -> Prog {
    let partial_waits = partial != Partial::Never;
    let mut g = Rng::new(seed);
    let n = 2 + g.below(2);
    (0..n)
        .map(|r| {
            let len = 2 + g.below(5);
            let mut calls = Vec::new();
            let mut open: Vec<usize> = Vec::new();
            while calls.len() < len {
                let other = (r + 1 + g.below(n - 1)) % n;
                let tag = g.below(2) as i32;
                let call = match g.below(12) {
                    0..=3 => Call::Send {
                        dst: other,
                        tag,
                        sync: g.chance(1, 4),
                        nb: g.chance(1, 3),
                    },
                    4..=8 => Call::Recv {
                        src: (!g.chance(1, 2)).then_some(other),
                        tag: (!g.chance(1, 3)).then_some(tag),
                        nb: g.chance(1, 2),
                    },
                    9 | 10 if !open.is_empty() => {
                        if partial_waits && open.len() >= 2 && g.chance(1, 2) {
                            partial.call(open.clone())
                        } else if g.chance(1, 2) {
                            Call::Wait {
                                reqs: vec![open.remove(g.below(open.len()))],
                            }
                        } else {
                            Call::Wait {
                                reqs: std::mem::take(&mut open),
                            }
                        }
                    }
                    11 => Call::Barrier,
                    _ => continue,
                };
                if matches!(
                    call,
                    Call::Send { nb: true, .. } | Call::Recv { nb: true, .. }
                ) {
                    open.push(calls.len());
                }
                calls.push(call);
            }
            if partial_waits && open.len() >= 2 && g.chance(1, 2) {
                calls.push(partial.call(open.clone()));
            }
            if !open.is_empty() {
                calls.push(Call::Wait { reqs: open });
            }
            calls.push(Call::Finalize);
            calls
        })
        .collect()
}

/// A random program built from messages: each send gets a receive that
/// accepts it (with a wildcard source or tag at random), placed anywhere in the
/// receiver's calls, so that most programs complete and wildcards have several
/// candidates. Barriers go to every rank at once. With `partial`, a rank with
/// several requests may first take one with `MPI_Waitany` (or some with
/// `MPI_Waitsome`), anywhere after its last request, before waiting for all
/// of them.
fn generate_paired(seed: u64, partial: Partial) -> Prog {
    let partial_waits = partial != Partial::Never;
    let mut g = Rng::new(seed ^ 0x5eed);
    let n = 2 + g.below(2);
    let mut calls: Vec<Vec<Call>> = vec![Vec::new(); n];
    for _ in 0..2 + g.below(2 * n) {
        if g.chance(1, 8) {
            for c in calls.iter_mut() {
                c.push(Call::Barrier);
            }
            continue;
        }
        let from = g.below(n);
        let to = (from + 1 + g.below(n - 1)) % n;
        let tag = g.below(2) as i32;
        if calls[from].len() >= 6 || calls[to].len() >= 6 {
            continue;
        }
        calls[from].push(Call::Send {
            dst: to,
            tag,
            sync: g.chance(1, 5),
            nb: g.chance(1, 3),
        });
        let recv = Call::Recv {
            src: (!g.chance(1, 2)).then_some(from),
            tag: (!g.chance(1, 3)).then_some(tag),
            nb: g.chance(1, 3),
        };
        let at = calls[to].len() - g.below(calls[to].len().min(2) + 1);
        calls[to].insert(at, recv);
    }
    for c in calls.iter_mut() {
        let open: Vec<usize> = (0..c.len())
            .filter(|&i| {
                matches!(
                    c[i],
                    Call::Send { nb: true, .. } | Call::Recv { nb: true, .. }
                )
            })
            .collect();
        if partial_waits && open.len() >= 2 && g.chance(2, 3) {
            let after = open[open.len() - 1] + 1;
            let at = after + g.below(c.len() - after + 1);
            c.insert(at, partial.call(open.clone()));
        }
        if !open.is_empty() {
            c.push(Call::Wait { reqs: open });
        }
        c.push(Call::Finalize);
    }
    calls
}

/// The program of a seed: even seeds from [`generate`], odd ones from
/// [`generate_paired`]; `partial` lets them use `MPI_Waitany` or
/// `MPI_Waitsome`.
fn program(seed: u64, partial: Partial) -> Prog {
    if seed.is_multiple_of(2) {
        generate(seed / 2, partial)
    } else {
        generate_paired(seed / 2, partial)
    }
}

/// Checks one program in one buffering mode; returns a description of the
/// disagreement, if any.
fn check(prog: &Prog, zero_buffer: bool) -> Result<usize, String> {
    let want = brute_force(prog, zero_buffer);
    let (runs, notes) = poe_outcomes(prog, zero_buffer);
    let got: BTreeSet<Outcome> = runs.iter().cloned().collect();
    if got != want || runs.len() > want.len() || !notes.is_empty() {
        return Err(format!(
            "zero_buffer={zero_buffer}\n{}POE ({} runs): {:?}\nbrute force: {:?}\nmissed by POE: {:?}\nextra in POE: {:?}\n{}",
            show(prog),
            runs.len(),
            runs,
            want,
            want.difference(&got).collect::<Vec<_>>(),
            got.difference(&want).collect::<Vec<_>>(),
            notes.join("\n")
        ));
    }
    Ok(runs.len())
}

/// What [`check_set`] found of one program in one buffering mode.
struct SetCheck {
    /// The outcomes MPI allows.
    want: BTreeSet<Outcome>,
    runs: usize,
    /// POE's runs that repeat another run's outcome.
    repeated: usize,
}

/// [`check`] with the runs allowed to repeat an outcome: POE's outcome set
/// must be exactly the brute force's.
fn check_set(prog: &Prog, zero_buffer: bool) -> Result<SetCheck, String> {
    let want = brute_force(prog, zero_buffer);
    let (got, notes) = poe_outcomes(prog, zero_buffer);
    let set: BTreeSet<Outcome> = got.iter().cloned().collect();
    if set != want || !notes.is_empty() {
        return Err(format!(
            "zero_buffer={zero_buffer}\n{}POE ({} runs): {got:?}\nmissed by POE: {:?}\n\
             extra in POE: {:?}\n{}",
            show(prog),
            got.len(),
            want.difference(&set).collect::<Vec<_>>(),
            set.difference(&want).collect::<Vec<_>>(),
            notes.join("\n")
        ));
    }
    Ok(SetCheck {
        runs: got.len(),
        repeated: got.len() - set.len(),
        want,
    })
}

/// How many seeds each comparison takes (its multiple of them, for those
/// that take more): `FIB_BRUTE_SEEDS`, 1000 by default, which CI runs;
/// set it higher for a longer comparison (`FIB_BRUTE_SEEDS=20000 cargo
/// test -p poe --release --test brute_force`).
fn seeds() -> u64 {
    std::env::var("FIB_BRUTE_SEEDS").map_or(1000, |v| v.parse().expect("FIB_BRUTE_SEEDS: a number"))
}

#[test]
fn poe_finds_exactly_the_outcomes_mpi_allows() {
    let mut failures = Vec::new();
    let (mut runs, mut branching, mut deadlocks) = (0, 0, 0);
    for seed in 0..seeds() {
        let prog = program(seed, Partial::Never);
        for zero_buffer in [false, true] {
            match check(&prog, zero_buffer) {
                Ok(n) => {
                    runs += n;
                    branching += usize::from(n > 1);
                    deadlocks += usize::from(brute_force(&prog, zero_buffer).iter().any(|o| o.1));
                }
                Err(e) => failures.push(format!("seed {seed}, {e}")),
            }
        }
    }
    println!(
        "{} checks: {runs} POE runs, {branching} with several outcomes, {deadlocks} that can deadlock",
        2 * seeds()
    );
    assert!(
        failures.is_empty(),
        "{} of {} checks failed ({runs} POE runs in the others); first:\n{}",
        failures.len(),
        2 * seeds(),
        failures[0]
    );
}

/// `prog` with some of the requests that only its last wait completes
/// freed instead (`MPI_Request_free`), right after the call that made them
/// or just before that wait, at random: each still matches, and no wait
/// completes it.
fn with_frees(prog: &Prog, seed: u64) -> Prog {
    let mut g = Rng::new(seed ^ 0xf4ee);
    prog.iter()
        .map(|calls| {
            let last = calls
                .iter()
                .rposition(|c| matches!(c, Call::Wait { .. }))
                .filter(|&w| w + 2 == calls.len());
            let Some(last) = last else {
                return calls.clone();
            };
            let Call::Wait { reqs } = &calls[last] else {
                unreachable!()
            };
            let waited_before = |q: usize| {
                calls[..last]
                    .iter()
                    .any(|c| matches!(c, Call::Wait { reqs } if reqs.contains(&q)))
            };
            let freed: Vec<usize> = reqs
                .iter()
                .copied()
                .filter(|&q| !waited_before(q) && g.chance(1, 2))
                .collect();
            let early: Vec<bool> = freed.iter().map(|_| g.chance(1, 2)).collect();
            let mut out = Vec::new();
            let mut map = BTreeMap::new();
            for (i, c) in calls.iter().enumerate() {
                if i == last {
                    for (k, &q) in freed.iter().enumerate() {
                        if !early[k] {
                            out.push(Call::Free { req: map[&q] });
                        }
                    }
                    let kept: Vec<usize> = reqs
                        .iter()
                        .filter(|q| !freed.contains(q))
                        .map(|q| map[q])
                        .collect();
                    if !kept.is_empty() {
                        out.push(Call::Wait { reqs: kept });
                    }
                    continue;
                }
                let c = match c {
                    Call::Wait { reqs } => Call::Wait {
                        reqs: reqs.iter().map(|q| map[q]).collect(),
                    },
                    c => c.clone(),
                };
                map.insert(i, out.len());
                out.push(c);
                if let Some(k) = freed.iter().position(|&q| q == i) {
                    if early[k] {
                        out.push(Call::Free { req: map[&i] });
                    }
                }
            }
            out
        })
        .collect()
}

#[test]
fn poe_finds_exactly_the_outcomes_mpi_allows_with_freed_requests() {
    let (mut failures, mut changed, mut runs) = (Vec::new(), 0, 0);
    for seed in 0..seeds() {
        let base = program(seed, Partial::Never);
        let prog = with_frees(&base, seed);
        if prog == base {
            continue;
        }
        changed += 1;
        for zero_buffer in [false, true] {
            match check(&prog, zero_buffer) {
                Ok(n) => runs += n,
                Err(e) => failures.push(format!("seed {seed}, {e}")),
            }
        }
    }
    println!("{changed} programs with freed requests, {runs} POE runs");
    assert!(
        changed > seeds() / 4,
        "only {changed} programs free a request"
    );
    assert!(
        failures.is_empty(),
        "{} checks failed; first:\n{}",
        failures.len(),
        failures[0]
    );
}

/// `prog` with some of its blocking receives matched probes instead (an
/// `MPI_Mprobe`, or an `MPI_Improbe` loop), at random: MPI lets each take
/// exactly the messages the receive could.
fn with_mprobes(prog: &Prog, seed: u64) -> Prog {
    let mut rng = Rng::new(seed ^ 0x6d70_726f_6265);
    prog.iter()
        .map(|calls| {
            calls
                .iter()
                .map(|c| match c {
                    Call::Recv {
                        src,
                        tag,
                        nb: false,
                    } if rng.chance(2, 3) => Call::Mprobe {
                        src: *src,
                        tag: *tag,
                        poll: rng.chance(1, 2),
                    },
                    c => c.clone(),
                })
                .collect()
        })
        .collect()
}

#[test]
fn poe_finds_exactly_the_outcomes_mpi_allows_with_matched_probes() {
    let (mut failures, mut changed, mut runs, mut wild) = (Vec::new(), 0, 0, 0);
    for seed in 0..seeds() {
        let base = program(seed, Partial::Never);
        let prog = with_mprobes(&base, seed);
        if prog == base {
            continue;
        }
        changed += 1;
        wild += usize::from(
            prog.iter()
                .flatten()
                .any(|c| matches!(c, Call::Mprobe { src: None, .. })),
        );
        for zero_buffer in [false, true] {
            match check(&prog, zero_buffer) {
                Ok(n) => runs += n,
                Err(e) => failures.push(format!("seed {seed}, {e}")),
            }
        }
    }
    println!("{changed} programs with matched probes ({wild} wildcard), {runs} POE runs");
    assert!(changed > seeds() / 4, "only {changed} programs probe");
    assert!(
        wild as u64 > seeds() / 10,
        "only {wild} programs probe a wildcard"
    );
    assert!(
        failures.is_empty(),
        "{} checks failed; first:\n{}",
        failures.len(),
        failures[0]
    );
}

/// `prog` with, on some ranks, a nonblocking call that one wait completes
/// made persistent: an `Init` before it, and before `MPI_Finalize` a second
/// start of it, its wait and `MPI_Request_free`; the rank its message goes
/// to (or comes from: any other rank, for a wildcard receive) gets a
/// blocking call that matches the second start, before its own
/// `MPI_Finalize`.
fn with_persistent(prog: &Prog, seed: u64) -> Prog {
    let mut g = Rng::new(seed ^ 0x9e55);
    let n = prog.len();
    let mut out: Prog = Vec::new();
    let mut partners: Vec<(usize, Call)> = Vec::new();
    for (r, calls) in prog.iter().enumerate() {
        let waited = |q: usize| {
            calls
                .iter()
                .filter(|c| matches!(c, Call::Wait { reqs } if reqs.contains(&q)))
                .count()
        };
        let candidates: Vec<usize> = (0..calls.len())
            .filter(|&q| {
                matches!(
                    calls[q],
                    Call::Send { nb: true, .. } | Call::Recv { nb: true, .. }
                ) && waited(q) == 1
            })
            .collect();
        if candidates.is_empty() || !g.chance(2, 3) {
            out.push(calls.clone());
            continue;
        }
        let q = candidates[g.below(candidates.len())];
        let mut mine = Vec::new();
        let mut map = BTreeMap::new();
        for (i, c) in calls.iter().enumerate() {
            if matches!(c, Call::Finalize) {
                let of = map[&q];
                mine.push(Call::Restart { of });
                mine.push(Call::Wait {
                    reqs: vec![mine.len() - 1],
                });
                mine.push(Call::Free { req: of });
            }
            if i == q {
                mine.push(Call::Init { of: mine.len() + 1 });
            }
            let c = match c {
                Call::Wait { reqs } => Call::Wait {
                    reqs: reqs.iter().map(|x| map[x]).collect(),
                },
                c => c.clone(),
            };
            map.insert(i, mine.len());
            mine.push(c);
        }
        partners.push(match calls[q] {
            Call::Send { dst, tag, .. } => (
                dst,
                Call::Recv {
                    src: Some(r),
                    tag: Some(tag),
                    nb: false,
                },
            ),
            Call::Recv { src, tag, .. } => (
                src.unwrap_or((r + 1) % n),
                Call::Send {
                    dst: r,
                    tag: tag.unwrap_or(0),
                    sync: false,
                    nb: false,
                },
            ),
            _ => unreachable!(),
        });
        out.push(mine);
    }
    for (p, call) in partners {
        let at = out[p].len() - 1;
        out[p].insert(at, call);
    }
    out
}

#[test]
fn poe_finds_exactly_the_outcomes_mpi_allows_with_persistent_requests() {
    let (mut failures, mut changed, mut runs, mut wild) = (Vec::new(), 0, 0, 0);
    for seed in 0..seeds() {
        let base = program(seed, Partial::Never);
        let prog = with_persistent(&base, seed);
        if prog == base {
            continue;
        }
        changed += 1;
        wild += usize::from(prog.iter().any(|calls| {
            calls.iter().any(|c| {
                matches!(c, Call::Restart { of }
                    if matches!(calls[*of], Call::Recv { src: None, .. }))
            })
        }));
        for zero_buffer in [false, true] {
            match check(&prog, zero_buffer) {
                Ok(k) => runs += k,
                Err(e) => failures.push(format!("seed {seed}, {e}")),
            }
        }
    }
    println!("{changed} programs with persistent requests ({wild} wildcard), {runs} POE runs");
    assert!(changed > seeds() / 4, "only {changed} programs have one");
    assert!(wild > 0, "no persistent wildcard receive");
    assert!(
        failures.is_empty(),
        "{} checks failed; first:\n{}",
        failures.len(),
        failures[0]
    );
}

/// `prog` with some of its barriers nonblocking collectives instead: the
/// k-th collective of every rank becomes one kind (`MPI_Ibarrier`,
/// `MPI_Iallreduce`, `MPI_Ibcast`, `MPI_Ineighbor_alltoall` or
/// `MPI_Comm_idup`), or stays `MPI_Barrier`, at random, so
/// that the ranks agree on each. Each rank completes its request by a wait
/// right after the call or by its last wait before `MPI_Finalize`, so that
/// calls in between go ahead of the collective's match.
fn with_icolls(prog: &Prog, seed: u64) -> Prog {
    with_icolls_waited(prog, seed, Partial::Never)
}

/// [`with_icolls`], where `partial` (unless [`Partial::Never`]) lets a rank
/// take its collectives left for the end, one at a time (`MPI_Waitany`) or
/// some at a time (`MPI_Waitsome`), together with the requests its last
/// wait completes, before that wait: which of them complete first is then
/// a choice, as MPI lets a nonblocking collective complete once its
/// members have all called it.
fn with_icolls_waited(prog: &Prog, seed: u64, partial: Partial) -> Prog {
    let mut g = Rng::new(seed ^ 0x1c0c);
    let most = prog
        .iter()
        .map(|calls| calls.iter().filter(|c| **c == Call::Barrier).count())
        .max()
        .unwrap_or(0);
    let kinds: Vec<Option<Call>> = (0..most)
        .map(|_| {
            let (kind, idup) = match g.below(6) {
                0 => (CollKind::Ibarrier, false),
                1 => (CollKind::Iallreduce, false),
                2 => (CollKind::Ibcast, false),
                3 => (CollKind::IneighborAlltoall, false),
                4 => (CollKind::Ibarrier, true),
                _ => return None,
            };
            Some(Call::Icoll { kind, idup })
        })
        .collect();
    prog.iter()
        .map(|calls| {
            let mut out = Vec::new();
            let mut map = BTreeMap::new();
            let mut later = Vec::new();
            let mut k = 0;
            for (i, c) in calls.iter().enumerate() {
                let c = match c {
                    Call::Wait { reqs } => Call::Wait {
                        reqs: reqs.iter().map(|x| map[x]).collect(),
                    },
                    Call::Waitany { reqs } => Call::Waitany {
                        reqs: reqs.iter().map(|x| map[x]).collect(),
                    },
                    Call::Waitsome { reqs } => Call::Waitsome {
                        reqs: reqs.iter().map(|x| map[x]).collect(),
                    },
                    Call::Barrier => {
                        k += 1;
                        kinds[k - 1].clone().unwrap_or(Call::Barrier)
                    }
                    Call::Finalize if !later.is_empty() => {
                        if partial != Partial::Never && g.chance(2, 3) {
                            // Before the last wait, over its requests too.
                            let (at, mut reqs) = match out.last() {
                                Some(Call::Wait { reqs }) => (out.len() - 1, reqs.clone()),
                                _ => (out.len(), Vec::new()),
                            };
                            reqs.extend(later.iter().copied());
                            out.insert(at, partial.call(reqs));
                        }
                        match out.last_mut() {
                            Some(Call::Wait { reqs }) => reqs.append(&mut later),
                            _ => out.push(Call::Wait {
                                reqs: std::mem::take(&mut later),
                            }),
                        }
                        Call::Finalize
                    }
                    c => c.clone(),
                };
                map.insert(i, out.len());
                let icoll = matches!(c, Call::Icoll { .. });
                out.push(c);
                if icoll {
                    if g.chance(1, 2) {
                        out.push(Call::Wait {
                            reqs: vec![out.len() - 1],
                        });
                    } else {
                        later.push(out.len() - 1);
                    }
                }
            }
            out
        })
        .collect()
}

#[test]
fn poe_finds_exactly_the_outcomes_mpi_allows_with_nonblocking_collectives() {
    let (mut failures, mut changed, mut runs, mut deferred) = (Vec::new(), 0, 0, 0);
    let mut idups = 0;
    let mut t = Tally::default();
    for seed in 0..seeds() * 4 {
        let base = program(seed, Partial::Never);
        let prog = with_icolls(&base, seed);
        if prog == base {
            continue;
        }
        changed += 1;
        idups += usize::from(
            prog.iter()
                .flatten()
                .any(|c| matches!(c, Call::Icoll { idup: true, .. })),
        );
        // A wait that is not right after its collective.
        deferred += usize::from(prog.iter().any(|calls| {
            calls.iter().enumerate().any(|(i, c)| {
                matches!(c, Call::Icoll { .. })
                    && calls.get(i + 1) != Some(&Call::Wait { reqs: vec![i] })
            })
        }));
        for zero_buffer in [false, true] {
            match check(&prog, zero_buffer) {
                Ok(k) => runs += k,
                Err(e) => failures.push(format!("seed {seed}, {e}")),
            }
        }
        if failures.len() == 1 && t.wrong.is_empty() {
            // Shrunk, for the message.
            t.compare(seed, &prog);
        }
    }
    println!(
        "{changed} programs with nonblocking collectives ({deferred} waiting for one later, \
         {idups} with an MPI_Comm_idup), {runs} POE runs"
    );
    assert!(changed > seeds() / 2, "only {changed} programs have one");
    assert!(
        idups as u64 > seeds() / 8,
        "only {idups} have an MPI_Comm_idup"
    );
    assert!(deferred as u64 > seeds() / 4, "only {deferred} wait later");
    assert!(
        failures.is_empty(),
        "{} checks failed; first:\n{}\nshrunk: {}",
        failures.len(),
        failures[0],
        t.wrong.join("\n")
    );
}

/// `prog` with some nonblocking wildcard receives cancelled (`MPI_Cancel`)
/// at a random point between the receive and the first wait that lists it,
/// at random: each is then cancelled or matched, as MPI decides. Only
/// wildcard ones: fib matches a receive naming its source as soon as its
/// send is there (MPI may already have it), so such a receive is cancelled
/// only if no send has reached it when every rank waits, a narrower set of
/// outcomes than MPI's (the engine's rule tests cover it).
fn with_cancels(prog: &Prog, seed: u64) -> Prog {
    let mut g = Rng::new(seed ^ 0xca7c);
    prog.iter()
        .map(|calls| {
            // Where each cancel goes: before the call at that position.
            let mut before: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
            for (q, c) in calls.iter().enumerate() {
                if !matches!(
                    c,
                    Call::Recv {
                        nb: true,
                        src: None,
                        ..
                    }
                ) || !g.chance(2, 3)
                {
                    continue;
                }
                let Some(w) = calls.iter().enumerate().skip(q + 1).find_map(|(w, c)| {
                    matches!(c, Call::Wait { reqs } if reqs.contains(&q)).then_some(w)
                }) else {
                    continue;
                };
                let at = q + 1 + g.below(w - q);
                before.entry(at).or_default().push(q);
            }
            let mut out = Vec::new();
            let mut map = BTreeMap::new();
            for (i, c) in calls.iter().enumerate() {
                for &q in before.get(&i).into_iter().flatten() {
                    out.push(Call::Cancel { req: map[&q] });
                }
                let c = match c {
                    Call::Wait { reqs } => Call::Wait {
                        reqs: reqs.iter().map(|q| map[q]).collect(),
                    },
                    c => c.clone(),
                };
                map.insert(i, out.len());
                out.push(c);
            }
            out
        })
        .collect()
}

/// Cancelled wildcard receives: MPI may cancel one until it matches, so
/// each outcome with it cancelled and each with it matched is POE's too.
#[test]
fn poe_finds_exactly_the_outcomes_mpi_allows_with_cancelled_receives() {
    let (mut failures, mut changed, mut runs, mut repeated) = (Vec::new(), 0, 0, 0);
    let (mut both, mut t) = (0, Tally::default());
    for seed in 0..seeds() * 2 {
        let base = program(seed, Partial::Never);
        let prog = with_cancels(&base, seed);
        if prog == base {
            continue;
        }
        changed += 1;
        for zero_buffer in [false, true] {
            match check_set(&prog, zero_buffer) {
                Ok(c) => {
                    runs += c.runs;
                    repeated += c.repeated;
                    // Some outcome cancels a receive that another one matches.
                    let cancelled = |o: &Outcome| o.0.values().any(|v| v == &[CANCELLED]);
                    both +=
                        usize::from(c.want.iter().any(cancelled) && !c.want.iter().all(cancelled));
                }
                Err(e) => failures.push(format!("seed {seed}, {e}")),
            }
        }
        if failures.len() == 1 && t.wrong.is_empty() {
            t.compare(seed, &prog);
        }
    }
    println!(
        "{changed} programs cancel a receive ({both} checks where it is cancelled in some \
         outcomes and matched in others), {runs} POE runs, {repeated} repeating an outcome"
    );
    assert!(changed > seeds() / 4, "only {changed} programs cancel");
    assert!(
        both as u64 > seeds() / 10,
        "only {both} checks race a cancel"
    );
    assert!(
        failures.is_empty(),
        "{} checks failed; first:\n{}\nshrunk: {}",
        failures.len(),
        failures[0],
        t.wrong.join("\n")
    );
}

/// `MPI_Waitany` and `MPI_Waitsome` over nonblocking collectives' requests,
/// alone or with point-to-point ones: each request they may return first is
/// a run of its own.
#[test]
fn poe_finds_exactly_the_outcomes_mpi_allows_with_collectives_waited_in_part() {
    let (mut failures, mut changed, mut runs, mut repeated) = (Vec::new(), 0, 0, 0);
    let mut t = Tally::default();
    for seed in 0..seeds() * 4 {
        let partial = if seed % 2 == 0 {
            Partial::Waitany
        } else {
            Partial::Waitsome
        };
        let base = program(seed, partial);
        let prog = with_icolls_waited(&base, seed, partial);
        // Only programs where such a call takes a collective's request.
        let takes = prog.iter().any(|calls| {
            calls.iter().any(|c| match c {
                Call::Waitany { reqs } | Call::Waitsome { reqs } => {
                    reqs.iter().any(|&q| matches!(calls[q], Call::Icoll { .. }))
                }
                _ => false,
            })
        });
        if !takes {
            continue;
        }
        changed += 1;
        for zero_buffer in [false, true] {
            // The same outcomes; a few repeated (see below).
            match check_set(&prog, zero_buffer) {
                Ok(c) => {
                    runs += c.runs;
                    repeated += c.repeated;
                }
                Err(e) => failures.push(format!("seed {seed}, {e}")),
            }
        }
        if failures.len() == 1 && t.wrong.is_empty() {
            t.compare(seed, &prog);
        }
    }
    // A run can repeat another's outcome: when a `MPI_Waitsome` is deferred
    // behind another rank's choice, a forced match that the sibling branch
    // ran before that choice can run after it here, an order that commutes.
    // Exact, but not minimal; the count is printed to watch.
    println!(
        "{changed} programs wait for some collectives in part, {runs} POE runs, \
         {repeated} repeating an outcome"
    );
    assert!(changed > seeds() / 2, "only {changed} programs do");
    assert!(
        failures.is_empty(),
        "{} checks failed; first:\n{}\nshrunk: {}",
        failures.len(),
        failures[0],
        t.wrong.join("\n")
    );
}

/// The groups of the intercommunicator a program runs on in
/// [`on_intercomm`]: rank 0, and the others.
fn group(rank: usize) -> usize {
    usize::from(rank > 0)
}

/// Whether every message of `prog` (and every receive naming its source)
/// goes between rank 0 and another rank, so that the program means the same
/// on an intercommunicator between rank 0 and the others: a wildcard there
/// ranges over the remote group, which holds every rank that sends to it.
fn crosses_groups(prog: &Prog) -> bool {
    prog.iter().enumerate().all(|(r, calls)| {
        calls.iter().all(|c| match c {
            Call::Send { dst, .. } => group(*dst) != group(r),
            Call::Recv { src: Some(s), .. } | Call::Mprobe { src: Some(s), .. } => {
                group(*s) != group(r)
            }
            _ => true,
        })
    })
}

/// `prog` with every message of a rank other than 0 sent to rank 0, and
/// every receive of such a rank that names its source naming rank 0.
fn star(prog: &Prog) -> Prog {
    prog.iter()
        .enumerate()
        .map(|(r, calls)| {
            calls
                .iter()
                .map(|c| match c.clone() {
                    Call::Send { tag, sync, nb, .. } if r > 0 => Call::Send {
                        dst: 0,
                        tag,
                        sync,
                        nb,
                    },
                    Call::Recv {
                        src: Some(_),
                        tag,
                        nb,
                    } if r > 0 => Call::Recv {
                        src: Some(0),
                        tag,
                        nb,
                    },
                    c => c,
                })
                .collect()
        })
        .collect()
}

/// `prog` as the simulator runs it on an intercommunicator between rank 0
/// and the other ranks (made by an `MPI_Comm_split` of the world by group
/// and an `MPI_Intercomm_create`, the two calls before each rank's first):
/// its messages and barriers on the intercommunicator, with every rank
/// named by its rank in the remote group; nonblocking collectives (rooted
/// at world rank 0) stay on the world.
fn on_intercomm(prog: &Prog) -> Program {
    const INTER: u32 = fib_wire::FIRST_USER_COMM + 2;
    let remote = |r: i32| if r > 0 { r - 1 } else { r };
    to_sim(prog)
        .into_iter()
        .enumerate()
        .map(|(r, steps)| {
            let g = group(r) as u32;
            let mut out = vec![
                Step::Call(Op::CommSplit {
                    comm: COMM_WORLD,
                    color: g as i32,
                    key: r as i32,
                }),
                Step::Call(Op::IntercommCreate {
                    local_comm: fib_wire::FIRST_USER_COMM + g,
                    local_leader: 0,
                    peer_comm: COMM_WORLD,
                    remote_leader: 1 - g as i32,
                    tag: 0,
                }),
            ];
            out.extend(steps.into_iter().map(|step| {
                let inter = |op: Op| match op {
                    Op::Send {
                        mode,
                        dest,
                        tag,
                        req,
                        ..
                    } => Op::Send {
                        mode,
                        dest: remote(dest),
                        tag,
                        comm: INTER,
                        req,
                    },
                    Op::Recv {
                        src,
                        tag,
                        req,
                        blocking,
                        ..
                    } => Op::Recv {
                        src: remote(src),
                        tag,
                        comm: INTER,
                        req,
                        blocking,
                    },
                    Op::Mprobe {
                        src,
                        tag,
                        req,
                        blocking,
                        ..
                    } => Op::Mprobe {
                        src: remote(src),
                        tag,
                        comm: INTER,
                        req,
                        blocking,
                    },
                    Op::Coll { kind, root, .. } => Op::Coll {
                        kind,
                        comm: INTER,
                        root,
                    },
                    op => op,
                };
                match step {
                    Step::Call(op) => Step::Call(inter(op)),
                    Step::Poll(op) => Step::Poll(inter(op)),
                    Step::Sure(op) => Step::Sure(inter(op)),
                    Step::ThreadBarrier => Step::ThreadBarrier,
                }
            }));
            out
        })
        .collect()
}

/// On an intercommunicator, with every rank named by its rank in the
/// remote group, POE finds the outcomes brute force finds for the same
/// program on `MPI_COMM_WORLD`: remote-rank translation and wildcards over
/// the remote group change nothing of what can happen.
#[test]
fn intercomm_programs_agree_with_their_world_form() {
    let (mut checked, mut branching, mut failures) = (0, 0, Vec::new());
    for seed in 0..seeds() * 2 {
        let prog = star(&program(seed, Partial::Never));
        assert!(crosses_groups(&prog));
        // A third with matched probes too.
        let prog = if seed % 3 == 0 {
            with_mprobes(&prog, seed)
        } else {
            prog
        };
        checked += 1;
        for zero_buffer in [false, true] {
            let want = brute_force(&prog, zero_buffer);
            let cfg = Config {
                nprocs: prog.len(),
                zero_buffer,
                exchange: false,
            };
            let runs = explore(&on_intercomm(&prog), cfg, Turns::Forward);
            let (got, notes) = poe_outcomes_after(&prog, &runs, 2);
            branching += usize::from(got.len() > 1);
            let set: BTreeSet<Outcome> = got.iter().cloned().collect();
            if set != want || got.len() > want.len() || !notes.is_empty() {
                failures.push(format!(
                    "seed {seed}, zero_buffer={zero_buffer}\n{}POE: {got:?}\nbrute force: {want:?}\n{}",
                    show(&prog),
                    notes.join("\n")
                ));
            }
        }
    }
    println!(
        "{checked} programs on an intercommunicator, {branching} checks with several outcomes"
    );
    assert!(
        failures.is_empty(),
        "{} checks failed; first:\n{}",
        failures.len(),
        failures[0]
    );
    assert!(branching > 80, "only {branching} checks branch");
}

/// Exploring on two workers gives the runs of a sequential exploration, in
/// its order, with its tokens and outcomes.
#[test]
fn parallel_exploration_makes_the_sequential_runs() {
    let mut several = 0;
    for seed in 0..seeds() * 3 {
        let prog = to_sim(&program(seed, Partial::Never));
        for zero_buffer in [false, true] {
            let cfg = Config {
                nprocs: prog.len(),
                zero_buffer,
                exchange: false,
            };
            let one = explore(&prog, cfg, Turns::Forward);
            let two = explore_jobs(&prog, cfg, Turns::Forward, 2);
            let view = |runs: &[poe::sim::RunResult]| {
                runs.iter()
                    .map(|r| (r.token.to_string(), format!("{:?}", r.end), r.fired.len()))
                    .collect::<Vec<_>>()
            };
            assert_eq!(
                view(&one),
                view(&two),
                "seed {seed}, zero_buffer={zero_buffer}"
            );
            several += usize::from(one.len() > 1);
        }
    }
    println!("{several} explorations with several runs");
    assert_eq!(several, 266, "explorations with several runs");
}

/// Removes calls from a failing program while it keeps failing.
fn shrink(mut prog: Prog, zero_buffer: bool) -> Prog {
    loop {
        let mut smaller = None;
        'search: for r in 0..prog.len() {
            for i in 0..prog[r].len() - 1 {
                let mut p = prog.clone();
                p[r].remove(i);
                // Renumber the requests of the rank's waits; drop empty waits.
                let calls = std::mem::take(&mut p[r]);
                let mut fixed = Vec::new();
                let mut map = BTreeMap::new();
                for (j, c) in calls.into_iter().enumerate() {
                    let old = if j >= i { j + 1 } else { j };
                    let renumber = |reqs: Vec<usize>| -> Vec<usize> {
                        reqs.iter().filter_map(|q| map.get(q).copied()).collect()
                    };
                    match c {
                        Call::Wait { reqs } => {
                            let reqs = renumber(reqs);
                            if !reqs.is_empty() {
                                fixed.push(Call::Wait { reqs });
                            }
                        }
                        Call::Waitany { reqs } => {
                            let reqs = renumber(reqs);
                            if !reqs.is_empty() {
                                fixed.push(Call::Waitany { reqs });
                            }
                        }
                        Call::Waitsome { reqs } => {
                            let reqs = renumber(reqs);
                            if !reqs.is_empty() {
                                fixed.push(Call::Waitsome { reqs });
                            }
                        }
                        // A cancel of a removed receive goes too.
                        Call::Cancel { req } => {
                            if let Some(&req) = map.get(&req) {
                                map.insert(old, fixed.len());
                                fixed.push(Call::Cancel { req });
                            }
                        }
                        c => {
                            map.insert(old, fixed.len());
                            fixed.push(c);
                        }
                    }
                }
                p[r] = fixed;
                let ok = p.iter().enumerate().all(|(rr, calls)| {
                    calls.iter().all(|c| match c {
                        Call::Send { dst, .. } => *dst != rr && *dst < p.len(),
                        _ => true,
                    })
                });
                if ok && all_waited(&p) && check(&p, zero_buffer).is_err() {
                    smaller = Some(p);
                    break 'search;
                }
            }
        }
        match smaller {
            Some(p) => prog = p,
            None => return prog,
        }
    }
}

/// Whether every nonblocking call is waited for, as the generator promises.
fn all_waited(prog: &Prog) -> bool {
    prog.iter().all(|calls| {
        calls.iter().enumerate().all(|(i, c)| {
            !matches!(c, Call::Send { nb: true, .. } | Call::Recv { nb: true, .. })
                || calls
                    .iter()
                    .any(|w| matches!(w, Call::Wait { reqs } if reqs.contains(&i)))
        })
    })
}

/// What comparing many programs with the brute force found.
#[derive(Default)]
struct Tally {
    /// Programs compared, counting each buffering mode once.
    checks: usize,
    outcomes: usize,
    runs: usize,
    /// Disagreements on the outcome set, shrunk.
    wrong: Vec<String>,
    /// Programs whose outcomes POE found in more runs than there are.
    redundant: Vec<(u64, bool)>,
}

impl Tally {
    fn compare(&mut self, seed: u64, prog: &Prog) {
        for zero_buffer in [false, true] {
            let want = brute_force(prog, zero_buffer);
            let (runs, notes) = poe_outcomes(prog, zero_buffer);
            let got: BTreeSet<Outcome> = runs.iter().cloned().collect();
            self.checks += 1;
            self.outcomes += want.len();
            self.runs += runs.len();
            if got != want || !notes.is_empty() {
                let small = shrink(prog.clone(), zero_buffer);
                self.wrong.push(format!(
                    "seed {seed}: {}",
                    check(&small, zero_buffer).unwrap_err()
                ));
            } else if runs.len() > want.len() {
                self.redundant.push((seed, zero_buffer));
            }
        }
    }
}

/// Ten times as many seeds: POE must find exactly the outcomes MPI allows
/// on every one. A failure is printed shrunk to a minimal program.
#[test]
fn many_more_seeds_agree_on_the_outcome_sets() {
    let mut t = Tally::default();
    for seed in 0..seeds() * 10 {
        t.compare(seed, &program(seed, Partial::Never));
    }
    let (wrong, redundant) = (t.wrong, t.redundant);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // FIXME: a few programs get one run more than they have outcomes: a race
    // is noted although an earlier unmatched wildcard receive of the same
    // rank would take the send first (seed 7735 is the smallest). The
    // outcomes are still exact; only the count is one too high.
    assert_eq!(redundant.len(), 6, "{redundant:?}");
    assert!(redundant.contains(&(7735, false)) || redundant.contains(&(7735, true)));
}

/// Programs with `MPI_Waitany`: which request each call returns is part of
/// the outcome, so a Waitany decided before a request of its list could
/// complete must not hide the outcomes where it returns that request.
#[test]
fn waitany_programs_agree_on_the_outcome_sets() {
    let mut t = Tally::default();
    for seed in 0..seeds() * 10 {
        let prog = program(seed, Partial::Waitany);
        if prog
            .iter()
            .flatten()
            .any(|c| matches!(c, Call::Waitany { .. }))
        {
            t.compare(seed, &prog);
        }
    }
    println!(
        "{} checks with MPI_Waitany: {} outcomes, {} POE runs, redundant: {:?}",
        t.checks, t.outcomes, t.runs, t.redundant
    );
    assert!(t.wrong.is_empty(), "{}", t.wrong.join("\n"));
    // Which programs the generator makes with Waitany: a change here means
    // the generator changed, and the counts below must be established anew.
    assert_eq!((t.checks, t.outcomes), (7390, 13144));
    // FIXME: some programs get more runs than outcomes. Mostly a point with
    // several woken deferrals: the branch that lets Y fire first repeats a
    // run of the branch that let X fire first, in which Y too fired before
    // the point (seed 9861 is a small one); telling this from a run that is
    // new takes source sets, which the explorer does not keep. Seed 7641 is
    // the case of the FIXME above: a wildcard receive races with a send that
    // an earlier one would take first. The outcomes are still exact.
    assert_eq!(t.runs - t.outcomes, 60, "{:?}", t.redundant);
    assert_eq!(t.redundant.len(), 19, "{:?}", t.redundant);
}

/// Programs with `MPI_Waitsome`, in place of every `MPI_Waitany` of the
/// programs above: which requests each call returns is part of the outcome,
/// so POE must offer every non-empty subset of the requests complete when it
/// decides, and a Waitsome decided before a request of its list could
/// complete must not hide the outcomes where it returns that request too.
#[test]
fn waitsome_programs_agree_on_the_outcome_sets() {
    let mut t = Tally::default();
    for seed in 0..seeds() * 10 {
        let prog = program(seed, Partial::Waitsome);
        let lists: Vec<usize> = prog
            .iter()
            .flatten()
            .filter_map(|c| match c {
                Call::Waitsome { reqs } => Some(reqs.len()),
                _ => None,
            })
            .collect();
        if !lists.is_empty() {
            // Under the engine's cap, where its subsets are exhaustive.
            assert!(
                lists.iter().all(|&n| n <= SOME_SUBSETS_UP_TO),
                "seed {seed}"
            );
            t.compare(seed, &prog);
        }
    }
    println!(
        "{} checks with MPI_Waitsome: {} outcomes, {} POE runs, redundant: {:?}",
        t.checks, t.outcomes, t.runs, t.redundant
    );
    assert!(t.wrong.is_empty(), "{}", t.wrong.join("\n"));
    // The programs of the Waitany test, with Waitsome in its place; more
    // outcomes, as each call returns any non-empty subset.
    assert_eq!((t.checks, t.outcomes), (7390, 25559));
    // FIXME: the programs with more runs than outcomes are exactly those of
    // the Waitany test, for the same reasons (see there); a repeated branch
    // repeats every subset it shares with the branch explored first, so the
    // excess grows with them (seed 9861: 19 runs for 15 outcomes, against 5
    // for 4 with Waitany). The outcomes are still exact.
    assert_eq!(t.runs - t.outcomes, 319, "{:?}", t.redundant);
    assert_eq!(t.redundant.len(), 19, "{:?}", t.redundant);
}

/// A program where ranks send to one collecting rank that takes the
/// messages with a row of blocking wildcard receives (an exchangeable
/// block, when nothing else can reach it), with noise around it at random:
/// extra messages that may race into the row, synchronous sends, a
/// receive with a named source, tags the row does not accept, barriers.
fn generate_gather(seed: u64) -> Prog {
    let mut g = Rng::new(seed ^ 0x9a7e);
    let n = 3 + g.below(2);
    let root = g.below(n);
    let mut calls: Vec<Vec<Call>> = vec![Vec::new(); n];
    for _ in 0..1 + g.below(2) {
        let tag = g.below(2) as i32;
        let any_tag = g.chance(1, 3);
        let mut senders = 0;
        for (r, c) in calls.iter_mut().enumerate() {
            if r == root || g.chance(1, 6) {
                continue;
            }
            senders += 1;
            c.push(Call::Send {
                dst: root,
                tag: if g.chance(1, 8) { 1 - tag } else { tag },
                sync: g.chance(1, 8),
                nb: g.chance(1, 3),
            });
            if g.chance(1, 6) {
                // A second message to the root: it may race into the row.
                c.push(Call::Send {
                    dst: root,
                    tag,
                    sync: false,
                    nb: false,
                });
                senders += 1;
            }
        }
        let row = senders.max(1) - usize::from(g.chance(1, 5));
        // A row of nonblocking receives, one time in three: waited for
        // right after it, at the end, or first with an MPI_Waitany (which
        // can tell which completed first).
        let nb = g.chance(1, 3);
        let start = calls[root].len();
        for _ in 0..row.max(1) {
            calls[root].push(Call::Recv {
                src: None,
                tag: (!any_tag).then_some(tag),
                nb,
            });
        }
        if nb {
            let reqs: Vec<usize> = (start..calls[root].len()).collect();
            match g.below(6) {
                0..=2 => calls[root].push(Call::Wait { reqs }),
                3 | 4 => {}
                _ => calls[root].push(Call::Waitany { reqs }),
            }
        }
        if g.chance(1, 4) {
            let from = (root + 1 + g.below(n - 1)) % n;
            calls[root].push(Call::Recv {
                src: Some(from),
                tag: None,
                nb: false,
            });
        }
        if g.chance(1, 2) {
            for c in calls.iter_mut() {
                c.push(Call::Barrier);
            }
        }
    }
    wait_all_and_finalize(&mut calls);
    calls
}

/// Ends every rank's calls with a wait for all its nonblocking calls (a
/// request an earlier wait returned is skipped) and `MPI_Finalize`.
fn wait_all_and_finalize(calls: &mut [Vec<Call>]) {
    for c in calls.iter_mut() {
        let open: Vec<usize> = (0..c.len())
            .filter(|&i| {
                matches!(
                    c[i],
                    Call::Send { nb: true, .. } | Call::Recv { nb: true, .. }
                )
            })
            .collect();
        if !open.is_empty() {
            c.push(Call::Wait { reqs: open });
        }
        c.push(Call::Finalize);
    }
}

/// Whether each rank's calls in `order` come in its program order.
fn per_sender_in_order(order: &[CallId]) -> bool {
    order
        .iter()
        .enumerate()
        .all(|(i, a)| order[i + 1..].iter().all(|b| b.0 != a.0 || b.1 > a.1))
}

fn permutations(v: &[CallId]) -> Vec<Vec<CallId>> {
    if v.len() <= 1 {
        return vec![v.to_vec()];
    }
    let mut out = Vec::new();
    for i in 0..v.len() {
        let mut rest = v.to_vec();
        let first = rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, first);
            out.push(p);
        }
    }
    out
}

/// The program of generator seed 6610 (found at `FIB_BRUTE_SEEDS=4000`):
/// rank 3 posts two wildcard receives, returns one with `MPI_Waitany` and
/// enters a barrier with the other pending; rank 1's synchronous send
/// after the barrier can then reach it. Its reduced exploration must still
/// give every outcome.
#[test]
fn a_row_a_waitany_leaves_pending_across_a_barrier_is_no_block() {
    let prog = generate_gather(6610);
    assert!(
        show(&prog).contains("Waitany([0, 1]); #3 Barrier"),
        "{}",
        show(&prog)
    );
    let t = compare_reduced(6610..6611, generate_gather);
    assert!(t.wrong.is_empty(), "{}", t.wrong.join("\n"));
}

/// With exchangeable blocks on, POE's runs and the orders of their blocks
/// are exactly the outcomes MPI allows (so the wildcard pairs, deadlocks
/// and everything else a run can show are those of full exploration), in
/// fewer runs where rows of wildcard receives take several senders'
/// messages.
///
/// At `FIB_BRUTE_SEEDS=4000` this found a row of two nonblocking wildcard
/// receives completed by an `MPI_Waitany`, after which the rank entered a
/// barrier with the other receive still pending: a sender released by the
/// barrier could feed it in another order, so the row is no block (two
/// outcomes were lost before).
#[test]
fn exchangeable_blocks_stand_for_exactly_the_orders_mpi_allows() {
    let t = compare_reduced(0..3 * seeds(), |seed| {
        if seed % 3 == 0 {
            program(seed / 3, Partial::Never)
        } else {
            generate_gather(seed)
        }
    });
    let (full, reduced, with_blocks, nonblocking, wrong) =
        (t.full, t.reduced, t.with_blocks, t.nonblocking, t.wrong);
    println!(
        "{with_blocks} explorations with exchangeable blocks ({nonblocking} with rows of \
         nonblocking receives): {reduced} runs instead of {full}"
    );
    assert!(
        wrong.is_empty(),
        "{} wrong; first:\n{}",
        wrong.len(),
        wrong[0]
    );
    assert!(
        with_blocks > 500,
        "only {with_blocks} explorations had blocks"
    );
    assert!(reduced < full, "{reduced} runs, {full} without blocks");
    assert!(
        nonblocking > 50,
        "only {nonblocking} explorations had nonblocking blocks"
    );
}

/// A program where one rank posts a few nonblocking receives (and now and
/// then a send) and takes them with a row of `MPI_Waitany` on all of them,
/// one call per request, with noise at random: a row one call short that a
/// wait ends, a rival pair of messages to another rank's wildcard
/// receives, a barrier between posting and waiting, a message after the
/// row.
fn generate_rows(seed: u64) -> Prog {
    let mut g = Rng::new(seed ^ 0x3a17);
    let n = 3 + g.below(2);
    let root = g.below(n);
    let other = |g: &mut Rng| (root + 1 + g.below(n - 1)) % n;
    let mut calls: Vec<Vec<Call>> = vec![Vec::new(); n];
    let k = 2 + g.below(3);
    let mut reqs = Vec::new();
    for _ in 0..k {
        reqs.push(calls[root].len());
        if g.chance(1, 5) {
            let to = other(&mut g);
            calls[root].push(Call::Send {
                dst: to,
                tag: 1,
                sync: g.chance(1, 3),
                nb: true,
            });
            calls[to].push(Call::Recv {
                src: Some(root),
                tag: Some(1),
                nb: false,
            });
        } else {
            let from = other(&mut g);
            calls[root].push(Call::Recv {
                src: (!g.chance(2, 3)).then_some(from),
                tag: (!g.chance(1, 3)).then_some(0),
                nb: true,
            });
            calls[from].push(Call::Send {
                dst: root,
                tag: 0,
                sync: g.chance(1, 5),
                nb: g.chance(1, 4),
            });
        }
    }
    if g.chance(1, 4) {
        for c in calls.iter_mut() {
            c.push(Call::Barrier);
        }
    }
    let short = g.chance(1, 5);
    for _ in 0..k - usize::from(short) {
        calls[root].push(Call::Waitany { reqs: reqs.clone() });
    }
    if n == 4 && g.chance(1, 2) {
        // Two messages race to a rank's wildcard receives, independently of
        // the row.
        let w = other(&mut g);
        for s in (0..n).filter(|&s| s != w && s != root) {
            calls[s].push(Call::Send {
                dst: w,
                tag: 2,
                sync: false,
                nb: false,
            });
            calls[w].push(Call::Recv {
                src: None,
                tag: Some(2),
                nb: false,
            });
        }
    }
    if g.chance(1, 3) {
        let to = other(&mut g);
        calls[root].push(Call::Send {
            dst: to,
            tag: 3,
            sync: g.chance(1, 2),
            nb: false,
        });
        calls[to].push(Call::Recv {
            src: None,
            tag: Some(3),
            nb: false,
        });
    }
    wait_all_and_finalize(&mut calls);
    calls
}

/// What POE's runs stand for with the reductions on.
struct Reduced {
    /// Each run's own outcome, every order of its exchangeable blocks (the
    /// block's receives getting its sends in any arrangement) and every
    /// order of its rows of `MPI_Waitany` (the row's calls returning its
    /// requests in any arrangement).
    outcomes: BTreeSet<Outcome>,
    runs: usize,
    /// Exchangeable blocks over all runs, and those of nonblocking receives.
    blocks: usize,
    nonblocking_blocks: usize,
    /// Rows of `MPI_Waitany` over all runs.
    rows: usize,
}

fn poe_outcomes_reduced(prog: &Prog, zero_buffer: bool) -> Reduced {
    let cfg = Config {
        nprocs: prog.len(),
        zero_buffer,
        exchange: true,
    };
    let runs = explore(&to_sim(prog), cfg, Turns::Forward);
    let (got, _) = poe_outcomes_of(prog, &runs);
    let mut r = Reduced {
        outcomes: BTreeSet::new(),
        runs: runs.len(),
        blocks: 0,
        nonblocking_blocks: 0,
        rows: 0,
    };
    for (run, outcome) in runs.iter().zip(got) {
        let call = |o: &OpId| match run.ops[o.rank][o.index].site {
            Site::Line { line, .. } => (o.rank, line as usize - 1),
            s => panic!("simulated calls have lines, not {s:?}"),
        };
        for x in &run.exchanges {
            let first = x.recvs[0];
            r.blocks += 1;
            r.nonblocking_blocks += usize::from(matches!(
                run.ops[first.rank][first.index].kind,
                Kind::Recv {
                    blocking: false,
                    ..
                }
            ));
        }
        r.rows += run.rows.len();
        let mut these = vec![outcome];
        // A block's receives take each sender's sends in its program order
        // (non-overtaking); a row's calls return its requests in any order.
        let arrangements = run
            .exchanges
            .iter()
            .map(|x| (&x.recvs, &x.sends, true))
            .chain(run.rows.iter().map(|w| (&w.waits, &w.requests, false)));
        for (at, took, in_order) in arrangements {
            let at: Vec<CallId> = at.iter().map(call).collect();
            let took: Vec<CallId> = took.iter().map(call).collect();
            let orders: Vec<Vec<CallId>> = permutations(&took)
                .into_iter()
                .filter(|p| !in_order || per_sender_in_order(p))
                .collect();
            let mut next = Vec::new();
            for o in &these {
                for perm in orders.iter().cloned() {
                    let mut o = o.clone();
                    for (a, t) in at.iter().zip(perm) {
                        o.0.insert(*a, vec![t]);
                    }
                    next.push(o);
                }
            }
            these = next;
        }
        r.outcomes.extend(these);
    }
    r
}

/// What comparing programs with the brute force, the reductions on,
/// found: runs with and without the reductions, explorations whose runs
/// had exchangeable blocks (of nonblocking receives) and rows of
/// `MPI_Waitany`, and the disagreements.
#[derive(Default)]
struct ReducedTally {
    full: usize,
    reduced: usize,
    with_blocks: usize,
    nonblocking: usize,
    with_rows: usize,
    wrong: Vec<String>,
}

/// Compares the outcomes POE's runs stand for, the reductions on, with
/// those MPI allows, for the program of every seed in both buffering modes.
fn compare_reduced(seeds: std::ops::Range<u64>, prog_of: impl Fn(u64) -> Prog) -> ReducedTally {
    let mut t = ReducedTally::default();
    for seed in seeds {
        let prog = prog_of(seed);
        for zero_buffer in [false, true] {
            let want = brute_force(&prog, zero_buffer);
            let r = poe_outcomes_reduced(&prog, zero_buffer);
            if r.outcomes != want {
                t.wrong.push(format!(
                    "seed {seed}, zero_buffer={zero_buffer}\n{}missed: {:?}\nextra: {:?}",
                    show(&prog),
                    want.difference(&r.outcomes).collect::<Vec<_>>(),
                    r.outcomes.difference(&want).collect::<Vec<_>>(),
                ));
                continue;
            }
            let (all, _) = poe_outcomes(&prog, zero_buffer);
            t.full += all.len();
            t.reduced += r.runs;
            t.with_blocks += usize::from(r.blocks > 0);
            t.nonblocking += usize::from(r.nonblocking_blocks > 0);
            t.with_rows += usize::from(r.rows > 0);
            assert!(
                r.runs <= all.len(),
                "seed {seed}: more runs with the reductions"
            );
        }
    }
    t
}

/// With the reductions on, rows of `MPI_Waitany` that take every request
/// of their list stand for exactly the orders MPI allows, alone and with
/// exchangeable blocks, in fewer runs.
#[test]
fn waitany_rows_stand_for_exactly_the_orders_mpi_allows() {
    let t = compare_reduced(0..2 * seeds(), |seed| {
        if seed % 4 == 0 {
            program(seed / 4, Partial::Waitany)
        } else {
            generate_rows(seed)
        }
    });
    let (full, reduced, with_rows, wrong) = (t.full, t.reduced, t.with_rows, t.wrong);
    println!("{with_rows} explorations with rows of MPI_Waitany: {reduced} runs instead of {full}");
    assert!(
        wrong.is_empty(),
        "{} wrong; first:\n{}",
        wrong.len(),
        wrong[0]
    );
    assert!(with_rows > 1000, "only {with_rows} explorations had rows");
    assert!(reduced < full, "{reduced} runs, {full} without rows");
}

/// Whether a call's outcome can depend on timing (the driver keeps no calls
/// to rerun once a rank makes one).
fn timed(step: &Step) -> bool {
    match step {
        Step::Poll(_) | Step::Sure(_) => true,
        Step::ThreadBarrier => false,
        Step::Call(op) => match op {
            Op::Recv { src, .. } => *src == ANY,
            Op::Probe { src, blocking, .. } | Op::Mprobe { src, blocking, .. } => {
                *src == ANY || !blocking
            }
            Op::Test { .. } | Op::RequestGetStatus { .. } | Op::Cancel { .. } => true,
            Op::Wait { kind, .. } => matches!(kind, WaitKind::Any | WaitKind::Some),
            _ => false,
        },
    }
}

#[test]
fn the_trace_check_says_a_program_completes_without_buffering_exactly_when_the_rerun_does() {
    // Every generated program (of each generator, and with nonblocking
    // collectives) whose calls cannot depend on timing and that completes
    // with buffering: the check of its trace
    // (`poe::unbuffered::completes`) against the engine's rerun of its calls
    // without buffering. The check is what lets a run skip that rerun, so
    // it must never say yes where the rerun deadlocks; and since these
    // programs make no buffered-mode sends, it must say no only there.
    let (mut programs, mut deadlocks) = (0, 0);
    let generated = (0..3000u64).flat_map(|seed| {
        let base = program(seed, Partial::Never);
        [
            (seed, with_icolls(&base, seed)),
            (seed, base),
            (seed, generate_gather(seed)),
            (seed, generate_paired(seed, Partial::Never)),
            (seed, generate_rows(seed)),
        ]
    });
    for (seed, prog) in generated {
        let program = to_sim(&prog);
        if program.iter().flatten().any(timed) {
            continue;
        }
        let calls = poe::sim::calls_of(&program);
        let cfg = |zero_buffer| Config {
            nprocs: calls.len(),
            zero_buffer,
            exchange: false,
        };
        let buffered = poe::sim::rerun_calls(&calls, cfg(false));
        if buffered.end != RunEnd::Completed {
            continue;
        }
        programs += 1;
        let check = poe::unbuffered::completes(&buffered.ops, &buffered.fired);
        let rerun = poe::sim::rerun_calls(&calls, cfg(true));
        let deadlocked = matches!(rerun.end, RunEnd::Deadlock { .. });
        assert_eq!(check, !deadlocked, "seed {seed}: rerun {:?}", rerun.end);
        deadlocks += deadlocked as usize;
    }
    assert!(
        programs >= 600,
        "only {programs} programs complete buffered"
    );
    assert!(
        deadlocks >= 30,
        "only {deadlocks} deadlock without buffering"
    );
    eprintln!("{programs} programs, {deadlocks} deadlock without buffering");
}

#[test]
fn calls_rerun_as_they_arrive_end_as_a_rerun_of_them_all() {
    // Every generated program whose calls cannot depend on timing, rerun
    // from its whole call list and from the same calls pushed a few at a
    // time, ranks in a random order, the run advanced after each push: the
    // same end and the same matches, with buffering and without.
    let (mut programs, mut deadlocks) = (0, 0);
    for seed in 0..3000u64 {
        let program = to_sim(&program(seed, Partial::Never));
        if program.iter().flatten().any(timed) {
            continue;
        }
        programs += 1;
        let calls = poe::sim::calls_of(&program);
        for zero_buffer in [false, true] {
            let cfg = Config {
                nprocs: calls.len(),
                zero_buffer,
                exchange: false,
            };
            let whole = poe::sim::rerun_calls(&calls, cfg);
            let mut rng = Rng::new(seed * 2 + zero_buffer as u64);
            let mut next = vec![0; calls.len()];
            let mut fed = poe::sim::Rerun::new(calls.len(), cfg);
            while let Some(r) = {
                let left: Vec<usize> = (0..calls.len())
                    .filter(|&r| next[r] < calls[r].len())
                    .collect();
                (!left.is_empty()).then(|| left[rng.below(left.len())])
            } {
                for _ in 0..1 + rng.below(3) {
                    if let Some((site, op)) = calls[r].get(next[r]) {
                        fed.push(r, *site, op.clone());
                        next[r] += 1;
                    }
                }
                fed.advance();
            }
            let fed = fed.finish();
            let sorted = |run: &RunResult| {
                let mut f: Vec<String> = run.fired.iter().map(|f| format!("{f:?}")).collect();
                f.sort();
                f
            };
            assert_eq!(fed.end, whole.end, "seed {seed}, zero buffer {zero_buffer}");
            assert_eq!(
                sorted(&fed),
                sorted(&whole),
                "seed {seed}, zero buffer {zero_buffer}"
            );
            deadlocks += matches!(whole.end, RunEnd::Deadlock { .. }) as usize;
        }
    }
    assert!(programs >= 200, "only {programs} programs without timing");
    assert!(deadlocks >= 50, "only {deadlocks} deadlocks");
    eprintln!("{programs} programs, {deadlocks} deadlocked reruns");
}

/// The outcome set of POE's exploration of `prog` when every choice past
/// a run's plan is taken as `policy` says, and how many runs it made.
fn policy_outcomes(
    prog: &Prog,
    zero_buffer: bool,
    policy: Policy,
) -> (BTreeSet<Outcome>, usize, Vec<String>) {
    let cfg = Config {
        nprocs: prog.len(),
        zero_buffer,
        exchange: false,
    };
    let runs = explore_with(&to_sim(prog), cfg, Turns::Forward, policy);
    let (outcomes, notes) = poe_outcomes_of(prog, &runs);
    (outcomes.into_iter().collect(), runs.len(), notes)
}

/// The decentralised mode's exploration takes, past each run's plan, what
/// MPI happened to do: any alternative at any point, one asleep on the
/// path (explored in another branch) too. Whichever it takes, the
/// depth-first walk must meet exactly the outcomes MPI allows: here a
/// seeded generator takes the free choices (another one per seed), and
/// the outcome set must be the brute force's.
///
/// Found by this test once the seeded picks could take asleep
/// alternatives: a run replaying a branch whose earlier run took one must
/// offer it again at the same point, or its replay diverges (166 of 8 000
/// checks when only the run itself kept it awake).
///
/// Found by this test: a deferral a run took as its first free choice
/// ran before the point's own alternatives, so it cannot stand for the
/// orders a deferral woken below explores (`DepthFirst::slept`); 12 of
/// 32 000 programs with `MPI_Waitsome`, restarted persistent requests or
/// cancels lost an outcome that way before.
#[test]
fn any_choice_past_the_plan_finds_exactly_the_outcomes_mpi_allows() {
    let mut failures = Vec::new();
    let (mut checks, mut first_runs, mut seeded_runs) = (0, 0, 0);
    for seed in 0..seeds() {
        let base = program(seed, Partial::Never);
        let progs = [
            base.clone(),
            program(seed, Partial::Waitany),
            program(seed, Partial::Waitsome),
            with_frees(&base, seed),
            with_mprobes(&base, seed),
            with_persistent(&base, seed),
            with_icolls(&base, seed),
            with_cancels(&base, seed),
        ];
        for (k, prog) in progs.iter().enumerate() {
            let zero_buffer = (seed + k as u64) % 2 == 1;
            let want = brute_force(prog, zero_buffer);
            let policy = Policy::Seeded(seed.wrapping_mul(31).wrapping_add(k as u64));
            let (got, runs, notes) = policy_outcomes(prog, zero_buffer, policy);
            checks += 1;
            seeded_runs += runs;
            first_runs += policy_outcomes(prog, zero_buffer, Policy::First).1;
            if got != want || !notes.is_empty() {
                failures.push(format!(
                    "seed {seed}, variant {k}, zero_buffer={zero_buffer}\n{}missed: {:?}\nextra: {:?}\n{}",
                    show(prog),
                    want.difference(&got).collect::<Vec<_>>(),
                    got.difference(&want).collect::<Vec<_>>(),
                    notes.join("\n")
                ));
            }
        }
    }
    println!(
        "{checks} checks: {first_runs} runs taking the first alternative, {seeded_runs} taking seeded ones"
    );
    assert!(
        failures.is_empty(),
        "{} of {checks} checks failed: {:?}; first:\n{}",
        failures.len(),
        failures
            .iter()
            .map(|f| f.lines().next().unwrap_or_default())
            .collect::<Vec<_>>(),
        failures[0]
    );
}

/// Each call's index among the calls the simulated rank reports to the
/// engine (`None` for a wait left with no request, which the simulator
/// answers itself), for a program whose only completion calls are
/// `MPI_Wait`/`MPI_Waitall` and `MPI_Wait`-free polls: each call of such a
/// program reports once, but a wait on requests an earlier wait released.
fn engine_indices(calls: &[Call]) -> Vec<Option<usize>> {
    let req_of = |q: usize| match calls[q] {
        Call::Restart { of } => of,
        _ => q,
    };
    let mut released: HashSet<usize> = HashSet::new();
    let mut next = 0;
    calls
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let skipped = match c {
                Call::Wait { reqs } => {
                    let left: Vec<usize> = reqs
                        .iter()
                        .map(|&q| req_of(q))
                        .filter(|q| !released.contains(q))
                        .collect();
                    released.extend(left.iter().copied());
                    left.is_empty()
                }
                Call::Send { nb: true, .. } | Call::Recv { nb: true, .. } => {
                    released.remove(&req_of(i));
                    false
                }
                Call::Restart { .. } => {
                    released.remove(&req_of(i));
                    false
                }
                _ => false,
            };
            (!skipped).then(|| {
                next += 1;
                next - 1
            })
        })
        .collect()
}

/// `program` with each `MPI_Wait` and `MPI_Waitall` for which `returned`
/// says so (by rank and step) made as the test a run made without the
/// scheduler reports when it returned the same ([`Step::Sure`]).
fn as_tests(program: &Program, returned: impl Fn(usize, usize) -> bool) -> Program {
    program
        .iter()
        .enumerate()
        .map(|(r, steps)| {
            steps
                .iter()
                .enumerate()
                .map(|(i, s)| match s {
                    Step::Call(Op::Wait { kind, reqs }) if returned(r, i) => Step::Sure(Op::Test {
                        kind: *kind,
                        reqs: reqs.clone(),
                    }),
                    s => s.clone(),
                })
                .collect()
        })
        .collect()
}

/// Every execution MPI allows can be followed: the engine, taking past its
/// (empty) plan the alternatives by which each wildcard receive, matched
/// probe or cancel takes what that execution's did
/// ([`Policy::Follow`]), never finds none to take, and the run it makes is
/// that execution: the same send for every wildcard receive, the same
/// cancels, the same deadlock or completion. This is what lets a run made
/// without the scheduler, whose records say only what each call took, be
/// read back by the engine as one of its own. So it can with its waits made
/// as tests that returned what the waits did ([`as_tests`]): the engine
/// never fails them, and they complete as the waits would.
#[test]
fn every_execution_mpi_allows_can_be_followed() {
    let mut failures = Vec::new();
    let (mut checks, mut executions) = (0, 0);
    for seed in 0..seeds() {
        let base = program(seed, Partial::Never);
        let progs = [
            base.clone(),
            with_frees(&base, seed),
            with_mprobes(&base, seed),
            with_persistent(&base, seed),
            with_icolls(&base, seed),
            with_cancels(&base, seed),
        ];
        for (k, prog) in progs.iter().enumerate() {
            // A polling probe reports once per poll, a number that timing
            // decides: its run's calls cannot be named in advance.
            if prog
                .iter()
                .flatten()
                .any(|c| matches!(c, Call::Mprobe { poll: true, .. }))
            {
                continue;
            }
            let zero_buffer = (seed + k as u64).is_multiple_of(2);
            let cfg = Config {
                nprocs: prog.len(),
                zero_buffer,
                exchange: false,
            };
            let indices: Vec<Vec<Option<usize>>> = prog.iter().map(|c| engine_indices(c)).collect();
            checks += 1;
            let sim = to_sim(prog);
            for want in brute_force(prog, zero_buffer) {
                executions += 1;
                let mut outcomes = poe::engine::Outcomes::new();
                for (&(r, i), took) in &want.0 {
                    let Some(index) = indices[r][i] else {
                        panic!("seed {seed}: call {i} of rank {r} chose but reports nothing");
                    };
                    let outcome = if took == &vec![CANCELLED] {
                        poe::engine::Outcome::Cancelled
                    } else {
                        poe::engine::Outcome::From(took[0].0)
                    };
                    outcomes.insert(OpId { rank: r, index }, outcome);
                }
                let followed = |sim: &Program| {
                    poe::sim::run_once_with(
                        sim,
                        cfg,
                        Vec::new(),
                        Turns::Forward,
                        Policy::Follow(outcomes.clone()),
                    )
                };
                let run = followed(&sim);
                // The same execution with the waits that returned made as
                // tests that returned what they did: a run made without the
                // scheduler reports those, and none of the tests that
                // returned nothing before (a wait that never returns stands
                // for tests that never do).
                let tested = as_tests(&sim, |r, i| {
                    indices[r][i].is_some_and(|x| run.ops[r].get(x).is_some_and(|o| o.complete))
                });
                let tested_run = followed(&tested);
                for (run, as_tested) in [(run, false), (tested_run, true)] {
                    let (got, notes) = poe_outcomes_of(prog, std::slice::from_ref(&run));
                    if got[0] != want || !notes.is_empty() {
                        failures.push(format!(
                            "seed {seed}, variant {k}, zero_buffer={zero_buffer}, waits as tests: {as_tested}\n{}execution: {want:?}\nfollowed: {:?}\n{}",
                            show(prog),
                            got[0],
                            notes.join("\n")
                        ));
                    }
                }
            }
        }
    }
    println!("{checks} programs: {executions} executions followed");
    assert!(
        failures.is_empty(),
        "{} executions could not be followed; first:\n{}",
        failures.len(),
        failures[0]
    );
}
