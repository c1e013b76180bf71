//! The Fib pass: finds, in one interleaving POE explored, the barrier match
//! sets that order a wildcard receive and a send that could otherwise match
//! it.
//!
//! Its input is what [`poe::engine::Engine`] recorded for the run: every
//! rank's operations in program order and the match sets it fired. From them
//! it builds the completes-before graph:
//!
//! - IntraCB, inside a rank: a fence (blocking receive, wait, probe,
//!   collective, synchronous or unbuffered blocking send, `MPI_Finalize`)
//!   comes before everything its rank issues after it; two sends to one
//!   destination with one tag on one communicator keep their order; two
//!   receives on one communicator that could take the same message keep their
//!   order (the earlier one a wildcard or both from one source, with tags that
//!   meet); a nonblocking operation comes before the wait that completes it.
//!   A nonblocking collective (`MPI_Ibarrier`, ...) is no fence: the call
//!   that completes it (a wait, or a test that returned it) is, and waits
//!   for its match set.
//! - InterCB, across a match set: each collective gets a node that every
//!   member's call reaches and that reaches everything each member's call
//!   reaches in its own rank (so the collective orders ranks only through
//!   that node; a nonblocking collective's node reaches the call that
//!   completes it instead); a send comes before the receive (or probe) it matched; a
//!   receive comes before what follows the synchronous send it matched. What
//!   follows a buffered send does not wait for its receive.
//!
//! The rule (the paper's): for a wildcard receive R and a send S to R's rank
//! on R's communicator with a tag R accepts (other than the send R got), if
//! R reaches S and every such path goes through one barrier group's match
//! sets, that barrier is what keeps S from matching R: it is relevant, and
//! R, S and the path are its witness. A barrier no pair needs in any
//! interleaving is irrelevant. The paper also checks S reaching R; against
//! the definition by removal (the first invariant in `ARCHITECTURE.md`:
//! deleting an irrelevant group changes neither the wildcard matches nor the
//! errors) that direction only gives false positives (a send ordered before
//! a receive can still match it), and the random-program comparison showed
//! them, so it is left out. Like the engine, the pass is pure: no I/O.
//!
//! The pass stays near-linear in the run's size:
//!
//! - The graph keeps only edges that are not implied by others through
//!   operations alone (so that removing a barrier group's nodes cuts exactly
//!   the paths it cut before): a receive is ordered after the latest earlier
//!   receive of each kind (communicator, source, tag) it could share a message
//!   with, and an any-tag receive after the ones since the previous any-tag
//!   receive of its source. Nodes are dense ids, edges one flat array.
//! - The rivals of every wildcard come from per-channel lists of the sends to
//!   its rank, walked once per rank as its receives take them.
//! - For each wildcard one sweep in topological order from the receive gives
//!   every node it reaches the barrier groups that all its paths from the
//!   receive pass through (the intersection over its predecessors). A group
//!   in a rival's set is relevant. The sweep ends when every rival is
//!   resolved, or when no group still undecided can show up any more.
//! - A witness path is the shortest path from the receive to the send, looked
//!   for only once per relevant group, within the sweep's window.

#![forbid(unsafe_code)]

pub mod memory;

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};

use fib_wire::ANY;
use poe::engine::{CollWhat, Exchange, Fired, FiredList, Kind, OpId, OpRec, Ops, Peer, WinSync};

/// A node of the completes-before graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    /// An operation.
    Op(OpId),
    /// A collective match set: the position of its `Fired::Collective` in
    /// the run's fired list.
    Collective(usize),
}

/// One barrier match set found relevant, with its witness.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relevant {
    /// The position of the barrier's `Fired::Collective` in the fired list.
    pub barrier: usize,
    /// The wildcard receive (or probe).
    pub recv: OpId,
    /// The send that could have matched it without the barrier.
    pub send: OpId,
    /// The completes-before path between them through the barrier, from the
    /// earlier of the two to the later.
    pub path: Vec<Node>,
}

/// What the pass found in one interleaving.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Analysis {
    /// Every barrier match set of the run: its position in the fired list
    /// and its members' calls.
    pub barriers: Vec<(usize, Vec<OpId>)>,
    /// The relevant ones, each once, with the first witness found.
    pub relevant: Vec<Relevant>,
}

/// No node, no group.
const NONE: u32 = u32::MAX;

