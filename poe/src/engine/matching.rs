//! MPI's matching rules for one run: which send a receive or probe can take
//! (non-overtaking included), send/receive pairs, collectives and the
//! communicators they create, the answers of waits and tests, and the choice
//! points that remain when every rank waits. [`Matching`] owns every rank's
//! calls and what became of them; it knows nothing of causality or of the
//! plan a run replays.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use fib_wire::{self as wire, Down, WaitKind, ANY, PROC_NULL};

use super::model::{
    accepts, collectives_agree, creates_agree, inter_collectives_agree, Alternative, ChoicePoint,
    CollWhat, Fired, FiredList, Handles, Kind, Leak, OpId, OpRec, Ops, Pair, Peer, Rank, RankView,
    RunEnd,
};

/// Up to how many complete requests a `Waitsome`/`Testsome` choice offers
/// every non-empty subset of them (63 alternatives at 6). Beyond that it
/// offers only all of them and each one alone (k + 1 alternatives): each
/// alternative is at least one run, and a loop of such calls multiplies them,
/// so 2^k - 1 would make a program that waits for many requests at once
/// unexplorable. The price: past the cap, the outcomes in which the call
/// returns between 2 and k - 1 of its complete requests are not explored.
pub const SOME_SUBSETS_UP_TO: usize = 6;

/// What a `Waitsome`/`Testsome` with the complete requests at positions
/// `done` (ascending) may return: all of them first, so that the first run
/// returns what is there as it always did, then the smaller subsets, larger
/// ones first and each size in lexicographic order (only the single requests
/// beyond [`SOME_SUBSETS_UP_TO`]). The order is part of the replay token.
fn some_subsets(done: &[u32]) -> Vec<Vec<u32>> {
    let k = done.len();
    let mut out: Vec<Vec<u32>> = if k > SOME_SUBSETS_UP_TO {
        std::iter::once(done.to_vec())
            .chain(done.iter().map(|&d| vec![d]))
            .collect()
    } else {
        (1u32..1 << k)
            .map(|mask| {
                (0..k)
                    .filter(|&b| mask >> b & 1 == 1)
                    .map(|b| done[b])
                    .collect()
            })
            .collect()
    };
    out.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    out
}

#[derive(Default)]
struct RankSt {
    ops: Ops,
    blocked: Option<usize>,
    finalized: bool,
    reqs: HashMap<u32, usize>,
    /// Communicators the rank holds and has not freed, with the call that
    /// created each.
    held: BTreeMap<u32, usize>,
    /// Operations whose request the rank freed while they were active.
    freed: HashSet<usize>,
    /// The rank's `MPI_Improbe` calls: receives (they take the message
    /// they find) that are answered "nothing" when, with every rank
    /// waiting, no send is there for them.
    polls: HashSet<usize>,
    /// The rank's `MPI_Request_get_status` calls: tests that leave the
    /// requests they find complete active.
    peeks: HashSet<usize>,
    /// The receives the rank asked to cancel that have neither matched nor
    /// been cancelled yet.
    cancelling: BTreeSet<usize>,
    /// The rank's matched probes whose message no `MPI_Mrecv` or
    /// `MPI_Imrecv` has received yet, by the probe's `req`.
    probed: BTreeMap<u32, usize>,
    /// Persistent requests not freed, with the call that made each.
    persistent: BTreeMap<u32, usize>,
    /// The collective calls not matched yet, per communicator, in the
    /// order the rank made them (blocking and nonblocking ones alike: MPI
    /// matches a communicator's collectives in that order).
    colls: BTreeMap<u32, VecDeque<usize>>,
    /// The communicators nonblocking constructors (`MPI_Comm_idup`) of the
    /// rank made, by call, until a wait or test completes the call: the
    /// rank learns the id then ([`Down::NewComm`] ahead of `Done`).
    made: BTreeMap<usize, u32>,
}

/// A call whose answer no longer depends on anything still to come.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Ready {
    /// A blocking send or receive that is complete.
    Complete(OpId),
    /// A wait or test, with the positions it returns.
    Wait(OpId, Vec<u32>),
    /// A probe naming its source, with the send it sees.
    Probe(OpId, OpId),
    /// A probe of `MPI_PROC_NULL`: it finds the empty message at once.
    NullProbe(OpId),
}

/// The MPI state of one run.
pub(crate) struct Matching {
    ranks: Vec<RankSt>,
    comms: HashMap<u32, Vec<Rank>>,
    /// Each rank's `MPI_COMM_SELF`: the rank alone.
    selves: Vec<Rank>,
    /// The two groups of each intercommunicator (whose `comms` entry is
    /// both, the first one's members first), each in its rank order.
    inter: HashMap<u32, [Vec<Rank>; 2]>,
    next_comm: u32,
    /// Unmatched sends per (communicator, source, destination), program order.
    sends: BTreeMap<(u32, Rank, Rank), VecDeque<usize>>,
    /// Unmatched receives per (communicator, destination), program order.
    recvs: BTreeMap<(u32, Rank), Vec<usize>>,
    fired: FiredList,
    out: Vec<(Rank, Down)>,
    /// The communicators in which `MPI_Comm_create_group` calls match,
    /// by id (each a parent, the group's members and a tag, see
    /// [`Matching::group_comm`]).
    groups: HashMap<u32, (u32, Vec<u32>, i32)>,
}

/// The bit set in the ids of the communicators `MPI_Comm_create_group`
/// calls match in ([`Matching::group_comm`]), which no rank ever names.
const GROUP_COMM: u32 = 1 << 31;

impl Handles for Matching {
    fn members(&self, rank: Rank, comm: u32) -> Option<&[Rank]> {
        if comm == wire::COMM_SELF {
            return Some(std::slice::from_ref(&self.selves[rank]));
        }
        self.comms.get(&comm).map(Vec::as_slice)
    }

    fn peers(&self, rank: Rank, comm: u32) -> Option<&[Rank]> {
        match self.inter.get(&comm) {
            Some([a, b]) if a.contains(&rank) => Some(b),
            Some([a, _]) => Some(a),
            None => self.members(rank, comm),
        }
    }

    fn is_inter(&self, comm: u32) -> bool {
        self.inter.contains_key(&comm)
    }

    fn request(&self, rank: Rank, req: u32) -> Option<usize> {
        self.ranks[rank].reqs.get(&req).copied()
    }

    fn persistent(&self, rank: Rank, req: u32) -> Option<usize> {
        Matching::persistent(self, rank, req)
    }

    fn nonblocking_collective(&self, rank: Rank, index: usize) -> bool {
        self.nonblocking_coll(OpId { rank, index })
    }
}

impl Matching {
    /// The call of `rank` that made the persistent request `req`, if it is
    /// one and has not been freed.
    pub(crate) fn persistent(&self, rank: Rank, req: u32) -> Option<usize> {
        self.ranks[rank].persistent.get(&req).copied()
    }

    /// `nprocs` ranks that have called nothing, in `MPI_COMM_WORLD`.
    pub(crate) fn new(nprocs: usize) -> Matching {
        let mut comms = HashMap::default();
        comms.insert(wire::COMM_WORLD, (0..nprocs).collect());
        Matching {
            ranks: (0..nprocs).map(|_| RankSt::default()).collect(),
            comms,
            selves: (0..nprocs).collect(),
            inter: HashMap::default(),
            next_comm: wire::FIRST_USER_COMM,
            sends: BTreeMap::new(),
            recvs: BTreeMap::new(),
            fired: FiredList::new(),
            out: Vec::new(),
            groups: HashMap::default(),
        }
    }

    /// The communicator in which the `MPI_Comm_create_group` calls over
    /// `members` of `parent` with `tag` match: only the group's members
    /// call it, apart from the parent's other collectives. Its id is derived
    /// from what it is (so it does not depend on which member's call came
    /// first) and has [`GROUP_COMM`] set.
    fn group_comm(&mut self, parent: u32, members: &[u32], tag: i32) -> u32 {
        let key = (parent, members.to_vec(), tag);
        // FNV-1a over the words.
        let mut h: u32 = 0x811c_9dc5;
        let words = [parent, tag as u32, members.len() as u32];
        for w in words.iter().chain(members) {
            for b in w.to_le_bytes() {
                h ^= u32::from(b);
                h = h.wrapping_mul(0x0100_0193);
            }
        }
        let mut id = GROUP_COMM | (h & !GROUP_COMM);
        loop {
            match self.groups.get(&id) {
                Some(k) if *k == key => return id,
                Some(_) => id = GROUP_COMM | (id.wrapping_add(1) & !GROUP_COMM),
                None => {
                    self.groups.insert(id, key);
                    self.comms
                        .insert(id, members.iter().map(|&m| m as Rank).collect());
                    return id;
                }
            }
        }
    }

