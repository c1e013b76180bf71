//! The generator of random small MPI C programs built around rows of
//! wildcard receives, for the comparison of one run per row order with
//! full exploration (`--exhaustive`).
//!
//! A program has 3 or 4 ranks and a few phases, in random order:
//!
//! - **rows** (one or two per program): one receiver takes 2 or 3 messages
//!   (2 in a loop of time steps) from 2 or 3 senders in a row of
//!   - blocking `MPI_Recv(MPI_ANY_SOURCE, tag or MPI_ANY_TAG)`, in a loop
//!     or written out one after the other,
//!   - `MPI_Irecv(MPI_ANY_SOURCE, ...)` completed by a loop of
//!     `MPI_Waitany`, or
//!   - `MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG)` followed by a dispatch
//!     chain: `if (st.MPI_SOURCE == p0 && st.MPI_TAG == 0) MPI_Recv(buffer,
//!     count, ..., st.MPI_SOURCE, st.MPI_TAG, ...) else if ... else
//!     MPI_Abort(...)`, where `p0`... are computed from `rank` and `size`
//!     before the row and each branch has a buffer and a count of its own;
//!
//!   sometimes inside a loop of two time steps, and followed by a barrier
//!   (after which, sometimes, a "late" message from another rank that the
//!   row could take if the barrier were gone, received by the receiver
//!   from its sender alone);
//! - **traffic**: messages with fixed sources and tags (`MPI_Isend` or
//!   `MPI_Send`, then blocking receives, then `MPI_Waitall`);
//! - **steering** (one program in four): a message with fixed source and
//!   tag whose data decides how many times every rank calls
//!   `MPI_Allreduce` in a `do ... while` loop. It has nothing to do with any
//!   row, but it is received data that steers MPI calls.
//!
//! What each row does with the statuses, indices and data it gets (its
//! sinks) is chosen at random. Harmless sinks, of which every row has one
//! to three: a histogram element indexed by the source, an array element
//! indexed by source and tag, a counter printed after the row, `printf`,
//! `fseek` to a position computed from source and tag then `fprintf` of the
//! data to a file (`tmpfile()`, or `rows_SEED_RANK.out` in the working
//! directory, which `FIB_GEN_KEEP` leaves beside the program), a sum of the
//! data checked after the row with `printf` only, and `set`: the sources,
//! in arrival order, go to a list that is merged by membership into the
//! list of the receiver's known senders (computed from `rank` and `size`
//! before the row, so the merge adds nothing), after which the receiver
//! exchanges one message by name with each rank of the merged list
//! (`MPI_Irecv` from each, then `MPI_Send` to each of a value that depends
//! on the peer only, then `MPI_Waitall`; each sender receives its message,
//! then sends one back). Every order gives the same list, so the same calls
//! with the same data, though the statuses reach the peers of MPI calls.
//! Near-misses, of which three rows in five have one, let the order reach
//! an MPI call or an exit:
//!
//! - `dest`: the sources, in arrival order, are the destinations of
//!   replies after the row (each sender receives one per message);
//! - `tag`: the last source is part of the tag of a message after the row
//!   (received with `MPI_ANY_TAG`);
//! - `count`: the first source, or the last datum, decides the count of a
//!   message after the row;
//! - `branch`: the last source decides between `MPI_Send` and `MPI_Ssend`,
//!   or between two tags, of a message after the row;
//! - `abort`: `MPI_Abort` or `exit` under a check of the data or status
//!   (never true);
//! - `comparand` (dispatch rows only): the chain's first branch compares
//!   the source with a variable set inside the loop to the first source
//!   probed, and receives every message of that sender into a buffer of its
//!   own with a count of its own: which sender that is depends on the
//!   order;
//! - `file`: the source is written to the file at a position computed from
//!   the tag, read back after the row and used as a tag;
//! - `wild-branch`: the last source decides whether the receiver then takes
//!   a message of another rank `q` from `MPI_ANY_SOURCE` or from `q`; a
//!   third rank sends it a message of that tag after the row's barrier,
//!   which the wildcard could take without the barrier: the barrier is
//!   relevant in some orders only, and a reduction that skipped them would
//!   show in its verdict;
//! - `set-order`: `set`, but the value sent to each peer of the merged list
//!   is that peer's place in the arrival-order list: the same calls to the
//!   same peers in every order, with data that differs between orders.
//!
//! `set` and `set-order` come from a stream of their own (seed-derived):
//! about one row in three gets `set`, and about one in three of the rows
//! without another near-miss gets `set-order`, so every other part of a
//! seed's program is what it was before they existed.
//!
//! Every program is free of deadlocks and errors in every order and runs
//! natively under `mpiexec`: every message sent is received, the dispatch
//! chains cover every message the row can take, and the checks that abort
//! never hold. The seed stream is this module's own: `gen.rs`'s and
//! `memgen.rs`'s programs are unchanged.

