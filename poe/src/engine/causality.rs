//! Causality: which choices of the run each event causally follows, and the
//! race detection built on it. A send (or a request's completion) that an
//! earlier choice could have taken, had other choices come first, and that
//! does not follow that choice, wakes the [`Alternative::Defer`] at that
//! choice point that takes those other choices first.
//!
//! What a match follows includes every earlier match of its channel that
//! non-overtaking puts first; [`Prefix`] keeps those unions per channel and
//! tag so that long runs stay linear. Which calls could have taken a send is
//! a question of matching, asked through the closures the engine passes.

use rustc_hash::FxHashMap as HashMap;
use std::rc::Rc;

use fib_wire::ANY;

use super::model::{Alternative, Choice, OpId, Pair, Peer, Rank};
use crate::segmented::Segmented;

/// A set of choice indices: the choices of the run an event causally follows.
#[derive(Clone, Debug, Default)]
pub(crate) struct Deps(Vec<u64>);

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

    /// Whether it follows no choice (as everything before the first does).
    fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
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

/// The causal state of one run.
pub(crate) struct Causality {
    /// The choices each rank's next call causally follows.
    dep: Vec<Rc<Deps>>,
    /// The same for every issued call, at the time it was issued.
    op_dep: Vec<Segmented<Rc<Deps>>>,
    /// The choices the match of a send or receive causally follows (none
    /// when it has no entry).
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
}

impl Causality {
    /// Nothing follows any choice yet.
    pub(crate) fn new(nprocs: usize) -> Causality {
        Causality {
            dep: (0..nprocs).map(|_| Rc::default()).collect(),
            op_dep: (0..nprocs).map(|_| Segmented::new()).collect(),
            match_dep: HashMap::default(),
            sent_deps: HashMap::default(),
            sent_tags: HashMap::default(),
            recv_deps: HashMap::default(),
        }
    }

    /// Whether the issued call `op` causally follows the `k`-th choice.
    pub(crate) fn follows(&self, op: OpId, k: usize) -> bool {
        self.op_dep[op.rank][op.index].contains(k)
    }

    /// Puts `deps` in the place of what rank `r` follows now, and returns
    /// that: the engine keeps the state of each thread of a rank that has
    /// several, and hands the one it acts for here.
    pub(crate) fn swap(&mut self, r: Rank, deps: Rc<Deps>) -> Rc<Deps> {
        std::mem::replace(&mut self.dep[r], deps)
    }

    /// Rank `r` issued its next call: it follows what the rank follows now.
    pub(crate) fn issued(&mut self, r: Rank) {
        self.op_dep[r].push(self.dep[r].clone());
    }

    /// Adds `d` to the choices rank `r` causally follows.
    fn learn(&mut self, r: Rank, d: &Deps) {
        Rc::make_mut(&mut self.dep[r]).union(d);
    }

    /// Rank `r` continues after what `d` follows.
    pub(crate) fn learn_deps(&mut self, r: Rank, d: &Deps) {
        self.learn(r, d);
    }

    /// Rank `r` continues after the `k`-th choice of the run.
    pub(crate) fn learn_choice(&mut self, r: Rank, k: usize) {
        let mut me = Deps::default();
        me.insert(k);
        self.learn(r, &me);
    }

    /// Rank `r` continues after the match of `op`, if it has matched.
    pub(crate) fn learn_match(&mut self, r: Rank, op: OpId) {
        if let Some(md) = self.match_dep.get(&op).cloned() {
            self.learn(r, &md);
        }
    }

    /// Rank `r` continues after what `op` followed when it was issued (a
    /// probe learns of the send it saw).
    pub(crate) fn learn_issue(&mut self, r: Rank, op: OpId) {
        let d = self.op_dep[op.rank][op.index].clone();
        self.learn(r, &d);
    }

    /// The calls of one collective match set: every member continues after
    /// what any of them followed, a blocking one now, a nonblocking one
    /// (`nonblocking(id)`) once a wait or test completes it. Returns what
    /// the match set follows.
    pub(crate) fn join(&mut self, ids: &[OpId], nonblocking: impl Fn(OpId) -> bool) -> Rc<Deps> {
        let mut all = Deps::default();
        for id in ids {
            all.union(&self.op_dep[id.rank][id.index]);
        }
        let all = Rc::new(all);
        for id in ids {
            if nonblocking(*id) {
                self.match_dep.insert(*id, all.clone());
            } else {
                self.learn(id.rank, &all);
            }
        }
        all
    }