    /// What the ranks left behind: active requests, communicators not
    /// freed, sends never received, receive requests freed while active.
    pub(crate) fn leaks(&self) -> Vec<Leak> {
        let mut out = Vec::new();
        for (rank, st) in self.ranks.iter().enumerate() {
            for &index in st.reqs.values() {
                out.push(Leak::Request {
                    op: OpId { rank, index },
                });
            }
            for &index in st.persistent.values() {
                out.push(Leak::Persistent {
                    op: OpId { rank, index },
                });
            }
            for &index in st.probed.values() {
                // An `MPI_Improbe` that found nothing took no message.
                if let Some(send) = st.ops[index].matched {
                    out.push(Leak::ProbedMessage {
                        op: send,
                        probe: OpId { rank, index },
                    });
                }
            }
            for (&comm, &index) in &st.held {
                // A communicator whose `MPI_Comm_idup` was never completed
                // is the leak of that request (the program never got it).
                if st.made.contains_key(&index) {
                    continue;
                }
                out.push(Leak::Comm {
                    op: OpId { rank, index },
                    comm,
                });
            }
            for (index, rec) in st.ops.iter().enumerate() {
                let Kind::RequestFree { op: Some(recv), .. } = rec.kind else {
                    continue;
                };
                if let Kind::Recv { src, .. } = st.ops[recv].kind {
                    if src != Peer::Null {
                        out.push(Leak::FreedReceive {
                            op: OpId { rank, index },
                            recv: OpId { rank, index: recv },
                        });
                    }
                }
            }
        }
        for (&(_, rank, _), q) in &self.sends {
            for &index in q {
                out.push(Leak::Message {
                    op: OpId { rank, index },
                });
            }
        }
        out.sort();
        out
    }

    /// The match sets fired so far.
    pub(crate) fn nprocs(&self) -> usize {
        self.ranks.len()
    }

    pub(crate) fn fired(&self) -> &FiredList {
        &self.fired
    }

    /// The answers produced since the last call.
    pub(crate) fn take_out(&mut self) -> Vec<(Rank, Down)> {
        std::mem::take(&mut self.out)
    }

    /// Every rank's operations, in program order.
    pub(crate) fn ops(&self, rank: Rank) -> &Ops {
        &self.ranks[rank].ops
    }

    /// The match sets fired and every rank's operations, moved out.
    pub(crate) fn into_trace(self) -> (FiredList, Vec<Ops>) {
        let ops = self.ranks.into_iter().map(|r| r.ops).collect();
        (self.fired, ops)
    }

    /// The operation `id`.
    pub(crate) fn op(&self, id: OpId) -> &OpRec {
        &self.ranks[id.rank].ops[id.index]
    }

    /// Where every rank stands now.
    pub(crate) fn rank_views(&self) -> Vec<RankView> {
        (0..self.ranks.len()).map(|r| self.view(r)).collect()
    }

    fn view(&self, r: Rank) -> RankView {
        let st = &self.ranks[r];
        match st.blocked {
            Some(i) => RankView {
                rank: r,
                call: Some(st.ops[i].name),
                site: st.ops[i].site,
                finalized: false,
                last: None,
            },
            None => RankView {
                rank: r,
                call: None,
                site: st.ops.last().map(|o| o.site).unwrap_or_default(),
                finalized: st.finalized,
                last: st.ops.last().map(|o| o.name),
            },
        }
    }

    fn local_rank(&self, observer: Rank, comm: u32, world: Rank) -> i32 {
        self.peers(observer, comm)
            .and_then(|m| m.iter().position(|&x| x == world))
            .map(|p| p as i32)
            .unwrap_or(PROC_NULL)
    }

    /// Records the call `rec` of `id`; `waits`: the rank waits for its
    /// answer. Returns whether it is a send to a rank (which may race with
    /// earlier choices).
    pub(crate) fn issue(&mut self, id: OpId, mut rec: OpRec, waits: bool) -> bool {
        let r = id.rank;
        match &rec.kind {
            Kind::Send {
                dst,
                comm,
                sync,
                req,
                ..
            } => {
                if let Some(q) = req {
                    self.ranks[r].reqs.insert(*q, id.index);
                }
                match dst {
                    Peer::Rank(d) => {
                        rec.complete = !sync;
                        self.sends
                            .entry((*comm, r, *d))
                            .or_default()
                            .push_back(id.index);
                    }
                    _ => rec.complete = true,
                }
            }
            Kind::Recv {
                src,
                comm,
                req,
                blocking,
                ..
            } => {
                if !blocking {
                    self.ranks[r].reqs.insert(*req, id.index);
                }
                if *src == Peer::Null {
                    rec.complete = true;
                } else {
                    self.recvs.entry((*comm, r)).or_default().push(id.index);
                }
            }
            Kind::CommFree { comm } => {
                rec.complete = true;
                self.ranks[r].held.remove(comm);
            }
            Kind::RequestFree { op, req } => {
                rec.complete = true;
                if let Some(op) = *op {
                    self.ranks[r].reqs.retain(|_, &mut i| i != op);
                    self.ranks[r].freed.insert(op);
                }
                self.ranks[r].persistent.remove(req);
            }
            Kind::RequestInit { req } => {
                rec.complete = true;
                self.ranks[r].persistent.insert(*req, id.index);
            }
            Kind::Cancel { op } => {
                rec.complete = true;
                let target = &self.ranks[r].ops[*op];
                if matches!(target.kind, Kind::Recv { .. }) && !target.complete {
                    self.ranks[r].cancelling.insert(*op);
                }
            }
            Kind::Coll { comm, req, what } => {
                if let Some(q) = req {
                    self.ranks[r].reqs.insert(*q, id.index);
                }
                let comm = match what {
                    CollWhat::CreateGroup { members, tag } => {
                        let (comm, members, tag) = (*comm, members.clone(), *tag);
                        self.group_comm(comm, &members, tag)
                    }
                    _ => *comm,
                };
                self.ranks[r]
                    .colls
                    .entry(comm)
                    .or_default()
                    .push_back(id.index);
            }
            _ => {}
        }
        let is_send = matches!(
            rec.kind,
            Kind::Send {
                dst: Peer::Rank(_),
                ..
            }
        );
        self.ranks[r].ops.push(rec);
        if waits {
            self.ranks[r].blocked = Some(id.index);
        }
        is_send
    }

    /// Marks the receive `id` (an `MPI_Improbe`) as a poll.
    pub(crate) fn mark_poll(&mut self, id: OpId) {
        self.ranks[id.rank].polls.insert(id.index);
    }

    /// Notes the matched probe `id` (its `req` names it to the rank): its
    /// message waits for an `MPI_Mrecv` or `MPI_Imrecv`.
    pub(crate) fn note_probe(&mut self, id: OpId, req: u32) {
        self.ranks[id.rank].probed.insert(req, id.index);
    }

    /// The message the probe `req` of `rank` took is being received: the
    /// probe's position among the rank's calls, if it took one.
    pub(crate) fn probe_received(&mut self, rank: Rank, req: u32) -> Option<usize> {
        self.ranks[rank].probed.remove(&req)
    }

    /// Marks the test `id` (an `MPI_Request_get_status`) as one that
    /// leaves its request active.
    pub(crate) fn mark_peek(&mut self, id: OpId) {
        self.ranks[id.rank].peeks.insert(id.index);
    }

    /// Whether the wildcard receive or probe `at` accepts a message from
    /// world rank `from` with tag `tag`.
    fn takes(&self, at: OpId, from: Rank, tag: i32) -> bool {
        match self.op(at).kind {
            Kind::Recv { src, tag: t, .. } | Kind::Probe { src, tag: t, .. } => {
                accepts(src, t, from, tag)
            }
            _ => false,
        }
    }

    /// Whether the receive or probe `at` that chose (a wildcard one, or one
    /// the program asked to cancel) could have taken the send `send` to
    /// its rank, had the choices it does not follow been taken otherwise:
    /// `at` accepts it, and non-overtaking does not give it (or `at`) to
    /// another call first.
    pub(crate) fn rival(&self, send: OpId, at: OpId) -> bool {
        let Kind::Send {
            dst: Peer::Rank(d),
            tag,
            comm,
            ..
        } = self.op(send).kind
        else {
            return false;
        };
        if at.rank != d {
            return false;
        }
        // A receive naming its source chooses only whether it is
        // cancelled: the send it could have taken instead is a rival.
        let accepted = match self.op(at).kind {
            Kind::Recv {
                src,
                tag: t,
                comm: c,
                ..
            }
            | Kind::Probe {
                src,
                tag: t,
                comm: c,
                ..
            } => c == comm && accepts(src, t, send.rank, tag),
            _ => false,
        };
        if !accepted {
            return false;
        }
        // Non-overtaking: the send can reach `at` only if every earlier
        // send of its sender that `at` accepts goes to an earlier receive.
        let blocked = self.ranks[send.rank].ops.range(0..send.index).any(|o| {
            let Kind::Send {
                dst: Peer::Rank(x),
                comm: c,
                tag: t,
                ..
            } = o.kind
            else {
                return false;
            };
            if x != d || c != comm || !self.takes(at, send.rank, t) {
                return false;
            }
            match o.matched {
                Some(r) => r.index >= at.index,
                // (A cancelled receive is complete and matched nothing.)
                None => !self.ranks[d].ops.range(0..at.index).any(|r| {
                    r.matched.is_none()
                        && !r.complete
                        && matches!(r.kind, Kind::Recv { src, tag, comm: rc, .. }
                                if rc == comm && accepts(src, tag, send.rank, t))
                }),
            }
        });
        // Nor can it if an earlier receive naming its sender still waits
        // and has no earlier send of that sender to take first.
        let claimed = self.ranks[d].ops.range(0..at.index).any(|r| {
            let Kind::Recv {
                src: src @ Peer::Rank(_),
                tag: t,
                comm: rc,
                ..
            } = r.kind
            else {
                return false;
            };
            r.matched.is_none()
                && !r.complete
                && rc == comm
                && accepts(src, t, send.rank, tag)
                && !self.ranks[send.rank].ops.range(0..send.index).any(|o| {
                    o.matched.is_none()
                        && matches!(o.kind, Kind::Send { dst: Peer::Rank(x), comm: c, tag: st, .. }
                                if x == d && c == comm && accepts(src, t, send.rank, st))
                })
        });
        !(blocked || claimed)
    }