use std::fmt::Write as _;

use crate::gen::Rng;

/// How a row takes its messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowKind {
    /// A loop of `MPI_Recv` from `MPI_ANY_SOURCE`.
    RecvLoop,
    /// The same, written out call after call.
    RecvUnrolled,
    /// `MPI_Irecv`s from `MPI_ANY_SOURCE`, then a loop of `MPI_Waitany`.
    Waitany,
    /// A loop of `MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG)` and a dispatch
    /// chain of receives.
    Dispatch,
}

/// What a row does with what it gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Sink {
    // Harmless.
    Hist,
    Slot,
    Counter,
    Print,
    File,
    Sum,
    Set,
    // Near-misses.
    Dest,
    Tag,
    Count,
    Branch,
    Abort,
    Comparand,
    FileBack,
    WildBranch,
    SetOrder,
}

impl Sink {
    /// Whether the order can reach an MPI call, an exit or an abort.
    pub fn near_miss(self) -> bool {
        self >= Sink::Dest
    }

    pub fn name(self) -> &'static str {
        match self {
            Sink::Hist => "hist",
            Sink::Slot => "slot",
            Sink::Counter => "counter",
            Sink::Print => "print",
            Sink::File => "file",
            Sink::Sum => "sum",
            Sink::Dest => "dest",
            Sink::Tag => "tag",
            Sink::Count => "count",
            Sink::Branch => "branch",
            Sink::Abort => "abort",
            Sink::Comparand => "comparand",
            Sink::FileBack => "file-back",
            Sink::WildBranch => "wild-branch",
            Sink::Set => "set",
            Sink::SetOrder => "set-order",
        }
    }
}

const HARMLESS: [Sink; 6] = [
    Sink::Hist,
    Sink::Slot,
    Sink::Counter,
    Sink::Print,
    Sink::File,
    Sink::Sum,
];

/// The near-misses every kind of row can have (dispatch rows also
/// [`Sink::Comparand`]).
const NEAR: [Sink; 7] = [
    Sink::Dest,
    Sink::Tag,
    Sink::Count,
    Sink::Branch,
    Sink::Abort,
    Sink::FileBack,
    Sink::WildBranch,
];

#[derive(Clone, Debug)]
struct Row {
    nprocs: usize,
    recv: usize,
    kind: RowKind,
    /// `None`: `MPI_ANY_TAG` (always so for dispatch rows).
    tag: Option<usize>,
    /// The messages (source, tag), in the order each sender sends them.
    msgs: Vec<(usize, usize)>,
    /// Whether each sender uses `MPI_Isend` (else `MPI_Send`).
    isend: bool,
    sinks: Vec<Sink>,
    /// The rank that receives the message of a `tag`, `count`, `branch` or
    /// `file` near-miss.
    q: usize,
    /// A sender the near-misses compare sources with.
    p: usize,
    /// Whether `count` reads the data (else the first source).
    count_by_data: bool,
    /// Whether `branch` chooses a tag (else the send mode).
    branch_tag: bool,
    /// Whether `abort` calls `exit` (else `MPI_Abort`).
    exit: bool,
    /// Each dispatch branch's receive count (1 or 2).
    counts: Vec<usize>,
    steps: bool,
    /// A message (from, tag) after the barrier that the row could take.
    late: Option<(usize, usize)>,
}

#[derive(Clone, Debug)]
enum Phase {
    Row(Row),
    /// Messages (src, dst, tag, blocking send).
    Traffic(Vec<(usize, usize, usize, bool)>),
    /// The message (from, to) whose data steers the `MPI_Allreduce` loop.
    Steer(usize, usize),
}

/// A generated program and what the test needs to know about it.
#[derive(Clone, Debug)]
pub struct RowGenerated {
    pub seed: u64,
    pub nprocs: usize,
    pub source: String,
    /// The 1-based lines of every `MPI_Barrier` call.
    pub barrier_lines: Vec<usize>,
    /// Each row's kind and sinks.
    pub rows: Vec<(RowKind, Vec<Sink>)>,
    /// Whether the program has the `MPI_Allreduce` loop steered by data.
    pub steered: bool,
}

impl RowGenerated {
    /// Whether some row has only harmless sinks.
    pub fn harmless(&self) -> bool {
        self.rows
            .iter()
            .any(|(_, s)| s.iter().all(|k| !k.near_miss()))
    }

