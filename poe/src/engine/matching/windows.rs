//! One-sided communication: windows, their epochs and their locks.
//!
//! A window is made by a collective over its communicator, in that
//! communicator's collective order, and gets an id like a new communicator,
//! with the same members: `MPI_Win_fence` and `MPI_Win_free` are then
//! collectives queued on the window's id (the `collectives` module fires
//! them). The rest is here:
//!
//! - Communication calls (`MPI_Put`, ..., `MPI_Rget_accumulate`) never
//!   block. Each is recorded as an [`Access`] with the bytes of the target's
//!   window it touches, and [`Access::done`] names the call of its rank that
//!   completes it: the fence, `MPI_Win_complete`, unlock or flush that ends
//!   or flushes its epoch.
//! - PSCW: `MPI_Win_post` opens an exposure epoch to its origins and never
//!   blocks; `MPI_Win_start` waits until each of its targets has posted to
//!   the rank (MPI allows it to), taking those posts in order;
//!   `MPI_Win_complete` ends the access epoch at once; `MPI_Win_wait`
//!   waits until every origin of the post has completed, and
//!   `MPI_Win_test` polls it (failing polls are answered with every rank
//!   waiting, as other tests are).
//! - Passive target: a lock is granted when no conflicting lock on its
//!   target is held (an exclusive lock conflicts with every other, a shared
//!   one with exclusive ones); `MPI_Win_lock_all` takes a shared lock on
//!   every rank of the window at once. Requests are granted only when every
//!   rank waits, so that every request that could compete is known, one
//!   grant per choice point ([`Alternative::Grant`]), explored like a
//!   wildcard receive: several grantable requests that conflict are one
//!   point, a request no other one conflicts with a point of its own, so
//!   that a conflicting request that comes only later, not caused by the
//!   grant, can wake the alternative that lets it go first. An unlock
//!   releases at once; flushes and `MPI_Win_sync` complete at once.
//!
//! Each synchronisation that orders calls of different ranks is recorded as
//! [`Fired::Sync`]: the posts a start took, the completes a wait took, and
//! the unlocks a lock grant follows (the latest conflicting exclusive
//! epoch's unlock, and for an exclusive grant the shared unlocks since).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use fib_wire::Down;

use super::Matching;
use crate::engine::model::{Alternative, ChoicePoint, Fired, Kind, OpId, Peer, Rank, WinSync};

/// The one-sided state of a run.
#[derive(Default)]
pub(super) struct Windows {
    /// The windows alive.
    live: BTreeSet<u32>,
    /// Posts no start has taken: per (window, target, origin), the
    /// target's `MPI_Win_post` calls whose group holds the origin.
    posts: BTreeMap<(u32, Rank, Rank), VecDeque<OpId>>,
    /// The targets of each open access epoch, per (window, origin).
    access: BTreeMap<(u32, Rank), Vec<Rank>>,
    /// `MPI_Win_complete` calls no wait has taken: per (window, target,
    /// origin).
    completes: BTreeMap<(u32, Rank, Rank), VecDeque<OpId>>,
    /// The origins of each open exposure epoch, per (window, target).
    exposure: BTreeMap<(u32, Rank), Vec<Rank>>,
    /// The locks held, per (window, target): the holders and whether each
    /// lock is exclusive.
    held: BTreeMap<(u32, Rank), Vec<(Rank, bool)>>,
    /// Per (window, target): the latest unlock of an exclusive lock, and
    /// the unlocks of shared locks since.
    released: BTreeMap<(u32, Rank), (Option<OpId>, Vec<OpId>)>,
    /// Each rank's communication calls on each window not completed yet,
    /// per (rank, window).
    pending: BTreeMap<(Rank, u32), Vec<usize>>,
}

/// A lock request waiting: its call, window, targets and whether it is
/// exclusive.
struct Request {
    at: OpId,
    win: u32,
    targets: Vec<Rank>,
    exclusive: bool,
}

