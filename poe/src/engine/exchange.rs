//! Exchangeable blocks: wildcard receives whose order of taking their sends
//! cannot change what follows, so that one run stands for every order.
//!
//! A rank that takes several messages in a row with the same blocking
//! wildcard receive (`for (i = 1; i < n; i++) MPI_Recv(..., MPI_ANY_SOURCE,
//! ...)`) gives POE one choice point per receive, and a full exploration
//! runs every order in which the senders' messages can arrive: k! runs for k
//! senders, multiplied by every other such block of the run. When the
//! program's control flow and the arguments of its MPI calls do not depend
//! on what the block's receives get (a static fact about their site that
//! the caller vouches for through `alike`, see
//! [`super::Engine::conclude`]), and the block meets the conditions below,
//! every order of the block is a run that equals this one except for which
//! receive of the block got which message: the same calls on every rank,
//! the same matches outside the block, the same ending. So the run stands
//! for all of them: every receive of the block can get every message of it
//! (the pairs are predicted, not run), and the alternatives at the block's
//! choice points are not explored.
//!
//! The conditions, on the finished run, for a block `r_1..r_k` (k ≥ 2) of
//! consecutive calls of one rank:
//!
//! 1. every `r_j` is a receive with `MPI_ANY_SOURCE`, all blocking or all
//!    nonblocking, on one communicator with one tag filter, with nothing
//!    else in between (local calls such as `MPI_Get_count` are not
//!    operations of the engine; between blocking ones, a call that takes
//!    no message and completes at once may come: the `MPI_Mrecv` of an
//!    `MPI_Mprobe`'s message, which is the wildcard receive), at sites
//!    whose data steers nothing (which the caller vouches for; one site
//!    called in a loop, or several, as in an unrolled loop), taking any
//!    message alike (the same
//!    count of the same datatype, reported by the rank, which the engine
//!    checks: which receive gets a long message must not decide whether
//!    it is truncated); nonblocking ones are completed by `MPI_Wait`,
//!    `MPI_Waitall` or an `MPI_Waitany` whose index and status reach
//!    nothing MPI sees (the caller's `free`) only (no test or
//!    `MPI_Waitsome` of one, no other `MPI_Waitany`, which could tell which
//!    completed first, no cancel, no free), so what the rank does next
//!    does not depend on the order; and once such an `MPI_Waitany` has
//!    returned, the rank makes only completion calls until every receive
//!    of the block has completed (else, in another order, one could still
//!    be unmatched when the rank's next call lets a message from outside
//!    the block be sent, and take it);
//! 2. each was decided by its own choice point, none of whose alternatives
//!    were asleep (a run after a deferral sees a subset), and got a send;
//! 3. the sends are buffered (a standard send complete without its
//!    receive): when one is taken does not change when its sender goes on;
//!    a sender may have several of them, which the block takes in its
//!    program order (non-overtaking);
//! 4. each sender's first send of the block is an alternative at `r_1`, no
//!    send of the block follows any of the block's choices (so none waits
//!    for an order of the block to be issued), and every `r_j` has no send
//!    among its alternatives other than the block's: no message from
//!    outside the block could have been taken instead;
//! 5. no later send of a block sender (after its last one in the block)
//!    that the block accepts was issued before the block's last choice, and
//!    every one issued after it follows that choice: taking a sender's
//!    messages earlier never exposes its next;
//! 6. every earlier receive of the rank on the communicator (but those from
//!    `MPI_PROC_NULL`) was matched before the block's first receive was.
//!
//! Under 1–6 the orders of the block differ in the matches inside it only:
//! they are the interleavings of the senders' sequences of block sends
//! ([`Exchange::pairs`] gives which receive can get which send in one of
//! them).
//! The completes-before paths that the Fib pass follows out of a block
//! receive run along its rank's program order to after the block in every
//! order, so the barrier verdicts do not change either (the pass never asks
//! whether a send reaches a receive).
//!
//! A row of probes is a block too: each a blocking `MPI_Probe` with
//! `MPI_ANY_SOURCE` followed at once by the receive of the message it
//! found (`MPI_Probe(MPI_ANY_SOURCE, tag, comm, &st); MPI_Recv(buf, n,
//! type, st.MPI_SOURCE, tag, comm, ...)`, sized from the status or not).
//! Each pair takes one message as a wildcard receive would, so the same
//! conditions hold with the probes as the block's choices and the pairs'
//! receives as what takes the sends: every receive names the source its
//! probe found (on the same communicator, with the same tag filter or,
//! after a probe for any tag, the tag the probe found) and got the probed
//! send; the caller vouches (`probes`) that the probe's status reaches
//! nothing but its receive's source, count and tag, and that what the
//! receive gets steers nothing, as for a row of wildcard receives.
//!
//! A row of matched probes (`MPI_Mprobe(MPI_ANY_SOURCE, ...)`, each
//! followed by the `MPI_Mrecv` of its message) is a row of blocking
//! wildcard receives whose data and truncation are the `MPI_Mrecv`s':
//! the engine compares those receives' arguments, and the caller may
//! vouch for each pair (`probes`) when the `MPI_Mrecv`'s count is made
//! from the probe's status and nothing else the status or the message
//! reaches matters.
//!
//! A row of probes may also be a dispatch: the probe's status picks which
//! of several receives takes the message (`if (st.MPI_SOURCE == left &&
//! st.MPI_TAG == T_L) MPI_Recv(ghost_l, ...) else if ... else
//! MPI_Abort(...)`), and the caller vouches (`Vouched::dispatch`) that the
//! pick is a function of the message alone: the conditions compare the
//! status with values that are the same for the whole run. The row must
//! then be of one probe site (another site's conditions could pick
//! differently), every receive must still have got its probe's message,
//! and receives made at one site must take their messages alike (the same
//! count of the same datatype). In any order every message of the row is
//! found by some probe of the row (condition 4), goes to the receive its
//! status picks, which is the one it went to in this run, and is taken
//! there alike: the rank's calls differ between orders only in which
//! probe found which message and in the order of the receives' sites, no
//! message reaches a branch this run did not show it reaching (the
//! `else`), and what the receives get steers nothing.

