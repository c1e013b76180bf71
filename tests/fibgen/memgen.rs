//! The generator of random small MPI C programs with windows, for the
//! barrier verdicts that weigh memory.
//!
//! A program has 2 to 4 ranks, one or two windows of [`ELEMS`] ints per rank
//! (`MPI_Win_allocate`, or `MPI_Win_create` over an array), and 2 to 4
//! phases, each ended by an `MPI_Barrier` on `MPI_COMM_WORLD` (or, in one
//! program in four, `MPI_Ibarrier` and `MPI_Wait`), or by nothing. In each
//! phase every window has a mode: passive target (lock and unlock epochs,
//! exclusive or shared, to one target, or `MPI_Win_lock_all` epochs; with
//! `MPI_Win_flush` now and then), fence (every rank calls `MPI_Win_fence`
//! before and after the phase's one-sided calls, in code every rank runs),
//! PSCW between one pair of ranks (the same pair all through the program),
//! or idle. The one-sided calls are
//! `MPI_Put`, `MPI_Get`, `MPI_Accumulate` (`MPI_SUM`, sometimes
//! `MPI_REPLACE`), `MPI_Get_accumulate` and `MPI_Fetch_and_op`, to one or two
//! elements, often the origin's own slot (disjoint from the other origins')
//! and otherwise anywhere (overlapping). Ranks also load and store their own
//! window memory, before the phase's epochs, after its messages, or inside a
//! lock of their own rank.
//!
//! The code of a rank in a phase comes in this order, which keeps every
//! program free of deadlocks and of epoch errors:
//!
//! 1. loads and stores of its window memory;
//! 2. the opening `MPI_Win_fence` of every window in fence mode (all ranks);
//! 3. its epochs, each closed before the next opens: a PSCW target posts
//!    first and waits last, so it holds no lock while it waits; no blocking
//!    call but one-sided ones while a lock is held;
//! 4. its messages: `MPI_Isend`s first, then the receives (`MPI_Irecv` or
//!    `MPI_Recv`, those from `MPI_ANY_SOURCE` last), then the waits;
//! 5. the closing fences (all ranks);
//! 6. loads and stores again, now after its receives and fences;
//!
//! then the barrier. Every epoch closes in the phase that opens it, origin
//! and result buffers are distinct per call and never touched by the
//! program, and every window is freed before `MPI_Finalize`.
//!
//! This mixes barriers that order accesses (a put before the barrier on one
//! rank, a load of the same element after it on the target), barriers whose
//! accesses a fence or a message already orders, accesses to disjoint
//! elements, and lock epochs with conflicting accesses on either side of a
//! barrier. Lock grants are choice points, so a program has at most
//! [`MAX_LOCKS`] lock epochs, [`MAX_EXCLUSIVE`] of them exclusive or
//! `lock_all`. Wildcard receives are made as in `gen.rs`: a receive becomes
//! `MPI_ANY_SOURCE` only when it cannot take a message meant for a later
//! receive, unless a barrier both ranks call lies between; and some get a
//! message from another sender in the next phase that only the barrier
//! keeps from them. One program in five is "reckless": it skips that check
//! and drops more barriers, so that some deadlock or race on purpose. Races
//! are findings (FIB038), not failures.
//!
//! Two shapes are left out because the real MPICH was seen to hang in them
//! under fib (`MPI_Win_lock`, `MPI_Win_lock_all` or `MPI_Win_start` never
//! returning): a message to a rank while another rank may hold a lock on
//! it (in the same phase, or one a barrier, removed or missing, joins to
//! it), and PSCW epochs of one origin to two targets in a row.
//!
//! The seed stream is this module's own: `gen.rs`'s programs are unchanged.

use std::fmt::Write as _;

use crate::gen::Rng;

/// Ints of each window per rank.
pub const ELEMS: usize = 4;
/// Lock epochs (of `MPI_Win_lock` and `MPI_Win_lock_all`) per program.
const MAX_LOCKS: usize = 5;
/// Of those, exclusive locks and `lock_all` epochs (which compete).
const MAX_EXCLUSIVE: usize = 2;
/// `MPI_ANY_SOURCE` receives per program.
const MAX_WILD: usize = 2;