    /// Whether some row has a near-miss.
    pub fn near_miss(&self) -> bool {
        self.rows
            .iter()
            .any(|(_, s)| s.iter().any(|k| k.near_miss()))
    }
}

/// The program for `seed`; the same seed always gives the same text.
pub fn generate(seed: u64) -> RowGenerated {
    let mut rng = Rng::new(seed ^ 0x5a0e_c401_ce00_0000);
    let nprocs = [3, 4][rng.below(2)];
    let mut phases = Vec::new();
    let nrows = 1 + usize::from(rng.chance(1, 3));
    for _ in 0..nrows {
        phases.push(Phase::Row(row(&mut rng, nprocs)));
    }
    for _ in 0..rng.below(3) {
        phases.push(Phase::Traffic(traffic(&mut rng, nprocs)));
    }
    if rng.chance(1, 4) {
        let from = rng.below(nprocs);
        let to = (from + 1 + rng.below(nprocs - 1)) % nprocs;
        phases.push(Phase::Steer(from, to));
    }
    for i in (1..phases.len()).rev() {
        phases.swap(i, rng.below(i + 1));
    }
    // The set sinks, from a stream of their own: the rest of the program
    // is what the seed gave before they existed.
    let mut sets = Rng::new(seed ^ 0x5e75_0f9e_e250_0000);
    for p in &mut phases {
        if let Phase::Row(r) = p {
            let near = r.sinks.iter().any(|k| k.near_miss());
            match sets.below(6) {
                0 | 1 => r.sinks.push(Sink::Set),
                2 | 3 if !near => r.sinks.push(Sink::SetOrder),
                _ => {}
            }
            r.sinks.sort();
        }
    }
    let barriers: Vec<bool> = phases.iter().map(|_| rng.chance(2, 3)).collect();
    let mut w = Writer::default();
    render(&mut w, seed, nprocs, &phases, &barriers);
    RowGenerated {
        seed,
        nprocs,
        source: w.out,
        barrier_lines: w.barriers,
        rows: phases
            .iter()
            .filter_map(|p| match p {
                Phase::Row(r) => Some((r.kind, r.sinks.clone())),
                _ => None,
            })
            .collect(),
        steered: phases.iter().any(|p| matches!(p, Phase::Steer(..))),
    }
}

fn row(rng: &mut Rng, nprocs: usize) -> Row {
    let recv = rng.below(nprocs);
    let kind = [
        RowKind::RecvLoop,
        RowKind::RecvUnrolled,
        RowKind::Waitany,
        RowKind::Dispatch,
    ][rng.below(4)];
    let tag = match kind {
        RowKind::Dispatch => None,
        _ if rng.chance(1, 2) => None,
        _ => Some(rng.below(2)),
    };
    let steps = rng.chance(1, 4);
    // The messages: every other rank may send, one or two each, up to a
    // total that keeps full exploration small.
    let max = if steps { 2 } else { 3 };
    let mut others: Vec<usize> = (0..nprocs).filter(|&r| r != recv).collect();
    for i in (1..others.len()).rev() {
        others.swap(i, rng.below(i + 1));
    }
    // At least two senders, so that the row has more than one order.
    let nsenders = 2 + rng.below(others.len() - 1);
    let (mut msgs, mut seconds) = (Vec::new(), Vec::new());
    for &s in &others[..nsenders] {
        let two = rng.chance(1, 3);
        let first = tag.unwrap_or_else(|| rng.below(2));
        msgs.push((s, first));
        if two {
            // Dispatch rows tell a sender's messages apart by tag.
            let second = if tag.is_none() { 1 - first } else { first };
            seconds.push((s, second));
        }
    }
    // Second messages are the first to go when the row is too long.
    msgs.extend(seconds);
    msgs.truncate(max);
    let mut sinks = Vec::new();
    for _ in 0..1 + rng.below(3) {
        let s = HARMLESS[rng.below(HARMLESS.len())];
        if !sinks.contains(&s) {
            sinks.push(s);
        }
    }
    if rng.chance(3, 5) {
        // Dispatch rows also have the comparand near-miss, one in three.
        if kind == RowKind::Dispatch && rng.chance(1, 3) {
            sinks.push(Sink::Comparand);
        } else {
            sinks.push(NEAR[rng.below(NEAR.len())]);
        }
    }
    sinks.sort();
    let senders: Vec<usize> = msgs.iter().map(|m| m.0).collect();
    let q = others[rng.below(others.len())];
    let late = if sinks.contains(&Sink::WildBranch) {
        // The late message of the wildcard the order decides on.
        let ls: Vec<usize> = others.iter().copied().filter(|&o| o != q).collect();
        Some((ls[rng.below(ls.len())], 40))
    } else if rng.chance(1, 3) {
        let from = others[rng.below(others.len())];
        // From a sender of the row, the late message must have a tag of
        // its own there, or the row would only ever take the earlier one.
        let t = match tag {
            Some(t) => t,
            None => 2 + rng.below(2),
        };
        (tag.is_none() || !senders.contains(&from)).then_some((from, t))
    } else {
        None
    };
    Row {
        nprocs,
        recv,
        kind,
        tag,
        isend: rng.chance(1, 2),
        q,
        p: senders[rng.below(senders.len())],
        count_by_data: rng.chance(1, 2),
        branch_tag: rng.chance(1, 2),
        exit: rng.chance(1, 2),
        counts: msgs.iter().map(|_| 1 + rng.below(2)).collect(),
        msgs,
        sinks,
        steps,
        late,
    }
}

