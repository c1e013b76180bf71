//! The happens-before order of a rank's threads, as vector clocks, and the
//! MPI calls it leaves unordered. Pure: the wrappers of the parent module
//! tell it what the threads do, in the order they do it.
//!
//! Each thread has a clock: per thread, how many of its steps it has seen.
//! A release joins the thread's clock into a synchronisation object's and
//! steps the thread; an acquisition joins the object's into the thread's.
//! A call is recorded at its entry with the value of its thread's own
//! entry (which the thread keeps until the call returns: nothing inside MPI
//! steps it), and steps the thread at its return. A call of thread `u` at
//! value `e` is ordered before a later call of thread `t` exactly when
//! `t`'s clock has seen it: `clock[t][u] > e`.
//!
//! An atomic object is a synchronisation object too: a store with release
//! order sets its clock to the thread's (a read-modify-write with release
//! order joins it, continuing the release sequence; a plain store without
//! it clears it), and a load with acquire order joins it. A release fence
//! makes the thread's later relaxed stores release its clock at the fence;
//! an acquire fence joins what its earlier relaxed loads read.
//!
//! Ordering through creation, join and barriers holds in every execution;
//! ordering through a lock is the order this execution took it, as in
//! every happens-before detector: the calls reported in one execution are
//! calls that can run at once in some execution, and every such pair is
//! reported in some execution (`tests::brute_force`).

use rustc_hash::FxHashMap as HashMap;

use fib_wire::Site;

/// A vector clock, by thread index.
pub type Clock = Vec<u32>;

fn join(into: &mut Clock, from: &Clock) {
    if into.len() < from.len() {
        into.resize(from.len(), 0);
    }
    for (a, b) in into.iter_mut().zip(from) {
        *a = (*a).max(*b);
    }
}

/// A thread's MPI calls as others may still be unordered with them: per
/// site, the value of the thread's own entry at its latest call there.
#[derive(Default)]
struct Calls {
    /// The call in progress, if any: its site.
    inside: Option<Site>,
    latest: HashMap<Site, u32>,
    /// (value, site) in the order of the calls; an entry whose value is
    /// not `latest`'s for its site is stale.
    log: Vec<(u32, Site)>,
}

/// A call of another thread that the calling thread's new call is not
/// ordered with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Clash {
    pub thread: usize,
    pub site: Site,
    /// The other call is in progress.
    pub inside: bool,
}

/// The threads, their clocks and calls, and the synchronisation objects'
/// clocks.
#[derive(Default)]
pub struct Order {
    clocks: Vec<Clock>,
    /// The threads that have ended (they see nothing more).
    ended: Vec<bool>,
    /// Clocks handed to threads that have not started yet (a created
    /// thread, a parallel region's team), by a key of the handing: they
    /// will start from these.
    births: HashMap<usize, Clock>,
    calls: Vec<Calls>,
    syncs: HashMap<(usize, u64), Clock>,
    /// Per thread, its clock at its last release fence: its later relaxed
    /// stores release that.
    fenced: Vec<Option<Clock>>,
    /// Per thread, what its relaxed loads read (the objects' clocks then):
    /// its next acquire fence acquires it.
    loaded: Vec<Clock>,
}

impl Order {
    /// A new thread, ordered after nothing yet; its index.
    pub fn thread(&mut self) -> usize {
        let t = self.clocks.len();
        let mut c = vec![0; t + 1];
        c[t] = 1;
        self.clocks.push(c);
        self.ended.push(false);
        self.calls.push(Calls::default());
        self.fenced.push(None);
        self.loaded.push(Clock::new());
        t
    }

    /// Thread `t`'s clock, for a thread it starts (or a region's team);
    /// `t` steps.
    pub fn fork(&mut self, t: usize) -> Clock {
        let c = self.clocks[t].clone();
        self.step(t);
        c
    }

    /// Thread `t` comes after `clock` (the clock its creator forked, or
    /// that of a thread it joined).
    pub fn after(&mut self, t: usize, clock: &Clock) {
        join(&mut self.clocks[t], clock);
    }