#[derive(Clone, Copy, Debug, PartialEq)]
enum RmaKind {
    Put,
    Get,
    AccSum,
    AccReplace,
    GetAcc,
    FetchOp,
}

#[derive(Clone, Copy, Debug)]
struct Rma {
    kind: RmaKind,
    target: usize,
    disp: usize,
    count: usize,
}

/// A load (`x += w[i]`) or store (`w[i] = ...`) of the rank's own memory
/// of a window.
#[derive(Clone, Copy, Debug)]
struct Local {
    win: usize,
    index: usize,
    store: bool,
}

#[derive(Clone, Copy, Debug)]
enum Item {
    Rma(Rma),
    Flush(usize),
    Local(Local),
}

#[derive(Clone, Debug)]
enum Epoch {
    Lock {
        win: usize,
        target: usize,
        exclusive: bool,
        items: Vec<Item>,
    },
    LockAll {
        win: usize,
        items: Vec<Item>,
    },
    /// The origin's side of PSCW: start, calls, complete.
    Start {
        win: usize,
        target: usize,
        items: Vec<Item>,
    },
    /// The target's side: post first, wait after the rank's other epochs.
    Post {
        win: usize,
        origin: usize,
    },
    /// One-sided calls between the phase's fences.
    Fenced {
        win: usize,
        items: Vec<Item>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Idle,
    Passive,
    Fence,
    Pscw,
}

#[derive(Clone, Debug, Default)]
struct RankPhase {
    pre: Vec<Local>,
    epochs: Vec<Epoch>,
    post: Vec<Local>,
}

#[derive(Clone, Debug)]
struct Msg {
    src: usize,
    dst: usize,
    tag: usize,
    phase: usize,
    irecv: bool,
    any_source: bool,
    any_tag: bool,
}

impl Msg {
    fn wild(&self) -> bool {
        self.any_source || self.any_tag
    }