impl Request {
    fn conflicts(&self, other: &Request) -> bool {
        self.win == other.win
            && (self.exclusive || other.exclusive)
            && self.targets.iter().any(|t| other.targets.contains(t))
    }
}

impl Matching {
    /// Whether `win` is a window alive.
    pub(super) fn window_alive(&self, win: u32) -> bool {
        self.windows.live.contains(&win)
    }

    /// A window collective fired: `WinCreate` made `win` (the members learn
    /// its id), a fence completes the members' pending calls on it, a free
    /// completes them and ends the window.
    pub(super) fn window_collective(&mut self, ids: &[OpId], win: u32, created: bool) {
        if created {
            self.windows.live.insert(win);
            for id in ids {
                let st = &mut self.ranks[id.rank];
                st.held.remove(&win);
                st.windows.insert(win, id.index);
            }
            return;
        }
        let free = ids.first().is_some_and(|id| {
            matches!(
                self.op(*id).kind,
                Kind::Coll {
                    what: crate::engine::model::CollWhat::WinFree,
                    ..
                }
            )
        });
        for id in ids {
            self.complete_pending(id.rank, win, id.index, |_| true);
            if free {
                self.ranks[id.rank].windows.remove(&win);
            }
        }
        if free {
            self.windows.live.remove(&win);
            let w = &mut self.windows;
            w.posts.retain(|k, _| k.0 != win);
            w.completes.retain(|k, _| k.0 != win);
            w.access.retain(|k, _| k.0 != win);
            w.exposure.retain(|k, _| k.0 != win);
            w.held.retain(|k, _| k.0 != win);
            w.released.retain(|k, _| k.0 != win);
        }
    }

    /// Marks the pending calls of `rank` on `win` whose target `which`
    /// accepts as completed by its call `by`.
    fn complete_pending(&mut self, rank: Rank, win: u32, by: usize, which: impl Fn(Rank) -> bool) {
        let Some(list) = self.windows.pending.get_mut(&(rank, win)) else {
            return;
        };
        let ops = &mut self.ranks[rank].ops;
        list.retain(|&i| match &mut ops[i].kind {
            Kind::Rma(a) if which(a.target) => {
                a.done = Some(by);
                false
            }
            _ => true,
        });
        if list.is_empty() {
            self.windows.pending.remove(&(rank, win));
        }
    }

    /// Records the one-sided call `id` just issued (communication or
    /// synchronisation other than the collectives).
    pub(super) fn window_issued(&mut self, id: OpId) {
        let r = id.rank;
        match &self.ranks[r].ops[id.index].kind {
            Kind::Rma(a) => {
                let (win, req) = (a.win, a.req);
                self.ranks[r].ops[id.index].complete = true;
                if let Some(q) = req {
                    self.ranks[r].reqs.insert(q, id.index);
                }
                self.windows
                    .pending
                    .entry((r, win))
                    .or_default()
                    .push(id.index);
            }
            Kind::Win { win, sync } => {
                let win = *win;
                let immediate = !matches!(
                    sync,
                    WinSync::Start { .. }
                        | WinSync::Wait { .. }
                        | WinSync::Lock { .. }
                        | WinSync::LockAll
                );
                match sync.clone() {
                    WinSync::Post { group } => {
                        for &o in &group {
                            self.windows
                                .posts
                                .entry((win, r, o))
                                .or_default()
                                .push_back(id);
                        }
                        self.windows.exposure.insert((win, r), group);
                    }
                    WinSync::Complete => {
                        let targets = self.windows.access.remove(&(win, r)).unwrap_or_default();
                        for &t in &targets {
                            self.windows
                                .completes
                                .entry((win, t, r))
                                .or_default()
                                .push_back(id);
                        }
                        self.complete_pending(r, win, id.index, |_| true);
                    }
                    WinSync::Unlock {
                        target: Peer::Rank(t),
                    } => {
                        self.unlock_held(win, t, id);
                        self.complete_pending(r, win, id.index, |x| x == t);
                    }
                    WinSync::UnlockAll => {
                        let targets: Vec<Rank> = self
                            .windows
                            .held
                            .iter()
                            .filter(|(k, h)| k.0 == win && h.iter().any(|x| x.0 == r))
                            .map(|(k, _)| k.1)
                            .collect();
                        for t in targets {
                            self.unlock_held(win, t, id);
                        }
                        self.complete_pending(r, win, id.index, |_| true);
                    }
                    WinSync::Flush { how, target } => {
                        use fib_wire::FlushKind;
                        match (how, target) {
                            (FlushKind::Flush, Peer::Rank(t)) => {
                                self.complete_pending(r, win, id.index, |x| x == t)
                            }
                            (FlushKind::FlushAll, _) => {
                                self.complete_pending(r, win, id.index, |_| true)
                            }
                            // The local flushes hand the origin's buffers
                            // back but complete nothing at the target;
                            // `MPI_Win_sync` orders only the rank's own
                            // memory.
                            _ => {}
                        }
                    }
                    _ => {}
                }
                if immediate {
                    self.ranks[r].ops[id.index].complete = true;
                }
            }
            _ => {}
        }
    }

