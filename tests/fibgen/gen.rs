//! The generator of random small MPI C programs.
//!
//! A program is built in three steps. First the barrier skeleton: a sequence
//! of phases grouped into blocks (a block is the body of a `for` loop with a
//! constant bound of 1 or 2, or plain code), and after each phase a barrier
//! event (on `MPI_COMM_WORLD` or on the parity half from `MPI_Comm_split`,
//! textually aligned or placed at the end of rank-dependent branches). Every
//! rank executes every phase, so every member of a communicator calls each of
//! its barriers the same number of times. Second, the point-to-point traffic
//! of each phase: messages with a sender, a receiver, a tag, a send kind and a
//! receive kind, received in the same phase or the next one of the same
//! block. Third, some receives become wildcards (`MPI_ANY_SOURCE`,
//! `MPI_ANY_TAG`) and some messages are added after a wildcard's phase that
//! the wildcard could take if the barrier between them were gone: the shape
//! of a relevant barrier.
//!
//! Deadlock freedom in the buffered model comes from the order of the
//! operations inside a phase. Each phase has a flow order of the ranks; a
//! rank issues its sends (at most one `MPI_Ssend` per phase, the last send of
//! its rank, received in the same phase) before it blocks in any receive,
//! except receives of messages from ranks earlier in the flow order or from
//! the previous phase, which may come first. Receives with a wildcard come
//! last. A wildcard could still steal a message meant for a later receive;
//! [`Program::safe`] rejects every wildcard for which that can happen unless a
//! barrier both ranks call lies between the wildcard and that message's send,
//! or the later receive would accept the wildcard's own message instead.
//! One program in five skips that check (it is "reckless"), so that some
//! programs deadlock and the proof by removal also compares errors.
//!
//! One program in three writes each barrier as an `MPI_Ibarrier` completed
//! at once, by `MPI_Wait` or by an `MPI_Test` loop (chosen from a stream of
//! its own, so that the seed still gives the same program otherwise): the
//! Ibarrier's sites are barriers too, and its removal hands back a request
//! that completes at once.
//!
//! One program in three (from another stream of its own) writes each
//! blocking receive from `MPI_ANY_SOURCE` as a probe from `MPI_ANY_SOURCE`
//! followed by the receive of what it found, from the status's source: a
//! pair that takes one message as the wildcard receive would, and a row of
//! which one run stands for in every order.

use std::fmt::Write as _;

/// A small xorshift generator, seeded through splitmix64.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        Rng(if z == 0 { 1 } else { z })
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: usize, den: usize) -> bool {
        self.below(den) < num
    }
}

/// Where a barrier event's calls sit in the source.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Placement {
    /// One call after the rank-dependent code, reached by every rank.
    Aligned,
    /// One call at the end of each of two branches: `rank == r` and the rest.
    SplitOne(usize),
    /// One call at the end of each of two branches: even and odd ranks.
    SplitParity,
}

/// The barrier that ends a phase.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Barrier {
    None,
    World(Placement),
    Half(Placement),
    /// `MPI_Barrier(half)` called by the ranks of one parity only.
    HalfOf(usize),
}