use fib_wire::Site;
use rustc_hash::FxHashMap;

use super::causality::Causality;
use super::matching::Matching;
use fib_wire::WaitKind;

use super::model::{Alternative, Choice, Fired, Kind, OpId, Peer};
use super::path::Path;

/// One exchangeable block of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exchange {
    /// The block's receives, in program order.
    pub recvs: Vec<OpId>,
    /// The sends they took in this run, in the same order.
    pub sends: Vec<OpId>,
    /// The choices (positions in the run's choice list) of the receives.
    pub choices: Vec<usize>,
    /// For a row of probes (whose choices `recvs` are): the receive that
    /// took each probe's message, in the same order; empty otherwise.
    pub takers: Vec<OpId>,
    /// For a row of probes, or of matched probes each followed by its
    /// `MPI_Mrecv`: whether each receive's count is made from its probe's
    /// status (the caller's word), so that it fits whichever message the
    /// probe finds.
    pub sized: bool,
    /// For a row of probes: the caller says the probe's status picks the
    /// receive that takes the message among several (a dispatch), so the
    /// receives need only take their messages alike site by site.
    pub dispatch: bool,
}

impl Exchange {
    /// A block with no receive yet.
    fn empty(sized: bool) -> Exchange {
        Exchange {
            recvs: Vec::new(),
            sends: Vec::new(),
            choices: Vec::new(),
            takers: Vec::new(),
            sized,
            dispatch: false,
        }
    }