    /// Rank `r`'s lock on `(win, t)` is released by its call `by`.
    fn unlock_held(&mut self, win: u32, t: Rank, by: OpId) {
        let Some(h) = self.windows.held.get_mut(&(win, t)) else {
            return;
        };
        let Some(pos) = h.iter().position(|x| x.0 == by.rank) else {
            return;
        };
        let (_, exclusive) = h.remove(pos);
        if h.is_empty() {
            self.windows.held.remove(&(win, t));
        }
        let rel = self.windows.released.entry((win, t)).or_default();
        if exclusive {
            *rel = (Some(by), Vec::new());
        } else {
            rel.1.push(by);
        }
    }

    /// Whether the blocking one-sided call `id` (a start, or a wait or
    /// test) can return now: its posts or completes are all there. Lock
    /// requests are granted at quiescence instead.
    pub(super) fn window_ready(&self, id: OpId) -> bool {
        let Kind::Win { win, sync } = &self.op(id).kind else {
            return false;
        };
        let w = &self.windows;
        match sync {
            WinSync::Start { group } => group.iter().all(|&t| {
                w.posts
                    .get(&(*win, t, id.rank))
                    .is_some_and(|q| !q.is_empty())
            }),
            WinSync::Wait { .. } => w.exposure.get(&(*win, id.rank)).is_none_or(|origins| {
                origins.iter().all(|&o| {
                    w.completes
                        .get(&(*win, id.rank, o))
                        .is_some_and(|q| !q.is_empty())
                })
            }),
            WinSync::Lock {
                target: Peer::Null, ..
            } => true,
            _ => false,
        }
    }

    /// Answers the start, wait or test `id` that [`Matching::window_ready`]
    /// found ready: takes the posts or completes it waited for and records
    /// them. Returns the answer and the calls it took.
    pub(crate) fn window_fire(&mut self, id: OpId) -> (Down, Vec<OpId>) {
        let Kind::Win { win, sync } = self.op(id).kind.clone() else {
            unreachable!("not a window call")
        };
        let r = id.rank;
        let mut from = Vec::new();
        let down = match sync {
            WinSync::Start { group } => {
                for &t in &group {
                    let q = self.windows.posts.get_mut(&(win, t, r)).unwrap();
                    from.push(q.pop_front().unwrap());
                    if q.is_empty() {
                        self.windows.posts.remove(&(win, t, r));
                    }
                }
                self.windows.access.insert((win, r), group);
                Down::Go
            }
            WinSync::Wait { test } => {
                let origins = self.windows.exposure.remove(&(win, r)).unwrap_or_default();
                for &o in &origins {
                    let q = self.windows.completes.get_mut(&(win, r, o)).unwrap();
                    from.push(q.pop_front().unwrap());
                    if q.is_empty() {
                        self.windows.completes.remove(&(win, r, o));
                    }
                }
                if test {
                    Down::Done { indices: vec![0] }
                } else {
                    Down::Go
                }
            }
            _ => Down::Go,
        };
        self.ranks[r].ops[id.index].complete = true;
        if !from.is_empty() {
            self.fired.push(Fired::Sync {
                from: from.clone(),
                to: id,
            });
        }
        (down, from)
    }