impl Barrier {
    /// Whether both ranks call this barrier on one communicator, so that
    /// neither passes it before the other has reached it.
    fn separates(self, a: usize, b: usize) -> bool {
        match self {
            Barrier::None => false,
            Barrier::World(_) => true,
            Barrier::Half(_) => a % 2 == b % 2,
            Barrier::HalfOf(q) => a % 2 == q && b % 2 == q,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum SendKind {
    Send,
    Isend,
    Ssend,
}

/// When a nonblocking operation's request is completed.
#[derive(Clone, Copy, Debug, PartialEq)]
enum WaitAt {
    /// `MPI_Wait` right after the operation.
    Now,
    /// `MPI_Wait` after the rank's next operation of the phase.
    Next,
    /// In the `MPI_Waitall` that ends the rank's phase.
    End,
}

#[derive(Clone, Debug)]
struct Msg {
    src: usize,
    dst: usize,
    tag: usize,
    /// Static phase indices; both in the same block.
    send_phase: usize,
    recv_phase: usize,
    send: SendKind,
    send_wait: WaitAt,
    recv_nonblocking: bool,
    recv_wait: WaitAt,
    /// The receive's source and tag; `None` is the wildcard.
    recv_src: Option<usize>,
    recv_tag: Option<usize>,
    /// Messages sent (and received) `count` times in a `for` loop.
    count: usize,
    /// Whether the receive may come before the receiver's sends.
    early: bool,
    /// Where an early receive goes among the sends.
    insert: usize,
    /// The order of wildcard receives, which come last.
    wild_order: usize,
}

impl Msg {
    fn wild(&self) -> bool {
        self.recv_src.is_none() || self.recv_tag.is_none()
    }

    fn accepts(&self, src: usize, tag: usize) -> bool {
        self.recv_src.is_none_or(|s| s == src) && self.recv_tag.is_none_or(|t| t == tag)
    }
}

#[derive(Clone, Debug)]
struct Block {
    /// `None`: plain code; `Some(n)`: `for (int it = 0; it < n; it++)`.
    reps: Option<usize>,
    first: usize,
    len: usize,
}

#[derive(Clone, Debug)]
struct Phase {
    block: usize,
    barrier: Barrier,
    /// The position of each rank in the phase's flow order.
    flow: Vec<usize>,
}

#[derive(Clone, Debug)]
struct Program {
    nprocs: usize,
    split: bool,
    blocks: Vec<Block>,
    phases: Vec<Phase>,
    msgs: Vec<Msg>,
    /// A barrier no rank reaches, emitted after this phase.
    dead_after: Option<usize>,
}

/// One operation of a rank in a phase, before waits are placed.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Send(usize),
    Recv(usize),
}

/// A generated program and what the test needs to know about it.
#[derive(Clone, Debug)]
pub struct Generated {
    pub seed: u64,
    pub nprocs: usize,
    pub source: String,
    /// The 1-based lines of every `MPI_Barrier` (or `MPI_Ibarrier`) call
    /// emitted.
    pub barrier_lines: Vec<usize>,
    /// How the barriers are written.
    pub style: BarrierStyle,
    /// Whether blocking wildcard receives are written as a probe and a
    /// receive from the probed source.
    pub probes: bool,
    /// Dynamic instances of `MPI_ANY_SOURCE` receives per execution.
    pub any_source: usize,
    /// Receives with `MPI_ANY_SOURCE` or `MPI_ANY_TAG`, as written.
    pub wildcard_sites: usize,
    /// Whether a message follows a wildcard receive of its receiver, accepted
    /// by it, with a barrier between them: a barrier likely relevant.
    pub relevant_shape: bool,
}

/// How a program writes its barriers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarrierStyle {
    /// `MPI_Barrier(comm);`
    Blocking,
    /// `MPI_Ibarrier(comm, &bar);` then `MPI_Wait(&bar, ...);`
    IbarrierWait,
    /// `MPI_Ibarrier(comm, &bar);` then `MPI_Test` until it succeeds.
    IbarrierTest,
}

impl BarrierStyle {
    /// The style of the program of `seed`, from a stream of its own.
    fn of(seed: u64) -> BarrierStyle {
        let mut rng = Rng::new(seed ^ 0x1ba2_71e5_0000_0000);
        match rng.below(6) {
            0 => BarrierStyle::IbarrierWait,
            1 => BarrierStyle::IbarrierTest,
            _ => BarrierStyle::Blocking,
        }
    }
}

pub const TAGS: usize = 2;
const MAX_ANY_SOURCE: usize = 2;

/// The program for `seed`; the same seed always gives the same text.
pub fn generate(seed: u64) -> Generated {
    let mut rng = Rng::new(seed);
    let mut p = skeleton(&mut rng);
    traffic(&mut rng, &mut p);
    let relevant_shape = wildcards(&mut rng, &mut p);
    let style = BarrierStyle::of(seed);
    let probes = Rng::new(seed ^ 0x9e0b_e5a1_0000_0000).below(3) == 0;
    let (source, barrier_lines) = p.render(seed, style, probes);
    let any_source = p.any_source();
    let wildcard_sites = p.msgs.iter().filter(|m| m.wild()).count();
    Generated {
        seed,
        nprocs: p.nprocs,
        source,
        barrier_lines,
        style,
        probes,
        any_source,
        wildcard_sites,
        relevant_shape,
    }
}

fn skeleton(rng: &mut Rng) -> Program {
    let nprocs = [2, 3, 3, 3, 4, 4][rng.below(6)];
    let split = rng.chance(1, 3);
    let nblocks = [1, 2, 2][rng.below(3)];
    let mut blocks = Vec::new();
    let mut phases = Vec::new();
    for b in 0..nblocks {
        let len = 1 + rng.below(2);
        let reps = if rng.chance(1, 3) {
            Some(1 + rng.below(2))
        } else {
            None
        };
        blocks.push(Block {
            reps,
            first: phases.len(),
            len,
        });
        for _ in 0..len {
            let mut order: Vec<usize> = (0..nprocs).collect();
            for i in (1..nprocs).rev() {
                order.swap(i, rng.below(i + 1));
            }
            let mut flow = vec![0; nprocs];
            for (pos, &r) in order.iter().enumerate() {
                flow[r] = pos;
            }
            let placement = match rng.below(6) {
                0 => Placement::SplitOne(rng.below(nprocs)),
                1 => Placement::SplitParity,
                _ => Placement::Aligned,
            };
            let barrier = match rng.below(8) {
                0 if split => Barrier::Half(placement),
                1 if split => Barrier::HalfOf(rng.below(2)),
                _ => Barrier::World(placement),
            };
            phases.push(Phase {
                block: b,
                barrier,
                flow,
            });
        }
    }
    // The last phase of the program sometimes ends at MPI_Finalize.
    if rng.chance(1, 3) {
        let last = phases.len() - 1;
        // A loop body keeps its closing barrier, so that the traffic of one
        // iteration cannot meet the next.
        if blocks[nblocks - 1].reps.is_none() {
            phases[last].barrier = Barrier::None;
        }
    }
    let dead_after = if rng.chance(1, 16) {
        Some(rng.below(phases.len()))
    } else {
        None
    };
    Program {
        nprocs,
        split,
        blocks,
        phases,
        msgs: Vec::new(),
        dead_after,
    }
}

fn wait_at(rng: &mut Rng) -> WaitAt {
    [WaitAt::Now, WaitAt::Next, WaitAt::End, WaitAt::End][rng.below(4)]
}

/// A specific message from `src` to `dst` in phase `send_phase`.
fn message(
    rng: &mut Rng,
    p: &Program,
    src: usize,
    dst: usize,
    tag: usize,
    send_phase: usize,
) -> Msg {
    let block = &p.blocks[p.phases[send_phase].block];
    let next_in_block = send_phase + 1 < block.first + block.len;
    let recv_phase = if next_in_block && rng.chance(1, 6) {
        send_phase + 1
    } else {
        send_phase
    };
    let ssend_taken = p
        .msgs
        .iter()
        .any(|m| m.send_phase == send_phase && m.send == SendKind::Ssend);
    let send = match rng.below(10) {
        0 if !ssend_taken && recv_phase == send_phase => SendKind::Ssend,
        1..=4 => SendKind::Isend,
        _ => SendKind::Send,
    };
    let count = if send != SendKind::Ssend && rng.chance(1, 8) {
        2
    } else {
        1
    };
    let flow = &p.phases[send_phase].flow;
    let may_be_early = recv_phase > send_phase || flow[src] < flow[dst];
    Msg {
        src,
        dst,
        tag,
        send_phase,
        recv_phase,
        send,
        send_wait: wait_at(rng),
        recv_nonblocking: rng.chance(2, 5),
        recv_wait: wait_at(rng),
        recv_src: Some(src),
        recv_tag: Some(tag),
        count,
        early: may_be_early && rng.chance(1, 2),
        insert: rng.below(8),
        wild_order: 0,
    }
}

fn pair(rng: &mut Rng, nprocs: usize) -> (usize, usize) {
    let src = rng.below(nprocs);
    let dst = (src + 1 + rng.below(nprocs - 1)) % nprocs;
    (src, dst)
}

fn traffic(rng: &mut Rng, p: &mut Program) {
    for ph in 0..p.phases.len() {
        let n = rng.below(p.nprocs + 1);
        for _ in 0..n {
            let (src, dst) = pair(rng, p.nprocs);
            let tag = rng.below(TAGS);
            let m = message(rng, p, src, dst, tag, ph);
            p.msgs.push(m);
        }
    }
}

/// Turns some receives into wildcards and adds messages a barrier keeps from
/// them; returns whether such a message was added.
fn wildcards(rng: &mut Rng, p: &mut Program) -> bool {
    let mut relevant_shape = false;
    if p.msgs.is_empty() || rng.chance(1, 3) {
        return false;
    }
    // One program in five skips the safety check, so that some deadlock.
    let reckless = rng.chance(1, 5);
    let attempts = 1 + rng.below(3);
    let mut order = 1;
    for _ in 0..attempts {
        let mut i = rng.below(p.msgs.len());
        // A wildcard in the last phase has no later phase to be kept from.
        if p.msgs[i].recv_phase + 1 == p.phases.len() {
            i = rng.below(p.msgs.len());
        }
        if p.msgs[i].wild() || p.msgs[i].count != 1 {
            continue;
        }
        let saved = p.msgs[i].clone();
        let m = &mut p.msgs[i];
        match rng.below(8) {
            0 => m.recv_tag = None,
            1 => {
                m.recv_src = None;
                m.recv_tag = None;
            }
            _ => m.recv_src = None,
        }
        m.early = false;
        m.wild_order = order;
        if p.any_source() > MAX_ANY_SOURCE || !(reckless || p.safe()) {
            p.msgs[i] = saved;
            continue;
        }
        order += 1;
        // A second wildcard receive of the same kind on the same rank, with a
        // message from another sender: the two messages race.
        if p.msgs[i].recv_src.is_none() && p.nprocs > 2 && rng.chance(3, 4) {
            let w = p.msgs[i].clone();
            let others: Vec<usize> = (0..p.nprocs)
                .filter(|&r| r != w.dst && r != w.src)
                .collect();
            let src = others[rng.below(others.len())];
            let tag = w.recv_tag.unwrap_or_else(|| rng.below(TAGS));
            let mut racer = message(rng, p, src, w.dst, tag, w.recv_phase);
            racer.recv_phase = w.recv_phase;
            racer.count = 1;
            racer.recv_src = None;
            racer.recv_tag = w.recv_tag;
            racer.early = false;
            racer.wild_order = order;
            p.msgs.push(racer);
            if p.any_source() <= MAX_ANY_SOURCE && (reckless || p.safe()) {
                order += 1;
            } else {
                p.msgs.pop();
            }
        }
        // A message to the same rank after the wildcard's phase that the
        // wildcard would accept: relevant unless another ordering holds it.
        if p.msgs[i].recv_src.is_none() && rng.chance(7, 8) {
            let (d, at) = (p.msgs[i].dst, p.msgs[i].recv_phase);
            if at + 1 < p.phases.len() && p.phases[at].barrier != Barrier::None {
                // Mostly another sender than the wildcard's own message's:
                // from the same sender, non-overtaking keeps the later message
                // from the wildcard, barrier or not.
                let w = p.msgs[i].src;
                let others: Vec<usize> = (0..p.nprocs).filter(|&r| r != d && r != w).collect();
                let src = if !others.is_empty() && rng.chance(3, 4) {
                    others[rng.below(others.len())]
                } else {
                    w
                };
                let tag = p.msgs[i].recv_tag.unwrap_or_else(|| rng.below(TAGS));
                let later = at + 1 + rng.below((p.phases.len() - at - 1).min(2));
                let mut bait = message(rng, p, src, d, tag, later);
                bait.count = 1;
                p.msgs.push(bait);
                if reckless || p.safe() {
                    relevant_shape |= src != w && p.phases[at].barrier.separates(src, d);
                } else {
                    p.msgs.pop();
                }
            }
        }
    }
    relevant_shape
}

/// One dynamic receive, for the safety check.
struct Instance {
    msg: usize,
    send_dyn: usize,
    recv_dyn: usize,
    /// The receive's order on its rank: phase, position, loop copy.
    key: (usize, usize, usize),
}

impl Program {
    fn reps(&self, block: usize) -> usize {
        self.blocks[block].reps.unwrap_or(1)
    }