fn traffic(rng: &mut Rng, nprocs: usize) -> Vec<(usize, usize, usize, bool)> {
    (0..1 + rng.below(nprocs))
        .map(|_| {
            let src = rng.below(nprocs);
            let dst = (src + 1 + rng.below(nprocs - 1)) % nprocs;
            (src, dst, rng.below(2), rng.chance(1, 3))
        })
        .collect()
}

#[derive(Default)]
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

    fn open(&mut self, s: &str) {
        self.line(s);
        self.indent += 1;
    }

    fn close(&mut self, s: &str) {
        self.indent -= 1;
        self.line(s);
    }

    fn barrier(&mut self) {
        self.line("MPI_Barrier(MPI_COMM_WORLD);");
        self.barriers.push(self.lines);
    }
}

/// The file a program's file sinks write.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Files {
    None,
    /// `tmpfile()`.
    Temporary,
    /// `fopen` of a file named by the seed and rank, in the working
    /// directory.
    Named,
}

fn render(w: &mut Writer, seed: u64, nprocs: usize, phases: &[Phase], barriers: &[bool]) {
    w.line(&format!("/* fib: -n {nprocs} */"));
    w.line(&format!(
        "/* Generated by tests/fibgen (rowgen.rs) from seed {seed}: {nprocs} ranks. */"
    ));
    w.line("#include <mpi.h>");
    w.line("#include <stdio.h>");
    w.line("#include <stdlib.h>");
    w.line("");
    let uses = |k: Sink| {
        phases
            .iter()
            .any(|p| matches!(p, Phase::Row(r) if r.sinks.contains(&k)))
    };
    w.line("int main(int argc, char **argv)");
    w.open("{");
    w.line("int rank, size, out, x = 0, back = 0, last = -1, first = -1, slot = 0, idx = 0;");
    w.line("int seen = 0, n_order = 0, local = 0, global = 0;");
    w.line("int in[16] = {0}, got[16] = {0}, hist[8] = {0}, order[8] = {0}, two[2] = {0};");
    w.line("long sum = 0;");
    w.line("MPI_Status st;");
    w.line("MPI_Request rq[8];");
    w.line("FILE *fp = NULL;");
    if uses(Sink::Set) || uses(Sink::SetOrder) {
        w.line("int peers[8] = {0}, known[8] = {0}, set_in[8] = {0}, n_peers = 0, n_known = 0, set_v = 0;");
    }
    w.line("MPI_Init(&argc, &argv);");
    w.line("MPI_Comm_rank(MPI_COMM_WORLD, &rank);");
    w.line("MPI_Comm_size(MPI_COMM_WORLD, &size);");
    w.line("out = rank + 1;");
    // A file read back is the rank's own (several runs of a program may
    // run at once); one only written may be a named file.
    let files = if uses(Sink::FileBack) || (uses(Sink::File) && seed.is_multiple_of(2)) {
        Files::Temporary
    } else if uses(Sink::File) {
        Files::Named
    } else {
        Files::None
    };
    if files == Files::Temporary {
        w.line("fp = tmpfile();");
    } else if files == Files::Named {
        w.line("char name[64];");
        w.line(&format!(
            "snprintf(name, sizeof name, \"rows_{seed:06}_%d.out\", rank);"
        ));
        w.line("fp = fopen(name, \"w\");");
    }
    for (k, phase) in phases.iter().enumerate() {
        match phase {
            Phase::Row(r) => render_row(w, r, k),
            Phase::Traffic(msgs) => render_traffic(w, nprocs, msgs),
            Phase::Steer(from, to) => {
                w.open(&format!("if (rank == {from}) {{"));
                w.line(&format!(
                    "MPI_Send(&out, 1, MPI_INT, {to}, 5, MPI_COMM_WORLD);"
                ));
                w.close(&format!("}} else if (rank == {to}) {{"));
                w.indent += 1;
                w.line(&format!(
                    "MPI_Recv(&x, 1, MPI_INT, {from}, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);"
                ));
                w.line("local = x % 3;");
                w.close("}");
                w.open("do {");
                w.line("MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);");
                w.line("if (local > 0)");
                w.line("    local--;");
                w.close("} while (global > 0);");
            }
        }
        // A row's barrier is in its own code (and loop); the other phases
        // end in one or not.
        if !matches!(phase, Phase::Row(_)) && barriers[k] {
            w.barrier();
        }
    }
    if files != Files::None {
        w.line("fclose(fp);");
    }
    w.line("(void)x; (void)back; (void)last; (void)first; (void)slot; (void)idx;");
    w.line("(void)seen; (void)n_order; (void)in; (void)got; (void)hist; (void)order;");
    w.line("(void)two; (void)sum; (void)st; (void)rq; (void)fp;");
    if uses(Sink::Set) || uses(Sink::SetOrder) {
        w.line(
            "(void)peers; (void)known; (void)set_in; (void)n_peers; (void)n_known; (void)set_v;",
        );
    }
    w.line("MPI_Finalize();");
    w.line("return 0;");
    w.close("}");
}