/// The completes-before graph of one run over dense node ids: the
/// operations rank by rank in program order, then one node per collective
/// match set. Successors are stored in the order the edges were added.
struct Graph {
    /// The id of each rank's first operation; the last entry is the number
    /// of operations.
    offset: Vec<usize>,
    /// The fired-list position of each collective node.
    colls: Vec<usize>,
    /// The collective node of each fired-list position (`NONE` for the
    /// other match sets).
    coll_node: Vec<u32>,
    /// Where each node's successors start in `succ`.
    start: Vec<u32>,
    succ: Vec<u32>,
}

impl Graph {
    fn id(&self, o: OpId) -> u32 {
        (self.offset[o.rank] + o.index) as u32
    }

    fn ops(&self) -> usize {
        self.offset[self.offset.len() - 1]
    }

    fn len(&self) -> usize {
        self.start.len() - 1
    }

    fn node(&self, v: u32) -> Node {
        let v = v as usize;
        if v >= self.ops() {
            return Node::Collective(self.colls[v - self.ops()]);
        }
        let rank = self.offset.partition_point(|&o| o <= v) - 1;
        Node::Op(OpId {
            rank,
            index: v - self.offset[rank],
        })
    }

    fn succ(&self, v: u32) -> &[u32] {
        &self.succ[self.start[v as usize] as usize..self.start[v as usize + 1] as usize]
    }

    /// A topological order of the nodes (Kahn's, first in first out), or
    /// `None` if the graph has a cycle.
    fn topological(&self) -> Option<Vec<u32>> {
        let n = self.len();
        let mut indeg = vec![0u32; n];
        for &w in &self.succ {
            indeg[w as usize] += 1;
        }
        let mut order: Vec<u32> = (0..n as u32).filter(|&v| indeg[v as usize] == 0).collect();
        let mut head = 0;
        while head < order.len() {
            let v = order[head];
            head += 1;
            for &w in self.succ(v) {
                indeg[w as usize] -= 1;
                if indeg[w as usize] == 0 {
                    order.push(w);
                }
            }
        }
        (order.len() == n).then_some(order)
    }
}

fn is_fence(op: &OpRec) -> bool {
    match &op.kind {
        Kind::Send { req, sync, .. } => req.is_none() && *sync,
        Kind::Recv { blocking, .. } => *blocking,
        Kind::Wait { test, .. } => !test,
        Kind::Probe { blocking, .. } => *blocking,
        Kind::Coll { req, .. } => req.is_none(),
        Kind::Finalize => true,
        // One-sided: the calls that wait (a start for its posts, a wait for
        // its completes, a lock for its grant) order what follows; the
        // communication calls, posts, completes, unlocks and flushes return
        // at once.
        Kind::Win { sync, .. } => matches!(
            sync,
            WinSync::Start { .. }
                | WinSync::Wait { test: false }
                | WinSync::Lock { .. }
                | WinSync::LockAll
        ),
        Kind::Rma(_) => false,
        // `MPI_Cancel` is local.
        Kind::CommFree { .. }
        | Kind::RequestFree { .. }
        | Kind::RequestInit { .. }
        | Kind::Cancel { .. } => false,
    }
}

/// The receives of one rank seen so far, kept so that each new receive is
/// ordered after every earlier receive it could share a message with (on
/// its communicator, the earlier one a wildcard or from its source, with
/// tags that meet) through few edges: from the latest receive of each kind,
/// each of which is ordered after the earlier ones of its kind.
#[derive(Default)]
struct RecvOrder {
    /// The latest receive of each (communicator, source, tag).
    latest: HashMap<(u32, Peer, i32), u32>,
    /// Per communicator and source other than a wildcard: the receives since
    /// the latest any-tag receive of that source, that one included.
    since: HashMap<(u32, Peer), Vec<u32>>,
    /// Per communicator: the wildcard-source receives since the latest
    /// wildcard any-tag one, that one included.
    wild: HashMap<u32, Vec<u32>>,
}