    /// The dynamic phase of static phase `ph` in iteration `it`.
    fn dyn_phase(&self, ph: usize, it: usize) -> usize {
        let b = self.phases[ph].block;
        let before: usize = (0..b).map(|k| self.blocks[k].len * self.reps(k)).sum();
        before + it * self.blocks[b].len + (ph - self.blocks[b].first)
    }

    fn dyn_barriers(&self) -> Vec<Barrier> {
        let mut out = Vec::new();
        for (b, block) in self.blocks.iter().enumerate() {
            for _ in 0..self.reps(b) {
                for ph in block.first..block.first + block.len {
                    out.push(self.phases[ph].barrier);
                }
            }
        }
        out
    }

    fn any_source(&self) -> usize {
        self.msgs
            .iter()
            .filter(|m| m.recv_src.is_none())
            .map(|m| self.reps(self.phases[m.recv_phase].block))
            .sum()
    }

    /// The operations of `rank` in phase `ph`, in program order.
    fn ops(&self, rank: usize, ph: usize) -> Vec<Op> {
        let mut sends: Vec<usize> = (0..self.msgs.len())
            .filter(|&i| self.msgs[i].src == rank && self.msgs[i].send_phase == ph)
            .collect();
        sends.sort_by_key(|&i| self.msgs[i].send == SendKind::Ssend);
        let mut ops: Vec<Op> = sends.into_iter().map(Op::Send).collect();
        let recvs = |f: &dyn Fn(&Msg) -> bool| -> Vec<usize> {
            (0..self.msgs.len())
                .filter(|&i| {
                    let m = &self.msgs[i];
                    m.dst == rank && m.recv_phase == ph && f(m)
                })
                .collect()
        };
        let nsends = ops.len();
        for i in recvs(&|m| m.early && !m.wild()) {
            let at = self.msgs[i].insert % (nsends + 1);
            // Among the receives inserted at one place, creation order holds.
            let pos = ops
                .iter()
                .enumerate()
                .filter(|(_, o)| matches!(o, Op::Send(_)))
                .map(|(k, _)| k)
                .nth(at)
                .unwrap_or(ops.len());
            ops.insert(pos, Op::Recv(i));
        }
        ops.extend(recvs(&|m| !m.early && !m.wild()).into_iter().map(Op::Recv));
        let mut wild = recvs(&|m| m.wild());
        wild.sort_by_key(|&i| self.msgs[i].wild_order);
        ops.extend(wild.into_iter().map(Op::Recv));
        ops
    }