    fn accepts(&self, src: usize, tag: usize) -> bool {
        (self.any_source || self.src == src) && (self.any_tag || self.tag == tag)
    }
}

#[derive(Clone, Debug)]
struct Phase {
    modes: Vec<Mode>,
    ranks: Vec<RankPhase>,
    barrier: bool,
}

#[derive(Clone, Debug)]
struct Program {
    nprocs: usize,
    /// Per window: made by `MPI_Win_allocate` (else `MPI_Win_create`).
    allocate: Vec<bool>,
    phases: Vec<Phase>,
    msgs: Vec<Msg>,
    ibarrier: bool,
    reckless: bool,
}

/// A generated program and what the test needs to know about it.
#[derive(Clone, Debug)]
pub struct MemGenerated {
    pub seed: u64,
    pub nprocs: usize,
    pub source: String,
    /// The 1-based lines of every `MPI_Barrier` or `MPI_Ibarrier` call.
    pub barrier_lines: Vec<usize>,
    /// Whether the barriers are `MPI_Ibarrier` and `MPI_Wait`.
    pub ibarrier: bool,
    /// Whether the program skipped the safety rules (it may deadlock).
    pub reckless: bool,
    /// Receives from `MPI_ANY_SOURCE` or with `MPI_ANY_TAG`.
    pub wildcard_sites: usize,
}

/// The program for `seed`; the same seed always gives the same text.
pub fn generate(seed: u64) -> MemGenerated {
    let mut rng = Rng::new(seed ^ 0x3e3a_0a11_0c00_0000);
    let mut p = skeleton(&mut rng);
    memory(&mut rng, &mut p);
    messages(&mut rng, &mut p);
    wildcards(&mut rng, &mut p);
    let (source, barrier_lines) = p.render(seed);
    MemGenerated {
        seed,
        nprocs: p.nprocs,
        source,
        barrier_lines,
        ibarrier: p.ibarrier,
        reckless: p.reckless,
        wildcard_sites: p.msgs.iter().filter(|m| m.wild()).count(),
    }
}

fn skeleton(rng: &mut Rng) -> Program {
    let nprocs = [2, 2, 3, 3, 3, 4][rng.below(6)];
    let nwin = 1 + usize::from(rng.chance(1, 3));
    let allocate = (0..nwin).map(|_| rng.chance(2, 3)).collect();
    let reckless = rng.chance(1, 5);
    let ibarrier = rng.chance(1, 4);
    let nphases = 2 + rng.below(3);
    let phases = (0..nphases)
        .map(|k| {
            let modes = (0..nwin)
                .map(|_| match rng.below(20) {
                    0..=9 => Mode::Passive,
                    10..=13 => Mode::Fence,
                    14..=16 => Mode::Pscw,
                    _ => Mode::Idle,
                })
                .collect();
            let drop = if reckless { 2 } else { 8 };
            let barrier = if k + 1 == nphases {
                rng.chance(1, 2)
            } else {
                !rng.chance(1, drop)
            };
            Phase {
                modes,
                ranks: vec![RankPhase::default(); nprocs],
                barrier,
            }
        })
        .collect();
    Program {
        nprocs,
        allocate,
        phases,
        msgs: Vec::new(),
        ibarrier,
        reckless,
    }
}

fn other(rng: &mut Rng, nprocs: usize, r: usize) -> usize {
    (r + 1 + rng.below(nprocs - 1)) % nprocs
}

/// A one-sided call of `origin` to `target`: to the origin's own slot half
/// the time (disjoint from other origins'), else anywhere.
fn rma(rng: &mut Rng, origin: usize, target: usize) -> Rma {
    let kind = match rng.below(16) {
        0..=5 => RmaKind::Put,
        6..=8 => RmaKind::Get,
        9..=11 => RmaKind::AccSum,
        12 => RmaKind::AccReplace,
        13 | 14 => RmaKind::GetAcc,
        _ => RmaKind::FetchOp,
    };
    let (disp, count) = if rng.chance(1, 2) {
        (origin % ELEMS, 1)
    } else {
        let count = if kind == RmaKind::FetchOp || rng.chance(2, 3) {
            1
        } else {
            2
        };
        (rng.below(ELEMS + 1 - count), count)
    };
    Rma {
        kind,
        target,
        disp,
        count,
    }
}

fn local(rng: &mut Rng, win: usize) -> Local {
    Local {
        win,
        index: rng.below(ELEMS),
        store: rng.chance(1, 2),
    }
}

/// One to two one-sided calls from `origin` to a target `target` gives, with
/// a flush between them now and then when `flush` (passive target).
fn items(
    rng: &mut Rng,
    origin: usize,
    flush: bool,
    target: &mut dyn FnMut(&mut Rng) -> usize,
) -> Vec<Item> {
    let mut out = Vec::new();
    for k in 0..1 + rng.below(2) {
        let t = target(rng);
        if k > 0 && flush && rng.chance(1, 3) {
            if let Some(Item::Rma(prev)) = out.last() {
                let prev: &Rma = prev;
                out.push(Item::Flush(prev.target));
            }
        }
        out.push(Item::Rma(rma(rng, origin, t)));
    }
    if flush && rng.chance(1, 5) {
        if let Some(Item::Rma(last)) = out.last() {
            let last: &Rma = last;
            out.push(Item::Flush(last.target));
        }
    }
    out
}

fn memory(rng: &mut Rng, p: &mut Program) {
    let n = p.nprocs;
    let (mut locks, mut exclusive) = (0, 0);
    let mut pscw: Option<(usize, usize)> = None;
    for ph in 0..p.phases.len() {
        for win in 0..p.phases[ph].modes.len() {
            match p.phases[ph].modes[win] {
                Mode::Idle => {}
                Mode::Passive => {
                    for _ in 0..1 + rng.below(2) {
                        if locks == MAX_LOCKS {
                            break;
                        }
                        let origin = rng.below(n);
                        let all = rng.chance(1, 5);
                        let competes = all || rng.chance(1, 2);
                        if competes && exclusive == MAX_EXCLUSIVE {
                            continue;
                        }
                        locks += 1;
                        exclusive += usize::from(competes);
                        let epoch = if all {
                            let items = items(rng, origin, true, &mut |r: &mut Rng| r.below(n));
                            Epoch::LockAll { win, items }
                        } else {
                            let target = if rng.chance(1, 4) {
                                origin
                            } else {
                                other(rng, n, origin)
                            };
                            let mut items = items(rng, origin, true, &mut |_: &mut Rng| target);
                            // Inside a lock of its own rank, the rank's own
                            // loads and stores.
                            if target == origin {
                                let at = rng.below(items.len() + 1);
                                items.insert(at, Item::Local(local(rng, win)));
                            }
                            Epoch::Lock {
                                win,
                                target,
                                exclusive: competes,
                                items,
                            }
                        };
                        p.phases[ph].ranks[origin].epochs.push(epoch);
                    }
                }
                Mode::Fence => {
                    for _ in 0..1 + rng.below(2) {
                        let origin = rng.below(n);
                        let items = items(rng, origin, false, &mut |r: &mut Rng| r.below(n));
                        p.phases[ph].ranks[origin]
                            .epochs
                            .push(Epoch::Fenced { win, items });
                    }
                }
                Mode::Pscw => {
                    // One pair per phase, so that no two PSCW epochs wait on
                    // each other.
                    let busy = p.phases[ph].ranks.iter().any(|r| {
                        r.epochs
                            .iter()
                            .any(|e| matches!(e, Epoch::Start { .. } | Epoch::Post { .. }))
                    });
                    if busy {
                        p.phases[ph].modes[win] = Mode::Idle;
                        continue;
                    }
                    // One pair per program: with MPICH, a start was seen to
                    // hang when another target's post reached its origin
                    // first (see the report of the work on issue 31).
                    let (origin, target) = *pscw.get_or_insert_with(|| {
                        let origin = rng.below(n);
                        (origin, other(rng, n, origin))
                    });
                    let items = items(rng, origin, false, &mut |_: &mut Rng| target);
                    let ranks = &mut p.phases[ph].ranks;
                    ranks[origin]
                        .epochs
                        .push(Epoch::Start { win, target, items });
                    ranks[target].epochs.insert(0, Epoch::Post { win, origin });
                }
            }
        }
        // Loads and stores outside epochs.
        let nwin = p.phases[ph].modes.len();
        for r in 0..n {
            if rng.chance(1, 3) {
                let win = rng.below(nwin);
                let l = local(rng, win);
                p.phases[ph].ranks[r].pre.push(l);
            }
            if rng.chance(2, 5) {
                let win = rng.below(nwin);
                let l = local(rng, win);
                p.phases[ph].ranks[r].post.push(l);
            }
        }
    }
}

fn messages(rng: &mut Rng, p: &mut Program) {
    for ph in 0..p.phases.len() {
        for _ in 0..rng.below(3) {
            let src = rng.below(p.nprocs);
            let dst = other(rng, p.nprocs, src);
            if p.locked_near(dst, ph) {
                continue;
            }
            p.msgs.push(Msg {
                src,
                dst,
                tag: rng.below(2),
                phase: ph,
                irecv: rng.chance(1, 2),
                any_source: false,
                any_tag: false,
            });
        }
    }
}

impl Program {
    /// Whether another rank may hold a lock on `rank`'s memory (of any
    /// window) while a message to `rank` sent in phase `ph` is on its way:
    /// a lock epoch or `lock_all` of another rank in that phase, or in a
    /// neighbouring one with no barrier between, or with one barrier between
    /// (which removal deletes). Messages avoid them: with
    /// MPICH, such a lock was seen to hang in the real `MPI_Win_lock` (see
    /// the report of the work on issue 31).
    fn locked_near(&self, rank: usize, ph: usize) -> bool {
        // The proof by removal deletes one barrier at a time: a barrier on
        // either side may be gone.
        let (mut lo, mut hi) = (ph, ph);
        let mut skip = 1;
        while lo > 0 && (!self.phases[lo - 1].barrier || skip > 0) {
            skip -= usize::from(self.phases[lo - 1].barrier);
            lo -= 1;
        }
        skip = 1;
        while hi + 1 < self.phases.len() && (!self.phases[hi].barrier || skip > 0) {
            skip -= usize::from(self.phases[hi].barrier);
            hi += 1;
        }
        self.phases[lo..=hi].iter().any(|phase| {
            phase.ranks.iter().enumerate().any(|(origin, r)| {
                origin != rank
                    && r.epochs.iter().any(|e| match e {
                        Epoch::Lock { target, .. } => *target == rank,
                        Epoch::LockAll { .. } => true,
                        _ => false,
                    })
            })
        })
    }

