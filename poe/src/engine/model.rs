//! The engine's vocabulary: operations as the engine models them (`OpId`,
//! `Kind`, `OpRec`), what a run records (`Fired`, `Choice`, `RunEnd` and the
//! `Mismatch` of arguments it may end with, `Leak`), what a replay follows
//! (`Planned`), and the translation of an intercepted wire call into a
//! [`Kind`] (world ranks, resolved requests). Every other engine module uses
//! these types; this one uses none of them.

use fib_wire::{
    CollKind, FlushKind, Op, RmaKind, SendMode, Site, SplitKind, WaitKind, WinFlavor, ANY,
    PROC_NULL, ROOT,
};

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
    Coll {
        kind: CollKind,
        root: i32,
    },
    Dup,
    /// `MPI_Comm_split` (`how` is `None`) or a constructor that makes what
    /// a split would.
    Split {
        how: Option<SplitKind>,
        color: i32,
        key: i32,
    },
    Create {
        members: Vec<u32>,
    },
    /// `MPI_Comm_idup` (or `MPI_Comm_idup_with_info`, `info`): a
    /// nonblocking copy of the communicator.
    Idup {
        info: bool,
    },
    /// `MPI_Comm_create_group`: collective over `members` (world ranks, in
    /// group order) alone, which match apart from the parent's collectives.
    CreateGroup {
        members: Vec<u32>,
        tag: i32,
    },
    /// `MPI_Intercomm_create` over the local communicator the call is
    /// queued on: `leader` is the local leader's world rank, and the
    /// leader's own call (only) knows the remote leader's world rank
    /// (`remote`) and the tag. The calls of both sides fire together.
    InterCreate {
        leader: Rank,
        remote: Option<Rank>,
        tag: i32,
    },
    /// `MPI_Intercomm_merge` with the member's `high`.
    Merge {
        high: bool,
    },
    /// A window made over the communicator (`MPI_Win_create`, ...): its id
    /// is given like a new communicator's, with the same members.
    WinCreate {
        flavor: WinFlavor,
    },
    /// `MPI_Win_fence`, collective over the window (queued on its id).
    WinFence,
    /// `MPI_Win_free`, collective over the window.
    WinFree,
}

/// A one-sided communication call as the engine records it, with what a
/// rule about the memory it touches needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Access {
    pub win: u32,
    /// The target, a world rank.
    pub target: Rank,
    pub kind: RmaKind,
    /// The bytes of the target's window it touches: `lo..hi`.
    pub lo: u64,
    pub hi: u64,
    /// The request of the `MPI_R*` forms.
    pub req: Option<u32>,
    /// The accumulate's predefined operation and basic datatype (empty
    /// when none or unnamed).
    pub op: String,
    pub dtype: String,
    /// The call of the same rank whose return completes it at the origin
    /// and the target: the fence, `MPI_Win_complete`, unlock or flush that
    /// ends or flushes its epoch (a wait completes an `MPI_R*` request only
    /// at the origin). `None` while pending.
    pub done: Option<usize>,
}

/// A one-sided synchronisation call other than the collective ones
/// (creation, fence, free: [`CollWhat`]). Ranks are world ranks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WinSync {
    /// `MPI_Win_post` to the origins `group`.
    Post { group: Vec<Rank> },
    /// `MPI_Win_start` of an access epoch to the targets `group`: waits
    /// until each has posted to the rank.
    Start { group: Vec<Rank> },
    /// `MPI_Win_complete`.
    Complete,
    /// `MPI_Win_wait` (or `MPI_Win_test`, `test`): waits until every
    /// origin of the rank's post has completed.
    Wait { test: bool },
    /// `MPI_Win_lock`: waits until granted.
    Lock { target: Peer, exclusive: bool },
    /// `MPI_Win_unlock`.
    Unlock { target: Peer },
    /// `MPI_Win_lock_all`: shared locks on every rank, granted together.
    LockAll,
    /// `MPI_Win_unlock_all`.
    UnlockAll,
    /// A flush or `MPI_Win_sync`.
    Flush { how: FlushKind, target: Peer },
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
        /// `MPI_Rsend`/`MPI_Irsend`: its receive must already be posted.
        ready: bool,
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
    /// A collective or communicator constructor; a nonblocking collective
    /// carries its request `req`, which a wait or test completes once the
    /// collective has matched on every rank.
    Coll {
        what: CollWhat,
        comm: u32,
        req: Option<u32>,
    },
    CommFree {
        comm: u32,
    },
    /// `MPI_Request_free` of the request `req`: of the rank's active
    /// operation `op`, which goes on matching and completing with no wait
    /// or test, and of the persistent request `req` if it is one.
    RequestFree {
        op: Option<usize>,
        req: u32,
    },
    /// A persistent request made (`MPI_Send_init`, `MPI_Recv_init`, ...);
    /// each `MPI_Start` of it is a nonblocking send or receive.
    RequestInit {
        req: u32,
    },
    /// `MPI_Cancel` of the rank's active operation `op`. Local: a receive
    /// not matched yet becomes one that, with every rank waiting, may be
    /// cancelled ([`Alternative::Cancel`]: it matches nothing any more and
    /// its wait completes) as well as take any send it could; otherwise
    /// the cancel fails.
    Cancel {
        op: usize,
    },
    Finalize,
    /// A one-sided communication call: complete when issued (it never
    /// blocks); what completes it in MPI's sense is [`Access::done`].
    Rma(Box<Access>),
    /// A one-sided synchronisation call on the window `win`.
    Win {
        win: u32,
        sync: WinSync,
    },
}

/// A rank's operations in program order, indexed by [`OpId::index`].
pub type Ops = crate::segmented::Segmented<OpRec>;