impl RecvOrder {
    fn add(&mut self, j: u32, comm: u32, src: Peer, tag: i32, edges: &mut Vec<(u32, u32)>) {
        let latest = |s: Peer, t: i32| self.latest.get(&(comm, s, t)).copied();
        let wild_any = latest(Peer::Any, ANY);
        let mut from: Vec<u32> = Vec::new();
        match (src, tag == ANY) {
            (Peer::Any, true) => {
                // Every earlier wildcard: the latest any-tag one covers those
                // before it.
                let log = self.wild.entry(comm).or_default();
                from.append(log);
                log.push(j);
            }
            (Peer::Any, false) => {
                from.extend([latest(Peer::Any, tag), wild_any].into_iter().flatten());
                self.wild.entry(comm).or_default().push(j);
            }
            (_, false) => {
                from.extend(
                    [
                        latest(Peer::Any, tag),
                        wild_any,
                        latest(src, tag),
                        latest(src, ANY),
                    ]
                    .into_iter()
                    .flatten(),
                );
                self.since.entry((comm, src)).or_default().push(j);
            }
            (_, true) => {
                // Every receive of the source since its latest any-tag one,
                // and the wildcards that one does not cover.
                let own_any = latest(src, ANY);
                let since = self.since.entry((comm, src)).or_default();
                from.append(since);
                since.push(j);
                if let Some(log) = self.wild.get(&comm) {
                    let lo = own_any.max(wild_any);
                    let first = lo.map_or(0, |lo| log.partition_point(|&x| x < lo));
                    from.extend_from_slice(&log[first..]);
                }
            }
        }
        edges.extend(from.into_iter().map(|i| (i, j)));
        self.latest.insert((comm, src, tag), j);
    }
}

/// Builds the completes-before graph of a run.
fn build(ops: &[Ops], fired: &FiredList) -> Graph {
    let mut offset = Vec::with_capacity(ops.len() + 1);
    let mut n_ops = 0;
    for list in ops {
        offset.push(n_ops);
        n_ops += list.len();
    }
    offset.push(n_ops);
    let mut coll_node = vec![NONE; fired.len()];
    let mut colls = Vec::new();
    for (k, f) in fired.iter().enumerate() {
        if let Fired::Collective { .. } = f {
            coll_node[k] = (n_ops + colls.len()) as u32;
            colls.push(k);
        }
    }
    let id = |o: &OpId| (offset[o.rank] + o.index) as u32;
    // The collective node each collective call belongs to: what follows the
    // call (up to its rank's next fence) waits for all the members.
    let mut member_of = vec![NONE; n_ops];
    // Likewise what follows a blocking synchronous send waits for the
    // receive that matched it.
    let mut sync_recv = vec![NONE; n_ops];
    // The completion calls of each nonblocking synchronous send, with their
    // fired-list positions.
    let mut completions: HashMap<u32, Vec<(usize, u32)>> = HashMap::new();
    // The calls that completed a nonblocking collective: each waits for its
    // match set, and orders what its rank does next (a test that returned
    // it too).
    let mut coll_done: Vec<(u32, u32)> = Vec::new();
    let mut fences_too: Vec<bool> = vec![false; n_ops];
    for (k, f) in fired.iter().enumerate() {
        match f {
            Fired::Collective { ops: members } => {
                for m in members {
                    member_of[id(m) as usize] = coll_node[k];
                }
            }
            Fired::SendRecv { send, recv, .. } => {
                if let Kind::Send {
                    sync: true,
                    req: None,
                    ..
                } = ops[send.rank][send.index].kind
                {
                    sync_recv[id(send) as usize] = id(recv);
                }
            }
            Fired::Completion { op, completed } => {
                for c in completed {
                    match ops[c.rank][c.index].kind {
                        Kind::Send {
                            sync: true,
                            req: Some(_),
                            ..
                        } => completions.entry(id(c)).or_default().push((k, id(op))),
                        Kind::Coll { req: Some(_), .. } => {
                            coll_done.push((id(c), id(op)));
                            fences_too[id(op) as usize] = true;
                        }
                        _ => {}
                    }
                }
            }
            Fired::Probe { .. } | Fired::Sync { .. } => {}
        }
    }
    let mut edges: Vec<(u32, u32)> = Vec::with_capacity(3 * n_ops);
    for (rank, list) in ops.iter().enumerate() {
        let base = offset[rank] as u32;
        let mut last_fence: Option<u32> = None;
        let mut last_send: HashMap<(u32, usize, i32), u32> = HashMap::new();
        let mut recvs = RecvOrder::default();
        for (j, op) in list.iter().enumerate() {
            let j = base + j as u32;
            if let Some(f) = last_fence {
                edges.push((f, j));
                let c = member_of[f as usize];
                if c != NONE {
                    edges.push((c, j));
                }
                let r = sync_recv[f as usize];
                if r != NONE {
                    edges.push((r, j));
                }
            }
            match &op.kind {
                Kind::Send {
                    dst: Peer::Rank(d),
                    tag,
                    comm,
                    ..
                } => {
                    if let Some(i) = last_send.insert((*comm, *d, *tag), j) {
                        edges.push((i, j));
                    }
                }
                Kind::Recv { src, tag, comm, .. } => recvs.add(j, *comm, *src, *tag, &mut edges),
                _ => {}
            }
            if is_fence(op) || fences_too[j as usize] {
                last_fence = Some(j);
            }
        }
    }
    for (k, f) in fired.iter().enumerate() {
        match f {
            Fired::Collective { ops: members } => {
                for m in members {
                    edges.push((id(m), coll_node[k]));
                }
            }
            Fired::SendRecv { send, recv, .. } => {
                edges.push((id(send), id(recv)));
                // The wait that completes a nonblocking synchronous send
                // waits for the match.
                for &(k2, w) in completions.get(&id(send)).into_iter().flatten() {
                    if k2 >= k {
                        edges.push((id(recv), w));
                    }
                }
            }
            Fired::Probe { probe, send } => edges.push((id(send), id(probe))),
            Fired::Sync { from, to } => {
                for f in from {
                    edges.push((id(f), id(to)));
                }
            }
            Fired::Completion { op, completed } => {
                for c in completed {
                    edges.push((id(c), id(op)));
                }
            }
        }
    }
    for (c, w) in coll_done {
        let node = member_of[c as usize];
        if node != NONE {
            edges.push((node, w));
        }
    }
    edges.retain(|(a, b)| a != b);
    // Flat adjacency, each node's successors in the order they were added.
    let n = n_ops + colls.len();
    let mut start = vec![0u32; n + 1];
    for &(a, _) in &edges {
        start[a as usize + 1] += 1;
    }
    for v in 0..n {
        start[v + 1] += start[v];
    }
    let mut fill: Vec<u32> = start[..n].to_vec();
    let mut succ = vec![0u32; edges.len()];
    for &(a, b) in &edges {
        succ[fill[a as usize] as usize] = b;
        fill[a as usize] += 1;
    }
    Graph {
        offset,
        colls,
        coll_node,
        start,
        succ,
    }
}

