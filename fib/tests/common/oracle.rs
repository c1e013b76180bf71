//! The Fib pass as it was before it was made near-linear, kept as the
//! oracle the current pass is compared with: a `petgraph` completes-before
//! graph with every receive-order edge, and for every (wildcard, rival) pair
//! a breadth-first search, again per barrier group on its path with the
//! group's match sets left out. Quadratic or worse in the run's size, so
//! only for small runs.

#![allow(dead_code)]

use std::collections::{HashMap, HashSet, VecDeque};

use fib::{Analysis, Node, Relevant};
use fib_wire::{CollKind, ANY};
use petgraph::graph::{DiGraph, NodeIndex};
use poe::engine::{CollWhat, Fired, FiredList, Kind, OpId, OpRec, Ops, Peer};

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
        Kind::Coll { req, .. } => req.is_none(),
        Kind::Finalize => true,
        Kind::Win { sync, .. } => matches!(
            sync,
            poe::engine::WinSync::Start { .. }
                | poe::engine::WinSync::Wait { test: false }
                | poe::engine::WinSync::Lock { .. }
                | poe::engine::WinSync::LockAll
        ),
        Kind::Rma(_) => false,
        Kind::CommFree { .. }
        | Kind::RequestFree { .. }
        | Kind::RequestInit { .. }
        | Kind::Cancel { .. } => false,
    }
}

fn tags_meet(a: i32, b: i32) -> bool {
    a == ANY || b == ANY || a == b
}

/// Builds the completes-before graph of a run.
pub fn cb_graph(ops: &[Ops], fired: &FiredList) -> CbGraph {
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
    // The calls that completed a nonblocking collective: fences, like waits,
    // even when they are tests.
    let mut completes_coll: std::collections::HashSet<OpId> = Default::default();
    for (k, f) in fired.iter().enumerate() {
        match f {
            Fired::Completion { op, completed }
                if completed.iter().any(|c| {
                    matches!(ops[c.rank][c.index].kind, Kind::Coll { req: Some(_), .. })
                }) =>
            {
                completes_coll.insert(*op);
            }
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
            if is_fence(op) || completes_coll.contains(&OpId { rank, index: j }) {
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
            Fired::Sync { from, to } => {
                for f in from {
                    g.edge(Node::Op(*f), Node::Op(*to));
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
                    for f2 in fired.iter_from(k) {
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
                    // A nonblocking collective's match set comes before the
                    // call that completes it.
                    if let (Kind::Coll { req: Some(_), .. }, Some(&k)) =
                        (&ops[c.rank][c.index].kind, member_of.get(c))
                    {
                        g.edge(Node::Collective(k), Node::Op(*op));
                    }
                }
            }
        }
    }
    g
}

/// Whether a collective match set (its members' operations) is a barrier.
pub fn is_barrier(ops: &[Ops], members: &[OpId]) -> bool {
    members.first().is_some_and(|m| {
        matches!(
            ops[m.rank][m.index].kind,
            Kind::Coll {
                what: CollWhat::Coll {
                    kind: CollKind::Barrier | CollKind::Ibarrier,
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
fn rivals(ops: &[Ops], r: OpId) -> Vec<OpId> {
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
                let shadowed = list.range(0..index).any(|e| {
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