/// The match sets a run fired, in firing order.
pub type FiredList = crate::segmented::Segmented<Fired>;

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
    /// One-sided synchronisation: each call of `from` completes before
    /// `to` returns (the posts a `MPI_Win_start` waited for, the
    /// completes a `MPI_Win_wait` waited for, the unlocks a lock grant
    /// followed). Every lock grant is recorded, `from` empty when no
    /// unlock came before it, so that the grants of a target in firing
    /// order are its grant order.
    Sync { from: Vec<OpId>, to: OpId },
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
    /// any non-empty subset of its complete requests complete (the engine's
    /// `SOME_SUBSETS_UP_TO` caps which of them a choice offers).
    Subset(Vec<u32>),
    /// Cancel the receive (which the program asked to cancel) instead of
    /// giving it a message.
    Cancel,
    /// Grant the lock (or `MPI_Win_lock_all`) the call waits for, before
    /// the other requests that conflict with it.
    Grant(OpId),
    /// Take another choice point's alternative first, leaving this point's
    /// own choice for later. Explored only when a run showed that doing so
    /// can give this point a send (or, for a wait, a completed request) it
    /// could not get otherwise.
    Defer { at: OpId, alt: Box<Alternative> },
    /// Enter the call this thread of the rank makes into the rank's
    /// sequence of calls, before those its other threads make (see the
    /// engine's `threads` module). The point's `at` is the position the
    /// call takes.
    Enter(u32),
    /// Leave the rank's calls at its gate while another choice is taken
    /// first: a thread of the rank that waits in a call may be answered
    /// then, and make a call that enters first.
    Later,
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
    /// Alternatives of the point that need no run of their own: the run
    /// that took this choice stands for them (an exchangeable block, see
    /// [`crate::engine::Exchange`], or a row of `MPI_Waitany`, see
    /// [`crate::engine::WaitRow`]).
    pub predicted: Vec<usize>,
    /// What the time rule did since the choice before this one (see
    /// [`Timed`]): a replay of the run does it again at the same places.
    pub before: Vec<Timed>,
}

/// What the driver's time rule did to a rank whose threads enter MPI at
/// once ([`crate::engine::Engine::threads_idle`]), where the rank's calls
/// stood then: it depends on time, so the run records it, and a replay
/// does it at the same place of the rank's calls instead of by the clock
/// (until the choice that the replay takes anew).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Timed {
    /// Thread `thread` of `rank`, which had given the engine `inputs`
    /// inputs (calls, and what it did outside MPI), was taken as idle
    /// when the rank had entered `ops` calls.
    Idle {
        rank: Rank,
        thread: u32,
        inputs: u64,
        ops: usize,
    },
    /// The idle thread's next input came when the rank had entered `ops`
    /// calls.
    Came { rank: Rank, thread: u32, ops: usize },
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

/// How a run takes the choices past its plan. Which alternative a free
/// choice takes decides only the order in which the exploration meets the
/// interleavings, never which it meets: the depth-first walk runs every
/// other alternative of every point later, whatever this one took.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Policy {
    /// The first alternative (the first point's own first).
    #[default]
    First,
    /// What a run of the program made without the scheduler did, which the
    /// engine follows: at each free choice point, the alternative by which
    /// a call takes what its [`Outcome`] says. A point with no such
    /// alternative ends the run as a [`RunEnd::Divergence`].
    Follow(Outcomes),
    /// An alternative picked by a generator seeded with this number and
    /// the choice's position: for the tests that prove the policy does not
    /// matter.
    Seeded(u64),
}

/// What the choosing calls of a run made without the scheduler took, by
/// call.
pub type Outcomes = std::collections::BTreeMap<OpId, Outcome>;

/// What a choosing call took in a run made without the scheduler.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// A wildcard receive or probe got the message of this world rank (its
    /// earliest one that it accepts, under non-overtaking).
    From(Rank),
    /// A `Waitany` returned the request at this position.
    Index(u32),
    /// A `Waitsome` returned the requests at these positions.
    Subset(Vec<u32>),
    /// A receive the program asked to cancel was cancelled.
    Cancelled,
    /// A lock request (`MPI_Win_lock`, `MPI_Win_lock_all`) on the window
    /// `win`, `exclusive` or not, was granted as the n-th grant at each of
    /// its targets (world ranks), counted per window and target: of
    /// conflicting requests, the lower number was granted first (shared
    /// grants taken at once may be numbered in any order).
    Granted {
        win: u32,
        exclusive: bool,
        grants: Vec<(Rank, u64)>,
    },
}

impl Outcome {
    /// Whether taking `alt` at the call makes it take this.
    pub fn is(&self, alt: &Alternative) -> bool {
        match (self, alt) {
            (Outcome::From(r), Alternative::Send(s)) => s.rank == *r,
            (Outcome::Index(i), Alternative::Index(j)) => i == j,
            (Outcome::Subset(a), Alternative::Subset(b)) => a == b,
            (Outcome::Cancelled, Alternative::Cancel) => true,
            _ => false,
        }
    }
}

/// What the engine must follow at the n-th choice point of a replay: the
/// alternative to take and, when known, the point it expects there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Planned {
    pub expect: Option<ChoicePoint>,
    pub taken: usize,
    /// When set, the alternative to take instead of the one at `taken`
    /// (where it lies among the point's alternatives is not known in
    /// advance): the runs that try another order of a row of wildcard
    /// receives name the send each receive takes. A point without it is a
    /// divergence.
    pub prefer: Option<Alternative>,
    /// What the time rule did before the point ([`Choice::before`]), when
    /// the plan comes from a run (not from a token, which does not say):
    /// then the rule does only that until the plan is used up.
    pub before: Option<Vec<Timed>>,
}

/// Where a rank is, for reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankView {
    pub rank: Rank,
    /// The call it is blocked in, or `None` when it is running.
    pub call: Option<&'static str>,
    pub site: Site,
    pub finalized: bool,
    /// For a running rank, the last call it made (which the scheduler
    /// released: the rank may still be inside it, completing the real
    /// operation, or computing after it).
    pub last: Option<&'static str>,
    /// For a rank of several threads, each thread that waits: in a call
    /// (`call` is the first of them), or for another thread of the rank.
    pub threads: Vec<ThreadView>,
}