    /// Records the match of `p` after `choices` choices (the last of which
    /// made it when `wildcard`), and returns what the match follows: both
    /// calls, the choice that made it, and the matches that non-overtaking
    /// puts before it (earlier sends of the sender that the receive accepts,
    /// earlier receives that accept the send).
    pub(crate) fn matched(&mut self, p: &Pair, choices: usize, wildcard: bool) -> Rc<Deps> {
        let mut m = Deps::clone(&self.op_dep[p.send.rank][p.send.index]);
        m.union(&self.op_dep[p.recv.rank][p.recv.index]);
        if wildcard {
            m.insert(choices - 1);
        }
        // Before the first choice every dependency set is empty, and so is
        // what is recorded below.
        let scan = choices > 0;
        if scan {
            self.channel(p, &mut m);
        }
        let m = Rc::new(m);
        if scan {
            self.record(p, &m);
        }
        // What follows no choice needs no entry: a missing one is empty,
        // and most matches of a long run without choices are such.
        if !m.is_empty() {
            self.match_dep.insert(p.send, m.clone());
            self.match_dep.insert(p.recv, m.clone());
        }
        m
    }

    /// Records that the `k`-th choice cancelled the receive `recv`: its
    /// completion follows that choice and what the receive followed.
    /// Returns that.
    pub(crate) fn cancelled(&mut self, recv: OpId, k: usize) -> Rc<Deps> {
        let mut m = Deps::clone(&self.op_dep[recv.rank][recv.index]);
        m.insert(k);
        let m = Rc::new(m);
        self.match_dep.insert(recv, m.clone());
        m
    }

    /// Adds to `m` the match dependencies of the earlier matches of `p`'s
    /// channel that non-overtaking puts before it.
    fn channel(&self, p: &Pair, m: &mut Deps) {
        // Earlier sends of the sender that the receive accepts.
        let tags: Vec<i32> = if p.rtag == ANY {
            self.sent_tags
                .get(&(p.comm, p.send.rank, p.recv.rank))
                .cloned()
                .unwrap_or_default()
        } else {
            vec![p.rtag]
        };
        for t in tags {
            if let Some(d) = self
                .sent_deps
                .get(&(p.comm, p.send.rank, p.recv.rank, t))
                .and_then(|x| x.before(p.send.index))
            {
                m.union(d);
            }
        }
        // Earlier receives of the receiver that accept the send.
        for src in [Peer::Rank(p.send.rank), Peer::Any] {
            for t in [p.tag, ANY] {
                if let Some(d) = self
                    .recv_deps
                    .get(&(p.comm, p.recv.rank, src, t))
                    .and_then(|x| x.before(p.recv.index))
                {
                    m.union(d);
                }
            }
        }
    }

    /// Adds the match of `p`, which follows `m`, to its channel's prefixes.
    fn record(&mut self, p: &Pair, m: &Rc<Deps>) {
        let tags = self
            .sent_tags
            .entry((p.comm, p.send.rank, p.recv.rank))
            .or_default();
        if !tags.contains(&p.tag) {
            tags.push(p.tag);
        }
        self.sent_deps
            .entry((p.comm, p.send.rank, p.recv.rank, p.tag))
            .or_default()
            .record(p.send.index, m);
        self.recv_deps
            .entry((p.comm, p.recv.rank, p.src, p.rtag))
            .or_default()
            .record(p.recv.index, m);
    }

    /// A new send that an earlier wildcard receive or probe accepts, but that
    /// does not causally follow that choice, could have been its match had
    /// other choices been taken first. Marks, at that choice point, the
    /// [`Alternative::Defer`] that takes the first of those choices first.
    /// `rival(at)`: whether the call `at` that chose could have taken `send`
    /// under MPI's matching rules; `among`, the positions of the choices
    /// calls made (the others race with nothing).
    pub(crate) fn send_races(
        &self,
        send: OpId,
        (choices, among): (&mut [Choice], &[usize]),
        rival: impl Fn(OpId) -> bool,
    ) {
        let sdep = &self.op_dep[send.rank][send.index];
        for &k in among {
            if !sdep.contains(k) && chooser(&choices[k]).is_some_and(&rival) {
                wake(choices, k, sdep);
            }
        }
    }
}

