//! The happens-before order MPI's synchronisation gives one interleaving, as
//! an explicit graph.
//!
//! Nodes are the events of every rank (dense ids, rank by rank in program
//! order), then one node per collective match set and per fence match set.
//! An edge `x → y` says that `x` returns before `y` returns; a path is the
//! order. The edges:
//!
//! - program order: each event to the next of its rank; in a rank that had
//!   several threads ([`Threads`]), each event to the next of its thread,
//!   and the events another thread's event names as before it to that
//!   event;
//! - a collective or fence match set: each member's call to the set's node,
//!   the node to what follows each member's call;
//! - a matched message: the send to the completion of its receive;
//! - PSCW: a `Post` to the `Start` of each origin it exposes the window to
//!   (the k-th post of a target that names an origin with the k-th start of
//!   that origin that names the target), and that start's `Complete` to the
//!   post's `Wait`;
//! - passive target: in each target's grant order, the `Unlock` of an epoch
//!   to the `Lock` of the next epoch that conflicts with it (an exclusive
//!   epoch after the shared ones since the last exclusive one, or after that
//!   exclusive one; a shared epoch after the last exclusive one).
//!
//! Flushes, `Win_sync` and request completions add no edge: they say when an
//! RMA call's effect is over (`effects`), not how ranks are ordered.
//! Vector clocks over a topological order, one entry per thread of each
//! rank (a lane), answer [`Order::ordered`] in constant time;
//! [`Order::ordered_without`] searches the graph with some nodes taken out,
//! for the question whether a pair is ordered only through some match
//! sets.

use std::collections::{HashMap, HashSet, VecDeque};

use super::record::{Event, EventId, InputError, Rank, Run, Threads, Win};

/// Match sets and messages taken out of a run's order: what deleting a
/// barrier group takes away (its blocking calls' match sets, and the
/// messages that stand for a nonblocking barrier's synchronisation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Removed {
    /// `Event::Collective` sets.
    pub sets: HashSet<u32>,
    /// `Event::Send`/`Event::Recv` messages.
    pub msgs: HashSet<u32>,
}

impl Removed {
    pub fn is_empty(&self) -> bool {
        self.sets.is_empty() && self.msgs.is_empty()
    }
}

/// A node of the order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Node {
    /// An event of a rank.
    Event(EventId),
    /// The match set of the collectives that share this `set`.
    Collective(u32),
    /// The `nth` fence (from 0) of the window's group.
    Fence { win: Win, nth: usize },
}

/// The order of one run.
#[derive(Clone, Debug)]
pub struct Order {
    /// The id of each rank's first event; the last entry is the number of
    /// events.
    offset: Vec<usize>,
    /// The match-set nodes after the events, in id order.
    sets: Vec<Node>,
    /// The dense id of each match-set node.
    set_id: HashMap<Node, u32>,
    /// Where each node's successors start in `succ`.
    start: Vec<u32>,
    succ: Vec<u32>,
    /// Each node's place in a topological order.
    position: Vec<u32>,
    lanes: Lanes,
    /// Per node, per lane: one more than the place of the latest event of
    /// that lane ordered before it or equal to it (0: none).
    clocks: Vec<u32>,
}

/// The lanes of a run's events and each event's predecessors in its rank,
/// by dense event id.
#[derive(Clone, Debug)]
struct Lanes {
    /// Each event's lane (a rank, or one thread of a rank that had several)
    /// and its place in the lane.
    lane: Vec<u32>,
    lane_pos: Vec<u32>,
    /// How many lanes there are.
    count: usize,
    /// Where each event's predecessors in its rank start in `pred`.
    pred_start: Vec<u32>,
    pred: Vec<u32>,
}

impl Lanes {
    /// The predecessors in its rank of the event `v`.
    fn preds(&self, v: usize) -> &[u32] {
        &self.pred[self.pred_start[v] as usize..self.pred_start[v + 1] as usize]
    }