    /// Thread `t`'s last clock, as it ends; `t` steps.
    pub fn end(&mut self, t: usize) -> Clock {
        self.ended[t] = true;
        self.fork(t)
    }

    fn step(&mut self, t: usize) {
        self.clocks[t][t] += 1;
    }

    /// Thread `t` releases the object `key`.
    pub fn release(&mut self, t: usize, key: (usize, u64)) {
        join(self.syncs.entry(key).or_default(), &self.clocks[t]);
        self.step(t);
    }

    /// Thread `t` stores to the atomic object `key` with release order:
    /// a load that reads the value acquires what `t` had seen, and
    /// nothing older (the release sequence of an earlier store ends
    /// here); `t` steps.
    pub fn store_release(&mut self, t: usize, key: (usize, u64)) {
        self.syncs.insert(key, self.clocks[t].clone());
        self.step(t);
    }

    /// Thread `t` stores to the atomic object `key` without release
    /// order: a load that reads it acquires nothing, or what `t` had seen
    /// at its last release fence.
    pub fn store_relaxed(&mut self, t: usize, key: (usize, u64)) {
        match &self.fenced[t] {
            Some(c) => {
                self.syncs.insert(key, c.clone());
            }
            None => {
                self.syncs.remove(&key);
            }
        }
    }

    /// Thread `t`'s read-modify-write of the atomic object `key` without
    /// release order: it continues the release sequence, adding what `t`
    /// had seen at its last release fence.
    pub fn rmw_relaxed(&mut self, t: usize, key: (usize, u64)) {
        if let Some(c) = &self.fenced[t] {
            join(self.syncs.entry(key).or_default(), c);
        }
    }

    /// Thread `t` loads the atomic object `key` without acquire order:
    /// its next acquire fence acquires what it read.
    pub fn load_relaxed(&mut self, t: usize, key: (usize, u64)) {
        if let Some(c) = self.syncs.get(&key) {
            join(&mut self.loaded[t], c);
        }
    }

    /// Thread `t`'s fence (`atomic_thread_fence`): with `acquire`, it
    /// acquires what its relaxed loads read before; with `release`, its
    /// later relaxed stores release what it has seen now (`t` steps).
    pub fn fence(&mut self, t: usize, acquire: bool, release: bool) {
        if acquire {
            let loaded = std::mem::take(&mut self.loaded[t]);
            join(&mut self.clocks[t], &loaded);
            self.loaded[t] = loaded;
        }
        if release {
            self.fenced[t] = Some(self.clocks[t].clone());
            self.step(t);
        }
    }

    /// Thread `t` acquires the object `key`.
    pub fn acquire(&mut self, t: usize, key: (usize, u64)) {
        if let Some(c) = self.syncs.get(&key) {
            join(&mut self.clocks[t], c);
        }
    }

    /// Thread `t`'s clock: per thread, the entry it has seen.
    pub fn clock(&self, t: usize) -> &[u32] {
        &self.clocks[t]
    }

    /// What thread `t` has seen of thread `u`: its clock's entry for `u`.
    pub fn entry(&self, t: usize, u: usize) -> u32 {
        self.clocks[t].get(u).copied().unwrap_or(0)
    }

    /// Forgets the object `key`.
    pub fn drop_object(&mut self, key: (usize, u64)) {
        self.syncs.remove(&key);
    }

    /// Forgets the objects `keep` rejects (a region's barriers once it
    /// ended, a barrier generation every thread has passed).
    pub fn forget(&mut self, keep: impl Fn(&(usize, u64)) -> bool) {
        self.syncs.retain(|k, _| keep(k));
    }