/// Where one thread of a rank of several waits, for reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadView {
    pub thread: u32,
    /// The call it waits in, with its site; `None` when it waits outside
    /// MPI for another thread of its rank (a join, a lock).
    pub call: Option<(&'static str, Site)>,
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
    /// Calls that matched disagree on an argument they must give alike: a
    /// send's and its receive's datatypes (`collective` false), or the
    /// datatype, count or operation of one collective's members.
    ArgsDiffer {
        collective: bool,
        mismatch: Mismatch,
    },
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
    /// A ready send (`MPI_Rsend`, `MPI_Irsend`) issued while no receive
    /// that would match it was posted: the program's own calls do not
    /// ensure that its receive comes first.
    ReadyUnposted {
        op: OpId,
        site: Site,
        call: &'static str,
        dst: Rank,
    },
}

/// Which argument differs between calls that match ([`RunEnd::ArgsDiffer`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Differs {
    /// The predefined datatype the data is made of.
    Datatype,
    /// How many elements of it (collectives only: a receive may take fewer
    /// than its buffer holds).
    Count,
    /// The reduction operation.
    Operation,
}

/// Arguments that differ: the calls and each one's value, in the calls'
/// order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub differs: Differs,
    pub values: Vec<(OpId, String)>,
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
    /// A message a matched probe (`probe`) took that no `MPI_Mrecv` or
    /// `MPI_Imrecv` received; `op` is its send.
    ProbedMessage { op: OpId, probe: OpId },
    /// A persistent request never freed; `op` is the call that made it.
    Persistent { op: OpId },
    /// `MPI_Request_free` (`op`) of a receive's request (`recv`) while the
    /// receive was active: nothing can tell the program when its buffer
    /// holds the message.
    FreedReceive { op: OpId, recv: OpId },
    /// A window never freed; `op` is the call that created it.
    Window { op: OpId, win: u32 },
}

/// Settings of one run.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    pub nprocs: usize,
    /// Every standard send is synchronous.
    pub zero_buffer: bool,
    /// A run may stand for the other orders of its exchangeable blocks
    /// ([`crate::engine::Exchange`]) and rows of `MPI_Waitany`
    /// ([`crate::engine::WaitRow`]), at the sites the caller names to
    /// [`crate::engine::Engine::conclude`].
    pub exchange: bool,
}

/// Whether a receive or probe for `src` and `tag` accepts a message from
/// world rank `from` with tag `msg_tag`.
pub(crate) fn accepts(src: Peer, tag: i32, from: Rank, msg_tag: i32) -> bool {
    (src == Peer::Any || src == Peer::Rank(from)) && (tag == ANY || tag == msg_tag)
}

/// A send and the receive that takes it, with what matching and causality
/// need of both.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pair {
    pub send: OpId,
    pub recv: OpId,
    pub comm: u32,
    /// The send's tag.
    pub tag: i32,
    /// Whether the send completes only when matched.
    pub sync: bool,
    /// The receive's source filter.
    pub src: Peer,
    /// The receive's tag filter.
    pub rtag: i32,
}

/// What modelling a call needs to know of the run so far: communicators and
/// active requests.
pub(crate) trait Handles {
    /// The world ranks of `comm`, as `rank` sees it (`MPI_COMM_SELF` is
    /// `rank` alone), or `None` for an unknown communicator. For an
    /// intercommunicator: both groups, the first one's members first.
    fn members(&self, rank: Rank, comm: u32) -> Option<&[Rank]>;
    /// The world ranks that `rank`'s point-to-point calls on `comm` name,
    /// in rank order: the remote group of an intercommunicator, else the
    /// members.
    fn peers(&self, rank: Rank, comm: u32) -> Option<&[Rank]> {
        self.members(rank, comm)
    }
    /// Whether `comm` is an intercommunicator.
    fn is_inter(&self, _comm: u32) -> bool {
        false
    }
    /// The call of `rank` that created the active request `req`.
    fn request(&self, rank: Rank, req: u32) -> Option<usize>;
    /// The call of `rank` that made the persistent request `req`, if it is
    /// one and has not been freed.
    fn persistent(&self, rank: Rank, req: u32) -> Option<usize>;
    /// Whether the call `index` of `rank` is a nonblocking collective.
    fn nonblocking_collective(&self, rank: Rank, index: usize) -> bool;
    /// Whether `id` names a window alive.
    fn is_window(&self, _id: u32) -> bool {
        false
    }
}

/// Checks that `win` is a window `rank` belongs to.
fn check_window(h: &dyn Handles, rank: Rank, win: u32) -> Result<(), String> {
    if !h.is_window(win) {
        return Err(format!("unknown window {win}"));
    }
    check_comm(h, rank, win)
}

/// The world ranks of a group of ranks of the window `win`.
fn window_group(h: &dyn Handles, rank: Rank, win: u32, group: &[u32]) -> Result<Vec<Rank>, String> {
    group
        .iter()
        .map(|&g| match world_peer(h, rank, win, g as i32)? {
            Peer::Rank(r) => Ok(r),
            _ => Err(format!("rank {g} of the group is not a rank of the window")),
        })
        .collect()
}