    /// Every (receive, send) pair of the block that one of its orders
    /// matches. The `i`-th send of a sender that has `m` sends in a block of
    /// `k` receives goes to the `j`-th receive in some order when the
    /// earlier receives can take `i` of its sends and `j - i` of the
    /// others': `i <= j <= i + k - m`.
    pub fn pairs(&self) -> impl Iterator<Item = (OpId, OpId)> + '_ {
        let k = self.recvs.len();
        self.places()
            .into_iter()
            .zip(&self.sends)
            .flat_map(move |((i, m), &s)| self.recvs[i..=i + k - m].iter().map(move |&r| (r, s)))
    }

    /// Every other order in which the block's receives can take its sends:
    /// each an interleaving of the senders' sequences of block sends (a
    /// sender's sends keep their order), as the send each receive takes,
    /// in the block's order; this run's order is left out. Empty when there
    /// are more than `max` of them.
    pub fn orders(&self, max: usize) -> Vec<Vec<OpId>> {
        let mut by_sender: Vec<(usize, Vec<OpId>)> = Vec::new();
        for &s in &self.sends {
            match by_sender.iter_mut().find(|(r, _)| *r == s.rank) {
                Some((_, v)) => v.push(s),
                None => by_sender.push((s.rank, vec![s])),
            }
        }
        let mut out = Vec::new();
        let mut next = vec![0usize; by_sender.len()];
        let mut order = Vec::with_capacity(self.sends.len());
        fn walk(
            by_sender: &[(usize, Vec<OpId>)],
            next: &mut [usize],
            order: &mut Vec<OpId>,
            out: &mut Vec<Vec<OpId>>,
            max: usize,
        ) -> bool {
            if out.len() > max {
                return false;
            }
            if by_sender
                .iter()
                .zip(next.iter())
                .all(|((_, v), &n)| n == v.len())
            {
                out.push(order.clone());
                return true;
            }
            for i in 0..by_sender.len() {
                if next[i] < by_sender[i].1.len() {
                    order.push(by_sender[i].1[next[i]]);
                    next[i] += 1;
                    let more = walk(by_sender, next, order, out, max);
                    next[i] -= 1;
                    order.pop();
                    if !more {
                        return false;
                    }
                }
            }
            true
        }
        // One more than `max` is room for this run's own order.
        if !walk(&by_sender, &mut next, &mut order, &mut out, max) {
            return Vec::new();
        }
        out.retain(|o| *o != self.sends);
        if out.len() > max {
            return Vec::new();
        }
        out
    }

    /// For each of the block's sends: how many sends of its sender come
    /// before it in the block, and how many the block has of that sender.
    pub fn places(&self) -> Vec<(usize, usize)> {
        let mut seen: FxHashMap<usize, usize> = FxHashMap::default();
        let before: Vec<usize> = self
            .sends
            .iter()
            .map(|s| {
                let n = seen.entry(s.rank).or_default();
                *n += 1;
                *n - 1
            })
            .collect();
        before
            .into_iter()
            .zip(&self.sends)
            .map(|(i, s)| (i, seen[&s.rank]))
            .collect()
    }
}