    /// Whether `at` is a `Waitany`/`Waitsome` (or test form) of `req`'s rank
    /// whose list holds `req`.
    pub(crate) fn lists(&self, at: OpId, req: OpId) -> bool {
        at.rank == req.rank
            && matches!(&self.op(at).kind,
                Kind::Wait { kind: WaitKind::Any | WaitKind::Some, ops, .. }
                    if ops.contains(&req.index))
    }

    /// Whether every rank waits for an answer or has finalized.
    pub(crate) fn all_waiting(&self) -> bool {
        self.ranks
            .iter()
            .all(|st| st.blocked.is_some() || st.finalized)
    }

    /// [`super::Engine::held_by_sends`].
    pub(crate) fn held_by_sends(&self, stuck: &[bool]) -> bool {
        let mut held = false;
        for (r, st) in self.ranks.iter().enumerate() {
            if st.blocked.is_some() || st.finalized {
                continue;
            }
            let unmatched = self
                .sends
                .iter()
                .any(|(&(_, from, _), q)| from == r && !q.is_empty());
            if !stuck.get(r).copied().unwrap_or(false) || !unmatched {
                return false;
            }
            held = true;
        }
        held
    }

    /// Whether every rank waits in `MPI_Finalize`.
    pub(crate) fn at_finalize(&self) -> bool {
        !self.ranks.is_empty()
            && self.ranks.iter().all(|st| {
                st.blocked
                    .is_some_and(|i| matches!(st.ops[i].kind, Kind::Finalize))
            })
    }

    /// Fires `MPI_Finalize`: a collective over all ranks.
    pub(crate) fn finalize(&mut self) {
        let n = self.ranks.len();
        let ops = (0..n)
            .map(|r| OpId {
                rank: r,
                index: self.ranks[r].blocked.unwrap(),
            })
            .collect();
        self.fired.push(Fired::Collective { ops });
        for r in 0..n {
            let st = &mut self.ranks[r];
            let i = st.blocked.take().unwrap();
            st.ops[i].complete = true;
            st.finalized = true;
            self.out.push((r, Down::Go));
        }
    }

    /// The collectives whose every member has arrived, as (communicator,
    /// members), by communicator (each rank's `MPI_COMM_SELF` apart): on
    /// each communicator, every member's earliest collective call not
    /// matched yet, blocking or not. An `MPI_Intercomm_create` is ready
    /// once both sides are: the pair is listed once, under the side whose
    /// leader has the lower world rank ([`Matching::fire_collective`]
    /// fires both).
    pub(crate) fn ready_collectives(&self) -> Vec<(u32, Vec<Rank>)> {
        let full = self.full_collectives();
        let heads: Vec<_> = full
            .iter()
            .map(|(comm, m)| self.inter_create(*comm, m))
            .collect();
        full.into_iter()
            .zip(&heads)
            .filter(|(_, head)| match head {
                None => true,
                Some((leader, _, _)) => self
                    .partner(head.unwrap(), &heads)
                    .is_some_and(|p| *leader < heads[p].unwrap().0),
            })
            .map(|(set, _)| set)
            .collect()
    }

    /// For a full collective set on `comm` whose leader's earliest call
    /// is an `MPI_Intercomm_create`: the leader's world rank, the remote
    /// leader's and the tag.
    fn inter_create(&self, comm: u32, members: &[Rank]) -> Option<(Rank, Rank, i32)> {
        let first = OpId {
            rank: members[0],
            index: self.ranks[members[0]].colls[&comm][0],
        };
        let Kind::Coll {
            what: CollWhat::InterCreate { leader, .. },
            ..
        } = self.op(first).kind
        else {
            return None;
        };
        let at = OpId {
            rank: leader,
            index: *self.ranks.get(leader)?.colls.get(&comm)?.front()?,
        };
        match self.op(at).kind {
            Kind::Coll {
                what:
                    CollWhat::InterCreate {
                        remote: Some(remote),
                        tag,
                        ..
                    },
                ..
            } if members.contains(&leader) => Some((leader, remote, tag)),
            _ => None,
        }
    }

    /// The position in `heads` of the other side of the
    /// `MPI_Intercomm_create` `head`.
    fn partner(
        &self,
        head: (Rank, Rank, i32),
        heads: &[Option<(Rank, Rank, i32)>],
    ) -> Option<usize> {
        let (leader, remote, tag) = head;
        heads.iter().position(|h| *h == Some((remote, leader, tag)))
    }

    /// [`Matching::ready_collectives`] before `MPI_Intercomm_create` calls
    /// are paired.
    fn full_collectives(&self) -> Vec<(u32, Vec<Rank>)> {
        let mut out = Vec::new();
        let mut comms: Vec<u32> = Vec::new();
        for (r, st) in self.ranks.iter().enumerate() {
            for (&comm, q) in &st.colls {
                if q.is_empty() {
                    continue;
                }
                if comm == wire::COMM_SELF {
                    out.push((wire::COMM_SELF, vec![r]));
                } else {
                    comms.push(comm);
                }
            }
        }
        comms.sort_unstable();
        comms.dedup();
        for comm in comms {
            let members = &self.comms[&comm];
            if members.iter().all(|&m| {
                self.ranks[m]
                    .colls
                    .get(&comm)
                    .is_some_and(|q| !q.is_empty())
            }) {
                out.push((comm, members.clone()));
            }
        }
        out.sort_by_key(|(comm, m)| (*comm == wire::COMM_SELF, *comm, m[0]));
        out
    }

    /// Fires the collective of `comm` that all `members` have called (each
    /// one's earliest not matched yet), and returns its calls; or the
    /// mismatch, when they disagree on what it is. A blocking call's rank
    /// gets its answer; a nonblocking call completes, for a wait or test to
    /// find.
    pub(crate) fn fire_collective(
        &mut self,
        comm: u32,
        members: &[Rank],
    ) -> Result<Vec<OpId>, RunEnd> {
        let ids: Vec<OpId> = members
            .iter()
            .map(|&r| OpId {
                rank: r,
                index: self.ranks[r].colls[&comm][0],
            })
            .collect();
        let whats = self.whats(&ids);
        let agree = match self.inter.get(&comm) {
            Some([a, _]) => inter_collectives_agree(&whats, a.len()),
            None if matches!(whats[0], CollWhat::Create { .. }) => creates_agree(members, &whats),
            None => collectives_agree(&whats),
        };
        if !agree {
            return Err(self.mismatch(comm, &ids));
        }
        let (ids, comms, answers) = match self.inter_create(comm, members) {
            Some(head) => {
                // Both sides of an `MPI_Intercomm_create` fire together.
                let full = self.full_collectives();
                let heads: Vec<_> = full.iter().map(|(c, m)| self.inter_create(*c, m)).collect();
                let p = self.partner(head, &heads).expect("a ready pair");
                let (other, others) = &full[p];
                let other_ids: Vec<OpId> = others
                    .iter()
                    .map(|&r| OpId {
                        rank: r,
                        index: self.ranks[r].colls[other][0],
                    })
                    .collect();
                if !collectives_agree(&self.whats(&other_ids)) {
                    return Err(self.mismatch(*other, &other_ids));
                }
                let id = self.new_inter(members.to_vec(), others.clone()) as i32;
                let mut comms = vec![comm; ids.len()];
                comms.extend(vec![*other; other_ids.len()]);
                let all: Vec<OpId> = ids.iter().chain(&other_ids).copied().collect();
                let n = all.len();
                (all, comms, vec![Down::NewComm { id }; n])
            }
            None => {
                let answers = self.collective_answers(comm, members, &whats);
                (ids.clone(), vec![comm; ids.len()], answers)
            }
        };
        self.fired.push(Fired::Collective { ops: ids.clone() });
        for ((id, answer), comm) in ids.iter().zip(answers).zip(comms) {
            let st = &mut self.ranks[id.rank];
            let q = st.colls.get_mut(&comm).unwrap();
            q.pop_front();
            if q.is_empty() {
                st.colls.remove(&comm);
            }
            if let Down::NewComm { id: c } = answer {
                if c >= 0 {
                    st.held.insert(c as u32, id.index);
                }
            }
            st.ops[id.index].complete = true;
            if let Kind::Coll { req: Some(_), .. } = st.ops[id.index].kind {
                if let Down::NewComm { id: c } = answer {
                    st.made.insert(id.index, c as u32);
                }
                continue;
            }
            st.blocked = None;
            self.out.push((id.rank, answer));
        }
        Ok(ids)
    }