/// Whether a collective match set (its members' operations) is a barrier.
pub fn is_barrier(ops: &[Ops], members: &[OpId]) -> bool {
    members.first().is_some_and(|m| {
        matches!(
            ops[m.rank][m.index].kind,
            Kind::Coll {
                what: CollWhat::Coll { kind, .. },
                ..
            } if kind.is_barrier()
        )
    })
}

/// The communicator and tag of a wildcard receive or probe.
fn wildcard(op: &OpRec) -> Option<(u32, i32)> {
    match op.kind {
        Kind::Recv {
            src: Peer::Any,
            tag,
            comm,
            ..
        }
        | Kind::Probe {
            src: Peer::Any,
            tag,
            comm,
            ..
        } => Some((comm, tag)),
        _ => None,
    }
}

/// One sender's sends to one rank on one communicator (with one tag, or
/// any), in program order, and the first one no receive before the current
/// wildcard took.
struct Chan {
    sender: usize,
    sends: Vec<u32>,
    next: usize,
}

/// The sends of the run that could match each wildcard receive or probe
/// (to its rank, on its communicator, with a tag it accepts), except the one
/// it got and those an earlier receive of its rank took. Non-overtaking: the
/// receive gets its sender's earliest send it accepts that no earlier
/// receive took, so of each sender only that one is a rival, and none when
/// that one is the receive's own. Asked for the wildcards rank by rank in
/// program order, it walks every list once.
struct Rivals {
    /// Per (destination, communicator, tag or `None` for any), one channel
    /// per sender, by sender.
    chans: HashMap<(usize, u32, Option<i32>), Vec<Chan>>,
    /// Per destination rank: the sends its receives took, by the index of
    /// the receive.
    takers: Vec<Vec<(usize, u32)>>,
    /// The sends taken by a receive before the current wildcard.
    taken: Vec<bool>,
    rank: usize,
    cursor: usize,
    /// Rivals a receive of an exchangeable block has in the other orders
    /// of the block that the run stands for: when earlier receives of the
    /// block take all of a sender's messages in it, that sender's next one.
    /// (The block's own sends are issued before its receives' choices, so no
    /// receive of the block reaches them.)
    extra: HashMap<OpId, Vec<u32>>,
}