    fn instances(&self) -> Vec<Instance> {
        let mut positions = vec![0; self.msgs.len()];
        for ph in 0..self.phases.len() {
            for r in 0..self.nprocs {
                for (k, op) in self.ops(r, ph).into_iter().enumerate() {
                    if let Op::Recv(i) = op {
                        positions[i] = k;
                    }
                }
            }
        }
        let mut out = Vec::new();
        for (i, m) in self.msgs.iter().enumerate() {
            for it in 0..self.reps(self.phases[m.send_phase].block) {
                for c in 0..m.count {
                    let recv_dyn = self.dyn_phase(m.recv_phase, it);
                    out.push(Instance {
                        msg: i,
                        send_dyn: self.dyn_phase(m.send_phase, it),
                        recv_dyn,
                        key: (recv_dyn, positions[i], c),
                    });
                }
            }
        }
        out
    }

    /// Whether no wildcard receive can take a message meant for a later
    /// receive that could then not be matched (see the module comment).
    fn safe(&self) -> bool {
        let barriers = self.dyn_barriers();
        let inst = self.instances();
        for r in inst.iter().filter(|r| self.msgs[r.msg].wild()) {
            let rm = &self.msgs[r.msg];
            for m in &inst {
                let mm = &self.msgs[m.msg];
                if mm.dst != rm.dst || m.key <= r.key || !rm.accepts(mm.src, mm.tag) {
                    continue;
                }
                if mm.accepts(rm.src, rm.tag) {
                    continue;
                }
                let separated = m.send_dyn > r.recv_dyn
                    && (r.recv_dyn..m.send_dyn).any(|j| barriers[j].separates(mm.src, rm.dst));
                if !separated {
                    return false;
                }
            }
        }
        true
    }