/// The exchangeable blocks of a finished run.
pub(crate) fn blocks(m: &Matching, c: &Causality, p: &Path, caller: &Vouch) -> Vec<Exchange> {
    // Most runs have no two wildcard receives in a row: they need none of
    // the indexes below.
    let rows = (0..m.nprocs()).any(|rank| {
        let ops = m.ops(rank);
        ops.iter()
            .zip(ops.iter_from(1))
            .any(|(a, b)| block_key(&a.kind).is_some() && block_key(&a.kind) == block_key(&b.kind))
            || ops
                .iter()
                .zip(ops.iter_from(1))
                .zip(ops.iter_from(2))
                .any(|((a, gap), b)| {
                    block_key(&a.kind).is_some()
                        && no_message(&gap.kind)
                        && block_key(&a.kind) == block_key(&b.kind)
                })
            || (0..ops.len()).any(|i| probe_pair(ops, i).is_some())
    });
    if !rows {
        return Vec::new();
    }
    let run = Run::new(m, c, p);
    let mut out = Vec::new();
    for rank in 0..m.nprocs() {
        let ops = m.ops(rank);
        // Per communicator: the latest position in the fired list at which
        // a receive of the rank so far matched (`usize::MAX`: one did not).
        let mut latest: FxHashMap<u32, usize> = FxHashMap::default();
        let mut i = 0;
        while i < ops.len() {
            if let Some(key) = probe_pair(ops, i) {
                // The row: the pairs from `i` on with its key that the
                // caller vouches for (a pair it does not ends the row).
                let vouched = |k: usize| vouched(caller, ops, k, key.1);
                let first = vouched(i);
                let mut sized = first.map(|v| v.sized);
                let mut dispatch = first.is_some_and(|v| v.dispatch);
                let mut j = i + 2;
                if sized.is_some() {
                    while probe_pair(ops, j) == Some(key) {
                        let Some(v) = vouched(j) else { break };
                        // A dispatch is a function of the message for
                        // its own probe site only.
                        if (dispatch || v.dispatch) && ops[j].site != ops[i].site {
                            break;
                        }
                        sized = sized.map(|t| t && v.sized);
                        dispatch |= v.dispatch;
                        j += 2;
                    }
                }
                let before = latest.get(&key.0).copied();
                if let (true, Some(sized)) = (j - i >= 4, sized) {
                    if let Some(mut x) = run.check_probes(rank, i..j, key, before, sized) {
                        x.dispatch = dispatch;
                        out.push(x);
                    }
                }
                for index in (i + 1..j).step_by(2) {
                    run.saw_recv(&mut latest, key.0, OpId { rank, index });
                }
                i = j;
                continue;
            }
            let Some(key) = block_key(&ops[i].kind) else {
                // A receive from `MPI_PROC_NULL` takes no message.
                if let Kind::Recv { comm, src, .. } = ops[i].kind {
                    if src != Peer::Null {
                        run.saw_recv(&mut latest, comm, OpId { rank, index: i });
                    }
                }
                i += 1;
                continue;
            };
            // The row's receives: consecutive, or (blocking ones) with the
            // receive of a matched probe's message between them.
            let mut row = vec![i];
            let mut j = i + 1;
            loop {
                if j < ops.len() && block_key(&ops[j].kind) == Some(key) {
                    row.push(j);
                    j += 1;
                } else if key.2
                    && j + 1 < ops.len()
                    && no_message(&ops[j].kind)
                    && block_key(&ops[j + 1].kind) == Some(key)
                {
                    j += 1;
                } else {
                    break;
                }
            }
            let before = latest.get(&key.0).copied();
            let sites: Vec<Site> = row.iter().map(|&k| ops[k].site).collect();
            let waited = key.2 || waited_alone(ops, rank, i..j, caller.free, &run.completed);
            // Matched probes each followed by the `MPI_Mrecv` of a message
            // may be vouched for as pairs, sized from the status or not.
            let pairs = key.2
                && row
                    .iter()
                    .all(|&k| ops.get(k + 1).is_some_and(|o| no_message(&o.kind)));
            let vouched: Option<Vec<Vouched>> = pairs
                .then(|| {
                    row.iter()
                        .map(|&k| (caller.probes)(ops[k].site, ops[k + 1].site))
                        .collect()
                })
                .flatten();
            if row.len() >= 2 && waited && (vouched.is_some() || (caller.alike)(&sites)) {
                if let Some(mut x) = run.check(rank, &row, (key.0, key.1), before) {
                    x.sized = vouched.is_some_and(|v| v.iter().all(|v| v.sized));
                    out.push(x);
                }
            }
            for &index in &row {
                run.saw_recv(&mut latest, key.0, OpId { rank, index });
            }
            i = j;
        }
    }
    out
}

/// Marks the alternatives of `x`'s choices in `choices` that the run
/// stands for as predicted: every other send of each choice point (a
/// deferral or a cancel stays wanted).
pub fn predict(choices: &mut [Choice], x: &Exchange) {
    for &k in &x.choices {
        let Some(c) = choices.get_mut(k) else {
            continue;
        };
        c.predicted = (0..c.point.alternatives.len())
            .filter(|&i| i != c.taken && matches!(c.point.alternatives[i], Alternative::Send(_)))
            .collect();
    }
}

/// What only the caller can tell of the sites of a run's calls (see
/// [`super::Engine::conclude`]).
pub struct Vouch<'a> {
    /// Whether receives made at these sites may stand for each other.
    pub alike: &'a dyn Fn(&[Site]) -> bool,
    /// Whether what an `MPI_Waitany` made there returns reaches nothing MPI
    /// sees.
    pub free: &'a dyn Fn(Site) -> bool,
    /// For a probe's site and the site of the receive that follows it (a
    /// plain probe's `MPI_Recv`, or a matched probe's `MPI_Mrecv`): what
    /// the caller can tell when the probe's status reaches nothing MPI
    /// sees but that receive's source, count and tag, and what the receive
    /// gets steers nothing.
    pub probes: &'a dyn Fn(Site, Site) -> Option<Vouched>,
}

/// What the caller tells of a probe and the receive after it ([`Vouch`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vouched {
    /// The receive's count is made from the probe's status.
    pub sized: bool,
    /// The receive's tag is the probe's status's.
    pub tagged: bool,
    /// The probe's status picks this receive among several, through
    /// conditions that make the pick a function of the message: a row of
    /// such pairs must be of one probe site, and each receive site must
    /// take its messages alike (the engine checks both).
    pub dispatch: bool,
}