    fn any_source(&self) -> usize {
        self.msgs.iter().filter(|m| m.any_source).count()
    }

    /// The receives of `rank` in phase `ph`, in program order: specific
    /// ones first, wildcards last, each in creation order.
    fn recvs(&self, rank: usize, ph: usize) -> Vec<usize> {
        let mine = |wild: bool| {
            (0..self.msgs.len()).filter(move |&i| {
                let m = &self.msgs[i];
                m.dst == rank && m.phase == ph && m.wild() == wild
            })
        };
        mine(false).chain(mine(true)).collect()
    }

    fn sends(&self, rank: usize, ph: usize) -> Vec<usize> {
        (0..self.msgs.len())
            .filter(|&i| self.msgs[i].src == rank && self.msgs[i].phase == ph)
            .collect()
    }

    /// Whether no wildcard receive can take a message meant for a later
    /// receive: every message its receiver takes later that the wildcard
    /// accepts is taken by a wildcard too, or sent after a barrier that
    /// follows the wildcard's phase.
    fn safe(&self) -> bool {
        for (i, w) in self.msgs.iter().enumerate() {
            if !w.wild() {
                continue;
            }
            let order = self.recvs(w.dst, w.phase);
            let pos = order.iter().position(|&k| k == i).unwrap();
            for (j, m) in self.msgs.iter().enumerate() {
                if j == i || m.dst != w.dst || !w.accepts(m.src, m.tag) {
                    continue;
                }
                let later = if m.phase == w.phase {
                    order.iter().position(|&k| k == j).unwrap() > pos
                } else {
                    m.phase > w.phase
                };
                if !later || m.accepts(w.src, w.tag) && m.wild() {
                    continue;
                }
                let separated = (w.phase..m.phase).any(|k| self.phases[k].barrier);
                if !separated {
                    return false;
                }
            }
        }
        true
    }
}

fn wildcards(rng: &mut Rng, p: &mut Program) {
    if p.msgs.is_empty() || rng.chance(1, 3) {
        return;
    }
    for _ in 0..1 + rng.below(2) {
        let i = rng.below(p.msgs.len());
        if p.msgs[i].wild() {
            continue;
        }
        let saved = p.msgs[i].clone();
        if rng.chance(1, 8) {
            p.msgs[i].any_tag = true;
        } else {
            p.msgs[i].any_source = true;
        }
        if p.any_source() > MAX_WILD || !(p.reckless || p.safe()) {
            p.msgs[i] = saved;
            continue;
        }
        // A message in the next phase from another sender that the wildcard
        // would accept if no barrier kept it away.
        let w = p.msgs[i].clone();
        if w.any_source && p.nprocs > 2 && w.phase + 1 < p.phases.len() && rng.chance(2, 3) {
            let others: Vec<usize> = (0..p.nprocs)
                .filter(|&r| r != w.dst && r != w.src)
                .collect();
            if p.locked_near(w.dst, w.phase + 1) {
                continue;
            }
            p.msgs.push(Msg {
                src: others[rng.below(others.len())],
                dst: w.dst,
                tag: w.tag,
                phase: w.phase + 1,
                irecv: rng.chance(1, 2),
                any_source: false,
                any_tag: false,
            });
            if !(p.reckless || p.safe()) {
                p.msgs.pop();
            }
        }
    }
}

const KINDS: [&str; 6] = [
    "MPI_Put",
    "MPI_Get",
    "MPI_Accumulate",
    "MPI_Accumulate",
    "MPI_Get_accumulate",
    "MPI_Fetch_and_op",
];

struct Writer {
    out: String,
    lines: usize,
    indent: usize,
    barriers: Vec<usize>,
}

impl Writer {
    fn line(&mut self, s: &str) {
        if !s.is_empty() {
            for _ in 0..self.indent {
                self.out.push_str("    ");
            }
        }
        let _ = writeln!(self.out, "{s}");
        self.lines += 1;
    }
}

/// What a rank-phase needs of the shared arrays: origin slots, receive
/// buffers, requests.
#[derive(Default)]
struct Slots {
    origin: usize,
    recv: usize,
    req: usize,
}

impl Program {
    fn render(&self, seed: u64) -> (String, Vec<usize>) {
        let mut w = Writer {
            out: String::new(),
            lines: 0,
            indent: 0,
            barriers: Vec::new(),
        };
        let nwin = self.allocate.len();
        let pscw = self.phases.iter().any(|ph| ph.modes.contains(&Mode::Pscw));
        let mut max = Slots::default();
        for ph in 0..self.phases.len() {
            for r in 0..self.nprocs {
                let s = self.slots(r, ph);
                max.origin = max.origin.max(s.origin);
                max.recv = max.recv.max(s.recv);
                max.req = max.req.max(s.req);
            }
        }
        w.line(&format!("/* fib: -n {} */", self.nprocs));
        w.line(&format!(
            "/* Generated by tests/fibgen (memory) from seed {seed}: {} ranks{}. */",
            self.nprocs,
            if self.reckless { ", reckless" } else { "" }
        ));
        w.line("#include <mpi.h>");
        w.line("");
        w.line("int main(int argc, char **argv)");
        w.line("{");
        w.indent += 1;
        w.line("int rank, size, out;");
        w.line("volatile int x = 0;");
        w.line(&format!(
            "int src[{}], got[{}], in[{}];",
            max.origin.max(1),
            max.origin.max(1),
            max.recv.max(1)
        ));
        w.line(&format!("MPI_Request req[{}];", max.req.max(1)));
        if self.ibarrier {
            w.line("MPI_Request bar;");
        }
        for k in 0..nwin {
            if self.allocate[k] {
                w.line(&format!("int *w{k};"));
            } else {
                w.line(&format!("int a{k}[{ELEMS}] = {{0}};"));
                w.line(&format!("int *w{k} = a{k};"));
            }
            w.line(&format!("MPI_Win win{k};"));
        }
        if pscw {
            w.line(&format!("MPI_Group world, peer[{}];", self.nprocs));
        }
        w.line("MPI_Init(&argc, &argv);");
        w.line("MPI_Comm_rank(MPI_COMM_WORLD, &rank);");
        w.line("MPI_Comm_size(MPI_COMM_WORLD, &size);");
        w.line("out = rank;");
        w.line(&format!("for (int i = 0; i < {}; i++)", max.origin.max(1)));
        w.line("    src[i] = rank + i;");
        w.line("(void)got;");
        w.line("(void)in;");
        w.line("(void)req;");
        if pscw {
            w.line("MPI_Comm_group(MPI_COMM_WORLD, &world);");
            w.line(&format!("for (int i = 0; i < {}; i++)", self.nprocs));
            w.line("    MPI_Group_incl(world, 1, &i, &peer[i]);");
        }
        for k in 0..nwin {
            if self.allocate[k] {
                w.line(&format!(
                    "MPI_Win_allocate({ELEMS} * sizeof(int), sizeof(int), MPI_INFO_NULL, \
                     MPI_COMM_WORLD, &w{k}, &win{k});"
                ));
            } else {
                w.line(&format!(
                    "MPI_Win_create(a{k}, {ELEMS} * sizeof(int), sizeof(int), MPI_INFO_NULL, \
                     MPI_COMM_WORLD, &win{k});"
                ));
            }
        }
        for ph in 0..self.phases.len() {
            self.render_phase(&mut w, ph);
        }
        for k in 0..nwin {
            w.line(&format!("MPI_Win_free(&win{k});"));
        }
        if pscw {
            w.line(&format!("for (int i = 0; i < {}; i++)", self.nprocs));
            w.line("    MPI_Group_free(&peer[i]);");
            w.line("MPI_Group_free(&world);");
        }
        w.line("MPI_Finalize();");
        w.line("return 0;");
        w.indent -= 1;
        w.line("}");
        (w.out, w.barriers)
    }