    /// Thread `t` enters an MPI call at `site`: the calls of other threads
    /// it is not ordered with (one per thread and site, the latest).
    pub fn enter(&mut self, t: usize, site: Site) -> Vec<Clash> {
        let mine = &self.clocks[t];
        let mut out = Vec::new();
        for (u, calls) in self.calls.iter().enumerate() {
            if u == t {
                continue;
            }
            let seen = mine.get(u).copied().unwrap_or(0);
            let mut sites = Vec::new();
            // Newest first; every older entry has a smaller value.
            for &(value, s) in calls.log.iter().rev() {
                if value < seen {
                    break;
                }
                if calls.latest.get(&s) == Some(&value) && !sites.contains(&s) {
                    sites.push(s);
                    out.push(Clash {
                        thread: u,
                        site: s,
                        inside: calls.inside == Some(s) && value == self.clocks[u][u],
                    });
                }
            }
        }
        let value = self.clocks[t][t];
        let calls = &mut self.calls[t];
        calls.inside = Some(site);
        calls.latest.insert(site, value);
        calls.log.push((value, site));
        if calls.log.len() > 64 && calls.log.len() > 2 * calls.latest.len() {
            let latest = &calls.latest;
            calls.log.retain(|(v, s)| latest.get(s) == Some(v));
        }
        out
    }

    /// Thread `t`'s point now: its index and its own entry's value. A
    /// completion made inside a call is at the call's point.
    pub fn point(&self, t: usize) -> (usize, u32) {
        (t, self.clocks[t][t])
    }

    /// Whether thread `t` has seen the point `p` (a later step of `p`'s
    /// thread is ordered before `t`'s present).
    pub fn seen(&self, t: usize, p: (usize, u32)) -> bool {
        self.clocks[t].get(p.0).is_some_and(|&v| v >= p.1)
    }

    /// Whether every thread still running, or still to start from a clock
    /// handed out, has seen `p`.
    pub fn seen_by_all(&self, p: (usize, u32)) -> bool {
        (0..self.clocks.len()).all(|t| self.ended[t] || self.seen(t, p))
            && self
                .births
                .values()
                .all(|c| c.get(p.0).is_some_and(|&v| v >= p.1))
    }

    /// Threads will start from `clock` (handed out under `key`) until
    /// [`Order::started`].
    pub fn pending(&mut self, key: usize, clock: Clock) {
        self.births.insert(key, clock);
    }

    /// The threads handed the clock under `key` have all started.
    pub fn started(&mut self, key: usize) {
        self.births.remove(&key);
    }