    /// The lock requests ranks wait in (`MPI_Win_lock`, `MPI_Win_lock_all`).
    fn lock_requests(&self) -> Vec<Request> {
        self.ranks
            .iter()
            .enumerate()
            .flat_map(|(rank, st)| {
                (st.blocked.iter()).filter_map(move |&index| self.request(OpId { rank, index }))
            })
            .collect()
    }

    /// Whether no lock held conflicts with `req`.
    fn grantable(&self, req: &Request) -> bool {
        req.targets.iter().all(|&t| {
            self.windows
                .held
                .get(&(req.win, t))
                .is_none_or(|h| h.is_empty() || (!req.exclusive && h.iter().all(|&(_, x)| !x)))
        })
    }

    /// With every rank waiting: the choice points of the grantable lock
    /// requests, one per set of requests that conflict with each other
    /// (directly or through others), at its earliest call. A request no
    /// other grantable one conflicts with is a point of its own: granting
    /// it now is still a decision, since a conflicting request that has not
    /// come yet could be granted first under other timing
    /// ([`Matching::lock_conflict`] finds those races).
    pub(crate) fn lock_choices(&self) -> Vec<ChoicePoint> {
        let requests: Vec<Request> = self
            .lock_requests()
            .into_iter()
            .filter(|q| self.grantable(q))
            .collect();
        let mut points: Vec<ChoicePoint> = Vec::new();
        let mut seen = vec![false; requests.len()];
        for i in 0..requests.len() {
            if seen[i] {
                continue;
            }
            let mut set = vec![i];
            seen[i] = true;
            let mut k = 0;
            while k < set.len() {
                for j in 0..requests.len() {
                    if !seen[j] && requests[set[k]].conflicts(&requests[j]) {
                        seen[j] = true;
                        set.push(j);
                    }
                }
                k += 1;
            }
            let mut ats: Vec<OpId> = set.iter().map(|&j| requests[j].at).collect();
            ats.sort();
            points.push(ChoicePoint {
                at: ats[0],
                site: self.op(ats[0]).site,
                alternatives: ats.into_iter().map(Alternative::Grant).collect(),
            });
        }
        points
    }

    /// The lock requests ranks wait in now.
    pub(crate) fn lock_waiting(&self) -> Vec<OpId> {
        self.lock_requests().into_iter().map(|q| q.at).collect()
    }

    /// Whether the lock requests `a` and `b` (`MPI_Win_lock`,
    /// `MPI_Win_lock_all`) conflict: one window, a common target, one of
    /// them exclusive.
    pub(crate) fn lock_conflict(&self, a: OpId, b: OpId) -> bool {
        match (self.request(a), self.request(b)) {
            (Some(x), Some(y)) => x.conflicts(&y),
            _ => false,
        }
    }

    /// The lock request the call `id` makes, if it is one.
    fn request(&self, id: OpId) -> Option<Request> {
        let Kind::Win { win, sync } = &self.op(id).kind else {
            return None;
        };
        let (targets, exclusive) = match sync {
            WinSync::Lock {
                target: Peer::Rank(t),
                exclusive,
            } => (vec![*t], *exclusive),
            WinSync::LockAll => (self.comms.get(win).cloned().unwrap_or_default(), false),
            _ => return None,
        };
        Some(Request {
            at: id,
            win: *win,
            targets,
            exclusive,
        })
    }