impl Rivals {
    fn new(g: &Graph, ops: &[Ops]) -> Rivals {
        let mut chans: HashMap<(usize, u32, Option<i32>), Vec<Chan>> = HashMap::new();
        let mut takers = vec![Vec::new(); ops.len()];
        for (rank, list) in ops.iter().enumerate() {
            for (index, s) in list.iter().enumerate() {
                let Kind::Send {
                    dst: Peer::Rank(d),
                    tag,
                    comm,
                    ..
                } = s.kind
                else {
                    continue;
                };
                let v = g.id(OpId { rank, index });
                for key in [(d, comm, Some(tag)), (d, comm, None)] {
                    let list = chans.entry(key).or_default();
                    match list.last_mut() {
                        Some(c) if c.sender == rank => c.sends.push(v),
                        _ => list.push(Chan {
                            sender: rank,
                            sends: vec![v],
                            next: 0,
                        }),
                    }
                }
                if let Some(m) = s.matched.filter(|m| m.rank == d) {
                    if let Some(t) = takers.get_mut(d) {
                        t.push((m.index, v));
                    }
                }
            }
        }
        for t in &mut takers {
            t.sort_unstable();
        }
        Rivals {
            chans,
            takers,
            taken: vec![false; g.ops()],
            rank: 0,
            cursor: 0,
            extra: HashMap::new(),
        }
    }

    /// Adds the rivals the block receives of `exchanges` have in the orders
    /// of their blocks that this run did not take.
    fn exchanged(&mut self, g: &Graph, ops: &[Ops], exchanges: &[Exchange]) {
        for x in exchanges {
            // The receives of a block share their communicator and tag, so
            // they share these rivals.
            let Some(&first) = x.recvs.first() else {
                continue;
            };
            let Some((comm, tag)) = wildcard(&ops[first.rank][first.index]) else {
                continue;
            };
            let key = (first.rank, comm, (tag != ANY).then_some(tag));
            let Some(list) = self.chans.get(&key) else {
                continue;
            };
            // A sender's next message after its last one in the block is a
            // rival of every receive that comes after as many receives as the
            // block has of its messages: in some order those took them all.
            for (s, (i, m)) in x.sends.iter().zip(x.places()) {
                if i + 1 < m {
                    continue;
                }
                let v = g.id(*s);
                let next = list.iter().filter(|c| c.sender == s.rank).find_map(|c| {
                    let at = c.sends.iter().position(|&w| w == v)?;
                    c.sends.get(at + 1).copied()
                });
                if let Some(next) = next {
                    for &r in &x.recvs[m..] {
                        self.extra.entry(r).or_default().push(next);
                    }
                }
            }
        }
    }

    /// The rivals of the wildcard `r`, in program order of their ranks.
    /// Wildcards must come rank by rank, each rank's in program order.
    fn of(&mut self, g: &Graph, ops: &[Ops], r: OpId) -> Vec<u32> {
        let op = &ops[r.rank][r.index];
        let Some((comm, tag)) = wildcard(op) else {
            return Vec::new();
        };
        if r.rank != self.rank {
            self.rank = r.rank;
            self.cursor = 0;
        }
        let takers = &self.takers[r.rank];
        while self.cursor < takers.len() && takers[self.cursor].0 < r.index {
            self.taken[takers[self.cursor].1 as usize] = true;
            self.cursor += 1;
        }
        let own = op.matched.map(|m| g.id(m));
        let key = (r.rank, comm, (tag != ANY).then_some(tag));
        let mut out = Vec::new();
        for c in self.chans.get_mut(&key).into_iter().flatten() {
            while c.next < c.sends.len() && self.taken[c.sends[c.next] as usize] {
                c.next += 1;
            }
            if let Some(&s) = c.sends.get(c.next) {
                if own != Some(s) {
                    out.push(s);
                }
            }
        }
        for &s in self.extra.get(&r).into_iter().flatten() {
            if !out.contains(&s) {
                out.push(s);
            }
        }
        out
    }
}

/// Whether receive `a` comes before receive `b` because they could take
/// the same message (the ordering the graph keeps through fewer edges).
fn recv_before(ops: &[Ops], a: OpId, b: OpId) -> bool {
    let (
        Kind::Recv {
            src: s0,
            tag: t0,
            comm: c0,
            ..
        },
        Kind::Recv { src, tag, comm, .. },
    ) = (&ops[a.rank][a.index].kind, &ops[b.rank][b.index].kind)
    else {
        return false;
    };
    a.rank == b.rank
        && a.index < b.index
        && c0 == comm
        && (*s0 == Peer::Any || s0 == src)
        && (*t0 == ANY || *tag == ANY || t0 == tag)
}

