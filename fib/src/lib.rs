//! The Fib pass: finds, in one interleaving POE explored, the barrier match
//! sets that order a wildcard receive and a send that could otherwise match
//! it.
//!
//! Its input is what [`poe::engine::Engine`] recorded for the run: every
//! rank's operations in program order and the match sets it fired. From them
//! it builds the completes-before graph (with `petgraph`):
//!
//! - IntraCB, inside a rank: a fence (blocking receive, wait, probe,
//!   collective, synchronous or unbuffered blocking send, `MPI_Finalize`)
//!   comes before everything its rank issues after it; two sends to one
//!   destination with one tag on one communicator keep their order; two
//!   receives on one communicator that could take the same message keep their
//!   order (the earlier one a wildcard or both from one source, with tags that
//!   meet); a nonblocking operation comes before the wait that completes it.
//! - InterCB, across a match set: each collective gets a node that every
//!   member's call reaches and that reaches everything each member's call
//!   reaches in its own rank (so the collective orders ranks only through
//!   that node); a send comes before the receive (or probe) it matched; a
//!   receive comes before what follows the synchronous send it matched. What follows a buffered send does not wait
//!   for its receive.
//!
//! The rule (the paper's): for a wildcard receive R and a send S to R's rank
//! on R's communicator with a tag R accepts (other than the send R got), if
//! R reaches S and every such path goes through one barrier group's match
//! sets, that barrier is what keeps S from matching R: it is relevant, and
//! R, S and the path are its witness. A barrier no pair needs in any
//! interleaving is irrelevant. The paper also checks S reaching R; against
//! the definition by removal (DESIGN §4) that direction only gives false
//! positives (a send ordered before a receive can still match it), and the
//! random-program comparison showed them, so it is left out. Like the engine, the pass is pure: no I/O.

use std::collections::{HashMap, HashSet, VecDeque};

use fib_wire::{CollKind, ANY};
use petgraph::graph::{DiGraph, NodeIndex};
use poe::engine::{CollWhat, Fired, Kind, OpId, OpRec, Peer};

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

/// The completes-before graph of one run.
pub struct CbGraph {
    pub graph: DiGraph<Node, ()>,
    index: HashMap<Node, NodeIndex>,
}

impl CbGraph {
    fn node(&mut self, n: Node) -> NodeIndex {
        if let Some(&i) = self.index.get(&n) {
            return i;
        }
        let i = self.graph.add_node(n);
        self.index.insert(n, i);
        i
    }

    fn edge(&mut self, a: Node, b: Node) {
        let (a, b) = (self.node(a), self.node(b));
        if a != b {
            self.graph.update_edge(a, b, ());
        }
    }

    /// The graph node of `n`, if it is in the graph.
    pub fn get(&self, n: Node) -> Option<NodeIndex> {
        self.index.get(&n).copied()
    }

    /// A shortest path from `from` to `to` through none of `avoid`, if any.
    pub fn path(&self, from: Node, to: Node, avoid: &[Node]) -> Option<Vec<Node>> {
        let (s, t) = (self.get(from)?, self.get(to)?);
        let skip: HashSet<NodeIndex> = avoid.iter().filter_map(|a| self.get(*a)).collect();
        let mut parent: HashMap<NodeIndex, NodeIndex> = HashMap::new();
        let mut seen: HashSet<NodeIndex> = HashSet::from([s]);
        let mut queue = VecDeque::from([s]);
        while let Some(x) = queue.pop_front() {
            if x == t {
                let mut path = vec![self.graph[t]];
                let mut cur = t;
                while let Some(&p) = parent.get(&cur) {
                    path.push(self.graph[p]);
                    cur = p;
                }
                path.reverse();
                return Some(path);
            }
            for y in self.graph.neighbors(x) {
                if !skip.contains(&y) && seen.insert(y) {
                    parent.insert(y, x);
                    queue.push_back(y);
                }
            }
        }
        None
    }
}

fn is_fence(op: &OpRec) -> bool {
    match &op.kind {
        Kind::Send { req, sync, .. } => req.is_none() && *sync,
        Kind::Recv { blocking, .. } => *blocking,
        Kind::Wait { test, .. } => !test,
        Kind::Probe { blocking, .. } => *blocking,
        Kind::Coll { .. } | Kind::Finalize => true,
        Kind::CommFree { .. } => false,
    }
}