    /// Grants the lock request `id`: records the unlocks it follows, and
    /// lets its rank go on. Returns those unlocks.
    pub(crate) fn grant(&mut self, id: OpId) -> Vec<OpId> {
        let Kind::Win { win, sync } = self.op(id).kind.clone() else {
            unreachable!("not a lock request")
        };
        let (targets, exclusive) = match sync {
            WinSync::Lock {
                target: Peer::Rank(t),
                exclusive,
            } => (vec![t], exclusive),
            WinSync::LockAll => (self.comms.get(&win).cloned().unwrap_or_default(), false),
            _ => (Vec::new(), false),
        };
        let mut from = Vec::new();
        for t in targets {
            self.windows
                .held
                .entry((win, t))
                .or_default()
                .push((id.rank, exclusive));
            if let Some((last, shared)) = self.windows.released.get(&(win, t)) {
                from.extend(last.iter().copied());
                if exclusive {
                    from.extend(shared.iter().copied());
                }
            }
        }
        from.sort();
        from.dedup();
        // Every grant is recorded, with no unlock to follow for the first
        // on a target: the grants in firing order are each target's grant
        // order, which the memory rules read.
        self.fired.push(Fired::Sync {
            from: from.clone(),
            to: id,
        });
        self.ranks[id.rank].ops[id.index].complete = true;
        self.release(id, Down::Go);
        from
    }

    /// The rank's pending `MPI_Win_test`, a poll that fails when every rank
    /// waits and it is not ready.
    pub(super) fn window_poll(&self, id: OpId) -> bool {
        matches!(
            self.op(id).kind,
            Kind::Win {
                sync: WinSync::Wait { test: true },
                ..
            }
        ) && !self.window_ready(id)
    }
}

#[cfg(test)]
mod tests {
    use fib_wire::{Op, WinFlavor, COMM_WORLD};

    use super::super::testing::call;
    use super::*;

    fn window(m: &mut Matching, n: usize) -> u32 {
        for r in 0..n {
            call(
                m,
                r,
                Op::WinCreate {
                    comm: COMM_WORLD,
                    flavor: WinFlavor::Allocate,
                },
            );
        }
        let ready = m.ready_collectives();
        let (comm, members) = ready[0].clone();
        m.fire_collective(comm, &members).unwrap();
        match m.take_out()[0].1 {
            Down::NewComm { id } => id as u32,
            ref d => panic!("{d:?}"),
        }
    }

    fn lock(win: u32, target: i32, exclusive: bool) -> Op {
        Op::WinLock {
            win,
            target,
            exclusive,
        }
    }

    #[test]
    fn two_exclusive_requests_for_one_target_are_a_choice_and_shared_ones_are_not() {
        let mut m = Matching::new(3);
        let win = window(&mut m, 3);
        call(&mut m, 0, lock(win, 2, true));
        call(&mut m, 1, lock(win, 2, true));
        let points = m.lock_choices();
        assert_eq!(points.len(), 1);
        assert_eq!(points[0].alternatives.len(), 2);

        let mut m = Matching::new(3);
        let win = window(&mut m, 3);
        call(&mut m, 0, lock(win, 2, false));
        call(&mut m, 1, lock(win, 2, false));
        let points = m.lock_choices();
        assert_eq!(points.len(), 2);
        assert!(points.iter().all(|p| p.alternatives.len() == 1));
    }

    #[test]
    fn a_grant_follows_the_unlock_it_waited_for() {
        let mut m = Matching::new(3);
        let win = window(&mut m, 3);
        let l0 = call(&mut m, 0, lock(win, 2, true));
        let points = m.lock_choices();
        assert_eq!(points[0].alternatives, vec![Alternative::Grant(l0)]);
        m.grant(l0);
        let l1 = call(&mut m, 1, lock(win, 2, true));
        assert!(m.lock_choices().is_empty(), "held by rank 0");
        assert!(m.lock_conflict(l0, l1));
        let u0 = call(&mut m, 0, Op::WinUnlock { win, target: 2 });
        assert_eq!(
            m.lock_choices()[0].alternatives,
            vec![Alternative::Grant(l1)]
        );
        assert_eq!(m.grant(l1), vec![u0]);
        assert!(m.fired().iter().any(|f| *f
            == Fired::Sync {
                from: vec![u0],
                to: l1
            }));
    }
}
