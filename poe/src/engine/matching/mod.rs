//! MPI's matching rules for one run. [`Matching`] owns every rank's calls
//! and what became of them; it knows nothing of causality or of the plan a
//! run replays. This module holds its state, the queries the engine asks of
//! it, the recording of each call ([`Matching::issue`], which files the call
//! where its family looks for it) and [`Matching::ready`], which tells
//! whether the call a rank waits in has an answer that no longer depends on
//! anything still to come.
//!
//! Each family of MPI calls has a file of its own that adds methods to
//! [`Matching`]: `p2p` (which send a receive or probe can take under
//! non-overtaking, send/receive pairs, probes, cancellation), `collectives`
//! (collectives, the communicators they create, intercommunicators,
//! `MPI_Finalize`), `completions` (the answers of waits and tests) and
//! `choices` (the choice points left when every rank waits, and the polls
//! answered "not yet" then). The family files use this module's items; of
//! each other, only `choices` uses `p2p` (for the sends a wildcard receive
//! or probe could take), and this module calls into each. Their tests also
//! drive the calls of the families theirs build on. A new family (one-sided
//! windows, threads) gets a file of its own beside them.

mod choices;
mod collectives;
mod completions;
mod p2p;
mod windows;

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use fib_wire::{self as wire, Down, PROC_NULL};

use super::model::{
    CollWhat, FiredList, Handles, Kind, Leak, OpId, OpRec, Ops, Peer, Rank, RankView,
};

pub use choices::SOME_SUBSETS_UP_TO;

#[derive(Default)]
struct RankSt {
    ops: Ops,
    /// The calls the rank waits in: at most one per thread (one, for a
    /// rank of one thread).
    blocked: Vec<usize>,
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
    /// Windows the rank holds and has not freed, with the call that
    /// created each.
    windows: BTreeMap<u32, usize>,
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
    /// A one-sided start, wait or test whose posts or completes are there.
    Window(OpId),
}