fn render_traffic(w: &mut Writer, nprocs: usize, msgs: &[(usize, usize, usize, bool)]) {
    let mut first = true;
    for r in 0..nprocs {
        let sends: Vec<_> = msgs.iter().filter(|m| m.0 == r).collect();
        let recvs: Vec<_> = msgs.iter().filter(|m| m.1 == r).collect();
        if sends.is_empty() && recvs.is_empty() {
            continue;
        }
        let kw = if first { "if" } else { "} else if" };
        first = false;
        w.line(&format!("{kw} (rank == {r}) {{"));
        w.indent += 1;
        let mut nreq = 0;
        for &&(_, dst, tag, blocking) in &sends {
            if blocking {
                w.line(&format!(
                    "MPI_Send(&out, 1, MPI_INT, {dst}, {}, MPI_COMM_WORLD);",
                    10 + tag
                ));
            } else {
                w.line(&format!(
                    "MPI_Isend(&out, 1, MPI_INT, {dst}, {}, MPI_COMM_WORLD, &rq[{nreq}]);",
                    10 + tag
                ));
                nreq += 1;
            }
        }
        for &&(src, _, tag, _) in &recvs {
            w.line(&format!(
                "MPI_Recv(&x, 1, MPI_INT, {src}, {}, MPI_COMM_WORLD, MPI_STATUS_IGNORE);",
                10 + tag
            ));
        }
        if nreq > 0 {
            w.line(&format!("MPI_Waitall({nreq}, rq, MPI_STATUSES_IGNORE);"));
        }
        w.indent -= 1;
    }
    if !first {
        w.line("}");
    }
}

/// The expressions a row's sinks read.
struct Exprs {
    data: String,
    src: &'static str,
    tag: &'static str,
}