    fn of(run: &Run, offset: &[usize]) -> Result<Lanes, InputError> {
        let n = offset[offset.len() - 1];
        let mut l = Lanes {
            lane: Vec::with_capacity(n),
            lane_pos: Vec::with_capacity(n),
            count: 0,
            pred_start: Vec::with_capacity(n + 1),
            pred: Vec::with_capacity(n),
        };
        l.pred_start.push(0);
        for (rank, events) in run.ranks.iter().enumerate() {
            let base = offset[rank] as u32;
            match run.threads_of(rank) {
                None => {
                    for index in 0..events.len() {
                        l.lane.push(l.count as u32);
                        l.lane_pos.push(index as u32);
                        if index > 0 {
                            l.pred.push(base + index as u32 - 1);
                        }
                        l.pred_start.push(l.pred.len() as u32);
                    }
                    l.count += 1;
                }
                Some(t) => l.threads(rank, events.len(), base, t)?,
            }
        }
        Ok(l)
    }

    fn threads(
        &mut self,
        rank: Rank,
        len: usize,
        base: u32,
        t: &Threads,
    ) -> Result<(), InputError> {
        if t.thread.len() != len || t.after.len() != len {
            return Err(InputError::BadThreads {
                at: EventId { rank, index: 0 },
            });
        }
        // Per thread: its lane, how many events it has so far, its last.
        let mut seen: HashMap<u32, (u32, u32, Option<usize>)> = HashMap::new();
        for index in 0..len {
            let next = self.count as u32;
            let entry = seen
                .entry(t.thread[index])
                .or_insert_with(|| (next, 0, None));
            if entry.0 == next {
                self.count += 1;
            }
            self.lane.push(entry.0);
            self.lane_pos.push(entry.1);
            entry.1 += 1;
            if let Some(prev) = entry.2.replace(index) {
                self.pred.push(base + prev as u32);
            }
            for &a in &t.after[index] {
                if a >= index {
                    return Err(InputError::BadThreads {
                        at: EventId { rank, index },
                    });
                }
                self.pred.push(base + a as u32);
            }
            self.pred_start.push(self.pred.len() as u32);
        }
        Ok(())
    }
}

fn check_rank(run: &Run, at: EventId, rank: Rank) -> Result<(), InputError> {
    if rank < run.ranks.len() {
        Ok(())
    } else {
        Err(InputError::UnknownRank { at, rank })
    }
}

fn check_win(run: &Run, at: EventId, win: Win) -> Result<(), InputError> {
    if (win.0 as usize) < run.windows.len() {
        Ok(())
    } else {
        Err(InputError::UnknownWindow { at, win })
    }
}

/// Checks every window and rank an event names.
fn check_event(run: &Run, at: EventId, e: &Event) -> Result<(), InputError> {
    match e {
        Event::Load(p) | Event::Store(p) | Event::Buffer { place: p, .. } => {
            if let super::record::Place::Window { win, rank, .. } = *p {
                check_win(run, at, win)?;
                check_rank(run, at, rank)?;
            }
        }
        Event::Rma(r) => {
            check_win(run, at, r.win)?;
            check_rank(run, at, r.target)?;
        }
        Event::Post {
            win,
            origins: peers,
        }
        | Event::Start {
            win,
            targets: peers,
        } => {
            check_win(run, at, *win)?;
            for &p in peers {
                check_rank(run, at, p)?;
            }
        }
        Event::Lock { win, target, .. } | Event::Unlock { win, target } => {
            check_win(run, at, *win)?;
            check_rank(run, at, *target)?;
        }
        Event::Flush { win, target, .. } => {
            check_win(run, at, *win)?;
            if let super::record::FlushTarget::One(t) = *target {
                check_rank(run, at, t)?;
            }
        }
        Event::Fence { win }
        | Event::Complete { win }
        | Event::Wait { win }
        | Event::LockAll { win }
        | Event::UnlockAll { win }
        | Event::WinSync { win } => check_win(run, at, *win)?,
        Event::Collective { .. }
        | Event::Send { .. }
        | Event::Recv { .. }
        | Event::WaitReq { .. } => {}
    }
    Ok(())
}

/// The edges of a run while they are collected.
struct Builder {
    offset: Vec<usize>,
    sets: Vec<Node>,
    set_id: HashMap<Node, u32>,
    edges: Vec<(u32, u32)>,
}

impl Builder {
    fn id(&self, e: EventId) -> u32 {
        (self.offset[e.rank] + e.index) as u32
    }

    fn events(&self) -> usize {
        self.offset[self.offset.len() - 1]
    }