impl Ready {
    /// The call answered.
    pub(crate) fn at(&self) -> OpId {
        match self {
            Ready::Complete(id)
            | Ready::Wait(id, _)
            | Ready::Probe(id, _)
            | Ready::NullProbe(id)
            | Ready::Window(id) => *id,
        }
    }
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
    /// The answers produced since the last call, each with the call it is
    /// for (the rank's thread that made the call takes it).
    out: Vec<(OpId, Down)>,
    /// The communicators in which `MPI_Comm_create_group` calls match,
    /// by id (each a parent, the group's members and a tag, see
    /// [`Matching::group_comm`]).
    groups: HashMap<u32, (u32, Vec<u32>, i32)>,
    /// Windows, epochs and locks.
    windows: windows::Windows,
}

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

    fn is_window(&self, id: u32) -> bool {
        self.window_alive(id)
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
            windows: windows::Windows::default(),
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
            for (&win, &index) in &st.windows {
                out.push(Leak::Window {
                    op: OpId { rank, index },
                    win,
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

    /// How many ranks the run has.
    pub(crate) fn nprocs(&self) -> usize {
        self.ranks.len()
    }

    /// The match sets fired so far.
    pub(crate) fn fired(&self) -> &FiredList {
        &self.fired
    }

    /// The call rank `r` waits in for an answer, if any (the first, if
    /// several of its threads wait).
    pub(crate) fn blocked_on(&self, r: Rank) -> Option<usize> {
        self.ranks[r].blocked.first().copied()
    }

    /// Every call rank `r` waits in, one per waiting thread.
    pub(crate) fn blocked_all(&self, r: Rank) -> &[usize] {
        &self.ranks[r].blocked
    }

    /// The answers produced since the last call, by rank.
    #[cfg(test)]
    pub(crate) fn take_out(&mut self) -> Vec<(Rank, Down)> {
        let out = std::mem::take(&mut self.out);
        out.into_iter().map(|(id, d)| (id.rank, d)).collect()
    }

    /// The answers produced since the last call, each with its call.
    pub(crate) fn take_out_ops(&mut self) -> Vec<(OpId, Down)> {
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
        match st.blocked.first().copied() {
            Some(i) => RankView {
                rank: r,
                call: Some(st.ops[i].name),
                site: st.ops[i].site,
                finalized: false,
                last: None,
                threads: Vec::new(),
            },
            None => RankView {
                rank: r,
                call: None,
                site: st.ops.last().map(|o| o.site).unwrap_or_default(),
                finalized: st.finalized,
                last: st.ops.last().map(|o| o.name),
                threads: Vec::new(),
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
        let one_sided = matches!(rec.kind, Kind::Rma(_) | Kind::Win { .. });
        self.ranks[r].ops.push(rec);
        if one_sided {
            self.window_issued(id);
        }
        if waits {
            self.ranks[r].blocked.push(id.index);
        }
        is_send
    }

    /// The answer of a call rank `r` waits in (the earliest, if several of
    /// its threads wait), if it no longer depends on anything still to
    /// come.
    pub(crate) fn ready(&self, r: Rank) -> Option<Ready> {
        self.ranks[r]
            .blocked
            .iter()
            .find_map(|&i| self.ready_at(OpId { rank: r, index: i }))
    }

    fn ready_at(&self, id: OpId) -> Option<Ready> {
        let (r, i) = (id.rank, id.index);
        match &self.ranks[r].ops[i].kind {
            Kind::Send { .. } | Kind::Recv { .. } => {
                self.ranks[r].ops[i].complete.then_some(Ready::Complete(id))
            }
            Kind::Wait { kind, ops, .. } => self
                .wait_returns(r, *kind, ops)
                .map(|indices| Ready::Wait(id, indices)),
            Kind::Probe { src, tag, comm, .. } => match src {
                Peer::Rank(_) => self
                    .probe_sees(r, *comm, *src, *tag)
                    .map(|s| Ready::Probe(id, s)),
                Peer::Null => Some(Ready::NullProbe(id)),
                _ => None,
            },
            Kind::Win { .. } => self.window_ready(id).then_some(Ready::Window(id)),
            _ => None,
        }
    }

    /// The call `id` gets the answer `d`, and its thread runs on.
    pub(crate) fn release(&mut self, id: OpId, d: Down) {
        self.unblock(id);
        self.out.push((id, d));
    }

    /// The call `id`, which does not wait, is answered anyway: its thread
    /// waited at its rank's gate.
    pub(crate) fn say(&mut self, id: OpId, d: Down) {
        self.out.push((id, d));
    }

    /// Whether rank `r` waits in a call or has finalized.
    pub(crate) fn waiting(&self, r: Rank) -> bool {
        !self.ranks[r].blocked.is_empty() || self.ranks[r].finalized
    }

    /// Whether rank `r` has finalized.
    pub(crate) fn finalized(&self, r: Rank) -> bool {
        self.ranks[r].finalized
    }

    /// The call `id` waits no more.
    fn unblock(&mut self, id: OpId) {
        self.ranks[id.rank].blocked.retain(|&b| b != id.index);
    }
}

#[cfg(test)]
mod testing {
    //! What the tests of the family files share: issuing a modelled call,
    //! and writing the calls they issue and the operations they name.

    use fib_wire::{Op, SendMode, Site, COMM_WORLD};

    use super::*;
    use crate::engine::model::{call_name, model};

    /// Models and issues `op` as the next call of `rank`.
    pub(super) fn call(m: &mut Matching, rank: Rank, op: Op) -> OpId {
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

    /// A standard send to `dest` with `tag` on `MPI_COMM_WORLD`.
    pub(super) fn send(dest: i32, tag: i32) -> Op {
        Op::Send {
            mode: SendMode::Standard,
            dest,
            tag,
            comm: COMM_WORLD,
            req: None,
        }
    }

    /// A nonblocking receive from `src` with `tag` on `MPI_COMM_WORLD`,
    /// whose request is `req`.
    pub(super) fn recv(src: i32, tag: i32, req: u32) -> Op {
        Op::Recv {
            src,
            tag,
            comm: COMM_WORLD,
            req,
            blocking: false,
        }
    }

    /// The `index`-th call of `rank`.
    pub(super) fn id(rank: usize, index: usize) -> OpId {
        OpId { rank, index }
    }
}