fn render_row(w: &mut Writer, r: &Row, k: usize) {
    if r.steps {
        w.open("for (int step = 0; step < 2; step++) {");
    }
    let senders: Vec<usize> = {
        let mut s: Vec<usize> = r.msgs.iter().map(|m| m.0).collect();
        s.dedup();
        s
    };
    let sinks = &r.sinks;
    let has = |s: Sink| sinks.contains(&s);
    // The rank that receives a near-miss's message after the row.
    let q_gets = [
        Sink::Tag,
        Sink::Count,
        Sink::Branch,
        Sink::FileBack,
        Sink::WildBranch,
    ]
    .into_iter()
    .any(has);
    w.open(&format!("if (rank == {}) {{", r.recv));
    render_receiver(w, r, k);
    let mut others: Vec<usize> = senders.clone();
    if q_gets && !others.contains(&r.q) {
        others.push(r.q);
    }
    others.sort_unstable();
    for &o in &others {
        w.close(&format!("}} else if (rank == {o}) {{"));
        w.indent += 1;
        let mine: Vec<usize> = r.msgs.iter().filter(|m| m.0 == o).map(|m| m.1).collect();
        for (j, &t) in mine.iter().enumerate() {
            if r.isend {
                w.line(&format!(
                    "MPI_Isend(&out, 1, MPI_INT, {}, {t}, MPI_COMM_WORLD, &rq[{j}]);",
                    r.recv
                ));
            } else {
                w.line(&format!(
                    "MPI_Send(&out, 1, MPI_INT, {}, {t}, MPI_COMM_WORLD);",
                    r.recv
                ));
            }
        }
        if r.isend && !mine.is_empty() {
            w.line(&format!(
                "MPI_Waitall({}, rq, MPI_STATUSES_IGNORE);",
                mine.len()
            ));
        }
        if (has(Sink::Set) || has(Sink::SetOrder)) && !mine.is_empty() {
            // The set exchange: the receiver's message first, so that this
            // one is sent after the row (which could take it otherwise).
            w.line(&format!(
                "MPI_Recv(&set_v, 1, MPI_INT, {}, 110, MPI_COMM_WORLD, MPI_STATUS_IGNORE);",
                r.recv
            ));
            w.line(&format!(
                "MPI_Send(&out, 1, MPI_INT, {}, 110, MPI_COMM_WORLD);",
                r.recv
            ));
        }
        if has(Sink::Dest) {
            for _ in &mine {
                w.line(&format!(
                    "MPI_Recv(&x, 1, MPI_INT, {}, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE);",
                    r.recv
                ));
            }
        }
        if q_gets && o == r.q {
            let call = if has(Sink::WildBranch) {
                w.line(&format!(
                    "MPI_Recv(&x, 1, MPI_INT, {}, 41, MPI_COMM_WORLD, MPI_STATUS_IGNORE);",
                    r.recv
                ));
                format!(
                    "MPI_Send(&out, 1, MPI_INT, {}, 40, MPI_COMM_WORLD);",
                    r.recv
                )
            } else if has(Sink::Count) {
                format!(
                    "MPI_Recv(two, 2, MPI_INT, {}, 70, MPI_COMM_WORLD, MPI_STATUS_IGNORE);",
                    r.recv
                )
            } else if has(Sink::Branch) && !r.branch_tag {
                format!(
                    "MPI_Recv(&x, 1, MPI_INT, {}, 81, MPI_COMM_WORLD, MPI_STATUS_IGNORE);",
                    r.recv
                )
            } else {
                format!(
                    "MPI_Recv(&x, 1, MPI_INT, {}, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);",
                    r.recv
                )
            };
            w.line(&call);
        }
    }
    w.close("}");
    w.barrier();
    if let Some((from, t)) = r.late {
        w.open(&format!("if (rank == {from}) {{"));
        w.line(&format!(
            "MPI_Send(&out, 1, MPI_INT, {}, {t}, MPI_COMM_WORLD);",
            r.recv
        ));
        w.close(&format!("}} else if (rank == {}) {{", r.recv));
        w.indent += 1;
        w.line(&format!(
            "MPI_Recv(&x, 1, MPI_INT, {from}, {t}, MPI_COMM_WORLD, MPI_STATUS_IGNORE);"
        ));
        w.close("}");
    }
    if r.steps {
        w.close("}");
    }
}