/// A path with its runs of one rank's receives shortened: from a receive
/// straight to the last later receive on the run it comes before, as a
/// graph with every receive-order edge would give it.
fn shortcut(g: &Graph, ops: &[Ops], path: Vec<u32>) -> Vec<u32> {
    let mut out = Vec::with_capacity(path.len());
    let mut a = 0;
    while a < path.len() {
        out.push(path[a]);
        let mut next = a + 1;
        if let Node::Op(x) = g.node(path[a]) {
            for (b, &v) in path.iter().enumerate().skip(a + 1) {
                match g.node(v) {
                    Node::Op(y) if y.rank == x.rank => {
                        if recv_before(ops, x, y) {
                            next = b;
                        }
                    }
                    _ => break,
                }
            }
        }
        a = next;
    }
    out
}

/// Breadth-first search over the graph with reusable marks.
struct Bfs {
    seen: Vec<u32>,
    parent: Vec<u32>,
    stamp: u32,
    queue: VecDeque<u32>,
}

impl Bfs {
    fn new(n: usize) -> Bfs {
        Bfs {
            seen: vec![0; n],
            parent: vec![NONE; n],
            stamp: 0,
            queue: VecDeque::new(),
        }
    }

    /// A shortest path from `from` to `to` through nodes `keep` accepts.
    fn path(
        &mut self,
        g: &Graph,
        from: u32,
        to: u32,
        keep: impl Fn(u32) -> bool,
    ) -> Option<Vec<u32>> {
        self.stamp += 1;
        self.queue.clear();
        self.seen[from as usize] = self.stamp;
        self.parent[from as usize] = NONE;
        self.queue.push_back(from);
        while let Some(x) = self.queue.pop_front() {
            if x == to {
                let mut path = vec![to];
                let mut cur = to;
                while self.parent[cur as usize] != NONE {
                    cur = self.parent[cur as usize];
                    path.push(cur);
                }
                path.reverse();
                return Some(path);
            }
            // The latest edge first, as the graph had them before.
            for &y in g.succ(x).iter().rev() {
                if self.seen[y as usize] != self.stamp && keep(y) {
                    self.seen[y as usize] = self.stamp;
                    self.parent[y as usize] = x;
                    self.queue.push_back(y);
                }
            }
        }
        None
    }
}

/// Runs the pass on one interleaving, each barrier match set its own group.
pub fn analyze(ops: &[Ops], fired: &FiredList) -> Analysis {
    analyze_grouped(ops, fired, &|members: &[OpId]| members[0])
}

/// Runs the pass on one interleaving. `group` names the barrier group of a
/// barrier match set (from its members' calls): deleting a group deletes all
/// its match sets, so a group is relevant when a pair has a path only through
/// its match sets, together.
pub fn analyze_grouped<K: Copy + Eq + std::hash::Hash>(
    ops: &[Ops],
    fired: &FiredList,
    group: &dyn Fn(&[OpId]) -> K,
) -> Analysis {
    analyze_exchanged(ops, fired, &[], group)
}