impl Causality {
    /// A lock request that conflicts with the lock an earlier choice
    /// granted, but that does not causally follow that choice, could have
    /// come before it and been granted first: marks, at that choice point,
    /// the [`Alternative::Defer`] that takes the first of the request's
    /// other choices first. `conflicts(a)`: whether the request `a` that
    /// was granted conflicts with this one.
    pub(crate) fn lock_races(
        &self,
        request: OpId,
        choices: &mut [Choice],
        conflicts: impl Fn(OpId) -> bool,
    ) {
        let dep = &self.op_dep[request.rank][request.index];
        for k in 0..choices.len() {
            let granted = match choices[k].fired().1 {
                Alternative::Grant(a) => *a,
                _ => continue,
            };
            // A grant of the request's own rank is one it follows in
            // program order (`dep` holds it): skipped before any lookup.
            if granted.rank != request.rank && !dep.contains(k) && conflicts(granted) {
                wake(choices, k, dep);
            }
        }
    }

    /// The same race for the lock `request` just granted by the last
    /// choice, after the unlocks `from`: the grant of a conflicting `a` at
    /// an earlier choice could have come after it unless the request
    /// follows that choice, or an unlock it waited for other than `a`'s
    /// rank's does (waiting for `a`'s own unlock is the order being
    /// reversed). What it follows then picks the alternative to wake.
    pub(crate) fn grant_races(
        &self,
        request: OpId,
        from: &[OpId],
        choices: &mut [Choice],
        conflicts: impl Fn(OpId) -> bool,
    ) {
        let last = choices.len().saturating_sub(1);
        for k in 0..last {
            let granted = match choices[k].fired().1 {
                Alternative::Grant(a) => *a,
                _ => continue,
            };
            // A grant of the request's own rank came before it in program
            // order, which the request's dependencies hold: no race, and no
            // copy of them to find that out.
            if granted.rank == request.rank || !conflicts(granted) {
                continue;
            }
            let mut dep = Deps::clone(&self.op_dep[request.rank][request.index]);
            for u in from.iter().filter(|u| u.rank != granted.rank) {
                dep.union(&self.op_dep[u.rank][u.index]);
            }
            if dep.contains(k) {
                continue;
            }
            if (k + 1..choices.len()).any(|m| dep.contains(m)) {
                wake(choices, k, &dep);
            } else {
                // The request waited at `k` only for unlocks, of epochs
                // whose ranks may need other grants open at `k` to reach
                // them: every grant deferred there is worth a run.
                let c = &mut choices[k];
                for (w, a) in c.point.alternatives.iter().enumerate() {
                    let grant = matches!(a, Alternative::Defer { alt, .. }
                        if matches!(**alt, Alternative::Grant(_)));
                    if grant && w != c.taken && !c.wake.contains(&w) {
                        c.wake.push(w);
                    }
                }
            }
        }
    }

    /// A cancel of a receive that an earlier choice matched, which does not
    /// causally follow that choice, could have come before it, and the
    /// receive could then have been cancelled: marks, at that choice point,
    /// the [`Alternative::Defer`] that takes the first of the cancel's other
    /// choices first.
    pub(crate) fn cancel_races(&self, cancel: OpId, recv: OpId, choices: &mut [Choice]) {
        let dep = &self.op_dep[cancel.rank][cancel.index];
        for k in 0..choices.len() {
            if !dep.contains(k) && chooser(&choices[k]) == Some(recv) {
                wake(choices, k, dep);
            }
        }
    }
}

/// The receive `recv`, which the program asked to cancel, matches: it could
/// have been cancelled at an earlier choice point, before its send was
/// there (or before the choice that let it match). Marks every such point's
/// [`Alternative::Defer`] to the cancel.
pub(crate) fn cancel_matched(choices: &mut [Choice], recv: OpId) {
    for c in choices {
        let w = c.point.alternatives.iter().position(|a| {
            matches!(a, Alternative::Defer { at, alt }
                if *at == recv && **alt == Alternative::Cancel)
        });
        if let Some(w) = w {
            if w != c.taken && !c.wake.contains(&w) {
                c.wake.push(w);
            }
        }
    }
}

