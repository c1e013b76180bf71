//! One run of the POE algorithm: takes the MPI calls of every rank as they
//! arrive, forms match sets, and answers the calls that wait.
//!
//! The engine never touches the outside world. The driver feeds it
//! [`fib_wire::Up`] messages in whatever order the ranks produce them and
//! sends on the [`Down`] answers that [`Engine::advance`] returns. Every
//! decision the engine takes is independent of that arrival order: the
//! deterministic match sets (collectives, completions, send/receive pairs
//! with a specific source) have a unique outcome under MPI's non-overtaking
//! rule, and every real choice (which send a wildcard receive or probe gets,
//! which request a `Waitany` returns, which requests a `Waitsome` returns, a
//! poll answered "not yet") is taken only when every rank is blocked, so that
//! all candidates are known. Choices are taken from a replay prefix when one
//! is given, which is how [`crate::explore::Explorer`] walks the tree of
//! interleavings.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::rc::Rc;

use fib_wire::{self as wire, CollKind, Down, Op, SendMode, Site, WaitKind, ANY, PROC_NULL};

/// A world rank.
pub type Rank = usize;

/// An operation instance: the `index`-th intercepted call of `rank`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpId {
    pub rank: Rank,
    pub index: usize,
}

/// The other end of a point-to-point operation, as a world rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Peer {
    Rank(Rank),
    Any,
    Null,
}

/// What a collective-like call does; two ranks' calls on one communicator
/// must agree on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CollWhat {
    Coll { kind: CollKind, root: i32 },
    Dup,
    Split { color: i32, key: i32 },
    Create { members: Vec<u32> },
}

/// An operation as the engine models it (ranks translated to world ranks,
/// request ids resolved to the operations they name).
#[derive(Clone, Debug)]
pub enum Kind {
    Send {
        dst: Peer,
        tag: i32,
        comm: u32,
        sync: bool,
        req: Option<u32>,
    },
    Recv {
        src: Peer,
        tag: i32,
        comm: u32,
        req: u32,
        blocking: bool,
    },
    /// `MPI_Wait*` (`test == false`) or `MPI_Test*`, on these operations of
    /// the same rank.
    Wait {
        kind: WaitKind,
        ops: Vec<usize>,
        test: bool,
    },
    Probe {
        src: Peer,
        tag: i32,
        comm: u32,
        blocking: bool,
    },
    Coll {
        what: CollWhat,
        comm: u32,
    },
    CommFree {
        comm: u32,
    },
    Finalize,
}

/// One intercepted call and what became of it.
#[derive(Clone, Debug)]
pub struct OpRec {
    pub site: Site,
    pub name: &'static str,
    pub kind: Kind,
    /// For sends and receives: the operation it matched; for probes: the
    /// send it saw.
    pub matched: Option<OpId>,
    /// Whether the operation is complete in MPI's sense (a buffered send is
    /// complete when issued, a receive when matched).
    pub complete: bool,
}

/// A match set the engine fired, in firing order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fired {
    /// A send and the receive that got it; `wildcard` when the receive was
    /// an `MPI_ANY_SOURCE` receive whose source POE chose.
    SendRecv {
        send: OpId,
        recv: OpId,
        wildcard: bool,
    },
    /// A probe and the send it reported.
    Probe { probe: OpId, send: OpId },
    /// All members' calls of one collective (or `MPI_Finalize`).
    Collective { ops: Vec<OpId> },
    /// A wait or test call answered, with the operations it completed.
    Completion { op: OpId, completed: Vec<OpId> },
}

/// What a choice point chooses between.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Alternative {
    /// The send a wildcard receive or probe gets.
    Send(OpId),
    /// The position (in the call's request list) a `Waitany`/`Testany` returns.
    Index(u32),
    /// The positions (in the call's request list, ascending) a
    /// `Waitsome`/`Testsome` returns: under other timing it could have found
    /// any non-empty subset of its complete requests complete (see
    /// [`SOME_SUBSETS_UP_TO`]).
    Subset(Vec<u32>),
    /// Take another choice point's alternative first, leaving this point's
    /// own choice for later. Explored only when a run showed that doing so
    /// can give this point a send (or, for a wait, a completed request) it
    /// could not get otherwise.
    Defer { at: OpId, alt: Box<Alternative> },
}

/// A point where POE had more than one thing it could do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChoicePoint {
    /// The receive, probe or wait call that chooses.
    pub at: OpId,
    pub site: Site,
    pub alternatives: Vec<Alternative>,
}

/// A choice taken in a run: the point and the alternative's position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    pub point: ChoicePoint,
    pub taken: usize,
    /// [`Alternative::Defer`] positions of the point that this run showed
    /// worth exploring: a send arrived later that the choosing call accepts
    /// and that does not depend on this choice.
    pub wake: Vec<usize>,
}

impl Choice {
    /// The call that actually chose and what it took, looking through
    /// [`Alternative::Defer`].
    pub fn fired(&self) -> (OpId, &Alternative) {
        match &self.point.alternatives[self.taken] {
            Alternative::Defer { at, alt } => (*at, alt),
            a => (self.point.at, a),
        }
    }
}

/// A set of choice indices: the choices of the run an event causally follows.
#[derive(Clone, Debug, Default)]
struct Deps(Vec<u64>);

impl Deps {
    fn insert(&mut self, k: usize) {
        if self.0.len() <= k / 64 {
            self.0.resize(k / 64 + 1, 0);
        }
        self.0[k / 64] |= 1 << (k % 64);
    }