    fn render(&self, seed: u64, style: BarrierStyle, probes: bool) -> (String, Vec<usize>) {
        let mut w = Writer {
            style,
            probes,
            ..Writer::default()
        };
        w.line(&format!("/* fib: -n {} */", self.nprocs));
        w.line(&format!(
            "/* Generated by tests/fibgen from seed {seed}: {} ranks. */",
            self.nprocs
        ));
        w.line("#include <mpi.h>");
        w.line("");
        w.line("int main(int argc, char **argv)");
        w.line("{");
        w.indent += 1;
        let (nbuf, nreq) = self.slots();
        w.line("int rank, size, out;");
        w.line(&format!("int in[{}];", nbuf.max(1)));
        w.line(&format!("MPI_Request req[{}];", nreq.max(1)));
        if self.split {
            w.line("MPI_Comm half;");
        }
        match style {
            BarrierStyle::Blocking => {}
            BarrierStyle::IbarrierWait => w.line("MPI_Request bar;"),
            BarrierStyle::IbarrierTest => {
                w.line("MPI_Request bar;");
                w.line("int done;");
            }
        }
        w.line("MPI_Init(&argc, &argv);");
        w.line("MPI_Comm_rank(MPI_COMM_WORLD, &rank);");
        w.line("MPI_Comm_size(MPI_COMM_WORLD, &size);");
        if self.split {
            w.line("MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);");
        }
        if probes {
            w.line("MPI_Status st;");
        }
        w.line("out = rank;");
        w.line("(void)in;");
        w.line("(void)req;");
        for block in &self.blocks {
            if let Some(n) = block.reps {
                w.line(&format!("for (int it = 0; it < {n}; it++) {{"));
                w.indent += 1;
            }
            for ph in block.first..block.first + block.len {
                self.render_phase(&mut w, ph);
                if self.dead_after == Some(ph) {
                    w.line("if (rank >= size) {");
                    w.indent += 1;
                    w.barrier("MPI_COMM_WORLD");
                    w.indent -= 1;
                    w.line("}");
                }
            }
            if block.reps.is_some() {
                w.indent -= 1;
                w.line("}");
            }
        }
        if self.split {
            w.line("MPI_Comm_free(&half);");
        }
        w.line("MPI_Finalize();");
        w.line("return 0;");
        w.indent -= 1;
        w.line("}");
        (w.out, w.barriers)
    }