/// A request that completes only now, but does not causally follow an
/// earlier `MPI_Waitany`/`MPI_Waitsome` (or `MPI_Testany`/`MPI_Testsome`)
/// choice of its rank whose list holds it, could have been complete when
/// that call chose had other choices been taken first, and the call could
/// then have returned it (alone or, for `Waitsome`, with others).
/// The same race as [`Causality::send_races`], with a completion in place of
/// a send: `dep` is what the completing match causally follows, and
/// `lists(at)` whether the call `at` that chose lists the request; `among`,
/// the positions of the choices calls made (the others race with nothing).
pub(crate) fn completion_races(
    dep: &Deps,
    (choices, among): (&mut [Choice], &[usize]),
    lists: impl Fn(OpId) -> bool,
) {
    for &k in among {
        if !dep.contains(k) && chooser(&choices[k]).is_some_and(&lists) {
            wake(choices, k, dep);
        }
    }
}

/// The call that chose at `c`: none for the order in which a rank's
/// threads enter their calls, which races with nothing (every order is
/// explored, see the engine's `threads` module).
fn chooser(c: &Choice) -> Option<OpId> {
    match c.fired() {
        (_, Alternative::Enter(_) | Alternative::Later) => None,
        (at, _) => Some(at),
    }
}

/// Marks, at choice `k`, the [`Alternative::Defer`] that takes first the
/// earliest later choice `dep` follows that was open at `k`: exploring
/// it lets what follows `dep` happen before the call that chose at `k`.
fn wake(choices: &mut [Choice], k: usize, dep: &Deps) {
    let point = &choices[k].point;
    let want = (k + 1..choices.len())
        .filter(|&m| dep.contains(m))
        .find_map(|m| {
            let (mat, malt) = choices[m].fired();
            point.alternatives.iter().position(|a| match a {
                // A grant is the same decision whichever request's point
                // offered it (the point of a set of conflicting requests is
                // at the earliest one).
                Alternative::Defer { at, alt } => {
                    (*at == mat || matches!(malt, Alternative::Grant(_))) && **alt == *malt
                }
                _ => false,
            })
        });
    if let Some(w) = want {
        let c = &mut choices[k];
        if w != c.taken && !c.wake.contains(&w) {
            c.wake.push(w);
        }
    }
}

#[cfg(test)]
mod tests {
    use fib_wire::Site;

    use super::*;
    use crate::engine::model::ChoicePoint;

    fn deps(ks: &[usize]) -> Deps {
        let mut d = Deps::default();
        for &k in ks {
            d.insert(k);
        }
        d
    }

    fn id(rank: usize, index: usize) -> OpId {
        OpId { rank, index }
    }

    #[test]
    fn deps_are_sets_of_choice_indices() {
        let a = deps(&[1, 70]);
        assert!(a.contains(70) && a.contains(1) && !a.contains(0) && !a.contains(200));
        assert!(deps(&[70]).is_subset(&a));
        assert!(!deps(&[2]).is_subset(&a));
        assert!(Deps::default().is_subset(&a));
        let mut b = deps(&[2]);
        b.union(&a);
        assert!(b.contains(1) && b.contains(2) && b.contains(70));
    }

    #[test]
    fn prefixes_sum_the_entries_before_a_position() {
        let mut p = Prefix::default();
        p.record(2, &Rc::new(deps(&[0])));
        p.record(5, &Rc::new(deps(&[3])));
        assert!(p.before(2).is_none());
        assert!(p.before(3).unwrap().contains(0));
        let upto = p.before(9).unwrap();
        assert!(upto.contains(0) && upto.contains(3));
        // Out of order, the sums after the new entry are recomputed.
        p.record(4, &Rc::new(deps(&[1])));
        assert!(p.before(5).unwrap().contains(1));
        assert!(!p.before(4).unwrap().contains(1));
        assert!(p.before(6).unwrap().contains(3));
    }

    /// Choice 0 at (0, 0) took a send of rank 1, with a Defer to the choice
    /// that choice 1 took at (2, 0).
    fn two_choices() -> Vec<Choice> {
        let later = Alternative::Send(id(3, 0));
        vec![
            Choice {
                point: ChoicePoint {
                    at: id(0, 0),
                    site: Site::default(),
                    alternatives: vec![
                        Alternative::Send(id(1, 0)),
                        Alternative::Defer {
                            at: id(2, 0),
                            alt: Box::new(later.clone()),
                        },
                    ],
                },
                taken: 0,
                predicted: vec![],
                wake: vec![],
                before: Vec::new(),
            },
            Choice {
                point: ChoicePoint {
                    at: id(2, 0),
                    site: Site::default(),
                    alternatives: vec![later],
                },
                taken: 0,
                wake: vec![],
                predicted: vec![],
                before: Vec::new(),
            },
        ]
    }