fn tags_meet(a: i32, b: i32) -> bool {
    a == ANY || b == ANY || a == b
}

/// Builds the completes-before graph of a run.
pub fn cb_graph(ops: &[Vec<OpRec>], fired: &[Fired]) -> CbGraph {
    let mut g = CbGraph {
        graph: DiGraph::new(),
        index: HashMap::new(),
    };
    // The collective match set each collective call belongs to: what follows
    // the call (up to its rank's next fence) waits for all the members.
    let mut member_of: HashMap<OpId, usize> = HashMap::new();
    // Likewise what follows a blocking synchronous send waits for the
    // receive that matched it.
    let mut sync_recv: HashMap<OpId, OpId> = HashMap::new();
    for (k, f) in fired.iter().enumerate() {
        match f {
            Fired::Collective { ops: members } => {
                for m in members {
                    member_of.insert(*m, k);
                }
            }
            Fired::SendRecv { send, recv, .. } => {
                if let Kind::Send {
                    sync: true,
                    req: None,
                    ..
                } = ops[send.rank][send.index].kind
                {
                    sync_recv.insert(*send, *recv);
                }
            }
            _ => {}
        }
    }
    for (rank, list) in ops.iter().enumerate() {
        let id = |index| Node::Op(OpId { rank, index });
        let mut last_fence: Option<usize> = None;
        let mut last_send: HashMap<(u32, usize, i32), usize> = HashMap::new();
        let mut recvs: Vec<usize> = Vec::new();
        for (j, op) in list.iter().enumerate() {
            g.node(id(j));
            if let Some(f) = last_fence {
                g.edge(id(f), id(j));
                let fence = OpId { rank, index: f };
                if let Some(&k) = member_of.get(&fence) {
                    g.edge(Node::Collective(k), id(j));
                }
                if let Some(&r) = sync_recv.get(&fence) {
                    g.edge(Node::Op(r), id(j));
                }
            }
            match &op.kind {
                Kind::Send {
                    dst: Peer::Rank(d),
                    tag,
                    comm,
                    ..
                } => {
                    if let Some(&i) = last_send.get(&(*comm, *d, *tag)) {
                        g.edge(id(i), id(j));
                    }
                    last_send.insert((*comm, *d, *tag), j);
                }
                Kind::Recv { src, tag, comm, .. } => {
                    for &i in &recvs {
                        let Kind::Recv {
                            src: s0,
                            tag: t0,
                            comm: c0,
                            ..
                        } = list[i].kind
                        else {
                            continue;
                        };
                        let same_source = s0 == Peer::Any || s0 == *src;
                        if c0 == *comm && same_source && tags_meet(t0, *tag) {
                            g.edge(id(i), id(j));
                        }
                    }
                    recvs.push(j);
                }
                _ => {}
            }
            if is_fence(op) {
                last_fence = Some(j);
            }
        }
    }
    for (k, f) in fired.iter().enumerate() {
        match f {
            Fired::Collective { ops: members } => {
                let c = Node::Collective(k);
                for m in members {
                    g.edge(Node::Op(*m), c);
                }
            }
            Fired::SendRecv { send, recv, .. } => {
                g.edge(Node::Op(*send), Node::Op(*recv));
                let s = &ops[send.rank][send.index];
                if let Kind::Send {
                    sync: true,
                    req: Some(_),
                    ..
                } = s.kind
                {
                    // The wait that completes a nonblocking synchronous send
                    // waits for the match.
                    for f2 in &fired[k..] {
                        if let Fired::Completion { op, completed } = f2 {
                            if completed.contains(send) {
                                g.edge(Node::Op(*recv), Node::Op(*op));
                            }
                        }
                    }
                }
            }
            Fired::Probe { probe, send } => g.edge(Node::Op(*send), Node::Op(*probe)),
            Fired::Completion { op, completed } => {
                for c in completed {
                    g.edge(Node::Op(*c), Node::Op(*op));
                }
            }
        }
    }
    g
}

/// Whether a collective match set (its members' operations) is a barrier.
pub fn is_barrier(ops: &[Vec<OpRec>], members: &[OpId]) -> bool {
    members.first().is_some_and(|m| {
        matches!(
            ops[m.rank][m.index].kind,
            Kind::Coll {
                what: CollWhat::Coll {
                    kind: CollKind::Barrier,
                    ..
                },
                ..
            }
        )
    })
}