    /// Thread `t`'s call returns.
    pub fn leave(&mut self, t: usize) {
        self.calls[t].inside = None;
        self.step(t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn a_join_takes_the_larger_entry_of_each_thread() {
        let mut a = vec![3, 1];
        join(&mut a, &vec![1, 4, 2]);
        assert_eq!(a, vec![3, 4, 2]);
    }

    /// What a thread of a generated program does.
    #[derive(Clone, Copy, Debug)]
    enum Step {
        /// An MPI call at this site (its entry and return are two events).
        Call(u32),
        Lock(usize),
        Unlock(usize),
        /// Every started thread meets at the barrier (all threads take
        /// part, so each must make the same number of them).
        Barrier,
        /// Starts thread `k` (only thread 0 does).
        Create(usize),
        /// Waits for thread `k` to end (only thread 0 does).
        Join(usize),
        /// Thread 0 starts an operation that owns the buffer (one event).
        Own,
        /// Thread 0 completes it, inside a wait call (one event).
        Done,
        /// A load or store of the buffer (one event), numbered.
        Touch(u32),
        /// Stores 1 into the atomic flag `f` with release order (with
        /// `fenced`, a release fence and a relaxed store).
        Signal(usize, bool),
        /// Loads the atomic flag `f` with acquire order until it reads 1
        /// (a spin loop: one event, possible once the flag is set); with
        /// `fenced`, relaxed loads and then an acquire fence.
        Await(usize, bool),
    }

    /// A tiny deterministic generator (xorshift), so that a failing seed
    /// is reproducible.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// A program of 2 or 3 threads: thread 0 creates the others, makes
    /// calls, takes locks, and joins some of them; with `barriers`, every
    /// thread is created first and then all meet at the same number of
    /// barriers. Sites are unique per call.
    fn program(rng: &mut Rng, locks: bool, barriers: bool) -> Vec<Vec<Step>> {
        let n = 2 + rng.below(2) as usize;
        let mut site = 0;
        let mut body = |rng: &mut Rng, len: u64| {
            let mut v = Vec::new();
            for _ in 0..1 + rng.below(len) {
                match rng.below(if locks { 3 } else { 1 }) {
                    0 => {
                        site += 1;
                        v.push(Step::Call(site));
                    }
                    m => {
                        let m = m as usize;
                        v.push(Step::Lock(m));
                        site += 1;
                        v.push(Step::Call(site));
                        v.push(Step::Unlock(m));
                    }
                }
            }
            v
        };
        let mut threads: Vec<Vec<Step>> = vec![Vec::new(); n];
        let rounds = if barriers { 1 + rng.below(2) } else { 0 };
        for thread in threads.iter_mut() {
            for r in 0..=rounds {
                thread.extend(body(rng, 2));
                if r < rounds {
                    thread.push(Step::Barrier);
                }
            }
        }
        // Thread 0 creates the others: all before anything with barriers,
        // else at random points; joins some at random points after.
        let mut main = Vec::new();
        let own = std::mem::take(&mut threads[0]);
        let mut creates: Vec<usize> = (1..n).collect();
        if barriers {
            for k in creates.drain(..) {
                main.push(Step::Create(k));
            }
        }
        let mut joins: Vec<usize> = Vec::new();
        for s in own {
            if !creates.is_empty() && rng.below(2) == 0 {
                let k = creates.remove(0);
                main.push(Step::Create(k));
                joins.push(k);
            }
            if !barriers && !joins.is_empty() && rng.below(3) == 0 {
                main.push(Step::Join(joins.remove(0)));
            }
            main.push(s);
        }
        for k in creates {
            main.push(Step::Create(k));
            joins.push(k);
        }
        if !barriers && !joins.is_empty() && rng.below(2) == 0 {
            main.push(Step::Join(joins.remove(0)));
            main.push(Step::Call(1000));
        }
        threads[0] = main;
        threads
    }

    /// How many atomic flags a generated program may use.
    const FLAGS: usize = 2;

    /// Adds up to [`FLAGS`] one-shot signals to a generated program: a
    /// thread sets an atomic flag with release order at a random point,
    /// and another one waits for it with acquire loads at a random point
    /// (either side, at random, through a fence and relaxed accesses).
    /// A wait that comes before what it waits for (a join of its own
    /// thread, say) leaves the program stuck, as it would be.
    fn with_flags(mut p: Vec<Vec<Step>>, rng: &mut Rng) -> Vec<Vec<Step>> {
        let n = p.len();
        for f in 0..1 + rng.below(FLAGS as u64) as usize {
            let from = rng.below(n as u64) as usize;
            let to = (from + 1 + rng.below(n as u64 - 1) as usize) % n;
            let at = rng.below(p[from].len() as u64 + 1) as usize;
            p[from].insert(at, Step::Signal(f, rng.below(2) == 0));
            let at = rng.below(p[to].len() as u64 + 1) as usize;
            p[to].insert(at, Step::Await(f, rng.below(2) == 0));
        }
        p
    }

    /// One execution's state.
    #[derive(Clone, PartialEq, Eq, Hash)]
    struct Exec {
        pc: Vec<usize>,
        /// Each thread is inside its call (between entry and return).
        inside: Vec<bool>,
        started: Vec<bool>,
        holder: Vec<Option<usize>>,
        /// Barrier arrivals of the current generation.
        arrived: Vec<bool>,
        /// Threads released from a barrier that must still pass it.
        passing: Vec<bool>,
        /// The atomic flags set.
        flags: Vec<bool>,
    }

    /// An event: the thread, and whether it is the second of its step (a
    /// call's return, a barrier's passing after the arrival).
    type Event = (usize, bool);

    impl Exec {
        fn start(n: usize) -> Exec {
            Exec {
                pc: vec![0; n],
                inside: vec![false; n],
                started: (0..n).map(|t| t == 0).collect(),
                holder: vec![None; 3],
                arrived: vec![false; n],
                passing: vec![false; n],
                flags: vec![false; FLAGS],
            }
        }

        /// The events that can happen next, with the state after each.
        fn moves(&self, p: &[Vec<Step>]) -> Vec<(Event, Exec)> {
            let n = p.len();
            let mut out = Vec::new();
            for t in 0..n {
                if !self.started[t] || self.pc[t] >= p[t].len() {
                    continue;
                }
                let mut next = self.clone();
                let second = self.inside[t] || self.passing[t];
                let ok = match p[t][self.pc[t]] {
                    Step::Call(_) => {
                        next.inside[t] = !self.inside[t];
                        if self.inside[t] {
                            next.pc[t] += 1;
                        }
                        true
                    }
                    Step::Lock(m) => {
                        next.holder[m] = Some(t);
                        next.pc[t] += 1;
                        self.holder[m].is_none()
                    }
                    Step::Unlock(m) => {
                        next.holder[m] = None;
                        next.pc[t] += 1;
                        true
                    }
                    Step::Barrier => {
                        if self.passing[t] {
                            next.passing[t] = false;
                            next.pc[t] += 1;
                            true
                        } else if !self.arrived[t] && !self.passing.iter().any(|&x| x) {
                            next.arrived[t] = true;
                            if next.arrived.iter().all(|&x| x) {
                                next.arrived = vec![false; n];
                                next.passing = vec![true; n];
                            }
                            true
                        } else {
                            false
                        }
                    }
                    Step::Create(k) => {
                        next.started[k] = true;
                        next.pc[t] += 1;
                        true
                    }
                    Step::Join(k) => {
                        next.pc[t] += 1;
                        self.pc[k] >= p[k].len()
                    }
                    Step::Own | Step::Done | Step::Touch(_) => {
                        next.pc[t] += 1;
                        true
                    }
                    Step::Signal(f, _) => {
                        next.flags[f] = true;
                        next.pc[t] += 1;
                        true
                    }
                    Step::Await(f, _) => {
                        next.pc[t] += 1;
                        self.flags[f]
                    }
                };
                if ok {
                    out.push(((t, second), next));
                }
            }
            out
        }

        /// The pairs of sites of different threads both inside now.
        fn overlaps(&self, p: &[Vec<Step>]) -> Vec<(u32, u32)> {
            let site = |t: usize| match p[t][self.pc[t]] {
                Step::Call(s) => s,
                _ => unreachable!("inside a call"),
            };
            let mut out = Vec::new();
            for t in 0..p.len() {
                for u in t + 1..p.len() {
                    if self.inside[t] && self.inside[u] {
                        let (a, b) = (site(t), site(u));
                        out.push((a.min(b), a.max(b)));
                    }
                }
            }
            out
        }
    }

    /// The brute force: every pair of sites of different threads that are
    /// both inside their calls at some moment of some execution, each with
    /// the events of an execution that gets there (a search over states).
    fn possible(p: &[Vec<Step>]) -> Vec<((u32, u32), Vec<Event>)> {
        let mut seen = std::collections::HashSet::new();
        let mut found: Vec<((u32, u32), Vec<Event>)> = Vec::new();
        let mut stack = vec![(Exec::start(p.len()), Vec::new())];
        while let Some((e, path)) = stack.pop() {
            if !seen.insert(e.clone()) {
                continue;
            }
            for pair in e.overlaps(p) {
                if !found.iter().any(|(q, _)| *q == pair) {
                    found.push((pair, path.clone()));
                }
            }
            for (ev, next) in e.moves(p) {
                let mut path = path.clone();
                path.push(ev);
                stack.push((next, path));
            }
        }
        found
    }

    /// `prefix`, then random events until no thread can move: a whole
    /// execution.
    fn complete(p: &[Vec<Step>], prefix: &[Event], rng: &mut Rng) -> Vec<Event> {
        let mut e = Exec::start(p.len());
        let mut events = Vec::new();
        for &ev in prefix {
            let (_, next) = e
                .moves(p)
                .into_iter()
                .find(|(m, _)| *m == ev)
                .expect("a possible event");
            e = next;
            events.push(ev);
        }
        loop {
            let mut moves = e.moves(p);
            if moves.is_empty() {
                return events;
            }
            let (ev, next) = moves.swap_remove(rng.below(moves.len() as u64) as usize);
            e = next;
            events.push(ev);
        }
    }

    /// An execution's events run through [`Order`] as the wrappers run
    /// them: the synchronisation steps here, the calls and the buffer's
    /// steps by the caller.
    struct Replay<'p> {
        p: &'p [Vec<Step>],
        o: Order,
        pc: Vec<usize>,
        generation: Vec<u64>,
        ended: Vec<Option<Clock>>,
    }

    impl<'p> Replay<'p> {
        fn new(p: &'p [Vec<Step>]) -> Replay<'p> {
            let n = p.len();
            let mut o = Order::default();
            for _ in 0..n {
                o.thread();
            }
            Replay {
                p,
                o,
                pc: vec![0; n],
                generation: vec![0; n],
                ended: vec![None; n],
            }
        }

        /// Runs the event `(t, second)`; a call's entry or return, or a
        /// step of the buffer, goes to `other` with the order.
        fn step(&mut self, (t, second): Event, other: impl FnOnce(&mut Order, usize, Step, bool)) {
            let o = &mut self.o;
            let step = self.p[t][self.pc[t]];
            let done = match step {
                Step::Lock(m) => {
                    o.acquire(t, (m, 0));
                    true
                }
                Step::Unlock(m) => {
                    o.release(t, (m, 0));
                    true
                }
                Step::Barrier => {
                    if second {
                        o.acquire(t, (100, self.generation[t]));
                    } else {
                        self.generation[t] += 1;
                        o.release(t, (100, self.generation[t]));
                    }
                    second
                }
                Step::Create(k) => {
                    let c = o.fork(t);
                    o.after(k, &c);
                    true
                }
                Step::Join(k) => {
                    let c = self.ended[k].take().expect("joined after its end");
                    o.after(t, &c);
                    true
                }
                Step::Call(_) => {
                    other(o, t, step, second);
                    second
                }
                Step::Signal(f, false) => {
                    o.store_release(t, (f, u64::MAX));
                    true
                }
                Step::Signal(f, true) => {
                    o.fence(t, false, true);
                    o.store_relaxed(t, (f, u64::MAX));
                    true
                }
                Step::Await(f, false) => {
                    o.acquire(t, (f, u64::MAX));
                    true
                }
                Step::Await(f, true) => {
                    o.load_relaxed(t, (f, u64::MAX));
                    o.fence(t, true, false);
                    true
                }
                Step::Own | Step::Done | Step::Touch(_) => {
                    other(o, t, step, second);
                    true
                }
            };
            if done {
                self.pc[t] += 1;
            }
            if t != 0 && self.pc[t] >= self.p[t].len() && self.ended[t].is_none() {
                self.ended[t] = Some(self.o.end(t));
            }
        }
    }

    /// Runs one execution's events through [`Order`] as the wrappers do:
    /// the clashes it reports, as site pairs.
    fn replay(p: &[Vec<Step>], events: &[Event]) -> BTreeSet<(u32, u32)> {
        let mut r = Replay::new(p);
        let mut out = BTreeSet::new();
        for &ev in events {
            r.step(ev, |o, t, step, second| {
                let Step::Call(s) = step else {
                    return;
                };
                if second {
                    o.leave(t);
                    return;
                }
                for c in o.enter(t, Site::Table(s)) {
                    let Site::Table(other) = c.site else {
                        unreachable!()
                    };
                    out.insert((s.min(other), s.max(other)));
                }
            });
        }
        out
    }

    /// Every generated program: whatever execution the checker sees, each
    /// pair it reports can run at once in some execution (none is a false
    /// alarm), and the pairs over all executions are exactly those the
    /// brute force finds. Without locks, every execution reports exactly
    /// those pairs: creation, join, barriers and flags set with release
    /// order and awaited with acquire loads order the same calls in every
    /// execution.
    #[test]
    fn brute_force() {
        let seeds: u64 = std::env::var("FIB_THREAD_SEEDS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(400);
        let mut with_pairs = 0;
        for seed in 1..=seeds {
            let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
            let locks = seed % 3 != 0;
            let barriers = seed % 4 == 1;
            let mut p = program(&mut rng, locks, barriers);
            if seed % 2 == 0 {
                p = with_flags(p, &mut rng);
            }
            let found = possible(&p);
            let brute: BTreeSet<(u32, u32)> = found.iter().map(|(q, _)| *q).collect();
            // Each possible pair is reported by an execution that shows it.
            for (pair, path) in &found {
                let r = replay(&p, &complete(&p, path, &mut rng));
                assert!(
                    r.contains(pair),
                    "seed {seed}: {pair:?} not reported where it overlaps; program {p:?}"
                );
            }
            // No execution reports a pair that cannot overlap; without
            // locks, every execution reports all of them.
            for _ in 0..50 {
                let r = replay(&p, &complete(&p, &[], &mut rng));
                assert!(
                    r.is_subset(&brute),
                    "seed {seed}: reported {r:?}, possible {brute:?}, program {p:?}"
                );
                if !locks {
                    assert_eq!(r, brute, "seed {seed}: program {p:?}");
                }
            }
            with_pairs += usize::from(!brute.is_empty());
        }
        // The generator makes programs with and without such pairs.
        assert!(
            with_pairs > 0 && with_pairs < seeds as usize,
            "{with_pairs}"
        );
    }

    /// Adds a buffer to a generated program: thread 0 starts an operation
    /// on it and completes it later, and each other thread touches it once.
    fn with_buffer(mut p: Vec<Vec<Step>>, rng: &mut Rng) -> Vec<Vec<Step>> {
        let len = p[0].len();
        let own = rng.below(len as u64 + 1) as usize;
        let done = own + rng.below((len - own) as u64 + 1) as usize;
        p[0].insert(done, Step::Done);
        p[0].insert(own, Step::Own);
        for (k, thread) in p.iter_mut().enumerate().skip(1) {
            let at = rng.below(thread.len() as u64 + 1) as usize;
            thread.insert(at, Step::Touch(k as u32));
        }
        p
    }

    /// Whether the buffer is owned in `e`: thread 0 has passed `Own` and
    /// not `Done`.
    fn pending(p: &[Vec<Step>], e: &Exec) -> bool {
        let at = |step: fn(&Step) -> bool| p[0].iter().position(step).expect("in thread 0");
        let (own, done) = (
            at(|s| matches!(s, Step::Own)),
            at(|s| matches!(s, Step::Done)),
        );
        e.pc[0] > own && e.pc[0] <= done
    }

    /// The brute force for the buffer: the touches that fall while the
    /// operation owns it in some execution.
    fn possible_touches(p: &[Vec<Step>]) -> BTreeSet<u32> {
        let mut seen = std::collections::HashSet::new();
        let mut found = BTreeSet::new();
        let mut stack = vec![Exec::start(p.len())];
        while let Some(e) = stack.pop() {
            if !seen.insert(e.clone()) {
                continue;
            }
            for ((t, _), next) in e.moves(p) {
                if let Step::Touch(k) = p[t][e.pc[t]] {
                    if pending(p, &e) {
                        found.insert(k);
                    }
                }
                stack.push(next);
            }
        }
        found
    }

    /// One execution's touches as the owned-memory check reports them: a
    /// touch while the buffer is owned (the table of owned ranges), or
    /// after its completion by a thread that has not seen the completion
    /// (the completed buffers kept while the rank has several threads).
    fn touches_reported(p: &[Vec<Step>], events: &[Event]) -> BTreeSet<u32> {
        touches(p, events).0
    }

    /// [`touches_reported`], and the touches that came before the
    /// operation started.
    fn touches(p: &[Vec<Step>], events: &[Event]) -> (BTreeSet<u32>, BTreeSet<u32>) {
        let mut r = Replay::new(p);
        let (mut owned, mut gone) = (false, None);
        let (mut out, mut early) = (BTreeSet::new(), BTreeSet::new());
        // The threads' histories: each touch before the operation, dated
        // by its thread's own entry.
        let mut history: Vec<(usize, u32, u32)> = Vec::new();
        for &ev in events {
            r.step(ev, |o, t, step, second| match step {
                Step::Call(_) if second => o.leave(t),
                Step::Call(_) => {
                    o.enter(t, Site::Unknown);
                }
                Step::Own => {
                    o.enter(t, Site::Unknown);
                    // The other threads' earlier touches the call has not
                    // seen.
                    for &(u, value, k) in &history {
                        if u != t && !o.seen(t, (u, value)) {
                            out.insert(k);
                        }
                    }
                    owned = true;
                    o.leave(t);
                }
                Step::Done => {
                    // The wait that completes it: released at the call's
                    // point, which its return steps past.
                    o.enter(t, Site::Unknown);
                    owned = false;
                    gone = Some(o.point(t));
                    o.leave(t);
                }
                Step::Touch(k) => {
                    if owned || gone.is_some_and(|g| !o.seen(t, g)) {
                        out.insert(k);
                    } else if gone.is_none() {
                        early.insert(k);
                        history.push((t, o.point(t).1, k));
                    }
                }
                _ => unreachable!("a synchronisation step"),
            });
        }
        (out, early)
    }

    /// Every generated program with a buffer: each touch an execution
    /// reports falls while the operation owns the buffer in some
    /// execution, and every such touch is reported in some execution
    /// (the one that shows it, at least).
    #[test]
    fn owned_memory_brute_force() {
        let seeds: u64 = std::env::var("FIB_THREAD_SEEDS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(400);
        let (mut some, mut none) = (0, 0);
        for seed in 1..=seeds {
            let mut rng = Rng(seed.wrapping_mul(0xD1B5_4A32_D192_ED03) | 1);
            let locks = seed % 3 != 0;
            let mut p = program(&mut rng, locks, seed % 4 == 1);
            if seed % 2 == 0 {
                p = with_flags(p, &mut rng);
            }
            let p = with_buffer(p, &mut rng);
            let brute = possible_touches(&p);
            let mut union = BTreeSet::new();
            for _ in 0..80 {
                let (r, early) = touches(&p, &complete(&p, &[], &mut rng));
                assert!(
                    r.is_subset(&brute),
                    "seed {seed}: reported {r:?}, possible {brute:?}, program {p:?}"
                );
                // Without locks the order is the same in every execution:
                // every touch that can fall while the buffer is owned is
                // reported, whenever it came.
                if !locks {
                    assert_eq!(r, brute, "seed {seed}: program {p:?}, early {early:?}");
                }
                union.extend(r);
            }
            // A touch that can fall while owned: an execution that gets
            // there reports it.
            let mut missing: BTreeSet<u32> = brute.difference(&union).copied().collect();
            if !missing.is_empty() {
                missing.retain(|k| !witnessed(&p, *k, &mut rng));
            }
            assert!(
                missing.is_empty(),
                "seed {seed}: {missing:?} of {brute:?} never reported; program {p:?}"
            );
            if brute.is_empty() {
                none += 1;
            } else {
                some += 1;
            }
        }
        assert!(some > 0 && none > 0, "{some} {none}");
    }

    /// Whether an execution in which touch `k` falls while the buffer is
    /// owned reports it (found by a search over states).
    fn witnessed(p: &[Vec<Step>], k: u32, rng: &mut Rng) -> bool {
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![(Exec::start(p.len()), Vec::new())];
        while let Some((e, path)) = stack.pop() {
            if !seen.insert(e.clone()) {
                continue;
            }
            for ((t, second), next) in e.moves(p) {
                let mut path = path.clone();
                path.push((t, second));
                if matches!(p[t][e.pc[t]], Step::Touch(j) if j == k) && pending(p, &e) {
                    return touches_reported(p, &complete(p, &path, rng)).contains(&k);
                }
                stack.push((next, path));
            }
        }
        false
    }
}