/// [`model`] for one-sided calls.
fn model_rma(h: &dyn Handles, rank: Rank, op: &Op) -> Result<Kind, String> {
    let target = |win: u32, t: i32| -> Result<Peer, String> {
        match world_peer(h, rank, win, t)? {
            Peer::Any => Err("MPI_ANY_SOURCE is not a target".into()),
            p => Ok(p),
        }
    };
    Ok(match op {
        Op::WinCreate { comm, flavor } => {
            check_comm(h, rank, *comm)?;
            intra_only(h, *comm)?;
            Kind::Coll {
                what: CollWhat::WinCreate { flavor: *flavor },
                comm: *comm,
                req: None,
            }
        }
        Op::WinFence { win } | Op::WinFree { win } => {
            check_window(h, rank, *win)?;
            Kind::Coll {
                what: if matches!(op, Op::WinFence { .. }) {
                    CollWhat::WinFence
                } else {
                    CollWhat::WinFree
                },
                comm: *win,
                req: None,
            }
        }
        Op::Rma {
            win,
            kind,
            target: t,
            disp,
            bytes,
            req,
            op,
            dtype,
        } => {
            check_window(h, rank, *win)?;
            if let Some(q) = req {
                if h.request(rank, *q).is_some() {
                    return Err(format!("request {q} is already active"));
                }
            }
            let target = match target(*win, *t)? {
                Peer::Rank(r) => r,
                // `MPI_PROC_NULL`: the call does nothing.
                _ => rank,
            };
            let null = *t == PROC_NULL;
            Kind::Rma(Box::new(Access {
                win: *win,
                target,
                kind: *kind,
                lo: *disp,
                hi: if null {
                    *disp
                } else {
                    disp.saturating_add(*bytes)
                },
                req: *req,
                op: op.clone(),
                dtype: dtype.clone(),
                done: None,
            }))
        }
        Op::WinPost { win, group } | Op::WinStart { win, group } => {
            check_window(h, rank, *win)?;
            let group = window_group(h, rank, *win, group)?;
            Kind::Win {
                win: *win,
                sync: if matches!(op, Op::WinPost { .. }) {
                    WinSync::Post { group }
                } else {
                    WinSync::Start { group }
                },
            }
        }
        Op::WinComplete { win } => {
            check_window(h, rank, *win)?;
            Kind::Win {
                win: *win,
                sync: WinSync::Complete,
            }
        }
        Op::WinWait { win, test } => {
            check_window(h, rank, *win)?;
            Kind::Win {
                win: *win,
                sync: WinSync::Wait { test: *test },
            }
        }
        Op::WinLock {
            win,
            target: t,
            exclusive,
        } => {
            check_window(h, rank, *win)?;
            Kind::Win {
                win: *win,
                sync: WinSync::Lock {
                    target: target(*win, *t)?,
                    exclusive: *exclusive,
                },
            }
        }
        Op::WinUnlock { win, target: t } => {
            check_window(h, rank, *win)?;
            Kind::Win {
                win: *win,
                sync: WinSync::Unlock {
                    target: target(*win, *t)?,
                },
            }
        }
        Op::WinLockAll { win } | Op::WinUnlockAll { win } => {
            check_window(h, rank, *win)?;
            Kind::Win {
                win: *win,
                sync: if matches!(op, Op::WinLockAll { .. }) {
                    WinSync::LockAll
                } else {
                    WinSync::UnlockAll
                },
            }
        }
        Op::WinFlush {
            win,
            how,
            target: t,
        } => {
            check_window(h, rank, *win)?;
            Kind::Win {
                win: *win,
                sync: WinSync::Flush {
                    how: *how,
                    target: if how.has_target() {
                        target(*win, *t)?
                    } else {
                        Peer::Null
                    },
                },
            }
        }
        _ => unreachable!("not a one-sided call"),
    })
}