/// [`analyze_grouped`] for a run that stands for the other orders of its
/// exchangeable blocks ([`Exchange`]): a block receive's rivals are those it
/// has in any order of its block. Which receives of the block take a
/// sender's messages decides whether that sender's next message is a rival
/// of the later receives; everything else the pass looks at (the paths out
/// of a receive, along its rank's program order) is the same in every order.
pub fn analyze_exchanged<K: Copy + Eq + std::hash::Hash>(
    ops: &[Ops],
    fired: &FiredList,
    exchanges: &[Exchange],
    group: &dyn Fn(&[OpId]) -> K,
) -> Analysis {
    let barriers: Vec<(usize, Vec<OpId>)> = fired
        .iter()
        .enumerate()
        .filter_map(|(k, f)| match f {
            Fired::Collective { ops: m } if is_barrier(ops, m) => Some((k, m.clone())),
            _ => None,
        })
        .collect();
    let mut out = Analysis {
        barriers,
        relevant: Vec::new(),
    };
    let wildcards: Vec<OpId> = ops
        .iter()
        .enumerate()
        .flat_map(|(rank, list)| {
            list.iter()
                .enumerate()
                .filter_map(move |(index, op)| wildcard(op).map(|_| OpId { rank, index }))
        })
        .collect();
    // Without wildcards no barrier can change a match.
    if wildcards.is_empty() || out.barriers.is_empty() {
        return out;
    }
    let g = build(ops, fired);
    // Dense group ids, and the group of each collective node (`NONE` for
    // collectives that are not barriers).
    let mut ids: HashMap<K, u32> = HashMap::new();
    let mut group_of = vec![NONE; g.colls.len()];
    for (k, m) in &out.barriers {
        let next = ids.len() as u32;
        let gid = *ids.entry(group(m)).or_insert(next);
        group_of[g.coll_node[*k] as usize - g.ops()] = gid;
    }
    let mut pass = Pass {
        group_of,
        done: vec![false; ids.len()],
        left: ids.len(),
        bfs: Bfs::new(g.len()),
        relevant: Vec::new(),
        g: &g,
    };
    let mut rivals = Rivals::new(&g, ops);
    rivals.exchanged(&g, ops, exchanges);
    match g.topological() {
        Some(order) => pass.sweeps(ops, &wildcards, &mut rivals, &order),
        // The runs POE records give no cycles; should one appear, each pair
        // is decided on its own.
        None => pass.pairs(ops, &wildcards, &mut rivals),
    }
    out.relevant = pass.relevant;
    out.relevant.sort_by_key(|r| r.barrier);
    out
}

/// The state of the pass over one run's wildcards.
struct Pass<'g> {
    g: &'g Graph,
    /// The group of each collective node, by its position among them.
    group_of: Vec<u32>,
    /// The groups already found relevant, and how many are not.
    done: Vec<bool>,
    left: usize,
    bfs: Bfs,
    relevant: Vec<Relevant>,
}