    fn slots(&self, r: usize, ph: usize) -> Slots {
        let mut s = Slots::default();
        for e in &self.phases[ph].ranks[r].epochs {
            let items = match e {
                Epoch::Lock { items, .. }
                | Epoch::LockAll { items, .. }
                | Epoch::Start { items, .. }
                | Epoch::Fenced { items, .. } => items,
                Epoch::Post { .. } => continue,
            };
            for it in items {
                if let Item::Rma(c) = it {
                    s.origin += c.count;
                }
            }
        }
        s.req = self.sends(r, ph).len();
        for i in self.recvs(r, ph) {
            s.recv += 1;
            s.req += usize::from(self.msgs[i].irecv);
        }
        s
    }

    /// One `if (rank == r)` chain over the ranks for which `body` writes
    /// something.
    fn chain(&self, w: &mut Writer, body: &dyn Fn(&mut Writer, usize)) {
        let mut first = true;
        for r in 0..self.nprocs {
            let mut inner = Writer {
                out: String::new(),
                lines: 0,
                indent: w.indent + 1,
                barriers: Vec::new(),
            };
            body(&mut inner, r);
            if inner.lines == 0 {
                continue;
            }
            let kw = if first { "if" } else { "} else if" };
            w.line(&format!("{kw} (rank == {r}) {{"));
            w.out.push_str(&inner.out);
            w.lines += inner.lines;
            first = false;
        }
        if !first {
            w.line("}");
        }
    }