    #[test]
    fn a_rival_send_after_a_later_choice_wakes_the_defer() {
        let mut c = Causality::new(4);
        // Rank 3 learned choice 1, then sends.
        c.learn_choice(3, 1);
        c.issued(3);
        let mut choices = two_choices();
        let all = [0, 1];
        c.send_races(id(3, 0), (&mut choices, &all), |at| at == id(0, 0));
        assert_eq!(choices[0].wake, vec![1]);
        // Twice is once.
        c.send_races(id(3, 0), (&mut choices, &all), |at| at == id(0, 0));
        assert_eq!(choices[0].wake, vec![1]);
    }

    #[test]
    fn no_race_with_a_choice_the_send_follows_or_a_call_that_cannot_take_it() {
        let mut c = Causality::new(4);
        c.learn_choice(3, 0);
        c.learn_choice(3, 1);
        c.issued(3);
        let mut choices = two_choices();
        let all = [0, 1];
        c.send_races(id(3, 0), (&mut choices, &all), |_| true);
        assert!(choices[0].wake.is_empty());
        let mut c = Causality::new(4);
        c.learn_choice(3, 1);
        c.issued(3);
        c.send_races(id(3, 0), (&mut choices, &all), |_| false);
        assert!(choices[0].wake.is_empty());
    }

    #[test]
    fn completions_race_like_sends() {
        let all = [0, 1];
        let mut choices = two_choices();
        completion_races(&deps(&[1]), (&mut choices, &all), |at| at == id(0, 0));
        assert_eq!(choices[0].wake, vec![1]);
        let mut choices = two_choices();
        // Nothing later to defer to: no Defer to wake.
        completion_races(&deps(&[]), (&mut choices, &all), |_| true);
        assert!(choices.iter().all(|c| c.wake.is_empty()));
    }

    fn pair(send: OpId, recv: OpId, rtag: i32) -> Pair {
        Pair {
            send,
            recv,
            comm: 0,
            tag: 4,
            sync: false,
            src: Peer::Rank(send.rank),
            rtag,
        }
    }

    #[test]
    fn a_match_follows_both_calls_its_choice_and_earlier_matches_of_its_channel() {
        let mut c = Causality::new(2);
        c.learn_choice(0, 0);
        c.issued(0); // (0, 0): a send after choice 0
        c.issued(0); // (0, 1): another
        c.issued(1); // (1, 0): a receive
        c.issued(1); // (1, 1): another
        let m = c.matched(&pair(id(0, 0), id(1, 0), 4), 3, true);
        assert!(m.contains(0) && m.contains(2) && !m.contains(1));
        // The second send follows nothing itself, but non-overtaking puts
        // the first match before it.
        let mut d = Causality::new(2);
        d.issued(0);
        d.issued(0);
        d.issued(1);
        d.issued(1);
        let m = d.matched(&pair(id(0, 0), id(1, 0), 4), 2, true);
        assert!(m.contains(1));
        let m2 = d.matched(&pair(id(0, 1), id(1, 1), ANY), 2, false);
        assert!(m2.contains(1));
        // The receive's rank learns the match when it is answered.
        d.learn_match(1, id(1, 1));
        d.issued(1);
        assert!(d.op_dep[1][2].contains(1));
    }

    #[test]
    fn collective_members_learn_what_any_of_them_followed() {
        let mut c = Causality::new(3);
        c.learn_choice(2, 5);
        for r in 0..3 {
            c.issued(r);
        }
        c.join(&[id(0, 0), id(2, 0)], |_| false);
        assert!(c.dep[0].contains(5));
        assert!(!c.dep[1].contains(5));
        // A nonblocking member learns it only when its request completes.
        let mut c = Causality::new(2);
        c.learn_choice(1, 3);
        c.issued(0);
        c.issued(1);
        c.join(&[id(0, 0), id(1, 0)], |o| o.rank == 0);
        assert!(!c.dep[0].contains(3));
        c.learn_match(0, id(0, 0));
        assert!(c.dep[0].contains(3));
    }
}