    /// The receive buffers and requests one rank-phase needs, at most.
    fn slots(&self) -> (usize, usize) {
        let (mut nbuf, mut nreq) = (0, 0);
        for ph in 0..self.phases.len() {
            for r in 0..self.nprocs {
                let (mut b, mut q) = (0, 0);
                for op in self.ops(r, ph) {
                    match op {
                        Op::Send(i) => {
                            if self.msgs[i].send == SendKind::Isend {
                                q += self.msgs[i].count;
                            }
                        }
                        Op::Recv(i) => {
                            b += self.msgs[i].count;
                            if self.msgs[i].recv_nonblocking {
                                q += self.msgs[i].count;
                            }
                        }
                    }
                }
                nbuf = nbuf.max(b);
                nreq = nreq.max(q);
            }
        }
        (nbuf, nreq)
    }

    fn render_phase(&self, w: &mut Writer, ph: usize) {
        let barrier = self.phases[ph].barrier;
        let (comm, placement) = match barrier {
            Barrier::World(pl) => ("MPI_COMM_WORLD", pl),
            Barrier::Half(pl) => ("half", pl),
            _ => ("", Placement::Aligned),
        };
        let all: Vec<usize> = (0..self.nprocs).collect();
        match placement {
            Placement::Aligned => {
                self.render_ranks(w, ph, &all);
                match barrier {
                    Barrier::None => {}
                    Barrier::HalfOf(q) => {
                        w.line(&format!("if (rank % 2 == {q}) {{"));
                        w.indent += 1;
                        w.barrier("half");
                        w.indent -= 1;
                        w.line("}");
                    }
                    _ => w.barrier(comm),
                }
            }
            Placement::SplitOne(_) | Placement::SplitParity => {
                let (cond, first): (String, Vec<usize>) = match placement {
                    Placement::SplitOne(r1) => (format!("rank == {r1}"), vec![r1]),
                    _ => (
                        "rank % 2 == 0".into(),
                        all.iter().copied().filter(|x| x % 2 == 0).collect(),
                    ),
                };
                let rest: Vec<usize> = all.iter().copied().filter(|x| !first.contains(x)).collect();
                w.line(&format!("if ({cond}) {{"));
                w.indent += 1;
                self.render_ranks(w, ph, &first);
                w.barrier(comm);
                w.indent -= 1;
                w.line("} else {");
                w.indent += 1;
                self.render_ranks(w, ph, &rest);
                w.barrier(comm);
                w.indent -= 1;
                w.line("}");
            }
        }
    }