    /// Whether `op` is a nonblocking collective call.
    pub(crate) fn nonblocking_coll(&self, op: OpId) -> bool {
        matches!(self.op(op).kind, Kind::Coll { req: Some(_), .. })
    }

    /// What each of the calls `ids` does.
    fn whats(&self, ids: &[OpId]) -> Vec<CollWhat> {
        ids.iter()
            .map(|id| match &self.op(*id).kind {
                Kind::Coll { what, .. } => what.clone(),
                _ => unreachable!(),
            })
            .collect()
    }

    /// The mismatch of the calls `ids` on `comm`.
    fn mismatch(&self, comm: u32, ids: &[OpId]) -> RunEnd {
        RunEnd::CollectiveMismatch {
            comm,
            calls: ids
                .iter()
                .map(|id| (*id, self.op(*id).name, self.op(*id).site))
                .collect(),
        }
    }

    fn collective_answers(&mut self, comm: u32, members: &[Rank], whats: &[CollWhat]) -> Vec<Down> {
        match &whats[0] {
            CollWhat::Coll { .. } => vec![Down::Go; members.len()],
            CollWhat::Dup | CollWhat::Idup { .. } => {
                let id = match self.inter.get(&comm) {
                    Some([a, b]) => self.new_inter(a.clone(), b.clone()),
                    None => self.new_comm(members.to_vec()),
                };
                vec![Down::NewComm { id: id as i32 }; members.len()]
            }
            CollWhat::Merge { .. } => {
                // The group whose members gave `high` false comes first;
                // when both gave the same, the group holding the lower
                // world rank (the interposition library checks that MPI
                // made the same order).
                let [a, b] = self.inter[&comm].clone();
                let high = |w: &CollWhat| matches!(w, CollWhat::Merge { high: true });
                let (ha, hb) = (high(&whats[0]), high(&whats[a.len()]));
                let a_first = if ha != hb {
                    !ha
                } else {
                    a.iter().min() < b.iter().min()
                };
                let order = if a_first {
                    a.iter().chain(&b).copied().collect()
                } else {
                    b.iter().chain(&a).copied().collect()
                };
                let id = self.new_comm(order);
                vec![Down::NewComm { id: id as i32 }; members.len()]
            }
            CollWhat::InterCreate { .. } => unreachable!("fired with its partner"),
            CollWhat::Split { .. } => {
                let mut colors: Vec<i32> = whats
                    .iter()
                    .filter_map(|w| match w {
                        CollWhat::Split { color, .. } if *color != wire::UNDEFINED => Some(*color),
                        _ => None,
                    })
                    .collect();
                colors.sort_unstable();
                colors.dedup();
                // The members of an intercommunicator come group by group:
                // the first group's are the first `first` of them.
                let first = self.inter.get(&comm).map(|[a, _]| a.len());
                let mut ids = HashMap::default();
                for c in colors {
                    // In key order, ties in the order of the parent.
                    let part = |range: std::ops::Range<usize>| {
                        let mut group: Vec<(i32, usize, Rank)> = range
                            .filter_map(|i| match &whats[i] {
                                CollWhat::Split { color, key, .. } if *color == c => {
                                    Some((*key, i, members[i]))
                                }
                                _ => None,
                            })
                            .collect();
                        group.sort_unstable();
                        group.into_iter().map(|g| g.2).collect::<Vec<Rank>>()
                    };
                    let id = match first {
                        None => self.new_comm(part(0..members.len())) as i32,
                        // A colour both groups hold; elsewhere MPI_COMM_NULL.
                        Some(n) => {
                            let (a, b) = (part(0..n), part(n..members.len()));
                            if a.is_empty() || b.is_empty() {
                                -1
                            } else {
                                self.new_inter(a, b) as i32
                            }
                        }
                    };
                    ids.insert(c, id);
                }
                whats
                    .iter()
                    .map(|w| match w {
                        CollWhat::Split { color, .. } => Down::NewComm {
                            id: ids.get(color).copied().unwrap_or(-1),
                        },
                        _ => unreachable!(),
                    })
                    .collect()
            }
            // On an intercommunicator: the first group's subgroup and the
            // second's, or MPI_COMM_NULL for all when either is empty.
            CollWhat::Create { .. } if self.inter.contains_key(&comm) => {
                let n = self.inter[&comm][0].len();
                let side = |w: &CollWhat| match w {
                    CollWhat::Create { members } => {
                        members.iter().map(|&g| g as Rank).collect::<Vec<Rank>>()
                    }
                    _ => unreachable!("the calls agree"),
                };
                let (a, b) = (side(&whats[0]), side(&whats[n]));
                let id = if a.is_empty() || b.is_empty() {
                    -1
                } else {
                    self.new_inter(a.clone(), b.clone()) as i32
                };
                members
                    .iter()
                    .map(|r| Down::NewComm {
                        id: if a.contains(r) || b.contains(r) {
                            id
                        } else {
                            -1
                        },
                    })
                    .collect()
            }
            // Each member passes a group: the same one, or (`MPI_Comm_create`
            // since MPI 2.2) disjoint groups, each passed by all its members.
            // Each group makes one communicator, for its members.
            CollWhat::Create { .. } | CollWhat::CreateGroup { .. } => {
                let mut made: Vec<(&[u32], i32)> = Vec::new();
                let mut answers = Vec::with_capacity(members.len());
                for (w, r) in whats.iter().zip(members) {
                    let (CollWhat::Create { members: group }
                    | CollWhat::CreateGroup { members: group, .. }) = w
                    else {
                        unreachable!("the calls agree")
                    };
                    let id = if group.contains(&(*r as u32)) {
                        match made.iter().find(|(g, _)| *g == group.as_slice()) {
                            Some(&(_, id)) => id,
                            None => {
                                let id = self.new_comm(group.iter().map(|&g| g as Rank).collect())
                                    as i32;
                                made.push((group, id));
                                id
                            }
                        }
                    } else {
                        -1
                    };
                    answers.push(Down::NewComm { id });
                }
                answers
            }
        }
    }

    /// A new intercommunicator of the groups `a` and `b`.
    fn new_inter(&mut self, a: Vec<Rank>, b: Vec<Rank>) -> u32 {
        let id = self.new_comm(a.iter().chain(&b).copied().collect());
        self.inter.insert(id, [a, b]);
        id
    }

    fn new_comm(&mut self, members: Vec<Rank>) -> u32 {
        let id = self.next_comm;
        self.next_comm += 1;
        self.comms.insert(id, members);
        id
    }

    /// The earliest unmatched send from `from` to the receive's rank that the
    /// receive (or probe) accepts, if no receive posted before it would take
    /// that send. `before` is the receive's position among the unmatched
    /// receives of its rank and communicator (all of them, for a probe).
    fn candidate(
        &self,
        comm: u32,
        dst: Rank,
        from: Rank,
        src: Peer,
        tag: i32,
        before: usize,
    ) -> Option<usize> {
        let sends = self.sends.get(&(comm, from, dst))?;
        let s = sends.iter().copied().find(|&s| {
            let Kind::Send { tag: t, .. } = self.ranks[from].ops[s].kind else {
                unreachable!()
            };
            accepts(src, tag, from, t)
        })?;
        let Kind::Send { tag: t, .. } = self.ranks[from].ops[s].kind else {
            unreachable!()
        };
        let pending = self
            .recvs
            .get(&(comm, dst))
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let claimed = pending[..before.min(pending.len())].iter().any(|&r| {
            let Kind::Recv { src, tag, .. } = self.ranks[dst].ops[r].kind else {
                unreachable!()
            };
            accepts(src, tag, from, t)
        });
        (!claimed).then_some(s)
    }

    /// Every sender a wildcard receive or probe could get a message from now,
    /// in world-rank order, with its send.
    fn candidates(&self, comm: u32, dst: Rank, src: Peer, tag: i32, before: usize) -> Vec<OpId> {
        let members = self.peers(dst, comm).unwrap_or_default();
        let mut from: Vec<Rank> = match src {
            Peer::Rank(s) => vec![s],
            Peer::Any => members.to_vec(),
            Peer::Null => vec![],
        };
        from.sort_unstable();
        from.into_iter()
            .filter_map(|f| {
                self.candidate(comm, dst, f, src, tag, before)
                    .map(|index| OpId { rank: f, index })
            })
            .collect()
    }