/// The sends of the run that could match the wildcard receive or probe `r`
/// (to its rank, on its communicator, with a tag it accepts), except the
/// one it got and those an earlier receive of its rank took (non-overtaking
/// gives those to the earlier receive whatever the barriers do).
fn rivals(ops: &[Vec<OpRec>], r: OpId) -> Vec<OpId> {
    let op = &ops[r.rank][r.index];
    let (comm, tag) = match op.kind {
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
        } => (comm, tag),
        _ => return Vec::new(),
    };
    let mut out = Vec::new();
    for (rank, list) in ops.iter().enumerate() {
        for (index, s) in list.iter().enumerate() {
            if let Kind::Send {
                dst: Peer::Rank(d),
                tag: t,
                comm: c,
                ..
            } = s.kind
            {
                let id = OpId { rank, index };
                let taken_earlier =
                    |m: Option<OpId>| m.is_some_and(|m| m.rank == r.rank && m.index < r.index);
                if d != r.rank
                    || c != comm
                    || !(tag == ANY || tag == t)
                    || op.matched == Some(id)
                    || taken_earlier(s.matched)
                {
                    continue;
                }
                // Non-overtaking: the receive gets its sender's earliest send
                // it accepts that no earlier receive took. An earlier such
                // send left for this receive (or later ones) means this one
                // can never be its match.
                let shadowed = list[..index].iter().any(|e| {
                    matches!(e.kind, Kind::Send { dst: Peer::Rank(d2), tag: t2, comm: c2, .. }
                        if d2 == r.rank && c2 == comm && (tag == ANY || tag == t2))
                        && !taken_earlier(e.matched)
                });
                if !shadowed {
                    out.push(id);
                }
            }
        }
    }
    out
}

/// Runs the pass on one interleaving, each barrier match set its own group.
pub fn analyze(ops: &[Vec<OpRec>], fired: &[Fired]) -> Analysis {
    analyze_grouped(ops, fired, &|members: &[OpId]| members[0])
}

/// Runs the pass on one interleaving. `group` names the barrier group of a
/// barrier match set (from its members' calls): deleting a group deletes all
/// its match sets, so a group is relevant when a pair has a path only through
/// its match sets, together.
pub fn analyze_grouped<K: Copy + Eq + std::hash::Hash>(
    ops: &[Vec<OpRec>],
    fired: &[Fired],
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
            list.iter().enumerate().filter_map(move |(index, op)| {
                matches!(
                    op.kind,
                    Kind::Recv { src: Peer::Any, .. } | Kind::Probe { src: Peer::Any, .. }
                )
                .then_some(OpId { rank, index })
            })
        })
        .collect();
    // Without wildcards no barrier can change a match.
    if wildcards.is_empty() || out.barriers.is_empty() {
        return out;
    }
    let g = cb_graph(ops, fired);
    let group_of: HashMap<usize, K> = out.barriers.iter().map(|(k, m)| (*k, group(m))).collect();
    let mut done: HashSet<K> = HashSet::new();
    for &r in &wildcards {
        for s in rivals(ops, r) {
            // Only R before S can keep S away from R: a send ordered before
            // the receive can still match it, and any other receive that
            // takes it is either earlier (not a rival) or an alternative POE
            // explores anyway.
            for (a, b) in [(Node::Op(r), Node::Op(s))] {
                let Some(path) = g.path(a, b, &[]) else {
                    continue;
                };
                // A group on this path is relevant when avoiding all of its
                // match sets leaves no path at all.
                for n in &path {
                    let Node::Collective(k) = *n else { continue };
                    let Some(&gk) = group_of.get(&k) else {
                        continue;
                    };
                    if done.contains(&gk) {
                        continue;
                    }
                    let avoid: Vec<Node> = group_of
                        .iter()
                        .filter(|(_, &x)| x == gk)
                        .map(|(&k2, _)| Node::Collective(k2))
                        .collect();
                    if g.path(a, b, &avoid).is_none() {
                        done.insert(gk);
                        out.relevant.push(Relevant {
                            barrier: k,
                            recv: r,
                            send: s,
                            path: path.clone(),
                        });
                    }
                }
            }
        }
    }
    out.relevant.sort_by_key(|r| r.barrier);
    out
}