    fn render_phase(&self, w: &mut Writer, ph: usize) {
        let phase = &self.phases[ph];
        w.line(&format!("/* phase {ph} */"));
        self.chain(w, &|w, r| {
            for l in &phase.ranks[r].pre {
                local_line(w, l, r);
            }
        });
        let fenced: Vec<usize> = (0..phase.modes.len())
            .filter(|&k| phase.modes[k] == Mode::Fence)
            .collect();
        for k in &fenced {
            w.line(&format!("MPI_Win_fence(0, win{k});"));
        }
        self.chain(w, &|w, r| {
            let mut slot = 0;
            let mut posts = Vec::new();
            for e in &phase.ranks[r].epochs {
                match e {
                    Epoch::Lock {
                        win,
                        target,
                        exclusive,
                        items,
                    } => {
                        let kind = if *exclusive {
                            "MPI_LOCK_EXCLUSIVE"
                        } else {
                            "MPI_LOCK_SHARED"
                        };
                        w.line(&format!("MPI_Win_lock({kind}, {target}, 0, win{win});"));
                        items_lines(w, items, *win, r, &mut slot);
                        w.line(&format!("MPI_Win_unlock({target}, win{win});"));
                    }
                    Epoch::LockAll { win, items } => {
                        w.line(&format!("MPI_Win_lock_all(0, win{win});"));
                        items_lines(w, items, *win, r, &mut slot);
                        w.line(&format!("MPI_Win_unlock_all(win{win});"));
                    }
                    Epoch::Start { win, target, items } => {
                        w.line(&format!("MPI_Win_start(peer[{target}], 0, win{win});"));
                        items_lines(w, items, *win, r, &mut slot);
                        w.line(&format!("MPI_Win_complete(win{win});"));
                    }
                    Epoch::Post { win, origin } => {
                        w.line(&format!("MPI_Win_post(peer[{origin}], 0, win{win});"));
                        posts.push(*win);
                    }
                    Epoch::Fenced { win, items } => items_lines(w, items, *win, r, &mut slot),
                }
            }
            for win in posts {
                w.line(&format!("MPI_Win_wait(win{win});"));
            }
            // Messages: sends, receives (wildcards last), waits.
            let mut req = 0;
            for i in self.sends(r, ph) {
                let m = &self.msgs[i];
                w.line(&format!(
                    "MPI_Isend(&out, 1, MPI_INT, {}, {}, MPI_COMM_WORLD, &req[{req}]);",
                    m.dst, m.tag
                ));
                req += 1;
            }
            for (k, i) in self.recvs(r, ph).into_iter().enumerate() {
                let m = &self.msgs[i];
                let src = if m.any_source {
                    "MPI_ANY_SOURCE".to_string()
                } else {
                    m.src.to_string()
                };
                let tag = if m.any_tag {
                    "MPI_ANY_TAG".to_string()
                } else {
                    m.tag.to_string()
                };
                if m.irecv {
                    w.line(&format!(
                        "MPI_Irecv(&in[{k}], 1, MPI_INT, {src}, {tag}, MPI_COMM_WORLD, &req[{req}]);"
                    ));
                    req += 1;
                } else {
                    w.line(&format!(
                        "MPI_Recv(&in[{k}], 1, MPI_INT, {src}, {tag}, MPI_COMM_WORLD, \
                         MPI_STATUS_IGNORE);"
                    ));
                }
            }
            for q in 0..req {
                w.line(&format!("MPI_Wait(&req[{q}], MPI_STATUS_IGNORE);"));
            }
        });
        // MPI_MODE_NOSUCCEED: no epoch opens here, so that the window may
        // be locked later.
        for k in &fenced {
            w.line(&format!("MPI_Win_fence(MPI_MODE_NOSUCCEED, win{k});"));
        }
        self.chain(w, &|w, r| {
            for l in &phase.ranks[r].post {
                local_line(w, l, r);
            }
        });
        if phase.barrier {
            if self.ibarrier {
                w.line("MPI_Ibarrier(MPI_COMM_WORLD, &bar);");
                w.barriers.push(w.lines);
                w.line("MPI_Wait(&bar, MPI_STATUS_IGNORE);");
            } else {
                w.line("MPI_Barrier(MPI_COMM_WORLD);");
                w.barriers.push(w.lines);
            }
        }
    }
}

fn local_line(w: &mut Writer, l: &Local, rank: usize) {
    if l.store {
        w.line(&format!(
            "w{}[{}] = {};",
            l.win,
            l.index,
            10 * rank + l.index
        ));
    } else {
        w.line(&format!("x += w{}[{}];", l.win, l.index));
    }
}

fn items_lines(w: &mut Writer, items: &[Item], win: usize, rank: usize, slot: &mut usize) {
    for it in items {
        match it {
            Item::Local(l) => local_line(w, l, rank),
            Item::Flush(t) => w.line(&format!("MPI_Win_flush({t}, win{win});")),
            Item::Rma(c) => {
                let (s, n, t, d) = (*slot, c.count, c.target, c.disp);
                *slot += n;
                let name = KINDS[c.kind as usize];
                let line = match c.kind {
                    RmaKind::Put | RmaKind::Get => {
                        let buf = if c.kind == RmaKind::Put { "src" } else { "got" };
                        format!(
                            "{name}(&{buf}[{s}], {n}, MPI_INT, {t}, {d}, {n}, MPI_INT, win{win});"
                        )
                    }
                    RmaKind::AccSum | RmaKind::AccReplace => {
                        let op = if c.kind == RmaKind::AccSum {
                            "MPI_SUM"
                        } else {
                            "MPI_REPLACE"
                        };
                        format!(
                            "{name}(&src[{s}], {n}, MPI_INT, {t}, {d}, {n}, MPI_INT, {op}, win{win});"
                        )
                    }
                    RmaKind::GetAcc => format!(
                        "{name}(&src[{s}], {n}, MPI_INT, &got[{s}], {n}, MPI_INT, {t}, {d}, {n}, \
                         MPI_INT, MPI_SUM, win{win});"
                    ),
                    RmaKind::FetchOp => format!(
                        "{name}(&src[{s}], &got[{s}], MPI_INT, {t}, {d}, MPI_SUM, win{win});"
                    ),
                };
                w.line(&line);
            }
        }
    }
}