impl Pass<'_> {
    /// The group of node `v`, if it is a barrier match set.
    fn group(&self, v: u32) -> Option<u32> {
        let c = (v as usize).checked_sub(self.g.ops())?;
        Some(self.group_of[c]).filter(|&x| x != NONE)
    }

    /// Records the groups of `must` (those every path from `r` to `s`
    /// passes) that are not yet relevant, with `path` as their witness: each
    /// names its first match set on the path.
    fn record(&mut self, r: u32, s: u32, path: &[u32], must: impl Fn(u32) -> bool) {
        for &v in path {
            let Some(gid) = self.group(v) else { continue };
            if self.done[gid as usize] || !must(gid) {
                continue;
            }
            self.done[gid as usize] = true;
            self.left -= 1;
            let (Node::Op(recv), Node::Op(send)) = (self.g.node(r), self.g.node(s)) else {
                unreachable!("receives and sends are operations")
            };
            self.relevant.push(Relevant {
                barrier: match self.g.node(v) {
                    Node::Collective(k) => k,
                    Node::Op(_) => unreachable!("groups are collective nodes"),
                },
                recv,
                send,
                path: path.iter().map(|&x| self.g.node(x)).collect(),
            });
        }
    }

    /// One sweep per wildcard over the acyclic graph (`order` topological).
    fn sweeps(&mut self, ops: &[Ops], wildcards: &[OpId], rivals: &mut Rivals, order: &[u32]) {
        let g = self.g;
        let n = g.len();
        let mut pos = vec![0u32; n];
        for (p, &v) in order.iter().enumerate() {
            pos[v as usize] = p as u32;
        }
        // Groups by the position of their last match set, latest first: the
        // first one not yet relevant says how far an undecided group can
        // still come.
        let mut last_of = vec![0u32; self.done.len()];
        for (v, &p) in pos.iter().enumerate().skip(g.ops()) {
            if let Some(gid) = self.group(v as u32) {
                last_of[gid as usize] = last_of[gid as usize].max(p);
            }
        }
        let mut by_last: Vec<(u32, u32)> = last_of
            .iter()
            .enumerate()
            .map(|(gid, &p)| (p, gid as u32))
            .collect();
        by_last.sort_unstable_by(|a, b| b.cmp(a));
        let mut undecided = 0;
        // Per node: the sweep that reached it, the groups every path from
        // the sweep's receive to it passes (sorted), and whether it is a
        // rival of the receive.
        let mut reached = vec![0u32; n];
        let mut must: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut target = vec![0u32; n];
        let mut heap: BinaryHeap<Reverse<u32>> = BinaryHeap::new();
        let mut carry: Vec<u32> = Vec::new();
        for (sweep, &r) in (1u32..).zip(wildcards) {
            if self.left == 0 {
                break;
            }
            let rv = g.id(r);
            let found = rivals.of(g, ops, r);
            // A rival before the receive in topological order is not reached.
            let targets: Vec<u32> = found
                .iter()
                .copied()
                .filter(|&s| pos[s as usize] > pos[rv as usize])
                .collect();
            let Some(bound) = targets.iter().map(|&s| pos[s as usize]).max() else {
                continue;
            };
            while self.done[by_last[undecided].1 as usize] {
                undecided += 1;
            }
            let ahead = by_last[undecided].0;
            for &s in &targets {
                target[s as usize] = sweep;
            }
            let mut unresolved = targets.len();
            // What the sweep found for each rival it reached.
            let mut hits: Vec<(u32, Vec<u32>)> = Vec::new();
            heap.clear();
            reached[rv as usize] = sweep;
            must[rv as usize].clear();
            heap.push(Reverse(pos[rv as usize]));
            // Reached nodes not yet swept that carry a group.
            let mut live = 0usize;
            while let Some(Reverse(p)) = heap.pop() {
                let v = order[p as usize];
                carry.clear();
                carry.extend_from_slice(&must[v as usize]);
                if !carry.is_empty() {
                    live -= 1;
                }
                if target[v as usize] == sweep {
                    hits.push((v, carry.clone()));
                    unresolved -= 1;
                    if unresolved == 0 {
                        break;
                    }
                }
                if let Some(gid) = self.group(v).filter(|&x| !self.done[x as usize]) {
                    if let Err(at) = carry.binary_search(&gid) {
                        carry.insert(at, gid);
                    }
                }
                for &w in g.succ(v) {
                    let wu = w as usize;
                    // Nothing later than the last rival can reach one.
                    if pos[wu] > bound {
                        continue;
                    }
                    if reached[wu] != sweep {
                        reached[wu] = sweep;
                        must[wu].clear();
                        must[wu].extend_from_slice(&carry);
                        if !carry.is_empty() {
                            live += 1;
                        }
                        heap.push(Reverse(pos[wu]));
                    } else if !must[wu].is_empty() {
                        must[wu].retain(|x| carry.binary_search(x).is_ok());
                        if must[wu].is_empty() {
                            live -= 1;
                        }
                    }
                }
                // No node still to sweep carries a group, and no match set of
                // an undecided group is left: no rival can get one.
                if live == 0 && ahead <= p {
                    break;
                }
            }
            // The rivals in their order, as the witnesses should come.
            hits.sort_unstable_by_key(|h| h.0);
            for s in found {
                let Ok(h) = hits.binary_search_by_key(&s, |h| h.0) else {
                    continue;
                };
                let groups = &hits[h].1;
                if !groups.iter().any(|&x| !self.done[x as usize]) {
                    continue;
                }
                let limit = pos[s as usize];
                let path = self
                    .bfs
                    .path(g, rv, s, |y| pos[y as usize] <= limit)
                    .expect("the sweep reached the rival");
                let path = shortcut(g, ops, path);
                self.record(rv, s, &path, |gid| groups.binary_search(&gid).is_ok());
            }
        }
    }

    /// Each (wildcard, rival) pair on its own: a path, and for each group on
    /// it whether avoiding the group's match sets leaves none.
    fn pairs(&mut self, ops: &[Ops], wildcards: &[OpId], rivals: &mut Rivals) {
        let g = self.g;
        for &r in wildcards {
            let rv = g.id(r);
            for s in rivals.of(g, ops, r) {
                if self.left == 0 {
                    return;
                }
                let Some(path) = self.bfs.path(g, rv, s, |_| true) else {
                    continue;
                };
                let path = shortcut(g, ops, path);
                let mut must = Vec::new();
                for &v in &path {
                    let Some(gid) = self.group(v) else { continue };
                    if self.done[gid as usize] || must.contains(&gid) {
                        continue;
                    }
                    let group_of = &self.group_of;
                    let ops_n = g.ops();
                    let avoid =
                        |y: u32| (y as usize) < ops_n || group_of[y as usize - ops_n] != gid;
                    if self.bfs.path(g, rv, s, avoid).is_none() {
                        must.push(gid);
                    }
                }
                self.record(rv, s, &path, |gid| must.contains(&gid));
            }
        }
    }
}