    fn contains(&self, k: usize) -> bool {
        self.0.get(k / 64).is_some_and(|w| (w >> (k % 64)) & 1 == 1)
    }

    fn is_subset(&self, o: &Deps) -> bool {
        self.0
            .iter()
            .enumerate()
            .all(|(i, w)| w & !o.0.get(i).copied().unwrap_or(0) == 0)
    }

    fn union(&mut self, o: &Deps) {
        if self.0.len() < o.0.len() {
            self.0.resize(o.0.len(), 0);
        }
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a |= b;
        }
    }
}

/// Matched operations of one kind, by program position, with the union of
/// the match dependencies of every entry up to each: the dependency of all
/// earlier matches of a channel in one lookup, instead of a scan of the
/// rank's calls per match (which made long runs quadratic).
#[derive(Default)]
struct Prefix(Vec<PrefixEntry>);

struct PrefixEntry {
    index: usize,
    /// The entry's own match dependency.
    own: Rc<Deps>,
    /// The union of `own` over this entry and every earlier one.
    upto: Rc<Deps>,
}

impl Prefix {
    /// The union of the dependencies of the entries before `index`.
    fn before(&self, index: usize) -> Option<&Rc<Deps>> {
        let p = self.0.partition_point(|e| e.index < index);
        p.checked_sub(1).map(|p| &self.0[p].upto)
    }

    /// Records the match of the operation at `index` with dependency `own`.
    fn record(&mut self, index: usize, own: &Rc<Deps>) {
        let at = self.0.partition_point(|e| e.index < index);
        // Matches of one key come in program order, so `at` is the end; the
        // general case only keeps the sums right if they ever did not.
        let tail: Vec<(usize, Rc<Deps>)> = std::iter::once((index, own.clone()))
            .chain(self.0.drain(at..).map(|e| (e.index, e.own)))
            .collect();
        let mut acc: Rc<Deps> = match at.checked_sub(1) {
            Some(p) => self.0[p].upto.clone(),
            None => Rc::default(),
        };
        for (index, own) in tail {
            if !own.is_subset(&acc) {
                let mut u = Deps::clone(&acc);
                u.union(&own);
                acc = Rc::new(u);
            }
            self.0.push(PrefixEntry {
                index,
                own,
                upto: acc.clone(),
            });
        }
    }
}

/// What the engine must follow at the n-th choice point of a replay: the
/// alternative to take and, when known, the point it expects there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Planned {
    pub expect: Option<ChoicePoint>,
    pub taken: usize,
}

/// Where a rank is, for reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankView {
    pub rank: Rank,
    /// The call it is blocked in, or `None` when it is running.
    pub call: Option<&'static str>,
    pub site: Site,
    pub finalized: bool,
}

/// How a run ended, as far as the engine can tell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunEnd {
    /// Every rank passed `MPI_Finalize`.
    Completed,
    /// Nothing can ever match again and some rank waits.
    Deadlock { ranks: Vec<RankView> },
    /// Every rank waits or polls, and polls can only keep failing.
    Livelock { ranks: Vec<RankView> },
    /// The ranks of a communicator called different collectives.
    CollectiveMismatch {
        comm: u32,
        calls: Vec<(OpId, &'static str, Site)>,
    },
    /// A replayed choice point differs from the one recorded.
    Divergence {
        index: usize,
        expected: Option<ChoicePoint>,
        found: Option<ChoicePoint>,
    },
    /// A call the engine cannot accept (unknown request, rank out of range).
    Invalid {
        op: OpId,
        site: Site,
        message: String,
    },
}

/// Something the program left behind in a run that completed: MPI requires
/// every communication to be complete and (by good practice) every handle
/// released before `MPI_Finalize`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Leak {
    /// A nonblocking send or receive that no wait or test completed.
    Request { op: OpId },
    /// A communicator never freed; `op` is the call that created it.
    Comm { op: OpId, comm: u32 },
    /// A message no receive ever took; `op` is its send.
    Message { op: OpId },
}

/// Settings of one run.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    pub nprocs: usize,
    /// Every standard send is synchronous.
    pub zero_buffer: bool,
}

/// How many rounds of failing polls, with nothing else happening, count as a
/// livelock.
const LIVELOCK_ROUNDS: u32 = 10_000;

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
    ops: Vec<OpRec>,
    blocked: Option<usize>,
    finalized: bool,
    reqs: HashMap<u32, usize>,
    /// Communicators the rank holds and has not freed, with the call that
    /// created each.
    held: BTreeMap<u32, usize>,
}

/// The state of one run of the program under POE.
pub struct Engine {
    cfg: Config,
    ranks: Vec<RankSt>,
    comms: HashMap<u32, Vec<Rank>>,
    next_comm: u32,
    /// Unmatched sends per (communicator, source, destination), program order.
    sends: BTreeMap<(u32, Rank, Rank), VecDeque<usize>>,
    /// Unmatched receives per (communicator, destination), program order.
    recvs: BTreeMap<(u32, Rank), Vec<usize>>,
    plan: Vec<Planned>,
    choices: Vec<Choice>,
    fired: Vec<Fired>,
    out: Vec<(Rank, Down)>,
    end: Option<RunEnd>,
    false_rounds: u32,
    /// The choices each rank's next call causally follows.
    dep: Vec<Rc<Deps>>,
    /// The same for every issued call, at the time it was issued.
    op_dep: Vec<Vec<Rc<Deps>>>,
    /// The choices the match of a send or receive causally follows.
    match_dep: HashMap<OpId, Rc<Deps>>,
    /// Matched sends per (communicator, sender, receiver, tag), in program
    /// order (which is the order non-overtaking matches them in), each with
    /// the union of the match dependencies up to it.
    sent_deps: HashMap<(u32, Rank, Rank, i32), Prefix>,
    /// The tags of those sends per (communicator, sender, receiver).
    sent_tags: HashMap<(u32, Rank, Rank), Vec<i32>>,
    /// The same for matched receives per (communicator, receiver, source
    /// filter, tag filter).
    recv_deps: HashMap<(u32, Rank, Peer, i32), Prefix>,
    /// Alternatives already explored in another branch that this run must not
    /// take again (the point's own alternatives, after an
    /// [`Alternative::Defer`]).
    asleep: HashSet<(OpId, Alternative)>,
}