    fn set(&mut self, n: Node) -> u32 {
        let next = (self.events() + self.sets.len()) as u32;
        *self.set_id.entry(n).or_insert_with(|| {
            self.sets.push(n);
            next
        })
    }

    fn edge(&mut self, from: EventId, to: EventId) {
        let (a, b) = (self.id(from), self.id(to));
        self.edges.push((a, b));
    }

    /// `member` joins the match set `n`: it is called before the set
    /// returns, and what follows it in its rank follows the set
    /// ([`Order::build_without`] adds those edges with program order).
    fn join(&mut self, joined: &mut [Option<u32>], member: EventId, n: Node) {
        let s = self.set(n);
        let m = self.id(member);
        self.edges.push((m, s));
        joined[m as usize] = Some(s);
    }
}

/// The lock epoch a `Lock` or `LockAll` opens: its unlock, if the rank made
/// it.
pub(super) fn unlocks(run: &Run) -> HashMap<EventId, Option<EventId>> {
    let mut out = HashMap::new();
    for (rank, events) in run.ranks.iter().enumerate() {
        let mut open: HashMap<(Win, Option<Rank>), EventId> = HashMap::new();
        for (index, e) in events.iter().enumerate() {
            let at = EventId { rank, index };
            match *e {
                Event::Lock { win, target, .. } => {
                    open.insert((win, Some(target)), at);
                    out.insert(at, None);
                }
                Event::LockAll { win } => {
                    open.insert((win, None), at);
                    out.insert(at, None);
                }
                Event::Unlock { win, target } => {
                    if let Some(l) = open.remove(&(win, Some(target))) {
                        out.insert(l, Some(at));
                    }
                }
                Event::UnlockAll { win } => {
                    if let Some(l) = open.remove(&(win, None)) {
                        out.insert(l, Some(at));
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// The next event of `rank` from `from` on that is `is`.
fn next_where(run: &Run, rank: Rank, from: usize, is: impl Fn(&Event) -> bool) -> Option<EventId> {
    run.ranks[rank][from..]
        .iter()
        .position(is)
        .map(|i| EventId {
            rank,
            index: from + i,
        })
}

impl Order {
    /// Builds the order of `run`, checking that every name in it resolves.
    pub fn build(run: &Run) -> Result<Order, InputError> {
        Order::build_without(run, &Removed::default())
    }

    /// Builds the order of `run` as if the match sets and messages in
    /// `removed` were not there: their events stay, in program order, but
    /// order nothing across ranks. That is the order the same interleaving
    /// has once a barrier group's calls are deleted.
    pub fn build_without(run: &Run, removed: &Removed) -> Result<Order, InputError> {
        let mut offset = vec![0];
        for events in &run.ranks {
            offset.push(offset[offset.len() - 1] + events.len());
        }
        let lanes = Lanes::of(run, &offset)?;
        let mut joined: Vec<Option<u32>> = vec![None; offset[offset.len() - 1]];
        let mut b = Builder {
            offset,
            sets: Vec::new(),
            set_id: HashMap::new(),
            edges: Vec::new(),
        };
        let mut sends: HashMap<u32, EventId> = HashMap::new();
        let mut recvs: Vec<(EventId, u32)> = Vec::new();
        // (win, target, origin) -> posts and starts, in order.
        type Pscw = HashMap<(Win, Rank, Rank), Vec<(EventId, Option<EventId>)>>;
        let mut posts: Pscw = HashMap::new();
        let mut starts: Pscw = HashMap::new();
        for (rank, events) in run.ranks.iter().enumerate() {
            let mut fences: HashMap<Win, usize> = HashMap::new();
            for (index, e) in events.iter().enumerate() {
                let at = EventId { rank, index };
                check_event(run, at, e)?;
                match e {
                    Event::Collective { set } if !removed.sets.contains(set) => {
                        b.join(&mut joined, at, Node::Collective(*set))
                    }
                    Event::Fence { win } => {
                        let nth = fences.entry(*win).or_insert(0);
                        b.join(
                            &mut joined,
                            at,
                            Node::Fence {
                                win: *win,
                                nth: *nth,
                            },
                        );
                        *nth += 1;
                    }
                    Event::Send { msg } if sends.insert(*msg, at).is_some() => {
                        return Err(InputError::DuplicateMessage { at, msg: *msg });
                    }
                    Event::Recv { msg } => recvs.push((at, *msg)),
                    Event::Post { win, origins } => {
                        let wait = next_where(
                            run,
                            rank,
                            index + 1,
                            |e| matches!(e, Event::Wait { win: w } if w == win),
                        );
                        for &o in origins {
                            posts.entry((*win, rank, o)).or_default().push((at, wait));
                        }
                    }
                    Event::Start { win, targets } => {
                        let complete = next_where(
                            run,
                            rank,
                            index + 1,
                            |e| matches!(e, Event::Complete { win: w } if w == win),
                        );
                        for &t in targets {
                            starts
                                .entry((*win, t, rank))
                                .or_default()
                                .push((at, complete));
                        }
                    }
                    _ => {}
                }
            }
        }
        // Program order: each event after its predecessors in its rank,
        // and after the match sets they join.
        for v in 0..joined.len() {
            for &p in lanes.preds(v) {
                b.edges.push((p, v as u32));
                if let Some(s) = joined[p as usize] {
                    b.edges.push((s, v as u32));
                }
            }
        }
        let mut received = HashMap::new();
        for (at, msg) in recvs {
            let Some(&send) = sends.get(&msg) else {
                return Err(InputError::UnmatchedRecv { at, msg });
            };
            if received.insert(msg, at).is_some() {
                return Err(InputError::DuplicateMessage { at, msg });
            }
            if !removed.msgs.contains(&msg) {
                b.edge(send, at);
            }
        }
        for (key, ps) in &posts {
            let Some(ss) = starts.get(key) else { continue };
            for (&(post, wait), &(start, complete)) in ps.iter().zip(ss) {
                b.edge(post, start);
                if let (Some(w), Some(c)) = (wait, complete) {
                    b.edge(c, w);
                }
            }
        }
        lock_edges(run, &mut b)?;
        let Builder {
            offset,
            sets,
            set_id,
            edges,
        } = b;
        let nodes = offset[offset.len() - 1] + sets.len();
        let mut start = vec![0u32; nodes + 1];
        for &(a, _) in &edges {
            start[a as usize + 1] += 1;
        }
        for i in 0..nodes {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut succ = vec![0u32; edges.len()];
        for &(a, z) in &edges {
            succ[fill[a as usize] as usize] = z;
            fill[a as usize] += 1;
        }
        let mut order = Order {
            offset,
            sets,
            set_id,
            start,
            succ,
            position: Vec::new(),
            lanes,
            clocks: Vec::new(),
        };
        order.sort_and_clock()?;
        Ok(order)
    }

    fn ranks(&self) -> usize {
        self.offset.len() - 1
    }

    fn events(&self) -> usize {
        self.offset[self.ranks()]
    }

    fn len(&self) -> usize {
        self.start.len() - 1
    }

    fn successors(&self, v: u32) -> &[u32] {
        &self.succ[self.start[v as usize] as usize..self.start[v as usize + 1] as usize]
    }

    fn event_of(&self, v: u32) -> EventId {
        let v = v as usize;
        let rank = self.offset.partition_point(|&o| o <= v) - 1;
        EventId {
            rank,
            index: v - self.offset[rank],
        }
    }

    /// The node's dense id, if the run has it.
    fn id(&self, n: Node) -> Option<u32> {
        match n {
            Node::Event(e) => (e.rank < self.ranks()
                && e.index < self.offset[e.rank + 1] - self.offset[e.rank])
                .then(|| (self.offset[e.rank] + e.index) as u32),
            _ => self.set_id.get(&n).copied(),
        }
    }

    /// The node with this dense id.
    fn node(&self, v: u32) -> Node {
        if (v as usize) < self.events() {
            Node::Event(self.event_of(v))
        } else {
            self.sets[v as usize - self.events()]
        }
    }

    /// Kahn's topological sort, then the vector clocks along it.
    fn sort_and_clock(&mut self) -> Result<(), InputError> {
        let n = self.len();
        let mut indegree = vec![0u32; n];
        for &z in &self.succ {
            indegree[z as usize] += 1;
        }
        let mut queue: VecDeque<u32> = (0..n as u32)
            .filter(|&v| indegree[v as usize] == 0)
            .collect();
        let mut topo = Vec::with_capacity(n);
        while let Some(v) = queue.pop_front() {
            topo.push(v);
            for i in self.start[v as usize]..self.start[v as usize + 1] {
                let z = self.succ[i as usize];
                indegree[z as usize] -= 1;
                if indegree[z as usize] == 0 {
                    queue.push_back(z);
                }
            }
        }
        if topo.len() < n {
            let stuck = (0..self.events() as u32)
                .find(|&v| indegree[v as usize] > 0)
                .unwrap_or(0);
            return Err(InputError::Cycle {
                at: self.event_of(stuck),
            });
        }
        self.position = vec![0; n];
        for (i, &v) in topo.iter().enumerate() {
            self.position[v as usize] = i as u32;
        }
        let r = self.lanes.count;
        let mut clocks = vec![0u32; n * r];
        for &v in &topo {
            let v = v as usize;
            if v < self.events() {
                clocks[v * r + self.lanes.lane[v] as usize] = self.lanes.lane_pos[v] + 1;
            }
            for i in self.start[v]..self.start[v + 1] {
                let z = self.succ[i as usize] as usize;
                for k in 0..r {
                    clocks[z * r + k] = clocks[z * r + k].max(clocks[v * r + k]);
                }
            }
        }
        self.clocks = clocks;
        Ok(())
    }

    /// Whether `a` is ordered before `b` (or is `b`): a path of the graph
    /// leads from `a` to `b`.
    pub fn ordered(&self, a: EventId, b: EventId) -> bool {
        let (va, vb) = (self.offset[a.rank] + a.index, self.offset[b.rank] + b.index);
        self.later_than(vb, va)
    }

    /// The lane of the event `e`: its rank's, or its thread's in a rank
    /// that had several (dense ids, each lane's events in program order).
    pub fn lane(&self, e: EventId) -> usize {
        self.lanes.lane[self.offset[e.rank] + e.index] as usize
    }

    /// Whether the node `v` is ordered after the event `a` (or is it), both
    /// dense ids.
    fn later_than(&self, v: usize, a: usize) -> bool {
        let l = &self.lanes;
        self.clocks[v * l.count + l.lane[a] as usize] > l.lane_pos[a]
    }

    /// What `b` waits for other than lock grants: the events before it in
    /// its rank (the one before it, or with threads its thread's and those
    /// its thread synchronised with), and the match sets they join (their
    /// return), as nodes.
    fn waits_for(&self, b: EventId) -> Vec<u32> {
        let v = self.offset[b.rank] + b.index;
        let mut out = Vec::new();
        for &pre in self.lanes.preds(v) {
            out.push(pre);
            out.extend(
                self.successors(pre)
                    .iter()
                    .copied()
                    .filter(|&z| z as usize >= self.events()),
            );
        }
        out
    }

    /// Whether `a` is ordered before `b` was called: before the event
    /// that precedes `b` in its rank, or before the match set that event
    /// joins returns. For a `Lock`, whether `a` comes before the lock is
    /// asked for, whatever the grants.
    pub fn before_call(&self, a: EventId, b: EventId) -> bool {
        let va = self.offset[a.rank] + a.index;
        self.waits_for(b)
            .into_iter()
            .any(|v| self.later_than(v as usize, va))
    }

    /// A shortest path from `a` to the call of `b` (see
    /// [`Order::before_call`]), ending with `b`.
    pub fn path_to_call(&self, a: EventId, b: EventId) -> Option<Vec<Node>> {
        let from = Node::Event(a);
        let mut best: Option<Vec<Node>> = None;
        for v in self.waits_for(b) {
            if let Some(p) = self.path(from, self.node(v)) {
                if best.as_ref().is_none_or(|q| p.len() < q.len()) {
                    best = Some(p);
                }
            }
        }
        let mut path = best?;
        path.push(Node::Event(b));
        Some(path)
    }

    /// Whether a path leads from `a` to `b` that passes through none of the
    /// `removed` nodes (`a` or `b` removed: none does).
    pub fn ordered_without(&self, a: Node, b: Node, removed: &[Node]) -> bool {
        let (Some(from), Some(to)) = (self.id(a), self.id(b)) else {
            return false;
        };
        let mut seen = vec![false; self.len()];
        for &n in removed {
            if let Some(v) = self.id(n) {
                seen[v as usize] = true;
            }
        }
        if seen[from as usize] || seen[to as usize] {
            return false;
        }
        // Nothing after `to` in the topological order can lead to it.
        let limit = self.position[to as usize];
        let mut stack = vec![from];
        seen[from as usize] = true;
        while let Some(v) = stack.pop() {
            if v == to {
                return true;
            }
            for &z in self.successors(v) {
                if !seen[z as usize] && self.position[z as usize] <= limit {
                    seen[z as usize] = true;
                    stack.push(z);
                }
            }
        }
        false
    }

    /// A shortest path from `a` to `b` (both included), if one leads there.
    pub fn path(&self, a: Node, b: Node) -> Option<Vec<Node>> {
        let (from, to) = (self.id(a)?, self.id(b)?);
        let limit = self.position[to as usize];
        let mut parent = vec![u32::MAX; self.len()];
        let mut queue = VecDeque::from([from]);
        parent[from as usize] = from;
        while let Some(v) = queue.pop_front() {
            if v == to {
                let mut path = vec![self.node(v)];
                let mut cur = v;
                while cur != from {
                    cur = parent[cur as usize];
                    path.push(self.node(cur));
                }
                path.reverse();
                return Some(path);
            }
            for &z in self.successors(v) {
                if parent[z as usize] == u32::MAX && self.position[z as usize] <= limit {
                    parent[z as usize] = v;
                    queue.push_back(z);
                }
            }
        }
        None
    }

    /// The event's place in a topological order of the graph.
    pub fn position(&self, e: EventId) -> u32 {
        self.position[self.offset[e.rank] + e.index]
    }

    /// The match-set nodes of the run, in the order they were met.
    pub fn sets(&self) -> &[Node] {
        &self.sets
    }

    /// The successors of a node (empty for a node the run does not have).
    pub fn next(&self, n: Node) -> Vec<Node> {
        self.id(n)
            .map(|v| self.successors(v).iter().map(|&z| self.node(z)).collect())
            .unwrap_or_default()
    }
}

/// The edges of the grant orders.
fn lock_edges(run: &Run, b: &mut Builder) -> Result<(), InputError> {
    let unlock = unlocks(run);
    let mut granted: HashMap<(EventId, Rank), ()> = HashMap::new();
    for g in &run.grants {
        // The unlocks of the shared epochs since the last exclusive one,
        // and that exclusive one's.
        let mut shared: Vec<EventId> = Vec::new();
        let mut exclusive: Option<EventId> = None;
        for &l in &g.order {
            let bad = InputError::NotALock { at: l };
            if l.rank >= run.ranks.len() || l.index >= run.ranks[l.rank].len() {
                return Err(bad);
            }
            let is_exclusive = match *run.event(l) {
                Event::Lock {
                    win,
                    target,
                    exclusive,
                } if win == g.win && target == g.target => exclusive,
                Event::LockAll { win } if win == g.win => false,
                _ => return Err(bad),
            };
            if granted.insert((l, g.target), ()).is_some() {
                return Err(bad);
            }
            let until = unlock.get(&l).copied().flatten();
            if is_exclusive {
                if shared.is_empty() {
                    if let Some(x) = exclusive {
                        b.edge(x, l);
                    }
                } else {
                    for &s in &shared {
                        b.edge(s, l);
                    }
                }
                shared.clear();
                exclusive = until;
            } else {
                if let Some(x) = exclusive {
                    b.edge(x, l);
                }
                shared.extend(until);
            }
        }
    }
    for (rank, events) in run.ranks.iter().enumerate() {
        for (index, e) in events.iter().enumerate() {
            let at = EventId { rank, index };
            if index + 1 == events.len() {
                continue;
            }
            let ok = match *e {
                Event::Lock { target, .. } => granted.contains_key(&(at, target)),
                Event::LockAll { win } => run.windows[win.0 as usize]
                    .iter()
                    .all(|&t| granted.contains_key(&(at, t))),
                _ => true,
            };
            if !ok {
                return Err(InputError::UngrantedLock { at });
            }
        }
    }
    Ok(())
}