fn render_receiver(w: &mut Writer, r: &Row, k: usize) {
    let n = r.msgs.len();
    let has = |s: Sink| r.sinks.contains(&s);
    let expected: usize = r.msgs.iter().map(|m| m.0 + 1).sum();
    w.line("seen = 0; sum = 0; n_order = 0; last = -1; first = -1; slot = 0;");
    let set = has(Sink::Set) || has(Sink::SetOrder);
    if set {
        // The senders this rank knows of, from rank and size.
        w.line("n_peers = 0;");
        w.line("n_known = 0;");
        let mut known: Vec<usize> = Vec::new();
        for m in &r.msgs {
            if !known.contains(&m.0) {
                known.push(m.0);
            }
        }
        for s in known {
            let d = (s + r.nprocs - r.recv) % r.nprocs;
            w.line(&format!("known[n_known++] = (rank + {d}) % size;"));
        }
    }
    if has(Sink::FileBack) {
        w.line("fseek(fp, 0, SEEK_SET);");
        w.line("fprintf(fp, \"%7d\\n%7d\\n\", 0, 0);");
    }
    let tag = r.tag.map_or("MPI_ANY_TAG".to_string(), |t| t.to_string());
    match r.kind {
        RowKind::RecvLoop => {
            w.open(&format!("for (int i = 0; i < {n}; i++) {{"));
            w.line(&format!(
                "MPI_Recv(&in[i], 1, MPI_INT, MPI_ANY_SOURCE, {tag}, MPI_COMM_WORLD, &st);"
            ));
            sinks(w, r, &Exprs::plain("in[i]"));
            w.close("}");
        }
        RowKind::RecvUnrolled => {
            for i in 0..n {
                w.line(&format!(
                    "MPI_Recv(&in[{i}], 1, MPI_INT, MPI_ANY_SOURCE, {tag}, MPI_COMM_WORLD, &st);"
                ));
                sinks(w, r, &Exprs::plain(&format!("in[{i}]")));
            }
        }
        RowKind::Waitany => {
            w.line(&format!("for (int i = 0; i < {n}; i++)"));
            w.line(&format!(
                "    MPI_Irecv(&in[i], 1, MPI_INT, MPI_ANY_SOURCE, {tag}, MPI_COMM_WORLD, &rq[i]);"
            ));
            w.open(&format!("for (int i = 0; i < {n}; i++) {{"));
            w.line(&format!("MPI_Waitany({n}, rq, &idx, &st);"));
            sinks(w, r, &Exprs::plain("in[idx]"));
            w.close("}");
        }
        RowKind::Dispatch => {
            // The senders' ranks, from rank and size.
            let mut senders: Vec<usize> = r.msgs.iter().map(|m| m.0).collect();
            senders.dedup();
            for (j, &s) in senders.iter().enumerate() {
                // Inside the receiver's branch, this is s.
                let d = (s + r.nprocs - r.recv) % r.nprocs;
                w.line(&format!("int p{k}_{j} = (rank + {d}) % size;"));
            }
            if has(Sink::Comparand) {
                w.line(&format!("int want{k} = -1;"));
            }
            w.open(&format!("for (int i = 0; i < {n}; i++) {{"));
            w.line("MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);");
            let mut kw = "if";
            if has(Sink::Comparand) {
                // The first sender's messages all go to one buffer with a
                // count of one: which sender that is depends on the order.
                w.line(&format!("if (want{k} < 0)"));
                w.line(&format!("    want{k} = st.MPI_SOURCE;"));
                w.open(&format!("if (st.MPI_SOURCE == want{k}) {{"));
                w.line(
                    "MPI_Recv(&in[12], 1, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);",
                );
                w.line("slot = 12;");
                w.indent -= 1;
                kw = "} else if";
            }
            for (b, &(s, t)) in r.msgs.iter().enumerate() {
                let j = senders.iter().position(|&x| x == s).unwrap();
                w.line(&format!(
                    "{kw} (st.MPI_SOURCE == p{k}_{j} && st.MPI_TAG == {t}) {{"
                ));
                w.indent += 1;
                w.line(&format!(
                    "MPI_Recv(&in[{}], {}, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);",
                    2 * b,
                    r.counts[b]
                ));
                w.line(&format!("slot = {};", 2 * b));
                w.indent -= 1;
                kw = "} else if";
            }
            w.open("} else {");
            w.line("MPI_Abort(MPI_COMM_WORLD, 1);");
            w.close("}");
            sinks(w, r, &Exprs::plain("in[slot]"));
            w.close("}");
        }
    }
    // After the row: first the set exchange, which the senders wait for
    // before anything else.
    if set {
        w.open("for (int j = 0; j < n_peers; j++) {");
        w.line("int found = 0;");
        w.line("for (int m = 0; m < n_known; m++)");
        w.line("    if (known[m] == peers[j])");
        w.line("        found = 1;");
        w.line("if (!found)");
        w.line("    known[n_known++] = peers[j];");
        w.close("}");
        w.line("for (int m = 0; m < n_known; m++)");
        w.line("    MPI_Irecv(&set_in[m], 1, MPI_INT, known[m], 110, MPI_COMM_WORLD, &rq[m]);");
        w.open("for (int m = 0; m < n_known; m++) {");
        if has(Sink::SetOrder) {
            // The peer's first place in the arrival order.
            w.line("for (set_v = 0; peers[set_v] != known[m]; set_v++)");
            w.line("    ;");
        } else {
            w.line("set_v = 100 * rank + known[m];");
        }
        w.line("MPI_Send(&set_v, 1, MPI_INT, known[m], 110, MPI_COMM_WORLD);");
        w.close("}");
        w.line("MPI_Waitall(n_known, rq, MPI_STATUSES_IGNORE);");
    }
    if has(Sink::Counter) {
        w.line(&format!(
            "printf(\"rank %d: row {k} took %d messages\\n\", rank, seen);"
        ));
    }
    if has(Sink::Sum) {
        w.line(&format!("if (sum != {expected})"));
        w.line(&format!(
            "    printf(\"rank %d: row {k} sum %ld, not {expected}\\n\", rank, sum);"
        ));
    }
    if has(Sink::File) {
        w.line("fflush(fp);");
    }
    if has(Sink::Dest) {
        w.line("for (int j = 0; j < n_order; j++)");
        w.line("    MPI_Send(&out, 1, MPI_INT, order[j], 50, MPI_COMM_WORLD);");
    }
    if has(Sink::Tag) {
        w.line(&format!(
            "MPI_Send(&out, 1, MPI_INT, {}, 60 + last, MPI_COMM_WORLD);",
            r.q
        ));
    }
    if has(Sink::Count) {
        let cond = if r.count_by_data {
            "last % 2".to_string()
        } else {
            format!("(first == {})", r.p)
        };
        w.line(&format!(
            "MPI_Send(in, 1 + {cond}, MPI_INT, {}, 70, MPI_COMM_WORLD);",
            r.q
        ));
    }
    if has(Sink::Branch) {
        w.line(&format!("if (last == {})", r.p));
        if r.branch_tag {
            w.line(&format!(
                "    MPI_Send(&out, 1, MPI_INT, {}, 82, MPI_COMM_WORLD);",
                r.q
            ));
            w.line("else");
            w.line(&format!(
                "    MPI_Send(&out, 1, MPI_INT, {}, 83, MPI_COMM_WORLD);",
                r.q
            ));
        } else {
            w.line(&format!(
                "    MPI_Send(&out, 1, MPI_INT, {}, 81, MPI_COMM_WORLD);",
                r.q
            ));
            w.line("else");
            w.line(&format!(
                "    MPI_Ssend(&out, 1, MPI_INT, {}, 81, MPI_COMM_WORLD);",
                r.q
            ));
        }
    }
    if has(Sink::WildBranch) {
        w.line(&format!(
            "MPI_Send(&out, 1, MPI_INT, {}, 41, MPI_COMM_WORLD);",
            r.q
        ));
        w.line(&format!("if (last == {})", r.p));
        w.line(
            "    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE);",
        );
        w.line("else");
        w.line(&format!(
            "    MPI_Recv(&x, 1, MPI_INT, {}, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE);",
            r.q
        ));
    }
    if has(Sink::FileBack) {
        w.line("fflush(fp);");
        w.line("fseek(fp, 0, SEEK_SET);");
        w.line("if (fscanf(fp, \"%d\", &back) != 1)");
        w.line("    back = 0;");
        w.line(&format!(
            "MPI_Send(&out, 1, MPI_INT, {}, 90 + back, MPI_COMM_WORLD);",
            r.q
        ));
    }
}