fn accepts(src: Peer, tag: i32, from: Rank, msg_tag: i32) -> bool {
    (src == Peer::Any || src == Peer::Rank(from)) && (tag == ANY || tag == msg_tag)
}

impl Engine {
    /// A run that takes its choices from `plan` while it lasts and the first
    /// alternative after that.
    pub fn new(cfg: Config, plan: Vec<Planned>) -> Engine {
        let mut comms = HashMap::new();
        comms.insert(wire::COMM_WORLD, (0..cfg.nprocs).collect());
        Engine {
            cfg,
            ranks: (0..cfg.nprocs).map(|_| RankSt::default()).collect(),
            comms,
            next_comm: wire::FIRST_USER_COMM,
            sends: BTreeMap::new(),
            recvs: BTreeMap::new(),
            plan,
            choices: Vec::new(),
            fired: Vec::new(),
            out: Vec::new(),
            end: None,
            false_rounds: 0,
            dep: (0..cfg.nprocs).map(|_| Rc::default()).collect(),
            op_dep: (0..cfg.nprocs).map(|_| Vec::new()).collect(),
            match_dep: HashMap::new(),
            sent_deps: HashMap::new(),
            sent_tags: HashMap::new(),
            recv_deps: HashMap::new(),
            asleep: HashSet::new(),
        }
    }