/// Whether the rank's calls at `i` and `i + 1` are a blocking probe with
/// `MPI_ANY_SOURCE` and a blocking receive from a named source on the same
/// communicator, with the same tag filter or after a probe for any tag:
/// (communicator, the probe's tag).
fn probe_pair(ops: &super::model::Ops, i: usize) -> Option<(u32, i32)> {
    let Kind::Probe {
        src: Peer::Any,
        tag,
        comm,
        blocking: true,
    } = ops.get(i)?.kind
    else {
        return None;
    };
    match ops.get(i + 1)?.kind {
        Kind::Recv {
            src: Peer::Rank(_),
            tag: t,
            comm: c,
            blocking: true,
            ..
        } if (t == tag || tag == fib_wire::ANY) && c == comm => Some((comm, tag)),
        _ => None,
    }
}

/// Whether the caller vouches for the probe at `k` and the receive after
/// it, a probe with the tag filter `tag`, and the receive takes the probed
/// message in every order: it names the same tag filter, or the tag the
/// probe found: what the caller says of the pair.
fn vouched(caller: &Vouch, ops: &super::model::Ops, k: usize, tag: i32) -> Option<Vouched> {
    let v = (caller.probes)(ops[k].site, ops[k + 1].site)?;
    match ops[k + 1].kind {
        Kind::Recv { tag: t, .. } if t == tag || v.tagged => Some(v),
        _ => None,
    }
}

/// Whether a blocking call takes no message and completes at once: the
/// receive of the message a matched probe took (`MPI_Mrecv`), or from
/// `MPI_PROC_NULL`. A row of blocking wildcard receives (`MPI_Mprobe`s)
/// may have one between two of its receives.
fn no_message(k: &Kind) -> bool {
    matches!(
        k,
        Kind::Recv {
            src: Peer::Null,
            blocking: true,
            ..
        }
    )
}

/// What makes wildcard receives one block: communicator, tag, and whether
/// they block.
fn block_key(k: &Kind) -> Option<(u32, i32, bool)> {
    match *k {
        Kind::Recv {
            src: Peer::Any,
            tag,
            comm,
            blocking,
            ..
        } => Some((comm, tag, blocking)),
        _ => None,
    }
}

/// Whether the rank's calls `ops` complete the nonblocking receives at
/// `range` with waits alone: no test, `MPI_Waitsome` or `MPI_Waitany`
/// (unless at a site where what it returns reaches nothing MPI sees,
/// `free`) lists one of them, and none is cancelled or freed.
///
/// Once an `MPI_Waitany` has returned one of them, the rank makes nothing
/// but completion calls until every one has completed (`completed`: what
/// each wait completed in this run, by its call): otherwise, in another
/// order, a receive of the row could still be unmatched when what the
/// rank does next (a barrier, a send) lets a message from outside the row
/// be sent, which that receive could take.
fn waited_alone(
    ops: &super::model::Ops,
    rank: usize,
    range: std::ops::Range<usize>,
    free: &dyn Fn(Site) -> bool,
    completed: &FxHashMap<OpId, &[OpId]>,
) -> bool {
    let mut left = range.len();
    let mut any = false;
    for (k, o) in ops.iter_from(range.end).enumerate() {
        let at = range.end + k;
        match &o.kind {
            Kind::Wait {
                kind,
                ops: listed,
                test,
            } => {
                let lists = listed.iter().any(|i| range.contains(i));
                if lists
                    && (*test
                        || !(matches!(kind, WaitKind::One | WaitKind::All)
                            || *kind == WaitKind::Any && free(o.site)))
                {
                    return false;
                }
                any |= lists && *kind == WaitKind::Any;
                if let Some(done) = completed.get(&OpId { rank, index: at }) {
                    left -= done.iter().filter(|d| range.contains(&d.index)).count();
                }
                continue;
            }
            Kind::Cancel { op } if range.contains(op) => return false,
            Kind::RequestFree { op, .. } if op.is_some_and(|i| range.contains(&i)) => return false,
            _ => {}
        }
        if any && left > 0 {
            return false;
        }
    }
    true
}

/// What the checks need of the run, indexed once.
struct Run<'a> {
    m: &'a Matching,
    c: &'a Causality,
    p: &'a Path,
    /// The choice that decided each wildcard receive by its own point.
    decided: FxHashMap<OpId, usize>,
    /// Where each receive's send/receive pair fired, and each probe's
    /// answer.
    fired_at: FxHashMap<OpId, usize>,
    /// The send each probe found.
    probed: FxHashMap<OpId, OpId>,
    /// What each wait or test completed.
    completed: FxHashMap<OpId, &'a [OpId]>,
    /// Every send by (sender, destination, communicator): its position in
    /// the sender's calls and its tag, in program order.
    sends: FxHashMap<(usize, usize, u32), Vec<(usize, i32)>>,
}