    /// The code of phase `ph` for `ranks`, inside a branch that only they
    /// reach (or, with every rank, at the top level).
    fn render_ranks(&self, w: &mut Writer, ph: usize, ranks: &[usize]) {
        let busy: Vec<usize> = ranks
            .iter()
            .copied()
            .filter(|&r| !self.ops(r, ph).is_empty())
            .collect();
        if ranks.len() == 1 && ranks.len() < self.nprocs {
            for &r in &busy {
                self.render_ops(w, r, ph);
            }
            return;
        }
        for (k, &r) in busy.iter().enumerate() {
            let kw = if k == 0 { "if" } else { "} else if" };
            w.line(&format!("{kw} (rank == {r}) {{"));
            w.indent += 1;
            self.render_ops(w, r, ph);
            w.indent -= 1;
        }
        if !busy.is_empty() {
            w.line("}");
        }
    }

    fn render_ops(&self, w: &mut Writer, rank: usize, ph: usize) {
        let ops = self.ops(rank, ph);
        let nonblocking = |op: &Op| match *op {
            Op::Send(i) => self.msgs[i].send == SendKind::Isend,
            Op::Recv(i) => self.msgs[i].recv_nonblocking,
        };
        let wait_of = |op: &Op| match *op {
            Op::Send(i) => self.msgs[i].send_wait,
            Op::Recv(i) => self.msgs[i].recv_wait,
        };
        let count = |op: &Op| match *op {
            Op::Send(i) | Op::Recv(i) => self.msgs[i].count,
        };
        // Requests completed by the closing MPI_Waitall come first.
        let deferred: usize = ops
            .iter()
            .filter(|o| nonblocking(o) && wait_of(o) == WaitAt::End)
            .map(count)
            .sum();
        let (mut next_deferred, mut next_req, mut next_buf) = (0, deferred, 0);
        let mut pending: Option<(usize, usize)> = None;
        for op in &ops {
            let n = count(op);
            let req = if nonblocking(op) {
                if wait_of(op) == WaitAt::End {
                    next_deferred += n;
                    Some(next_deferred - n)
                } else {
                    next_req += n;
                    Some(next_req - n)
                }
            } else {
                None
            };
            let call = match *op {
                Op::Send(i) => {
                    let m = &self.msgs[i];
                    match (m.send, req) {
                        (SendKind::Isend, Some(q)) => format!(
                            "MPI_Isend(&out, 1, MPI_INT, {}, {}, MPI_COMM_WORLD, &req[{}]);",
                            m.dst,
                            m.tag,
                            slot(q, n)
                        ),
                        (SendKind::Ssend, _) => format!(
                            "MPI_Ssend(&out, 1, MPI_INT, {}, {}, MPI_COMM_WORLD);",
                            m.dst, m.tag
                        ),
                        _ => format!(
                            "MPI_Send(&out, 1, MPI_INT, {}, {}, MPI_COMM_WORLD);",
                            m.dst, m.tag
                        ),
                    }
                }
                Op::Recv(i) => {
                    let m = &self.msgs[i];
                    let src = m
                        .recv_src
                        .map_or("MPI_ANY_SOURCE".to_string(), |s| s.to_string());
                    let tag = m
                        .recv_tag
                        .map_or("MPI_ANY_TAG".to_string(), |t| t.to_string());
                    let buf = slot(next_buf, n);
                    next_buf += n;
                    match req {
                        Some(q) => format!(
                            "MPI_Irecv(&in[{buf}], 1, MPI_INT, {src}, {tag}, MPI_COMM_WORLD, &req[{}]);",
                            slot(q, n)
                        ),
                        None if w.probes && m.recv_src.is_none() => format!(
                            "MPI_Probe(MPI_ANY_SOURCE, {tag}, MPI_COMM_WORLD, &st); \
                             MPI_Recv(&in[{buf}], 1, MPI_INT, st.MPI_SOURCE, {tag}, MPI_COMM_WORLD, MPI_STATUS_IGNORE);"
                        ),
                        None => format!(
                            "MPI_Recv(&in[{buf}], 1, MPI_INT, {src}, {tag}, MPI_COMM_WORLD, MPI_STATUS_IGNORE);"
                        ),
                    }
                }
            };
            if n == 2 {
                w.line("for (int i = 0; i < 2; i++) {");
                w.indent += 1;
                w.line(&call);
                w.indent -= 1;
                w.line("}");
            } else {
                w.line(&call);
            }
            if let Some(p) = pending.take() {
                wait(w, p);
            }
            if let Some(q) = req {
                match wait_of(op) {
                    WaitAt::Now => wait(w, (q, n)),
                    WaitAt::Next => pending = Some((q, n)),
                    WaitAt::End => {}
                }
            }
        }
        if let Some(p) = pending.take() {
            wait(w, p);
        }
        if deferred == 1 {
            w.line("MPI_Wait(&req[0], MPI_STATUS_IGNORE);");
        } else if deferred > 1 {
            w.line(&format!(
                "MPI_Waitall({deferred}, req, MPI_STATUSES_IGNORE);"
            ));
        }
    }
}

/// The index expression of the first of `n` slots at `k`.
fn slot(k: usize, n: usize) -> String {
    if n == 2 {
        format!("{k} + i")
    } else {
        k.to_string()
    }
}

fn wait(w: &mut Writer, (q, n): (usize, usize)) {
    if n == 1 {
        w.line(&format!("MPI_Wait(&req[{q}], MPI_STATUS_IGNORE);"));
    } else {
        w.line(&format!(
            "MPI_Waitall({n}, &req[{q}], MPI_STATUSES_IGNORE);"
        ));
    }
}

struct Writer {
    out: String,
    lines: usize,
    indent: usize,
    barriers: Vec<usize>,
    style: BarrierStyle,
    /// [`Generated::probes`].
    probes: bool,
}

impl Default for Writer {
    fn default() -> Writer {
        Writer {
            out: String::new(),
            lines: 0,
            indent: 0,
            barriers: Vec::new(),
            style: BarrierStyle::Blocking,
            probes: false,
        }
    }
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

    fn barrier(&mut self, comm: &str) {
        if self.style == BarrierStyle::Blocking {
            self.line(&format!("MPI_Barrier({comm});"));
            self.barriers.push(self.lines);
            return;
        }
        self.line(&format!("MPI_Ibarrier({comm}, &bar);"));
        self.barriers.push(self.lines);
        if self.style == BarrierStyle::IbarrierWait {
            self.line("MPI_Wait(&bar, MPI_STATUS_IGNORE);");
        } else {
            self.line("done = 0;");
            self.line("while (!done)");
            self.indent += 1;
            self.line("MPI_Test(&bar, &done, MPI_STATUS_IGNORE);");
            self.indent -= 1;
        }
    }
}