    /// Whether a send of `from` to `dst` on `comm` with `tag`, about to be
    /// issued, finds a receive posted for it: `dst` has more unmatched
    /// receives that accept it than `from` has earlier unmatched sends on
    /// the channel with that tag (which non-overtaking matches first).
    pub(crate) fn receive_posted(&self, from: Rank, dst: Rank, comm: u32, tag: i32) -> bool {
        let earlier = self.sends.get(&(comm, from, dst)).map_or(0, |q| {
            q.iter()
                .filter(|&&s| {
                    matches!(self.ranks[from].ops[s].kind, Kind::Send { tag: t, .. } if t == tag)
                })
                .count()
        });
        let accepting = self.recvs.get(&(comm, dst)).map_or(0, |p| {
            p.iter()
                .filter(|&&r| {
                    matches!(self.ranks[dst].ops[r].kind,
                        Kind::Recv { src, tag: t, .. } if accepts(src, t, from, tag))
                })
                .count()
        });
        accepting > earlier
    }

    /// A send/receive pair whose receive names its source: such a pair has
    /// exactly one possible partner.
    pub(crate) fn named_pair(&self) -> Option<(OpId, OpId)> {
        for (&(comm, dst), pending) in &self.recvs {
            for (pos, &ri) in pending.iter().enumerate() {
                let Kind::Recv { src, tag, .. } = self.ranks[dst].ops[ri].kind else {
                    unreachable!()
                };
                if let Peer::Rank(s) = src {
                    if let Some(si) = self.candidate(comm, dst, s, src, tag, pos) {
                        let send = OpId { rank: s, index: si };
                        let recv = OpId {
                            rank: dst,
                            index: ri,
                        };
                        return Some((send, recv));
                    }
                }
            }
        }
        None
    }

    /// The send `send` and the receive `recv`, as a pair to match.
    pub(crate) fn pair(&self, send: OpId, recv: OpId) -> Pair {
        let (comm, tag, sync) = match self.op(send).kind {
            Kind::Send {
                comm, tag, sync, ..
            } => (comm, tag, sync),
            _ => unreachable!(),
        };
        let (src, rtag) = match self.op(recv).kind {
            Kind::Recv { src, tag, .. } => (src, tag),
            _ => unreachable!(),
        };
        Pair {
            send,
            recv,
            comm,
            tag,
            sync,
            src,
            rtag,
        }
    }

    /// Matches the pair `p`: the receive completes, and so does a
    /// synchronous send; the receive's rank is told to post it.
    pub(crate) fn match_pair(&mut self, p: &Pair, wildcard: bool) {
        let Pair {
            send,
            recv,
            comm,
            tag,
            sync,
            ..
        } = *p;
        // Emptied queues stay, ready for the channel's next call: a
        // ping-pong would otherwise remove and insert them per message.
        let q = self.sends.get_mut(&(comm, send.rank, recv.rank)).unwrap();
        q.retain(|&i| i != send.index);
        let p = self.recvs.get_mut(&(comm, recv.rank)).unwrap();
        p.retain(|&i| i != recv.index);
        self.ranks[recv.rank].cancelling.remove(&recv.index);
        {
            let s = &mut self.ranks[send.rank].ops[send.index];
            s.matched = Some(recv);
            if sync {
                s.complete = true;
            }
        }
        let req = {
            let r = &mut self.ranks[recv.rank].ops[recv.index];
            r.matched = Some(send);
            r.complete = true;
            match r.kind {
                Kind::Recv { req, .. } => req,
                _ => unreachable!(),
            }
        };
        let src = self.local_rank(recv.rank, comm, send.rank);
        self.out.push((recv.rank, Down::PostRecv { req, src, tag }));
        self.fired.push(Fired::SendRecv {
            send,
            recv,
            wildcard,
        });
    }

    /// The answer of the call rank `r` waits in, if it no longer depends on
    /// anything still to come.
    pub(crate) fn ready(&self, r: Rank) -> Option<Ready> {
        let i = self.ranks[r].blocked?;
        let id = OpId { rank: r, index: i };
        match &self.ranks[r].ops[i].kind {
            Kind::Send { .. } | Kind::Recv { .. } => {
                self.ranks[r].ops[i].complete.then_some(Ready::Complete(id))
            }
            Kind::Wait { kind, ops, .. } => {
                let done: Vec<bool> = ops.iter().map(|&o| self.ranks[r].ops[o].complete).collect();
                let all = done.iter().all(|&d| d);
                match kind {
                    WaitKind::One | WaitKind::All if all => {
                        Some((0..ops.len() as u32).collect::<Vec<_>>())
                    }
                    // One request in the list: nothing to choose.
                    WaitKind::Any | WaitKind::Some if ops.len() == 1 && all => Some(vec![0]),
                    _ => None,
                }
                .map(|indices| Ready::Wait(id, indices))
            }
            Kind::Probe { src, tag, comm, .. } => match src {
                Peer::Rank(_) => {
                    let before = self.recvs.get(&(*comm, r)).map_or(0, Vec::len);
                    let c = self.candidates(*comm, r, *src, *tag, before);
                    c.first().map(|s| Ready::Probe(id, *s))
                }
                Peer::Null => Some(Ready::NullProbe(id)),
                _ => None,
            },
            _ => None,
        }
    }

    /// Rank `r` gets the answer `d` and runs on.
    pub(crate) fn release(&mut self, r: Rank, d: Down) {
        self.ranks[r].blocked = None;
        self.out.push((r, d));
    }

    /// Whether `op` is a buffered send (complete when issued).
    pub(crate) fn buffered_send(&self, op: OpId) -> bool {
        matches!(self.op(op).kind, Kind::Send { sync: false, .. })
    }

    /// Completes the wait or test `id`, returning the positions `indices` of
    /// its list: releases their requests. Returns the answer and the
    /// operations it completed.
    pub(crate) fn complete_wait(&mut self, id: OpId, indices: Vec<u32>) -> (Down, Vec<OpId>) {
        let Kind::Wait { ops, .. } = &self.ranks[id.rank].ops[id.index].kind else {
            unreachable!()
        };
        let completed: Vec<usize> = indices.iter().map(|&k| ops[k as usize]).collect();
        let st = &mut self.ranks[id.rank];
        if st.peeks.contains(&id.index) {
            // `MPI_Request_get_status`: the request stays active, and the
            // wait or test that completes it is the completion.
            st.ops[id.index].complete = true;
            let seen = completed
                .iter()
                .map(|&index| OpId {
                    rank: id.rank,
                    index,
                })
                .collect();
            return (Down::Done { indices }, seen);
        }
        for &o in &completed {
            let req = match st.ops[o].kind {
                Kind::Send { req, .. } | Kind::Coll { req, .. } => req,
                Kind::Recv { req, .. } => Some(req),
                _ => None,
            };
            if let Some(q) = req {
                st.reqs.remove(&q);
            }
            // The rank learns the communicator an `MPI_Comm_idup` made
            // ahead of the answer that completes it.
            if let Some(c) = st.made.remove(&o) {
                self.out.push((id.rank, Down::NewComm { id: c as i32 }));
            }
        }
        st.ops[id.index].complete = true;
        let completed: Vec<OpId> = completed
            .iter()
            .map(|&index| OpId {
                rank: id.rank,
                index,
            })
            .collect();
        self.fired.push(Fired::Completion {
            op: id,
            completed: completed.clone(),
        });
        (Down::Done { indices }, completed)
    }

    /// The probe `probe` sees the send `send`.
    pub(crate) fn probe(&mut self, probe: OpId, send: OpId) -> Down {
        let (comm, tag) = match self.op(send).kind {
            Kind::Send { comm, tag, .. } => (comm, tag),
            _ => unreachable!(),
        };
        self.ranks[probe.rank].ops[probe.index].matched = Some(send);
        self.ranks[probe.rank].ops[probe.index].complete = true;
        self.fired.push(Fired::Probe { probe, send });
        Down::Probed {
            found: true,
            src: self.local_rank(probe.rank, comm, send.rank),
            tag,
        }
    }

    /// Answers a probe of `MPI_PROC_NULL`: found, from `MPI_PROC_NULL`,
    /// with `MPI_ANY_TAG`, as MPI answers it.
    pub(crate) fn null_probe(&mut self, probe: OpId) -> Down {
        self.ranks[probe.rank].ops[probe.index].complete = true;
        Down::Probed {
            found: true,
            src: PROC_NULL,
            tag: ANY,
        }
    }

    /// The wildcard receives whose request was freed and that a send could
    /// still match, as choice points: with every rank in `MPI_Finalize`,
    /// they are matched before the run ends, as MPI completes them.
    pub(crate) fn freed_points(&self) -> Vec<ChoicePoint> {
        let mut points = Vec::new();
        self.wildcard_points(&mut points);
        points.retain(|p| self.ranks[p.at.rank].freed.contains(&p.at.index));
        points
    }