impl<'a> Run<'a> {
    fn new(m: &'a Matching, c: &'a Causality, p: &'a Path) -> Run<'a> {
        let mut decided = FxHashMap::default();
        for (k, ch) in p.choices().iter().enumerate() {
            if let (at, Alternative::Send(_)) = ch.fired() {
                if at == ch.point.at {
                    decided.insert(at, k);
                }
            }
        }
        let mut fired_at = FxHashMap::default();
        let mut probed = FxHashMap::default();
        let mut completed = FxHashMap::default();
        for (i, f) in m.fired().iter().enumerate() {
            match f {
                Fired::Completion {
                    op,
                    completed: done,
                } => {
                    completed.insert(*op, done.as_slice());
                }
                Fired::SendRecv { recv, .. } => {
                    fired_at.insert(*recv, i);
                }
                Fired::Probe { probe, send } => {
                    fired_at.insert(*probe, i);
                    probed.insert(*probe, *send);
                }
                _ => {}
            }
        }
        let mut sends: FxHashMap<(usize, usize, u32), Vec<(usize, i32)>> = FxHashMap::default();
        for rank in 0..m.nprocs() {
            for (index, op) in m.ops(rank).iter().enumerate() {
                if let Kind::Send {
                    dst: Peer::Rank(d),
                    tag,
                    comm,
                    ..
                } = op.kind
                {
                    sends.entry((rank, d, comm)).or_default().push((index, tag));
                }
            }
        }
        Run {
            m,
            c,
            p,
            decided,
            fired_at,
            probed,
            completed,
            sends,
        }
    }

    fn saw_recv(&self, latest: &mut FxHashMap<u32, usize>, comm: u32, r: OpId) {
        let at = self.fired_at.get(&r).copied().unwrap_or(usize::MAX);
        let e = latest.entry(comm).or_insert(0);
        *e = (*e).max(at);
    }

    /// The block of `rank`'s calls at `row`, if it is exchangeable;
    /// `before`: the latest fired position of the rank's earlier receives
    /// on its communicator.
    fn check(
        &self,
        rank: usize,
        row: &[usize],
        (comm, tag): (u32, i32),
        before: Option<usize>,
    ) -> Option<Exchange> {
        let ops = self.m.ops(rank);
        let mut x = Exchange::empty(false);
        // 1–3.
        for &index in row {
            let r = OpId { rank, index };
            self.take(&mut x, r, ops[index].matched?)?;
        }
        self.verify(x, rank, (comm, tag), before)
    }

    /// The row of probes and receives `range` of `rank`'s calls (a probe at
    /// every other position, from the first), if it is exchangeable; as
    /// [`Run::check`].
    fn check_probes(
        &self,
        rank: usize,
        range: std::ops::Range<usize>,
        (comm, tag): (u32, i32),
        before: Option<usize>,
        sized: bool,
    ) -> Option<Exchange> {
        let ops = self.m.ops(rank);
        let mut x = Exchange::empty(sized);
        for index in range.step_by(2) {
            let p = OpId { rank, index };
            let s = *self.probed.get(&p)?;
            // The receive got the message its probe found.
            if ops[index + 1].matched != Some(s) {
                return None;
            }
            self.take(&mut x, p, s)?;
            x.takers.push(OpId {
                rank,
                index: index + 1,
            });
        }
        self.verify(x, rank, (comm, tag), before)
    }

    /// Adds the wildcard receive or probe `r`, which got or found `s`, to
    /// `x`: decided by its own choice point, none of whose alternatives
    /// was asleep, and `s` a buffered send (2–3).
    fn take(&self, x: &mut Exchange, r: OpId, s: OpId) -> Option<()> {
        let k = *self.decided.get(&r)?;
        if self.p.has_asleep(r) {
            return None;
        }
        let m = self.m;
        if !m.buffered_send(s) || matches!(m.op(s).kind, Kind::Send { ready: true, .. }) {
            return None;
        }
        x.recvs.push(r);
        x.sends.push(s);
        x.choices.push(k);
        Some(())
    }

    /// Conditions 4–6 for the block `x` of `rank`'s calls.
    fn verify(
        &self,
        x: Exchange,
        rank: usize,
        (comm, tag): (u32, i32),
        before: Option<usize>,
    ) -> Option<Exchange> {
        let choices = self.p.choices();
        // 4.
        let sends_at = |k: usize| {
            choices[k]
                .point
                .alternatives
                .iter()
                .filter_map(|a| match a {
                    Alternative::Send(s) => Some(*s),
                    _ => None,
                })
        };
        let first: Vec<OpId> = sends_at(x.choices[0]).collect();
        let places = x.places();
        let mut firsts = x.sends.iter().zip(&places).filter(|(_, p)| p.0 == 0);
        if !firsts.all(|(s, _)| first.contains(s)) {
            return None;
        }
        if x.sends
            .iter()
            .any(|&s| x.choices.iter().any(|&k| self.c.follows(s, k)))
        {
            return None;
        }
        if !x
            .choices
            .iter()
            .all(|&k| sends_at(k).all(|s| x.sends.contains(&s)))
        {
            return None;
        }
        // 5. Later sends of a sender follow whatever its earlier ones do, so
        // the first accepted one after its last send of the block is the one
        // to check.
        let last = *x.choices.last()?;
        for (s, &(i, m)) in x.sends.iter().zip(&places) {
            if i + 1 < m {
                continue;
            }
            let list = self.sends.get(&(s.rank, rank, comm))?;
            let from = list.partition_point(|&(i, _)| i <= s.index);
            let next = list[from..]
                .iter()
                .find(|&&(_, t)| tag == fib_wire::ANY || tag == t);
            if let Some(&(index, _)) = next {
                if !self.c.follows(
                    OpId {
                        rank: s.rank,
                        index,
                    },
                    last,
                ) {
                    return None;
                }
            }
        }
        // 6.
        let start = *self.fired_at.get(&x.recvs[0])?;
        if before.is_some_and(|b| b >= start) {
            return None;
        }
        Some(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(rank: usize, index: usize) -> OpId {
        OpId { rank, index }
    }

    fn block(sends: Vec<OpId>) -> Exchange {
        Exchange {
            recvs: (0..sends.len()).map(|i| id(0, i)).collect(),
            choices: (0..sends.len()).collect(),
            sends,
            ..Exchange::empty(false)
        }
    }

    #[test]
    fn the_other_orders_of_three_senders_are_five() {
        let x = block(vec![id(1, 0), id(2, 0), id(3, 0)]);
        let orders = x.orders(23);
        assert_eq!(orders.len(), 5);
        assert!(!orders.contains(&x.sends));
        let mut all = orders.clone();
        all.push(x.sends.clone());
        all.sort();
        all.dedup();
        assert_eq!(all.len(), 6, "every permutation once");
    }

    #[test]
    fn a_senders_messages_keep_their_order() {
        // Rank 1 sends twice: its first always comes before its second.
        let x = block(vec![id(1, 0), id(1, 1), id(2, 0)]);
        let orders = x.orders(23);
        assert_eq!(
            orders,
            vec![
                vec![id(1, 0), id(2, 0), id(1, 1)],
                vec![id(2, 0), id(1, 0), id(1, 1)],
            ]
        );
    }

    #[test]
    fn too_many_orders_are_none() {
        let x = block((1..=5).map(|r| id(r, 0)).collect());
        assert_eq!(x.orders(23), Vec::<Vec<OpId>>::new());
        assert_eq!(x.orders(119).len(), 119);
    }

    #[test]
    fn predicting_leaves_the_taken_send_and_deferrals_wanted() {
        use super::super::model::ChoicePoint;
        let defer = Alternative::Defer {
            at: id(0, 1),
            alt: Box::new(Alternative::Send(id(3, 0))),
        };
        let mut choices = vec![Choice {
            point: ChoicePoint {
                at: id(0, 0),
                site: Site::default(),
                alternatives: vec![
                    Alternative::Send(id(1, 0)),
                    Alternative::Send(id(2, 0)),
                    defer,
                ],
            },
            taken: 1,
            wake: vec![],
            predicted: vec![],
            before: Vec::new(),
        }];
        predict(&mut choices, &block(vec![id(2, 0)]));
        assert_eq!(choices[0].predicted, vec![0]);
    }
}