    /// What the ranks left behind, once the run has completed (empty for any
    /// other ending: a deadlocked run leaves its calls pending by nature).
    pub fn leaks(&self) -> Vec<Leak> {
        if self.end != Some(RunEnd::Completed) {
            return Vec::new();
        }
        let mut out = Vec::new();
        for (rank, st) in self.ranks.iter().enumerate() {
            for &index in st.reqs.values() {
                out.push(Leak::Request {
                    op: OpId { rank, index },
                });
            }
            for (&comm, &index) in &st.held {
                out.push(Leak::Comm {
                    op: OpId { rank, index },
                    comm,
                });
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

    /// The run's end, once it has one.
    pub fn end(&self) -> Option<&RunEnd> {
        self.end.as_ref()
    }

    /// The choices taken so far.
    pub fn choices(&self) -> &[Choice] {
        &self.choices
    }

    /// The match sets fired so far.
    pub fn fired(&self) -> &[Fired] {
        &self.fired
    }

    /// Every rank's operations, in program order.
    pub fn ops(&self, rank: Rank) -> &[OpRec] {
        &self.ranks[rank].ops
    }

    /// The operation `id`.
    pub fn op(&self, id: OpId) -> &OpRec {
        &self.ranks[id.rank].ops[id.index]
    }

    /// Where every rank stands now.
    pub fn rank_views(&self) -> Vec<RankView> {
        (0..self.cfg.nprocs).map(|r| self.view(r)).collect()
    }

    fn view(&self, r: Rank) -> RankView {
        let st = &self.ranks[r];
        match st.blocked {
            Some(i) => RankView {
                rank: r,
                call: Some(st.ops[i].name),
                site: st.ops[i].site,
                finalized: false,
            },
            None => RankView {
                rank: r,
                call: None,
                site: st.ops.last().map(|o| o.site).unwrap_or_default(),
                finalized: st.finalized,
            },
        }
    }

    fn comm_members(&self, rank: Rank, comm: u32) -> Option<Vec<Rank>> {
        if comm == wire::COMM_SELF {
            return Some(vec![rank]);
        }
        self.comms.get(&comm).cloned()
    }

    fn world_peer(&self, rank: Rank, comm: u32, local: i32) -> Result<Peer, String> {
        match local {
            ANY => Ok(Peer::Any),
            PROC_NULL => Ok(Peer::Null),
            l => {
                let members = self
                    .comm_members(rank, comm)
                    .ok_or_else(|| format!("unknown communicator {comm}"))?;
                if l < 0 || l as usize >= members.len() {
                    return Err(format!(
                        "rank {l} is out of range for a communicator of {} processes",
                        members.len()
                    ));
                }
                Ok(Peer::Rank(members[l as usize]))
            }
        }
    }

    fn local_rank(&self, observer: Rank, comm: u32, world: Rank) -> i32 {
        self.comm_members(observer, comm)
            .and_then(|m| m.iter().position(|&x| x == world))
            .map(|p| p as i32)
            .unwrap_or(PROC_NULL)
    }

    /// Takes one intercepted call of `rank`. The call's answer, if it waits
    /// for one, comes from a later [`Engine::advance`].
    pub fn call(&mut self, rank: Rank, site: Site, op: Op) {
        if self.end.is_some() {
            return;
        }
        let index = self.ranks[rank].ops.len();
        let id = OpId { rank, index };
        match self.model(rank, &op) {
            Ok(kind) => {
                let is_poll = matches!(
                    kind,
                    Kind::Wait { test: true, .. }
                        | Kind::Probe {
                            blocking: false,
                            ..
                        }
                );
                if !is_poll {
                    self.false_rounds = 0;
                }
                let rec = OpRec {
                    site,
                    name: call_name(&op),
                    complete: false,
                    matched: None,
                    kind,
                };
                self.issue(id, rec, op.expects_reply(self.cfg.zero_buffer));
            }
            Err(message) => {
                self.end = Some(RunEnd::Invalid {
                    op: id,
                    site,
                    message: format!("{}: {message}", call_name(&op)),
                });
            }
        }
    }

    fn model(&self, rank: Rank, op: &Op) -> Result<Kind, String> {
        let st = &self.ranks[rank];
        let check_comm = |comm: u32| -> Result<(), String> {
            match self.comm_members(rank, comm) {
                Some(m) if m.contains(&rank) => Ok(()),
                Some(_) => Err(format!(
                    "rank {rank} is not a member of communicator {comm}"
                )),
                None => Err(format!("unknown communicator {comm}")),
            }
        };
        Ok(match op {
            Op::Send {
                mode,
                dest,
                tag,
                comm,
                req,
            } => {
                check_comm(*comm)?;
                let dst = self.world_peer(rank, *comm, *dest)?;
                if dst == Peer::Any {
                    return Err("MPI_ANY_SOURCE is not a destination".into());
                }
                if *tag < 0 {
                    return Err(format!("tag {tag} is negative"));
                }
                Kind::Send {
                    dst,
                    tag: *tag,
                    comm: *comm,
                    sync: *mode == SendMode::Sync || self.cfg.zero_buffer,
                    req: *req,
                }
            }
            Op::Recv {
                src,
                tag,
                comm,
                req,
                blocking,
            } => {
                check_comm(*comm)?;
                Kind::Recv {
                    src: self.world_peer(rank, *comm, *src)?,
                    tag: *tag,
                    comm: *comm,
                    req: *req,
                    blocking: *blocking,
                }
            }
            Op::Wait { kind, reqs } | Op::Test { kind, reqs } => {
                let ops = reqs
                    .iter()
                    .map(|r| {
                        st.reqs
                            .get(r)
                            .copied()
                            .ok_or_else(|| format!("request {r} is not active"))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                Kind::Wait {
                    kind: *kind,
                    ops,
                    test: matches!(op, Op::Test { .. }),
                }
            }
            Op::Probe {
                src,
                tag,
                comm,
                blocking,
            } => {
                check_comm(*comm)?;
                Kind::Probe {
                    src: self.world_peer(rank, *comm, *src)?,
                    tag: *tag,
                    comm: *comm,
                    blocking: *blocking,
                }
            }
            Op::Coll { kind, comm, root } => {
                check_comm(*comm)?;
                Kind::Coll {
                    what: CollWhat::Coll {
                        kind: *kind,
                        root: if kind.has_root() { *root } else { 0 },
                    },
                    comm: *comm,
                }
            }
            Op::CommDup { comm } => {
                check_comm(*comm)?;
                Kind::Coll {
                    what: CollWhat::Dup,
                    comm: *comm,
                }
            }
            Op::CommSplit { comm, color, key } => {
                check_comm(*comm)?;
                Kind::Coll {
                    what: CollWhat::Split {
                        color: *color,
                        key: *key,
                    },
                    comm: *comm,
                }
            }
            Op::CommCreate { comm, members } => {
                check_comm(*comm)?;
                Kind::Coll {
                    what: CollWhat::Create {
                        members: members.clone(),
                    },
                    comm: *comm,
                }
            }
            Op::CommFree { comm } => {
                check_comm(*comm)?;
                Kind::CommFree { comm: *comm }
            }
            Op::Finalize => Kind::Finalize,
        })
    }

    fn issue(&mut self, id: OpId, mut rec: OpRec, waits: bool) {
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
        self.op_dep[r].push(self.dep[r].clone());
        if waits {
            self.ranks[r].blocked = Some(id.index);
        }
        if is_send {
            self.note_races(id);
        }
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

    /// Adds `d` to the choices rank `r` causally follows.
    fn learn(&mut self, r: Rank, d: &Deps) {
        Rc::make_mut(&mut self.dep[r]).union(d);
    }

    /// A new send that an earlier wildcard receive or probe accepts, but that
    /// does not causally follow that choice, could have been its match had
    /// other choices been taken first. Marks, at that choice point, the
    /// [`Alternative::Defer`] that takes the first of those choices first.
    fn note_races(&mut self, send: OpId) {
        let Kind::Send {
            dst: Peer::Rank(d),
            tag,
            comm,
            ..
        } = self.op(send).kind
        else {
            return;
        };
        let sdep = self.op_dep[send.rank][send.index].clone();
        for k in 0..self.choices.len() {
            if sdep.contains(k) {
                continue;
            }
            let (at, _) = self.choices[k].fired();
            if at.rank != d {
                continue;
            }
            let accepted = match self.op(at).kind {
                Kind::Recv {
                    src: Peer::Any,
                    tag: t,
                    comm: c,
                    ..
                }
                | Kind::Probe {
                    src: Peer::Any,
                    tag: t,
                    comm: c,
                    ..
                } => c == comm && (t == ANY || t == tag),
                _ => false,
            };
            if !accepted {
                continue;
            }
            // Non-overtaking: the send can reach `at` only if every earlier
            // send of its sender that `at` accepts goes to an earlier receive.
            let blocked = self.ranks[send.rank].ops[..send.index].iter().any(|o| {
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
                    None => !self.ranks[d].ops[..at.index].iter().any(|r| {
                        r.matched.is_none()
                            && matches!(r.kind, Kind::Recv { src, tag, comm: rc, .. }
                                if rc == comm && accepts(src, tag, send.rank, t))
                    }),
                }
            });
            // Nor can it if an earlier receive naming its sender still waits
            // and has no earlier send of that sender to take first.
            let claimed = self.ranks[d].ops[..at.index].iter().any(|r| {
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
                    && rc == comm
                    && accepts(src, t, send.rank, tag)
                    && !self.ranks[send.rank].ops[..send.index].iter().any(|o| {
                        o.matched.is_none()
                            && matches!(o.kind, Kind::Send { dst: Peer::Rank(x), comm: c, tag: st, .. }
                                if x == d && c == comm && accepts(src, t, send.rank, st))
                    })
            });
            if blocked || claimed {
                continue;
            }
            self.wake(k, &sdep);
        }
    }

    /// A request that completes only now, but does not causally follow an
    /// earlier `MPI_Waitany`/`MPI_Waitsome` (or `MPI_Testany`/`MPI_Testsome`)
    /// choice of its rank whose list holds it, could have been complete when
    /// that call chose had other choices been taken first, and the call could
    /// then have returned it (alone or, for `Waitsome`, with others).
    /// The same race as [`Engine::note_races`], with a completion in place of
    /// a send: `dep` is what the completing match causally follows.
    fn note_wait_races(&mut self, req: OpId, dep: &Deps) {
        for k in 0..self.choices.len() {
            if dep.contains(k) {
                continue;
            }
            let (at, _) = self.choices[k].fired();
            let lists = at.rank == req.rank
                && matches!(&self.op(at).kind,
                    Kind::Wait { kind: WaitKind::Any | WaitKind::Some, ops, .. }
                        if ops.contains(&req.index));
            if lists {
                self.wake(k, dep);
            }
        }
    }

    /// Marks, at choice `k`, the [`Alternative::Defer`] that takes first the
    /// earliest later choice `dep` follows that was open at `k`: exploring
    /// it lets what follows `dep` happen before the call that chose at `k`.
    fn wake(&mut self, k: usize, dep: &Deps) {
        let point = &self.choices[k].point;
        let want = (k + 1..self.choices.len())
            .filter(|&m| dep.contains(m))
            .find_map(|m| {
                let (mat, malt) = self.choices[m].fired();
                point.alternatives.iter().position(|a| match a {
                    Alternative::Defer { at, alt } => *at == mat && **alt == *malt,
                    _ => false,
                })
            });
        if let Some(w) = want {
            let c = &mut self.choices[k];
            if w != c.taken && !c.wake.contains(&w) {
                c.wake.push(w);
            }
        }
    }

    /// Fires every match set that can fire now and returns the answers to
    /// send, in order. Sets [`Engine::end`] when the run cannot go on.
    pub fn advance(&mut self) -> Vec<(Rank, Down)> {
        if self.end.is_none() {
            loop {
                let mut changed = self.fire_collectives();
                if self.end.is_some() {
                    break;
                }
                changed |= self.fire_send_recv();
                for r in 0..self.cfg.nprocs {
                    changed |= self.answer(r);
                }
                if changed {
                    self.false_rounds = 0;
                    continue;
                }
                if self.all_waiting() {
                    if !self.at_quiescence() {
                        break;
                    }
                    continue;
                }
                break;
            }
        }
        std::mem::take(&mut self.out)
    }

    fn all_waiting(&self) -> bool {
        self.ranks
            .iter()
            .all(|st| st.blocked.is_some() || st.finalized)
    }

    /// Collectives (and `MPI_Finalize`) whose every member has arrived.
    fn fire_collectives(&mut self) -> bool {
        let n = self.cfg.nprocs;
        let mut fired = false;
        // MPI_Finalize: a collective over all ranks.
        let at_finalize = self.ranks.iter().all(|st| {
            st.blocked
                .is_some_and(|i| matches!(st.ops[i].kind, Kind::Finalize))
        });
        if at_finalize && n > 0 {
            // Messages that can still be matched (nonblocking calls never
            // waited for) are matched first, so that what the run leaves
            // behind does not depend on when the ranks' calls arrived.
            if self.fire_send_recv() {
                return true;
            }
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
            self.end = Some(RunEnd::Completed);
            return true;
        }
        // Group blocked collective calls by communicator.
        let mut by_comm: BTreeMap<u32, Vec<Rank>> = BTreeMap::new();
        for (r, st) in self.ranks.iter().enumerate() {
            if let Some(i) = st.blocked {
                if let Kind::Coll { comm, .. } = &st.ops[i].kind {
                    if *comm == wire::COMM_SELF {
                        by_comm.entry(u32::MAX - r as u32).or_default().push(r);
                    } else {
                        by_comm.entry(*comm).or_default().push(r);
                    }
                }
            }
        }
        for (key, arrived) in by_comm {
            let (comm, members) = if key >= u32::MAX - n as u32 {
                (wire::COMM_SELF, arrived.clone())
            } else {
                (key, self.comms[&key].clone())
            };
            if arrived.len() != members.len() {
                continue;
            }
            let ids: Vec<OpId> = members
                .iter()
                .map(|&r| OpId {
                    rank: r,
                    index: self.ranks[r].blocked.unwrap(),
                })
                .collect();
            let whats: Vec<CollWhat> = ids
                .iter()
                .map(|id| match &self.op(*id).kind {
                    Kind::Coll { what, .. } => what.clone(),
                    _ => unreachable!(),
                })
                .collect();
            if !collectives_agree(&whats) {
                self.end = Some(RunEnd::CollectiveMismatch {
                    comm,
                    calls: ids
                        .iter()
                        .map(|id| (*id, self.op(*id).name, self.op(*id).site))
                        .collect(),
                });
                return fired;
            }
            let mut all = Deps::default();
            for id in &ids {
                all.union(&self.op_dep[id.rank][id.index]);
            }
            for id in &ids {
                self.learn(id.rank, &all);
            }
            let answers = self.collective_answers(&members, &whats);
            self.fired.push(Fired::Collective { ops: ids.clone() });
            for (id, answer) in ids.iter().zip(answers) {
                let st = &mut self.ranks[id.rank];
                if let Down::NewComm { id: c } = answer {
                    if c >= 0 {
                        st.held.insert(c as u32, id.index);
                    }
                }
                st.blocked = None;
                st.ops[id.index].complete = true;
                self.out.push((id.rank, answer));
            }
            fired = true;
        }
        fired
    }

    fn collective_answers(&mut self, members: &[Rank], whats: &[CollWhat]) -> Vec<Down> {
        match &whats[0] {
            CollWhat::Coll { .. } => vec![Down::Go; members.len()],
            CollWhat::Dup => {
                let id = self.new_comm(members.to_vec());
                vec![Down::NewComm { id: id as i32 }; members.len()]
            }
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
                let mut ids = HashMap::new();
                for c in colors {
                    let mut group: Vec<(i32, usize, Rank)> = whats
                        .iter()
                        .enumerate()
                        .filter_map(|(i, w)| match w {
                            CollWhat::Split { color, key } if *color == c => {
                                Some((*key, i, members[i]))
                            }
                            _ => None,
                        })
                        .collect();
                    group.sort_unstable();
                    let id = self.new_comm(group.iter().map(|g| g.2).collect());
                    ids.insert(c, id as i32);
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
            CollWhat::Create { members: group } => {
                let group: Vec<Rank> = group.iter().map(|&g| g as Rank).collect();
                let id = if group.is_empty() {
                    -1
                } else {
                    self.new_comm(group.clone()) as i32
                };
                members
                    .iter()
                    .map(|r| Down::NewComm {
                        id: if group.contains(r) { id } else { -1 },
                    })
                    .collect()
            }
        }
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
        let members = self.comm_members(dst, comm).unwrap_or_default();
        let mut from: Vec<Rank> = match src {
            Peer::Rank(s) => vec![s],
            Peer::Any => members,
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

    /// Send/receive pairs whose receive names its source: each has exactly
    /// one possible partner.
    fn fire_send_recv(&mut self) -> bool {
        let mut fired = false;
        'again: loop {
            for (&(comm, dst), pending) in &self.recvs {
                for (pos, &ri) in pending.iter().enumerate() {
                    let Kind::Recv { src, tag, .. } = self.ranks[dst].ops[ri].kind else {
                        unreachable!()
                    };
                    if let Peer::Rank(s) = src {
                        if let Some(si) = self.candidate(comm, dst, s, src, tag, pos) {
                            self.match_pair(
                                OpId { rank: s, index: si },
                                OpId {
                                    rank: dst,
                                    index: ri,
                                },
                                false,
                            );
                            fired = true;
                            continue 'again;
                        }
                    }
                }
            }
            return fired;
        }
    }

    fn match_pair(&mut self, send: OpId, recv: OpId, wildcard: bool) {
        let (comm, tag, sync) = match self.op(send).kind {
            Kind::Send {
                comm, tag, sync, ..
            } => (comm, tag, sync),
            _ => unreachable!(),
        };
        // The match follows both calls, the choice that made it, and the
        // matches that non-overtaking puts before it: earlier sends of the
        // sender that the receive accepts, earlier receives that accept the
        // send.
        let (rsrc, rtag) = match self.op(recv).kind {
            Kind::Recv { src, tag, .. } => (src, tag),
            _ => unreachable!(),
        };
        let mut m = Deps::clone(&self.op_dep[send.rank][send.index]);
        m.union(&self.op_dep[recv.rank][recv.index]);
        if wildcard {
            m.insert(self.choices.len() - 1);
        }
        // Before the first choice every dependency set is empty, and so is
        // what is recorded below.
        let scan = !self.choices.is_empty();
        if scan {
            // Earlier sends of the sender that the receive accepts.
            let tags: Vec<i32> = if rtag == ANY {
                self.sent_tags
                    .get(&(comm, send.rank, recv.rank))
                    .cloned()
                    .unwrap_or_default()
            } else {
                vec![rtag]
            };
            for t in tags {
                if let Some(d) = self
                    .sent_deps
                    .get(&(comm, send.rank, recv.rank, t))
                    .and_then(|p| p.before(send.index))
                {
                    m.union(d);
                }
            }
            // Earlier receives of the receiver that accept the send.
            for src in [Peer::Rank(send.rank), Peer::Any] {
                for t in [tag, ANY] {
                    if let Some(d) = self
                        .recv_deps
                        .get(&(comm, recv.rank, src, t))
                        .and_then(|p| p.before(recv.index))
                    {
                        m.union(d);
                    }
                }
            }
        }
        let m = Rc::new(m);
        // The receive completes now, and so does a synchronous send.
        if scan {
            self.note_wait_races(recv, &m);
            if sync {
                self.note_wait_races(send, &m);
            }
        }
        if scan {
            let tags = self
                .sent_tags
                .entry((comm, send.rank, recv.rank))
                .or_default();
            if !tags.contains(&tag) {
                tags.push(tag);
            }
            self.sent_deps
                .entry((comm, send.rank, recv.rank, tag))
                .or_default()
                .record(send.index, &m);
            self.recv_deps
                .entry((comm, recv.rank, rsrc, rtag))
                .or_default()
                .record(recv.index, &m);
        }
        self.match_dep.insert(send, m.clone());
        self.match_dep.insert(recv, m);
        let q = self.sends.get_mut(&(comm, send.rank, recv.rank)).unwrap();
        q.retain(|&i| i != send.index);
        if q.is_empty() {
            self.sends.remove(&(comm, send.rank, recv.rank));
        }
        let p = self.recvs.get_mut(&(comm, recv.rank)).unwrap();
        p.retain(|&i| i != recv.index);
        if p.is_empty() {
            self.recvs.remove(&(comm, recv.rank));
        }
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

    /// Answers the call `rank` waits in if its answer no longer depends on
    /// anything still to come.
    fn answer(&mut self, r: Rank) -> bool {
        let Some(i) = self.ranks[r].blocked else {
            return false;
        };
        let id = OpId { rank: r, index: i };
        let down = match &self.ranks[r].ops[i].kind {
            Kind::Send { .. } | Kind::Recv { .. } => {
                if self.ranks[r].ops[i].complete {
                    if let Some(md) = self.match_dep.get(&id).cloned() {
                        self.learn(r, &md);
                    }
                    Some(Down::Go)
                } else {
                    None
                }
            }
            Kind::Wait { kind, ops, test } => {
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
                .map(|indices| {
                    let _ = test;
                    self.complete_wait(id, indices)
                })
            }
            Kind::Probe { src, tag, comm, .. } => {
                if let Peer::Rank(_) = src {
                    let before = self.recvs.get(&(*comm, r)).map_or(0, Vec::len);
                    let c = self.candidates(*comm, r, *src, *tag, before);
                    c.first().map(|s| self.probe_answer(id, *s))
                } else {
                    None
                }
            }
            _ => None,
        };
        match down {
            Some(d) => {
                self.ranks[r].blocked = None;
                self.out.push((r, d));
                true
            }
            None => false,
        }
    }

    fn complete_wait(&mut self, id: OpId, indices: Vec<u32>) -> Down {
        let Kind::Wait { ops, .. } = &self.ranks[id.rank].ops[id.index].kind else {
            unreachable!()
        };
        let completed: Vec<usize> = indices.iter().map(|&k| ops[k as usize]).collect();
        for &o in &completed {
            // A buffered send was complete when issued: what its match
            // follows is no cause of the completion (and taking it would hide
            // races of this rank's later sends and completions).
            if matches!(
                self.ranks[id.rank].ops[o].kind,
                Kind::Send { sync: false, .. }
            ) {
                continue;
            }
            let oid = OpId {
                rank: id.rank,
                index: o,
            };
            if let Some(md) = self.match_dep.get(&oid).cloned() {
                self.learn(id.rank, &md);
            }
        }
        let st = &mut self.ranks[id.rank];
        for &o in &completed {
            let req = match st.ops[o].kind {
                Kind::Send { req, .. } => req,
                Kind::Recv { req, .. } => Some(req),
                _ => None,
            };
            if let Some(q) = req {
                st.reqs.remove(&q);
            }
        }
        st.ops[id.index].complete = true;
        self.fired.push(Fired::Completion {
            op: id,
            completed: completed
                .iter()
                .map(|&index| OpId {
                    rank: id.rank,
                    index,
                })
                .collect(),
        });
        Down::Done { indices }
    }

    fn probe_answer(&mut self, probe: OpId, send: OpId) -> Down {
        let (comm, tag) = match self.op(send).kind {
            Kind::Send { comm, tag, .. } => (comm, tag),
            _ => unreachable!(),
        };
        let sd = self.op_dep[send.rank][send.index].clone();
        self.learn(probe.rank, &sd);
        self.ranks[probe.rank].ops[probe.index].matched = Some(send);
        self.ranks[probe.rank].ops[probe.index].complete = true;
        self.fired.push(Fired::Probe { probe, send });
        Down::Probed {
            found: true,
            src: self.local_rank(probe.rank, comm, send.rank),
            tag,
        }
    }

    /// Every rank waits and nothing deterministic is left: answer failing
    /// polls, take a choice, or declare the run stuck. Returns whether the
    /// engine did something.
    fn at_quiescence(&mut self) -> bool {
        let mut points: Vec<ChoicePoint> = Vec::new();
        let mut polls: Vec<Rank> = Vec::new();
        // Wildcard receives anywhere (pending nonblocking ones included).
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
                Kind::Wait { kind, ops, test } => {
                    let done: Vec<u32> = ops
                        .iter()
                        .enumerate()
                        .filter(|(_, &o)| st.ops[o].complete)
                        .map(|(k, _)| k as u32)
                        .collect();
                    // A point even with one complete request: a request
                    // that completes later may race with it (see
                    // `note_wait_races`).
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
        // Alternatives explored in another branch stay asleep, unless nothing
        // else is left.
        let awake: Vec<ChoicePoint> = points
            .iter()
            .filter_map(|p| {
                let alternatives: Vec<Alternative> = p
                    .alternatives
                    .iter()
                    .filter(|a| !self.asleep.contains(&(p.at, (*a).clone())))
                    .cloned()
                    .collect();
                (!alternatives.is_empty()).then(|| ChoicePoint {
                    alternatives,
                    ..p.clone()
                })
            })
            .collect();
        if !awake.is_empty() {
            points = awake;
        }
        points.sort_by_key(|p| p.at);
        let limit = if points.is_empty() {
            LIVELOCK_ROUNDS
        } else {
            1
        };
        if !polls.is_empty() && self.false_rounds < limit {
            self.false_rounds += 1;
            for r in polls {
                let i = self.ranks[r].blocked.take().unwrap();
                let d = match self.ranks[r].ops[i].kind {
                    Kind::Probe { .. } => Down::Probed {
                        found: false,
                        src: PROC_NULL,
                        tag: ANY,
                    },
                    _ => Down::Done { indices: vec![] },
                };
                self.out.push((r, d));
            }
            return true;
        }
        let mut rest = points.into_iter();
        if let Some(mut point) = rest.next() {
            // The other points' alternatives, to take first when a run shows
            // that this point can get a send only after them.
            for p in rest {
                for a in p.alternatives {
                    point.alternatives.push(Alternative::Defer {
                        at: p.at,
                        alt: Box::new(a),
                    });
                }
            }
            self.choose(point);
            return self.end.is_none();
        }
        let ranks = self.rank_views();
        self.end = Some(if polls.is_empty() {
            RunEnd::Deadlock { ranks }
        } else {
            RunEnd::Livelock { ranks }
        });
        false
    }

    fn choose(&mut self, point: ChoicePoint) {
        let n = self.choices.len();
        let taken = match self.plan.get(n) {
            Some(p) => {
                let fits = match &p.expect {
                    Some(e) => *e == point,
                    None => p.taken < point.alternatives.len(),
                };
                if !fits {
                    self.end = Some(RunEnd::Divergence {
                        index: n,
                        expected: p.expect.clone(),
                        found: Some(point),
                    });
                    return;
                }
                p.taken
            }
            None => 0,
        };
        let choice = Choice {
            point,
            taken,
            wake: Vec::new(),
        };
        let (at, alt) = choice.fired();
        let alt = alt.clone();
        if at != choice.point.at {
            // The point's own alternatives were explored in other branches.
            for a in &choice.point.alternatives {
                if !matches!(a, Alternative::Defer { .. }) {
                    self.asleep.insert((choice.point.at, a.clone()));
                }
            }
        }
        self.choices.push(choice);
        self.false_rounds = 0;
        let mut me = Deps::default();
        me.insert(self.choices.len() - 1);
        match (&self.op(at).kind, alt) {
            (Kind::Recv { .. }, Alternative::Send(send)) => {
                self.match_pair(send, at, true);
            }
            (Kind::Probe { .. }, Alternative::Send(send)) => {
                self.learn(at.rank, &me);
                let d = self.probe_answer(at, send);
                self.ranks[at.rank].blocked = None;
                self.out.push((at.rank, d));
            }
            (Kind::Wait { .. }, Alternative::Index(k)) => {
                self.learn(at.rank, &me);
                let d = self.complete_wait(at, vec![k]);
                self.ranks[at.rank].blocked = None;
                self.out.push((at.rank, d));
            }
            (Kind::Wait { .. }, Alternative::Subset(ks)) => {
                self.learn(at.rank, &me);
                let d = self.complete_wait(at, ks);
                self.ranks[at.rank].blocked = None;
                self.out.push((at.rank, d));
            }
            _ => unreachable!("choice point of an unexpected kind"),
        }
    }

    /// Whether the replay plan has been used up (a run that ends before
    /// reaching all its planned choices diverged).
    pub fn plan_exhausted(&self) -> bool {
        self.choices.len() >= self.plan.len()
    }
}

fn collectives_agree(whats: &[CollWhat]) -> bool {
    let first = &whats[0];
    whats.iter().all(|w| match (first, w) {
        (CollWhat::Coll { .. }, CollWhat::Coll { .. })
        | (CollWhat::Create { .. }, CollWhat::Create { .. }) => w == first,
        (CollWhat::Dup, CollWhat::Dup) => true,
        (CollWhat::Split { .. }, CollWhat::Split { .. }) => true,
        _ => false,
    })
}

/// The MPI function a wire operation stands for.
pub fn call_name(op: &Op) -> &'static str {
    match op {
        Op::Send { mode, req, .. } => match (mode, req.is_some()) {
            (SendMode::Standard, false) => "MPI_Send",
            (SendMode::Sync, false) => "MPI_Ssend",
            (SendMode::Standard, true) => "MPI_Isend",
            (SendMode::Sync, true) => "MPI_Issend",
        },
        Op::Recv { blocking, .. } => {
            if *blocking {
                "MPI_Recv"
            } else {
                "MPI_Irecv"
            }
        }
        Op::Wait { kind, .. } => match kind {
            WaitKind::One => "MPI_Wait",
            WaitKind::All => "MPI_Waitall",
            WaitKind::Any => "MPI_Waitany",
            WaitKind::Some => "MPI_Waitsome",
        },
        Op::Test { kind, .. } => match kind {
            WaitKind::One => "MPI_Test",
            WaitKind::All => "MPI_Testall",
            WaitKind::Any => "MPI_Testany",
            WaitKind::Some => "MPI_Testsome",
        },
        Op::Probe { blocking, .. } => {
            if *blocking {
                "MPI_Probe"
            } else {
                "MPI_Iprobe"
            }
        }
        Op::Coll { kind, .. } => kind.mpi_name(),
        Op::CommDup { .. } => "MPI_Comm_dup",
        Op::CommSplit { .. } => "MPI_Comm_split",
        Op::CommCreate { .. } => "MPI_Comm_create",
        Op::CommFree { .. } => "MPI_Comm_free",
        Op::Finalize => "MPI_Finalize",
    }
}