    /// With every rank waiting: the choice points (wildcard receives and
    /// probes with candidates, `Waitany`/`Waitsome` with complete requests)
    /// and the ranks that poll with nothing to find.
    pub(crate) fn choice_points(&self) -> (Vec<ChoicePoint>, Vec<Rank>) {
        let mut points: Vec<ChoicePoint> = Vec::new();
        let mut polls: Vec<Rank> = Vec::new();
        self.wildcard_points(&mut points);
        self.cancel_points(&mut points);
        for (r, st) in self.ranks.iter().enumerate() {
            let Some(i) = st.blocked else { continue };
            let op = &st.ops[i];
            let at = OpId { rank: r, index: i };
            match &op.kind {
                Kind::Probe {
                    src,
                    tag,
                    comm,
                    blocking,
                } => {
                    let before = self.recvs.get(&(*comm, r)).map_or(0, Vec::len);
                    let c = self.candidates(*comm, r, *src, *tag, before);
                    if !c.is_empty() {
                        points.push(ChoicePoint {
                            at,
                            site: op.site,
                            alternatives: c.into_iter().map(Alternative::Send).collect(),
                        });
                    } else if !blocking {
                        polls.push(r);
                    }
                }
                Kind::Recv { src, tag, comm, .. } if st.polls.contains(&i) && !op.complete => {
                    // An `MPI_Improbe` with a send to take is a pair (named
                    // source) or a choice point (wildcard) already.
                    let pos = self
                        .recvs
                        .get(&(*comm, r))
                        .and_then(|p| p.iter().position(|&x| x == i))
                        .unwrap_or(0);
                    if self.candidates(*comm, r, *src, *tag, pos).is_empty() {
                        polls.push(r);
                    }
                }
                Kind::Wait { kind, ops, test } => {
                    let done: Vec<u32> = ops
                        .iter()
                        .enumerate()
                        .filter(|(_, &o)| st.ops[o].complete)
                        .map(|(k, _)| k as u32)
                        .collect();
                    // A point even with one complete request: a request
                    // that completes later may race with it (see
                    // `causality::completion_races`).
                    match kind {
                        WaitKind::Any if !done.is_empty() => points.push(ChoicePoint {
                            at,
                            site: op.site,
                            alternatives: done.into_iter().map(Alternative::Index).collect(),
                        }),
                        WaitKind::Some if !done.is_empty() => points.push(ChoicePoint {
                            at,
                            site: op.site,
                            alternatives: some_subsets(&done)
                                .into_iter()
                                .map(Alternative::Subset)
                                .collect(),
                        }),
                        _ if *test => polls.push(r),
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        (points, polls)
    }

    /// The wildcard receives anywhere (pending nonblocking ones included)
    /// that have candidates.
    fn wildcard_points(&self, points: &mut Vec<ChoicePoint>) {
        for (&(comm, dst), pending) in &self.recvs {
            for (pos, &ri) in pending.iter().enumerate() {
                let op = &self.ranks[dst].ops[ri];
                let Kind::Recv { src, tag, .. } = op.kind else {
                    unreachable!()
                };
                if src == Peer::Any {
                    let c = self.candidates(comm, dst, src, tag, pos);
                    if !c.is_empty() {
                        points.push(ChoicePoint {
                            at: OpId {
                                rank: dst,
                                index: ri,
                            },
                            site: op.site,
                            alternatives: c.into_iter().map(Alternative::Send).collect(),
                        });
                    }
                }
            }
        }
    }

    /// Each receive the program asked to cancel, not matched yet, may be
    /// cancelled now: [`Alternative::Cancel`] joins the sends a wildcard
    /// one could take (its point in `points`), and is alone otherwise (a
    /// receive naming its source and with a send to take has matched
    /// already).
    fn cancel_points(&self, points: &mut Vec<ChoicePoint>) {
        for (rank, st) in self.ranks.iter().enumerate() {
            for &index in &st.cancelling {
                let at = OpId { rank, index };
                match points.iter_mut().find(|p| p.at == at) {
                    Some(p) => p.alternatives.push(Alternative::Cancel),
                    None => points.push(ChoicePoint {
                        at,
                        site: st.ops[index].site,
                        alternatives: vec![Alternative::Cancel],
                    }),
                }
            }
        }
    }

    /// Whether `rank` waits in a test (or `MPI_Request_get_status`) whose
    /// list holds its operation `index`.
    pub(crate) fn tests(&self, rank: Rank, index: usize) -> bool {
        let st = &self.ranks[rank];
        st.blocked.is_some_and(|b| {
            matches!(&st.ops[b].kind, Kind::Wait { test: true, ops, .. } if ops.contains(&index))
        })
    }

    /// Whether the program asked to cancel the receive `at`, which has
    /// neither matched nor been cancelled yet.
    pub(crate) fn cancelling(&self, at: OpId) -> bool {
        self.ranks[at.rank].cancelling.contains(&at.index)
    }

    /// Cancels the receive `at`, which the program asked to cancel: it
    /// matches nothing any more and is complete (cancelled); its rank is
    /// told.
    pub(crate) fn cancel(&mut self, at: OpId) {
        let st = &mut self.ranks[at.rank];
        st.cancelling.remove(&at.index);
        let Kind::Recv { comm, req, .. } = st.ops[at.index].kind else {
            unreachable!("only receives are cancelled")
        };
        st.ops[at.index].complete = true;
        if let Some(p) = self.recvs.get_mut(&(comm, at.rank)) {
            p.retain(|&x| x != at.index);
            if p.is_empty() {
                self.recvs.remove(&(comm, at.rank));
            }
        }
        self.out.push((at.rank, Down::Cancelled { req }));
    }

    /// Answers every poll in `polls` "not yet".
    pub(crate) fn fail_polls(&mut self, polls: Vec<Rank>) {
        for r in polls {
            let i = self.ranks[r].blocked.take().unwrap();
            let d = match self.ranks[r].ops[i].kind {
                Kind::Probe { .. } => Down::Probed {
                    found: false,
                    src: PROC_NULL,
                    tag: ANY,
                },
                Kind::Recv { comm, .. } => {
                    // An `MPI_Improbe` that found nothing: it is over, and
                    // takes no message.
                    if let Some(p) = self.recvs.get_mut(&(comm, r)) {
                        p.retain(|&x| x != i);
                        if p.is_empty() {
                            self.recvs.remove(&(comm, r));
                        }
                    }
                    self.ranks[r].ops[i].complete = true;
                    Down::Probed {
                        found: false,
                        src: PROC_NULL,
                        tag: ANY,
                    }
                }
                _ => Down::Done { indices: vec![] },
            };
            self.out.push((r, d));
        }
    }
}

#[cfg(test)]
mod tests {
    use fib_wire::{CollKind, Op, SendMode, Site, COMM_WORLD, UNDEFINED};

    use super::*;
    use crate::engine::model::{call_name, model};

    /// Models and issues `op` as the next call of `rank`.
    fn call(m: &mut Matching, rank: Rank, op: Op) -> OpId {
        let id = OpId {
            rank,
            index: m.ops(rank).len(),
        };
        let kind = model(m, rank, &op, false).unwrap();
        let rec = OpRec {
            site: Site::default(),
            name: call_name(&op),
            kind,
            matched: None,
            complete: false,
        };
        m.issue(id, rec, op.expects_reply(false));
        id
    }

    /// The communicator each rank's answer gives it, by rank (-1:
    /// `MPI_COMM_NULL`).
    fn new_comm_ids(m: &mut Matching) -> Vec<i32> {
        let mut out = m.take_out();
        out.sort_by_key(|(r, _)| *r);
        out.iter()
            .map(|(_, d)| match d {
                Down::NewComm { id } => *id,
                d => panic!("{d:?}"),
            })
            .collect()
    }

    fn send(dest: i32, tag: i32) -> Op {
        Op::Send {
            mode: SendMode::Standard,
            dest,
            tag,
            comm: COMM_WORLD,
            req: None,
        }
    }

    fn recv(src: i32, tag: i32, req: u32) -> Op {
        Op::Recv {
            src,
            tag,
            comm: COMM_WORLD,
            req,
            blocking: false,
        }
    }

    fn id(rank: usize, index: usize) -> OpId {
        OpId { rank, index }
    }

    #[test]
    fn named_receives_take_sends_in_order() {
        let mut m = Matching::new(2);
        let s0 = call(&mut m, 0, send(1, 7));
        let s1 = call(&mut m, 0, send(1, 7));
        let r0 = call(&mut m, 1, recv(0, 7, 1));
        let r1 = call(&mut m, 1, recv(0, ANY, 2));
        let (s, r) = m.named_pair().unwrap();
        assert_eq!((s, r), (s0, r0));
        m.match_pair(&m.pair(s, r), false);
        assert_eq!(m.named_pair(), Some((s1, r1)));
        assert_eq!(m.op(r0).matched, Some(s0));
        assert!(m.op(r0).complete);
        assert_eq!(
            m.take_out(),
            vec![(
                1,
                Down::PostRecv {
                    req: 1,
                    src: 0,
                    tag: 7
                }
            )]
        );
        assert_eq!(
            m.fired(),
            &[Fired::SendRecv {
                send: s0,
                recv: r0,
                wildcard: false
            }]
        );
    }

    #[test]
    fn an_earlier_receive_claims_the_send_it_accepts() {
        let mut m = Matching::new(3);
        let _named = call(&mut m, 0, recv(1, 5, 1));
        let any = call(&mut m, 0, recv(ANY, ANY, 2));
        let s1 = call(&mut m, 1, send(0, 5));
        let s2 = call(&mut m, 2, send(0, 9));
        // Rank 1's send goes to the named receive; the wildcard receive can
        // only get rank 2's.
        let (points, polls) = m.choice_points();
        assert!(polls.is_empty());
        assert_eq!(points.len(), 1);
        assert_eq!(points[0].at, any);
        assert_eq!(points[0].alternatives, vec![Alternative::Send(s2)]);
        assert_eq!(m.named_pair().map(|p| p.0), Some(s1));
    }

    #[test]
    fn a_wildcard_rival_needs_no_earlier_send_in_the_way() {
        let mut m = Matching::new(2);
        let any = call(&mut m, 1, recv(ANY, ANY, 1));
        let first = call(&mut m, 0, send(1, 3));
        let second = call(&mut m, 0, send(1, 3));
        assert!(m.rival(first, any));
        // Non-overtaking: the first send reaches the wildcard receive first.
        assert!(!m.rival(second, any));
        let other_tag = call(&mut m, 0, send(0, 3));
        assert!(!m.rival(other_tag, any));
    }

    #[test]
    fn a_full_collective_fires_and_creates_communicators() {
        let mut m = Matching::new(3);
        for (r, color) in [(0, 1), (1, UNDEFINED), (2, 1)] {
            call(
                &mut m,
                r,
                Op::CommSplit {
                    comm: COMM_WORLD,
                    color,
                    key: -(r as i32),
                },
            );
        }
        let ready = m.ready_collectives();
        assert_eq!(ready, vec![(COMM_WORLD, vec![0, 1, 2])]);
        let ids = m.fire_collective(COMM_WORLD, &ready[0].1).unwrap();
        assert_eq!(ids, vec![id(0, 0), id(1, 0), id(2, 0)]);
        let out = m.take_out();
        let new = wire::FIRST_USER_COMM as i32;
        assert_eq!(
            out,
            vec![
                (0, Down::NewComm { id: new }),
                (1, Down::NewComm { id: -1 }),
                (2, Down::NewComm { id: new }),
            ]
        );
        // Keys order the new communicator: rank 2 (key -2) comes first.
        assert_eq!(m.members(0, new as u32), Some(&[2, 0][..]));
        assert!(m.leaks().contains(&Leak::Comm {
            op: id(2, 0),
            comm: new as u32
        }));
    }

    /// Four ranks split by parity (communicators 2: ranks 0, 2 and 3:
    /// ranks 1, 3), joined by an intercommunicator (4), whose id is
    /// returned.
    fn intercomm(m: &mut Matching) -> u32 {
        for r in 0..4 {
            call(
                m,
                r,
                Op::CommSplit {
                    comm: COMM_WORLD,
                    color: r as i32 % 2,
                    key: r as i32,
                },
            );
        }
        let ready = m.ready_collectives();
        m.fire_collective(COMM_WORLD, &ready[0].1).unwrap();
        m.take_out();
        for r in 0..4 {
            call(
                m,
                r,
                Op::IntercommCreate {
                    local_comm: 2 + r as u32 % 2,
                    local_leader: 0,
                    peer_comm: COMM_WORLD,
                    remote_leader: 1 - r as i32 % 2,
                    tag: 7,
                },
            );
            if r < 3 {
                // One side alone, or a side and part of the other: nothing
                // is ready.
                assert!(m.ready_collectives().is_empty(), "{r}");
            }
        }
        let ready = m.ready_collectives();
        assert_eq!(ready, vec![(2, vec![0, 2])], "one entry for the pair");
        let ids = m.fire_collective(2, &ready[0].1).unwrap();
        assert_eq!(ids, vec![id(0, 1), id(2, 1), id(1, 1), id(3, 1)]);
        let mut out = m.take_out();
        out.sort_by_key(|(r, _)| *r);
        assert_eq!(
            out,
            (0..4)
                .map(|r| (r, Down::NewComm { id: 4 }))
                .collect::<Vec<_>>()
        );
        assert!(m.ready_collectives().is_empty());
        4
    }

    #[test]
    fn intercomm_ranks_name_the_remote_group() {
        let mut m = Matching::new(4);
        let ic = intercomm(&mut m);
        assert!(m.is_inter(ic));
        assert_eq!(m.members(0, ic), Some(&[0, 2, 1, 3][..]));
        assert_eq!(m.peers(0, ic), Some(&[1, 3][..]));
        assert_eq!(m.peers(3, ic), Some(&[0, 2][..]));
        let on = |dest| Op::Send {
            mode: SendMode::Standard,
            dest,
            tag: 5,
            comm: ic,
            req: None,
        };
        // Rank 1 of the remote group is world rank 3 for rank 0, and world
        // rank 2 for rank 1.
        let s = call(&mut m, 0, on(1));
        assert!(matches!(
            m.op(s).kind,
            Kind::Send {
                dst: Peer::Rank(3),
                ..
            }
        ));
        let s2 = call(&mut m, 1, on(1));
        assert!(matches!(
            m.op(s2).kind,
            Kind::Send {
                dst: Peer::Rank(2),
                ..
            }
        ));
        let r = call(
            &mut m,
            3,
            Op::Recv {
                src: 0,
                tag: 5,
                comm: ic,
                req: 1,
                blocking: true,
            },
        );
        assert!(matches!(
            m.op(r).kind,
            Kind::Recv {
                src: Peer::Rank(0),
                ..
            }
        ));
        let (send, recv) = m.named_pair().unwrap();
        assert_eq!((send, recv), (s, r));
        m.match_pair(&m.pair(send, recv), false);
        // The source is posted as a rank of the receiver's remote group.
        assert_eq!(
            m.take_out(),
            vec![(
                3,
                Down::PostRecv {
                    req: 1,
                    src: 0,
                    tag: 5
                }
            )]
        );
        // A rank of the local group is no destination: the remote group
        // has two ranks.
        let bad = model(&m, 0, &on(2), false).unwrap_err();
        assert_eq!(
            bad,
            "rank 2 is out of range for a communicator of 2 processes"
        );
    }

    #[test]
    fn an_intercomm_wildcard_chooses_among_the_remote_group() {
        let mut m = Matching::new(4);
        let ic = intercomm(&mut m);
        let on = |comm| Op::Send {
            mode: SendMode::Standard,
            dest: 0,
            tag: 0,
            comm,
            req: None,
        };
        let any = call(
            &mut m,
            0,
            Op::Recv {
                src: ANY,
                tag: ANY,
                comm: ic,
                req: 1,
                blocking: true,
            },
        );
        let a = call(&mut m, 1, on(ic));
        let b = call(&mut m, 3, on(ic));
        // A send on the local communicator to world rank 0 is no candidate.
        call(&mut m, 2, on(2));
        call(&mut m, 2, Op::Finalize);
        let (points, polls) = m.choice_points();
        assert!(polls.is_empty());
        assert_eq!(points.len(), 1);
        assert_eq!(points[0].at, any);
        assert_eq!(
            points[0].alternatives,
            vec![Alternative::Send(a), Alternative::Send(b)]
        );
        m.match_pair(&m.pair(b, any), true);
        assert_eq!(
            m.take_out(),
            vec![(
                0,
                Down::PostRecv {
                    req: 1,
                    src: 1,
                    tag: 0
                }
            )]
        );
        // A probe on the intercommunicator sees the remote rank too.
        let p = call(
            &mut m,
            0,
            Op::Probe {
                src: 0,
                tag: ANY,
                comm: ic,
                blocking: true,
            },
        );
        assert_eq!(m.ready(0), Some(Ready::Probe(p, a)));
        assert_eq!(
            m.probe(p, a),
            Down::Probed {
                found: true,
                src: 0,
                tag: 0
            }
        );
    }

    #[test]
    fn intercomm_collectives_check_roots_by_group_and_merge_orders_groups() {
        let mut m = Matching::new(4);
        let ic = intercomm(&mut m);
        let bcast = |root| Op::Coll {
            kind: CollKind::Bcast,
            comm: ic,
            root,
        };
        // Rank 2 of the first group is the root: rank 1 in it.
        for (r, root) in [(0, PROC_NULL), (2, wire::ROOT), (1, 1), (3, 1)] {
            call(&mut m, r, bcast(root));
        }
        let ready = m.ready_collectives();
        assert_eq!(ready, vec![(ic, vec![0, 2, 1, 3])]);
        assert!(m.fire_collective(ic, &ready[0].1).is_ok());
        m.take_out();
        // The remote group names the wrong root.
        for (r, root) in [(0, PROC_NULL), (2, wire::ROOT), (1, 1), (3, 0)] {
            call(&mut m, r, bcast(root));
        }
        let ready = m.ready_collectives();
        assert!(matches!(
            m.fire_collective(ic, &ready[0].1),
            Err(RunEnd::CollectiveMismatch { comm, .. }) if comm == ic
        ));
        // Merge: the second group (ranks 1, 3) says high false: it comes
        // first.
        let mut m = Matching::new(4);
        let ic = intercomm(&mut m);
        for r in 0..4 {
            call(
                &mut m,
                r,
                Op::IntercommMerge {
                    comm: ic,
                    high: r % 2 == 0,
                },
            );
        }
        let ready = m.ready_collectives();
        m.fire_collective(ic, &ready[0].1).unwrap();
        assert_eq!(m.members(0, 5), Some(&[1, 3, 0, 2][..]));
        assert!(!m.is_inter(5));
        // Every rank holds the intercommunicator and the merged one.
        let leaks = m.leaks();
        assert!(leaks.contains(&Leak::Comm {
            op: id(1, 1),
            comm: ic
        }));
        assert!(leaks.contains(&Leak::Comm {
            op: id(1, 2),
            comm: 5
        }));
    }

    #[test]
    fn intercomm_split_and_create_pair_the_two_groups_parts() {
        // Groups (0, 2) and (1, 3). Split: colour 0 for ranks 0, 1 and 3,
        // colour 1 for rank 2 alone: colour 0 pairs (0) with (3, 1) in key
        // order, colour 1 has no remote part.
        let mut m = Matching::new(4);
        let ic = intercomm(&mut m);
        for (r, color, key) in [(0, 0, 0), (2, 1, 0), (1, 0, 5), (3, 0, 1)] {
            call(
                &mut m,
                r,
                Op::CommSplit {
                    comm: ic,
                    color,
                    key,
                },
            );
        }
        let ready = m.ready_collectives();
        m.fire_collective(ic, &ready[0].1).unwrap();
        let ids = new_comm_ids(&mut m);
        assert_eq!(ids, vec![5, 5, -1, 5]);
        assert!(m.is_inter(5));
        assert_eq!(m.peers(0, 5), Some(&[3, 1][..]));
        assert_eq!(m.peers(1, 5), Some(&[0][..]));
        // Create: each side gives a subgroup of its own; an empty one on
        // either side gives MPI_COMM_NULL to all.
        let create = |members: Vec<u32>| Op::CommCreate { comm: ic, members };
        for (r, g) in [(0, vec![2]), (2, vec![2]), (1, vec![1, 3]), (3, vec![1, 3])] {
            call(&mut m, r, create(g));
        }
        let ready = m.ready_collectives();
        m.fire_collective(ic, &ready[0].1).unwrap();
        let mut out = m.take_out();
        out.sort_by_key(|(r, _)| *r);
        assert_eq!(
            out.iter().map(|(_, d)| d.clone()).collect::<Vec<_>>(),
            vec![
                Down::NewComm { id: -1 },
                Down::NewComm { id: 6 },
                Down::NewComm { id: 6 },
                Down::NewComm { id: 6 }
            ]
        );
        assert_eq!(m.peers(2, 6), Some(&[1, 3][..]));
        for (r, g) in [(0, vec![]), (2, vec![]), (1, vec![1]), (3, vec![1])] {
            call(&mut m, r, create(g));
        }
        let ready = m.ready_collectives();
        m.fire_collective(ic, &ready[0].1).unwrap();
        assert!(m
            .take_out()
            .iter()
            .all(|(_, d)| *d == Down::NewComm { id: -1 }));
    }

    #[test]
    fn disagreeing_collectives_are_a_mismatch() {
        let mut m = Matching::new(2);
        call(
            &mut m,
            0,
            Op::Coll {
                kind: CollKind::Barrier,
                comm: COMM_WORLD,
                root: 0,
            },
        );
        call(&mut m, 1, Op::CommDup { comm: COMM_WORLD });
        let r = m.fire_collective(COMM_WORLD, &[0, 1]);
        assert!(matches!(
            r,
            Err(RunEnd::CollectiveMismatch { comm: COMM_WORLD, ref calls }) if calls.len() == 2
        ));
        assert!(m.ready_collectives().len() == 1, "nothing fired");
    }

    /// `MPI_Comm_create` with disjoint groups, each passed by its members
    /// (a process grid's rows): one communicator per group. Groups that
    /// overlap without being the same are a mismatch.
    #[test]
    fn creates_with_disjoint_groups_make_one_communicator_each() {
        let mut m = Matching::new(4);
        let create = |members: Vec<u32>| Op::CommCreate {
            comm: COMM_WORLD,
            members,
        };
        for (r, g) in [
            (0, vec![0, 1]),
            (1, vec![0, 1]),
            (2, vec![3, 2]),
            (3, vec![3, 2]),
        ] {
            call(&mut m, r, create(g));
        }
        m.fire_collective(COMM_WORLD, &[0, 1, 2, 3]).unwrap();
        let ids = new_comm_ids(&mut m);
        assert_eq!(ids[0], ids[1]);
        assert_eq!(ids[2], ids[3]);
        assert_ne!(ids[0], ids[2]);
        assert!(ids.iter().all(|&id| id > 0));
        // Group order is rank order in the new communicator.
        assert_eq!(m.comms[&(ids[2] as u32)], vec![3, 2]);
        // A group passed by a process outside it: that process gets none.
        for (r, g) in [(0, vec![1]), (1, vec![1]), (2, vec![]), (3, vec![])] {
            call(&mut m, r, create(g));
        }
        m.fire_collective(COMM_WORLD, &[0, 1, 2, 3]).unwrap();
        let ids = new_comm_ids(&mut m);
        assert_eq!(ids[0], -1);
        assert!(ids[1] > 0);
        assert_eq!(ids[2..], [-1, -1]);
        // Rank 1 says its group is {1, 2}, rank 2 that it is {2, 3}.
        for (r, g) in [
            (0, vec![0]),
            (1, vec![1, 2]),
            (2, vec![2, 3]),
            (3, vec![2, 3]),
        ] {
            call(&mut m, r, create(g));
        }
        let r = m.fire_collective(COMM_WORLD, &[0, 1, 2, 3]);
        assert!(matches!(
            r,
            Err(RunEnd::CollectiveMismatch { comm: COMM_WORLD, ref calls }) if calls.len() == 4
        ));
    }

    #[test]
    fn waits_are_ready_when_their_requests_complete() {
        let mut m = Matching::new(2);
        let r = call(&mut m, 1, recv(0, 0, 4));
        let w = call(
            &mut m,
            1,
            Op::Wait {
                kind: WaitKind::All,
                reqs: vec![4],
            },
        );
        assert_eq!(m.ready(1), None);
        let s = call(&mut m, 0, send(1, 0));
        m.match_pair(&m.pair(s, r), false);
        assert_eq!(m.ready(1), Some(Ready::Wait(w, vec![0])));
        let (down, done) = m.complete_wait(w, vec![0]);
        assert_eq!(down, Down::Done { indices: vec![0] });
        assert_eq!(done, vec![r]);
        assert!(m.buffered_send(s));
        m.release(1, down);
        assert!(m.leaks().is_empty());
    }

    #[test]
    fn waitsome_points_offer_subsets_and_failing_polls_are_listed() {
        let mut m = Matching::new(2);
        for q in 1..=2 {
            call(
                &mut m,
                0,
                Op::Send {
                    mode: SendMode::Standard,
                    dest: 1,
                    tag: 0,
                    comm: COMM_WORLD,
                    req: Some(q),
                },
            );
        }
        let w = call(
            &mut m,
            0,
            Op::Wait {
                kind: WaitKind::Some,
                reqs: vec![1, 2],
            },
        );
        call(
            &mut m,
            1,
            Op::Probe {
                src: 0,
                tag: 9,
                comm: COMM_WORLD,
                blocking: false,
            },
        );
        let (points, polls) = m.choice_points();
        assert_eq!(polls, vec![1]);
        assert_eq!(points.len(), 1);
        assert_eq!(points[0].at, w);
        assert_eq!(
            points[0].alternatives,
            vec![
                Alternative::Subset(vec![0, 1]),
                Alternative::Subset(vec![0]),
                Alternative::Subset(vec![1]),
            ]
        );
        m.fail_polls(polls);
        assert_eq!(
            m.take_out(),
            vec![(
                1,
                Down::Probed {
                    found: false,
                    src: PROC_NULL,
                    tag: ANY
                }
            )]
        );
    }

    #[test]
    fn subsets_beyond_the_cap_are_all_or_one() {
        assert_eq!(some_subsets(&[2, 5]), vec![vec![2, 5], vec![2], vec![5]]);
        let many: Vec<u32> = (0..SOME_SUBSETS_UP_TO as u32 + 1).collect();
        let s = some_subsets(&many);
        assert_eq!(s.len(), many.len() + 1);
        assert_eq!(s[0], many);
        assert_eq!(some_subsets(&[1, 2, 3]).len(), 7);
    }

    #[test]
    fn finalize_needs_every_rank() {
        let mut m = Matching::new(2);
        call(&mut m, 0, Op::Finalize);
        assert!(!m.at_finalize());
        call(&mut m, 1, Op::Finalize);
        assert!(m.at_finalize() && m.all_waiting());
        m.finalize();
        assert_eq!(m.take_out(), vec![(0, Down::Go), (1, Down::Go)]);
        assert!(m
            .rank_views()
            .iter()
            .all(|v| v.finalized && v.call.is_none()));
    }
}