impl Exprs {
    fn plain(data: &str) -> Exprs {
        Exprs {
            data: data.to_string(),
            src: "st.MPI_SOURCE",
            tag: "st.MPI_TAG",
        }
    }
}

/// The code after each receive of a row.
fn sinks(w: &mut Writer, r: &Row, e: &Exprs) {
    let (d, s, t) = (&e.data, e.src, e.tag);
    for &sink in &r.sinks {
        match sink {
            Sink::Hist => w.line(&format!("hist[{s}] += 1;")),
            Sink::Slot => w.line(&format!("got[({s} * 2 + {t}) % 16] = {d};")),
            Sink::Counter => w.line("seen++;"),
            Sink::Print => w.line(&format!(
                "printf(\"rank %d: %d from %d tag %d\\n\", rank, {d}, {s}, {t});"
            )),
            Sink::File => {
                w.line(&format!(
                    "fseek(fp, (long)({s} * 4 + {t} % 4) * 8, SEEK_SET);"
                ));
                w.line(&format!("fprintf(fp, \"%7d\\n\", {d});"));
            }
            Sink::Sum => w.line(&format!("sum += {d};")),
            Sink::Dest => w.line(&format!("order[n_order++] = {s};")),
            Sink::Tag | Sink::Branch | Sink::WildBranch => w.line(&format!("last = {s};")),
            Sink::Count => {
                if r.count_by_data {
                    w.line(&format!("last = {d};"));
                } else {
                    w.line("if (first < 0)");
                    w.line(&format!("    first = {s};"));
                }
            }
            Sink::Abort => {
                if r.exit {
                    w.line(&format!("if ({s} == rank)"));
                    w.line("    exit(3);");
                } else {
                    w.line(&format!("if ({d} <= 0 || {d} > size)"));
                    w.line("    MPI_Abort(MPI_COMM_WORLD, 2);");
                }
            }
            Sink::Comparand => {}
            Sink::Set | Sink::SetOrder => w.line(&format!("peers[n_peers++] = {s};")),
            Sink::FileBack => {
                w.line(&format!("fseek(fp, (long)({t} % 2) * 8, SEEK_SET);"));
                w.line(&format!("fprintf(fp, \"%7d\\n\", {s});"));
            }
        }
    }
}