/// The world rank that rank `local` of `comm` is, as `rank` sees it (a
/// rank of the remote group on an intercommunicator).
fn world_peer(h: &dyn Handles, rank: Rank, comm: u32, local: i32) -> Result<Peer, String> {
    match local {
        ANY => Ok(Peer::Any),
        PROC_NULL => Ok(Peer::Null),
        l => {
            let members = h
                .peers(rank, comm)
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

/// Checks that `rank` belongs to `comm`.
fn check_comm(h: &dyn Handles, rank: Rank, comm: u32) -> Result<(), String> {
    match h.members(rank, comm) {
        Some(m) if m.contains(&rank) => Ok(()),
        Some(_) => Err(format!(
            "rank {rank} is not a member of communicator {comm}"
        )),
        None => Err(format!("unknown communicator {comm}")),
    }
}

/// The call `op` of `rank` as the engine models it, or why the engine cannot
/// accept it. `zero_buffer`: every standard send is synchronous.
pub(crate) fn model(
    h: &dyn Handles,
    rank: Rank,
    op: &Op,
    zero_buffer: bool,
) -> Result<Kind, String> {
    Ok(match op {
        Op::Send { .. }
        | Op::Recv { .. }
        | Op::Probe { .. }
        | Op::Mprobe { .. }
        | Op::Mrecv { .. } => return model_p2p(h, rank, op, zero_buffer),
        Op::Wait { kind, reqs } | Op::Test { kind, reqs } => {
            let ops = reqs
                .iter()
                .map(|r| {
                    h.request(rank, *r)
                        .ok_or_else(|| format!("request {r} is not active"))
                })
                .collect::<Result<Vec<_>, _>>()?;
            Kind::Wait {
                kind: *kind,
                ops,
                test: matches!(op, Op::Test { .. }),
            }
        }
        Op::Cancel { req } => {
            let op = h
                .request(rank, *req)
                .ok_or_else(|| format!("request {req} is not active"))?;
            if h.nonblocking_collective(rank, op) {
                return Err(
                    "the request of a nonblocking collective may not be cancelled (MPI 3.1 §5.12)"
                        .into(),
                );
            }
            Kind::Cancel { op }
        }
        Op::RequestGetStatus { req } => Kind::Wait {
            kind: WaitKind::One,
            ops: vec![h
                .request(rank, *req)
                .ok_or_else(|| format!("request {req} is not active"))?],
            test: true,
        },
        Op::Coll { kind, comm, root } => {
            check_comm(h, rank, *comm)?;
            if kind.is_nonblocking() {
                return Err("a nonblocking collective needs a request".into());
            }
            Kind::Coll {
                what: CollWhat::Coll {
                    kind: *kind,
                    root: if kind.has_root() { *root } else { 0 },
                },
                comm: *comm,
                req: None,
            }
        }
        Op::Icoll {
            kind,
            comm,
            root,
            req,
        } => {
            check_comm(h, rank, *comm)?;
            if !kind.is_nonblocking() {
                return Err("a blocking collective has no request".into());
            }
            if h.request(rank, *req).is_some() {
                return Err(format!("request {req} is already active"));
            }
            Kind::Coll {
                what: CollWhat::Coll {
                    kind: *kind,
                    root: if kind.has_root() { *root } else { 0 },
                },
                comm: *comm,
                req: Some(*req),
            }
        }
        Op::CommDup { comm } => {
            check_comm(h, rank, *comm)?;
            Kind::Coll {
                what: CollWhat::Dup,
                comm: *comm,
                req: None,
            }
        }
        // On an intercommunicator each group splits on its own, and a
        // colour's two parts make an intercommunicator.
        Op::CommSplit { comm, color, key } => {
            check_comm(h, rank, *comm)?;
            Kind::Coll {
                what: CollWhat::Split {
                    how: None,
                    color: *color,
                    key: *key,
                },
                comm: *comm,
                req: None,
            }
        }
        Op::CommSplitAs {
            how,
            comm,
            color,
            key,
        } => {
            check_comm(h, rank, *comm)?;
            intra_only(h, *comm)?;
            Kind::Coll {
                what: CollWhat::Split {
                    how: Some(*how),
                    color: *color,
                    key: *key,
                },
                comm: *comm,
                req: None,
            }
        }
        // On an intercommunicator each side passes a group of its own, and
        // the two groups make an intercommunicator.
        Op::CommCreate { comm, members } => {
            check_comm(h, rank, *comm)?;
            Kind::Coll {
                what: CollWhat::Create {
                    members: members.clone(),
                },
                comm: *comm,
                req: None,
            }
        }
        Op::CommIdup { comm, req, info } => {
            check_comm(h, rank, *comm)?;
            if h.request(rank, *req).is_some() {
                return Err(format!("request {req} is already active"));
            }
            Kind::Coll {
                what: CollWhat::Idup { info: *info },
                comm: *comm,
                req: Some(*req),
            }
        }
        Op::CommCreateGroup { comm, members, tag } => {
            check_comm(h, rank, *comm)?;
            let parent = h.members(rank, *comm).unwrap_or_default();
            if !members.contains(&(rank as u32)) {
                return Err(format!(
                    "rank {rank} is not a member of the group it passes"
                ));
            }
            if let Some(m) = members.iter().find(|&&m| !parent.contains(&(m as Rank))) {
                return Err(format!(
                    "rank {m} of the group is not a member of communicator {comm}"
                ));
            }
            if *tag < 0 {
                return Err(format!("tag {tag} is negative"));
            }
            Kind::Coll {
                what: CollWhat::CreateGroup {
                    members: members.clone(),
                    tag: *tag,
                },
                comm: *comm,
                req: None,
            }
        }
        Op::CommFree { comm } => {
            check_comm(h, rank, *comm)?;
            Kind::CommFree { comm: *comm }
        }
        Op::RequestFree { req } => {
            let op = h.request(rank, *req);
            if op.is_none() && h.persistent(rank, *req).is_none() {
                return Err(format!("request {req} is not active"));
            }
            if op.is_some_and(|o| h.nonblocking_collective(rank, o)) {
                return Err(
                    "the request of a nonblocking collective may not be freed (MPI 3.1 §5.12)"
                        .into(),
                );
            }
            Kind::RequestFree { op, req: *req }
        }
        Op::RequestInit { req, .. } => Kind::RequestInit { req: *req },
        Op::IntercommCreate {
            local_comm,
            local_leader,
            peer_comm,
            remote_leader,
            tag,
        } => {
            check_comm(h, rank, *local_comm)?;
            intra_only(h, *local_comm)?;
            let leader = match world_peer(h, rank, *local_comm, *local_leader)? {
                Peer::Rank(l) => l,
                _ => return Err(format!("local leader {local_leader} is not a rank")),
            };
            let remote = if leader == rank {
                check_comm(h, rank, *peer_comm)?;
                match world_peer(h, rank, *peer_comm, *remote_leader)? {
                    Peer::Rank(r) if !h.members(rank, *local_comm).unwrap().contains(&r) => Some(r),
                    Peer::Rank(_) => {
                        return Err(format!(
                            "remote leader {remote_leader} is a member of the local communicator"
                        ))
                    }
                    _ => return Err(format!("remote leader {remote_leader} is not a rank")),
                }
            } else {
                None
            };
            Kind::Coll {
                what: CollWhat::InterCreate {
                    leader,
                    remote,
                    tag: if remote.is_some() { *tag } else { 0 },
                },
                comm: *local_comm,
                req: None,
            }
        }
        Op::IntercommMerge { comm, high } => {
            check_comm(h, rank, *comm)?;
            if !h.is_inter(*comm) {
                return Err(format!("communicator {comm} is not an intercommunicator"));
            }
            Kind::Coll {
                what: CollWhat::Merge { high: *high },
                comm: *comm,
                req: None,
            }
        }
        Op::Finalize => Kind::Finalize,
        Op::Args { .. } => return Err("arguments reported without their call".into()),
        Op::Exchange { .. } => return Err("blocks reported without their call".into()),
        Op::Data { .. } => return Err("a data hash reported to the engine".into()),
        Op::WinCreate { .. }
        | Op::WinFree { .. }
        | Op::WinFence { .. }
        | Op::Rma { .. }
        | Op::WinPost { .. }
        | Op::WinStart { .. }
        | Op::WinComplete { .. }
        | Op::WinWait { .. }
        | Op::WinLock { .. }
        | Op::WinUnlock { .. }
        | Op::WinLockAll { .. }
        | Op::WinUnlockAll { .. }
        | Op::WinFlush { .. } => return model_rma(h, rank, op),
    })
}

/// Refuses a constructor fib models only over an intra-communicator.
fn intra_only(h: &dyn Handles, comm: u32) -> Result<(), String> {
    if h.is_inter(comm) {
        return Err(format!(
            "communicator {comm} is an intercommunicator, which this constructor is not modelled over"
        ));
    }
    Ok(())
}

/// [`model`] for sends, receives and probes.
fn model_p2p(h: &dyn Handles, rank: Rank, op: &Op, zero_buffer: bool) -> Result<Kind, String> {
    Ok(match op {
        Op::Send {
            mode,
            dest,
            tag,
            comm,
            req,
        } => {
            check_comm(h, rank, *comm)?;
            let dst = world_peer(h, rank, *comm, *dest)?;
            if dst == Peer::Any {
                return Err("MPI_ANY_SOURCE is not a destination".into());
            }
            if *tag < 0 {
                return Err(format!("tag {tag} is negative"));
            }
            if let Some(q) = req {
                if h.request(rank, *q).is_some() {
                    return Err(format!("request {q} is already active"));
                }
            }
            Kind::Send {
                dst,
                tag: *tag,
                comm: *comm,
                sync: mode.synchronous(zero_buffer),
                req: *req,
                ready: *mode == SendMode::Ready,
            }
        }
        Op::Recv {
            src,
            tag,
            comm,
            req,
            blocking,
        } => {
            check_comm(h, rank, *comm)?;
            if !blocking && h.request(rank, *req).is_some() {
                return Err(format!("request {req} is already active"));
            }
            Kind::Recv {
                src: world_peer(h, rank, *comm, *src)?,
                tag: *tag,
                comm: *comm,
                req: *req,
                blocking: *blocking,
            }
        }
        Op::Probe {
            src,
            tag,
            comm,
            blocking,
        } => {
            check_comm(h, rank, *comm)?;
            Kind::Probe {
                src: world_peer(h, rank, *comm, *src)?,
                tag: *tag,
                comm: *comm,
                blocking: *blocking,
            }
        }
        // A matched probe matches as a blocking receive would (the engine
        // polls an `MPI_Improbe`: see `Matching::mark_poll`); its `req`
        // names it to the rank, never to the program.
        Op::Mprobe {
            src,
            tag,
            comm,
            req,
            ..
        } => {
            check_comm(h, rank, *comm)?;
            Kind::Recv {
                src: world_peer(h, rank, *comm, *src)?,
                tag: *tag,
                comm: *comm,
                req: *req,
                blocking: true,
            }
        }
        // The receive of a message a matched probe took: the message is
        // the rank's already, so it matches nothing and completes at once,
        // as a receive from `MPI_PROC_NULL` does.
        Op::Mrecv { req, blocking, .. } => {
            if !blocking && h.request(rank, *req).is_some() {
                return Err(format!("request {req} is already active"));
            }
            Kind::Recv {
                src: Peer::Null,
                tag: ANY,
                comm: fib_wire::COMM_SELF,
                req: *req,
                blocking: *blocking,
            }
        }
        _ => unreachable!("not a point-to-point call"),
    })
}

/// Whether the calls of one collective match set agree on what they do: the
/// same collective with the same root, or the same constructor (splits may
/// differ in colour and key).
pub(crate) fn collectives_agree(whats: &[CollWhat]) -> bool {
    let first = &whats[0];
    whats.iter().all(|w| match (first, w) {
        (CollWhat::Coll { .. }, CollWhat::Coll { .. })
        | (CollWhat::Create { .. }, CollWhat::Create { .. })
        | (CollWhat::Idup { .. }, CollWhat::Idup { .. })
        | (CollWhat::CreateGroup { .. }, CollWhat::CreateGroup { .. }) => w == first,
        (CollWhat::Dup, CollWhat::Dup) | (CollWhat::Merge { .. }, CollWhat::Merge { .. }) => true,
        (CollWhat::InterCreate { leader, .. }, CollWhat::InterCreate { leader: other, .. }) => {
            leader == other
        }
        (CollWhat::Split { how, .. }, CollWhat::Split { how: other, .. }) => how == other,
        (CollWhat::WinCreate { .. }, CollWhat::WinCreate { .. }) => w == first,
        (CollWhat::WinFence, CollWhat::WinFence) | (CollWhat::WinFree, CollWhat::WinFree) => true,
        _ => false,
    })
}

/// Whether the groups the members of an intracommunicator (`members`, world
/// ranks, in the order of `whats`) pass to `MPI_Comm_create` agree: every
/// non-empty group is passed, the same processes in the same order, by each
/// of its members, and has no process outside the communicator. So all may
/// pass one group, or (since MPI 2.2) disjoint groups.
pub(crate) fn creates_agree(members: &[Rank], whats: &[CollWhat]) -> bool {
    let groups: Option<Vec<&[u32]>> = whats
        .iter()
        .map(|w| match w {
            CollWhat::Create { members } => Some(members.as_slice()),
            _ => None,
        })
        .collect();
    let Some(groups) = groups else {
        return false;
    };
    groups.iter().all(|g| {
        g.iter().all(|&m| {
            members
                .iter()
                .position(|&r| r == m as Rank)
                .is_some_and(|i| groups[i] == *g)
        })
    })
}

/// Whether the calls of one collective on an intercommunicator agree: the
/// same collective and, for a rooted one, one root in one group
/// ([`ROOT`]), the rest of its group [`PROC_NULL`], and every member of the
/// other group naming the root's rank in its group. `whats` holds the first
/// group's calls (`first` of them), then the second group's.
pub(crate) fn inter_collectives_agree(whats: &[CollWhat], first: usize) -> bool {
    let CollWhat::Coll { kind, .. } = whats[0] else {
        // `MPI_Comm_create`: each group's members pass one group, its own.
        if let CollWhat::Create { .. } = whats[0] {
            return matches!(whats[first], CollWhat::Create { .. })
                && collectives_agree(&whats[..first])
                && collectives_agree(&whats[first..]);
        }
        return collectives_agree(whats);
    };
    if !whats
        .iter()
        .all(|w| matches!(w, CollWhat::Coll { kind: k, .. } if *k == kind))
    {
        return false;
    }
    if !kind.has_root() {
        return true;
    }
    let roots: Vec<i32> = whats
        .iter()
        .map(|w| match w {
            CollWhat::Coll { root, .. } => *root,
            _ => unreachable!(),
        })
        .collect();
    let (a, b) = roots.split_at(first);
    let rooted = |g: &[i32], other: &[i32]| {
        let at: Vec<usize> = (0..g.len()).filter(|&i| g[i] == ROOT).collect();
        at.len() == 1
            && g.iter().all(|&r| r == ROOT || r == PROC_NULL)
            && other.iter().all(|&r| r == at[0] as i32)
    };
    rooted(a, b) || rooted(b, a)
}

/// The MPI function a wire operation stands for.
pub fn call_name(op: &Op) -> &'static str {
    match op {
        Op::Send { mode, req, .. } => match (mode, req.is_some()) {
            (SendMode::Standard, false) => "MPI_Send",
            (SendMode::Sync, false) => "MPI_Ssend",
            (SendMode::Buffered, false) => "MPI_Bsend",
            (SendMode::Ready, false) => "MPI_Rsend",
            (SendMode::Standard, true) => "MPI_Isend",
            (SendMode::Sync, true) => "MPI_Issend",
            (SendMode::Buffered, true) => "MPI_Ibsend",
            (SendMode::Ready, true) => "MPI_Irsend",
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
        Op::RequestGetStatus { .. } => "MPI_Request_get_status",
        Op::Cancel { .. } => "MPI_Cancel",
        Op::Mprobe { blocking: true, .. } => "MPI_Mprobe",
        Op::Mprobe { .. } => "MPI_Improbe",
        Op::Mrecv { blocking: true, .. } => "MPI_Mrecv",
        Op::Mrecv { .. } => "MPI_Imrecv",
        Op::Coll { kind, .. } | Op::Icoll { kind, .. } => kind.mpi_name(),
        Op::CommDup { .. } => "MPI_Comm_dup",
        Op::CommSplit { .. } => "MPI_Comm_split",
        Op::CommSplitAs { how, .. } => how.mpi_name(),
        Op::CommCreate { .. } => "MPI_Comm_create",
        Op::CommIdup { info: false, .. } => "MPI_Comm_idup",
        Op::CommIdup { info: true, .. } => "MPI_Comm_idup_with_info",
        Op::CommCreateGroup { .. } => "MPI_Comm_create_group",
        Op::CommFree { .. } => "MPI_Comm_free",
        Op::RequestFree { .. } => "MPI_Request_free",
        Op::RequestInit { recv: true, .. } => "MPI_Recv_init",
        Op::RequestInit { mode, .. } => match mode {
            SendMode::Standard => "MPI_Send_init",
            SendMode::Sync => "MPI_Ssend_init",
            SendMode::Buffered => "MPI_Bsend_init",
            SendMode::Ready => "MPI_Rsend_init",
        },
        Op::Finalize => "MPI_Finalize",
        Op::Args { .. } => "(arguments)",
        Op::Exchange { .. } => "(blocks)",
        Op::Data { .. } => "(data)",
        Op::IntercommCreate { .. } => "MPI_Intercomm_create",
        Op::IntercommMerge { .. } => "MPI_Intercomm_merge",
        Op::WinCreate { flavor, .. } => flavor.mpi_name(),
        Op::WinFree { .. } => "MPI_Win_free",
        Op::WinFence { .. } => "MPI_Win_fence",
        Op::Rma { kind, req, .. } => kind.mpi_name(req.is_some()),
        Op::WinPost { .. } => "MPI_Win_post",
        Op::WinStart { .. } => "MPI_Win_start",
        Op::WinComplete { .. } => "MPI_Win_complete",
        Op::WinWait { test: false, .. } => "MPI_Win_wait",
        Op::WinWait { test: true, .. } => "MPI_Win_test",
        Op::WinLock { .. } => "MPI_Win_lock",
        Op::WinUnlock { .. } => "MPI_Win_unlock",
        Op::WinLockAll { .. } => "MPI_Win_lock_all",
        Op::WinUnlockAll { .. } => "MPI_Win_unlock_all",
        Op::WinFlush { how, .. } => how.mpi_name(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two communicators: world (ranks 0..3) and 5 (ranks 2, 0); rank 1
    /// holds request 7, made by its call 4.
    struct Fake;

    impl Handles for Fake {
        fn members(&self, rank: Rank, comm: u32) -> Option<&[Rank]> {
            match comm {
                fib_wire::COMM_WORLD => Some(&[0, 1, 2]),
                fib_wire::COMM_SELF => Some(&[0, 1, 2][rank..rank + 1]),
                5 => Some(&[2, 0]),
                _ => None,
            }
        }

        fn request(&self, rank: Rank, req: u32) -> Option<usize> {
            (rank == 1 && req == 7).then_some(4)
        }

        fn persistent(&self, _: Rank, _: u32) -> Option<usize> {
            None
        }

        fn nonblocking_collective(&self, _: Rank, _: usize) -> bool {
            false
        }
    }

    fn send(dest: i32, tag: i32, comm: u32) -> Op {
        Op::Send {
            mode: SendMode::Standard,
            dest,
            tag,
            comm,
            req: None,
        }
    }

    #[test]
    fn local_ranks_become_world_ranks() {
        let k = model(&Fake, 0, &send(0, 3, 5), false).unwrap();
        assert!(matches!(
            k,
            Kind::Send {
                dst: Peer::Rank(2),
                tag: 3,
                comm: 5,
                sync: false,
                req: None,
                ready: false,
            }
        ));
        let recv = Op::Recv {
            src: ANY,
            tag: ANY,
            comm: 0,
            req: 1,
            blocking: true,
        };
        assert!(matches!(
            model(&Fake, 1, &recv, false).unwrap(),
            Kind::Recv {
                src: Peer::Any,
                blocking: true,
                ..
            }
        ));
    }

    #[test]
    fn zero_buffer_makes_standard_sends_synchronous() {
        let k = model(&Fake, 0, &send(1, 0, 0), true).unwrap();
        assert!(matches!(k, Kind::Send { sync: true, .. }));
    }

    #[test]
    fn bad_calls_are_refused_with_a_reason() {
        assert_eq!(
            model(&Fake, 0, &send(3, 0, 0), false).unwrap_err(),
            "rank 3 is out of range for a communicator of 3 processes"
        );
        assert_eq!(
            model(&Fake, 0, &send(ANY, 0, 0), false).unwrap_err(),
            "MPI_ANY_SOURCE is not a destination"
        );
        assert_eq!(
            model(&Fake, 0, &send(1, -4, 0), false).unwrap_err(),
            "tag -4 is negative"
        );
        assert_eq!(
            model(&Fake, 1, &send(0, 0, 5), false).unwrap_err(),
            "rank 1 is not a member of communicator 5"
        );
        assert_eq!(
            model(&Fake, 0, &Op::CommFree { comm: 9 }, false).unwrap_err(),
            "unknown communicator 9"
        );
        let wait = Op::Wait {
            kind: WaitKind::All,
            reqs: vec![7, 8],
        };
        assert_eq!(
            model(&Fake, 1, &wait, false).unwrap_err(),
            "request 8 is not active"
        );
    }

    #[test]
    fn waits_resolve_requests_to_calls() {
        let test = Op::Test {
            kind: WaitKind::Any,
            reqs: vec![7],
        };
        match model(&Fake, 1, &test, false).unwrap() {
            Kind::Wait { kind, ops, test } => {
                assert_eq!((kind, ops, test), (WaitKind::Any, vec![4], true));
            }
            k => panic!("{k:?}"),
        }
    }

    #[test]
    fn rootless_collectives_ignore_the_root() {
        let barrier = Op::Coll {
            kind: CollKind::Barrier,
            comm: 0,
            root: 2,
        };
        let Kind::Coll { what, .. } = model(&Fake, 0, &barrier, false).unwrap() else {
            panic!()
        };
        assert_eq!(
            what,
            CollWhat::Coll {
                kind: CollKind::Barrier,
                root: 0
            }
        );
    }

    #[test]
    fn collectives_agree_on_kind_not_on_split_colors() {
        let split = |color| CollWhat::Split {
            how: None,
            color,
            key: 0,
        };
        assert!(collectives_agree(&[split(1), split(2)]));
        assert!(collectives_agree(&[CollWhat::Dup, CollWhat::Dup]));
        assert!(!collectives_agree(&[CollWhat::Dup, split(1)]));
        let bcast = |root| CollWhat::Coll {
            kind: CollKind::Bcast,
            root,
        };
        assert!(!collectives_agree(&[bcast(0), bcast(1)]));
        let gatherv = |root| CollWhat::Coll {
            kind: CollKind::Gatherv,
            root,
        };
        assert!(collectives_agree(&[gatherv(1), gatherv(1)]));
        assert!(!collectives_agree(&[gatherv(0), gatherv(1)]));
        let scan = CollWhat::Coll {
            kind: CollKind::Scan,
            root: 0,
        };
        let exscan = CollWhat::Coll {
            kind: CollKind::Exscan,
            root: 0,
        };
        assert!(!collectives_agree(&[scan.clone(), exscan]));
        assert!(collectives_agree(&[scan.clone(), scan]));
        // A constructor modelled as a split agrees only with itself.
        let made = |how, color| CollWhat::Split {
            how: Some(how),
            color,
            key: 0,
        };
        assert!(collectives_agree(&[
            made(SplitKind::CartSub, 0),
            made(SplitKind::CartSub, 1)
        ]));
        assert!(!collectives_agree(&[
            made(SplitKind::CartCreate, 0),
            split(0)
        ]));
        assert!(!collectives_agree(&[
            made(SplitKind::CartCreate, 0),
            made(SplitKind::GraphCreate, 0)
        ]));
    }

    #[test]
    fn acceptance_by_source_and_tag() {
        assert!(accepts(Peer::Any, ANY, 3, 9));
        assert!(accepts(Peer::Rank(3), 9, 3, 9));
        assert!(!accepts(Peer::Rank(2), ANY, 3, 9));
        assert!(!accepts(Peer::Any, 8, 3, 9));
    }

    #[test]
    fn a_deferred_choice_fires_at_the_other_call() {
        let me = OpId { rank: 0, index: 1 };
        let other = OpId { rank: 1, index: 2 };
        let send = OpId { rank: 2, index: 0 };
        let c = Choice {
            point: ChoicePoint {
                at: me,
                site: Site::default(),
                alternatives: vec![
                    Alternative::Send(send),
                    Alternative::Defer {
                        at: other,
                        alt: Box::new(Alternative::Index(3)),
                    },
                ],
            },
            taken: 1,
            predicted: vec![],
            wake: vec![],
            before: Vec::new(),
        };
        assert_eq!(c.fired(), (other, &Alternative::Index(3)));
        let c = Choice { taken: 0, ..c };
        assert_eq!(c.fired(), (me, &Alternative::Send(send)));
    }

    #[test]
    fn call_names() {
        let isend = Op::Send {
            mode: SendMode::Sync,
            dest: 0,
            tag: 0,
            comm: 0,
            req: Some(1),
        };
        assert_eq!(call_name(&isend), "MPI_Issend");
        let testsome = Op::Test {
            kind: WaitKind::Some,
            reqs: vec![],
        };
        assert_eq!(call_name(&testsome), "MPI_Testsome");
        assert_eq!(call_name(&Op::Finalize), "MPI_Finalize");
        let sub = Op::CommSplitAs {
            how: SplitKind::CartSub,
            comm: 2,
            color: 0,
            key: 0,
        };
        assert_eq!(call_name(&sub), "MPI_Cart_sub");
        let exscan = Op::Coll {
            kind: CollKind::Exscan,
            comm: 0,
            root: 0,
        };
        assert_eq!(call_name(&exscan), "MPI_Exscan");
    }
}
