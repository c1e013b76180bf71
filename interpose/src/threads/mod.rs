//! The rank's threads: which one initialised MPI, the level MPI provided,
//! and the happens-before order the threads' own synchronisation makes, so
//! that each MPI call can be judged against the level ([`Up::Thread`]).
//!
//! The synchronisation the program's own objects call is wrapped (`wrap`:
//! the driver links the program with `--wrap` for each name of its
//! `THREAD_WRAPPED`): `pthread_create` hands the parent's clock to the
//! child, `pthread_join` the child's last clock to the parent, a mutex (or
//! a semaphore, an OpenMP lock, critical section or atomic) carries the
//! clock of its last release to its next acquisition, a barrier
//! (pthread's, OpenMP's, and the barriers that end OpenMP work-sharing
//! loops and sections) joins the clocks of all its threads, and an OpenMP
//! parallel region hands the encountering thread's clock to every thread
//! of the team and their last clocks back at its end. The clocks and what
//! they leave unordered are `order`'s, which is pure. Nothing else orders
//! threads for fib: a program that orders them with its own atomics or a
//! library fib does not wrap is taken as unordered there.
//!
//! At each MPI call ([`enter`], from `held::lib`), the calling thread is
//! checked against the level: under `MPI_THREAD_SINGLE` and `FUNNELED`,
//! only the thread that initialised MPI may call; under `SERIALIZED`, a
//! call must be ordered after every call of the other threads, else the
//! two could run at once in some execution. A thread other than the main
//! one calling MPI before the program read the level `MPI_Init_thread`
//! provided is reported too (read: a load the memory instrumentation saw,
//! `memory::sentinel`).
//!
//! Under `MPI_THREAD_MULTIPLE` the wrappers also tell the rank's gate
//! (`gate.rs`, through the hook it installs: [`on_steps`]) when a thread
//! starts, waits for another outside MPI, is released (by the thread that
//! releases it: [`wake`]) and ends; an OpenMP team's slots get numbers of
//! their own at the gate ([`gate_index`]).
//!
//! This module uses `memory` only (and `conn` for a fatal error).

mod order;
mod wrap;

use std::cell::{Cell, RefCell};
use std::os::raw::c_int;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use fib_wire::{Level, Site, ThreadFault, Up};

use crate::memory::{self, Wrote};
use order::{Clock, Order};

/// The calling thread: its index in the order, and the OpenMP regions it
/// is in (innermost last) with how many barriers it has passed in each,
/// its barrier generations per pthread barrier, and the OpenMP tasks it
/// runs (innermost last, each region's implicit task first).
struct Me {
    index: usize,
    regions: Vec<(usize, u64)>,
    barriers: HashMap<usize, u64>,
    tasks: Vec<wrap::Frame>,
}

impl Drop for Me {
    /// The thread ends: its last clock waits for `pthread_join`.
    fn drop(&mut self) {
        // SAFETY: pthread_self has no preconditions.
        let me = unsafe { libc::pthread_self() } as usize;
        let mut s = state();
        let last = s.order.end(self.index);
        s.ended.insert(me, last);
    }
}

thread_local! {
    static ME: RefCell<Option<Me>> = const { RefCell::new(None) };
}

/// Runs `f` on the calling thread's record (made on first use).
fn with_me<T>(f: impl FnOnce(&mut Me) -> T) -> T {
    ME.with(|m| {
        let mut m = m.borrow_mut();
        let me = m.get_or_insert_with(|| {
            let index = state().order.thread();
            memory::epoch(1, None);
            if index > 0 {
                many();
            }
            Me {
                index,
                regions: Vec::new(),
                barriers: HashMap::default(),
                tasks: Vec::new(),
            }
        });
        f(me)
    })
}

/// The calling thread's index (its number in reports: the first thread
/// fib met, the main one, is 0).
fn me() -> usize {
    with_me(|me| me.index)
}

/// The calling thread's number, as its calls name it in reports.
pub fn index() -> u32 {
    me() as u32
}

thread_local! {
    /// The number the calling thread has at the rank's gate while it runs
    /// an OpenMP team's slot other than the first ([`announce_team`]).
    static SLOT: Cell<Option<u32>> = const { Cell::new(None) };
}

/// The calling thread's number at the rank's gate, as its calls and
/// answers name it there: its own, or while it runs a slot of an OpenMP
/// team, the slot's.
pub fn gate_index() -> u32 {
    SLOT.with(Cell::get).unwrap_or_else(index)
}

/// The numbers of OpenMP team slots at the gate: apart from the threads'
/// own (a pool thread runs a slot of many teams, each told to the gate
/// before it starts).
static NEXT_SLOT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1 << 20);

/// Makes the record of a thread that is starting with the number its
/// creator gave it ([`announce`]).
fn adopt(index: usize) {
    ME.with(|m| {
        let mut m = m.borrow_mut();
        if m.is_none() {
            memory::epoch(1, None);
            many();
            *m = Some(Me {
                index,
                regions: Vec::new(),
                barriers: HashMap::default(),
                tasks: Vec::new(),
            });
        }
    });
}

/// What a rank's gate hears of its threads (`gate.rs`, which installs
/// it): a thread's number and what it did. Returns whether the gate is
/// on.
pub type Steps = fn(u32, fib_wire::ThreadStep) -> bool;

static STEPS: std::sync::OnceLock<Steps> = std::sync::OnceLock::new();

/// Installs what the gate hears of the threads.
pub fn on_steps(f: Steps) {
    let _ = STEPS.set(f);
}

/// Tells the gate what thread `thread` did; whether the gate is on.
fn step(thread: usize, what: fib_wire::ThreadStep) -> bool {
    step_at(thread as u32, what)
}

/// The gate has been on since a step told it so.
static GATE_ON: AtomicBool = AtomicBool::new(false);

/// Tells the gate what the thread it numbers `thread` did; whether the
/// gate is on.
fn step_at(thread: u32, what: fib_wire::ThreadStep) -> bool {
    let on = STEPS.get().is_some_and(|f| f(thread, what));
    if on {
        GATE_ON.store(true, Ordering::Relaxed);
    }
    on
}

/// Runs `wait`, in which the calling thread waits outside MPI for what
/// another thread of the rank does to the object `key` (unlocks a mutex,
/// signals a condition variable, posts a semaphore, ends), telling the
/// gate, if on, that it is parked meanwhile: the others' calls need not
/// wait for it. The thread that releases it says first that it runs
/// ([`wake`]), before anything it does next can reach the gate: so no call
/// of another thread enters as if this one could not call first. (A
/// thread woken otherwise says so itself once it returns.)
fn parked_on<T>(key: usize, wait: impl FnOnce() -> T) -> T {
    if !GATE_ON.load(Ordering::Relaxed) {
        return wait();
    }
    let t = gate_index();
    let on = park(t, key);
    let out = wait();
    if on && unwait(key, t) {
        step_at(t, fib_wire::ThreadStep::Running);
    }
    out
}

/// Tells the gate that thread `t` waits on `key`, then makes it a waiter
/// there (told first: a waker's word comes after); whether the gate is on.
fn park(t: u32, key: usize) -> bool {
    let on = step_at(t, fib_wire::ThreadStep::Parked);
    if on {
        state().waiters.entry(key).or_default().push(t);
    }
    on
}

/// Thread `t` no longer waits on `key`; whether it still did (no waker
/// said it runs).
fn unwait(key: usize, t: u32) -> bool {
    let mut s = state();
    let Some(list) = s.waiters.get_mut(&key) else {
        return false;
    };
    let Some(at) = list.iter().position(|&w| w == t) else {
        return false;
    };
    list.swap_remove(at);
    if list.is_empty() {
        s.waiters.remove(&key);
    }
    true
}

/// The calling thread releases the threads waiting on `key` (before the
/// real call that does): the gate hears that they run.
fn wake(key: usize) {
    if !GATE_ON.load(Ordering::Relaxed) {
        return;
    }
    let list = state().waiters.remove(&key).unwrap_or_default();
    for t in list {
        step_at(t, fib_wire::ThreadStep::Running);
    }
}

/// A barrier of `team` threads at `key`: the last thread to arrive
/// releases the others (and says so to the gate); the others are parked
/// until then. Without a known team, the threads are parked until they
/// return.
fn barrier_parked<T>(key: usize, team: Option<usize>, wait: impl FnOnce() -> T) -> T {
    if !GATE_ON.load(Ordering::Relaxed) {
        return wait();
    }
    let Some(n) = team else {
        return parked_on(key, wait);
    };
    let last = {
        let mut s = state();
        let arrived = s.arrivals.entry(key).or_insert(0);
        *arrived += 1;
        let last = *arrived >= n;
        if last {
            s.arrivals.remove(&key);
        }
        last
    };
    if last {
        wake(key);
        wait()
    } else {
        parked_on(key, wait)
    }
}

/// An OpenMP region of up to `n` threads is about to start, under
/// `MPI_THREAD_MULTIPLE`: numbers for its slots other than the first (the
/// encountering thread's), each told to the gate as started, so that no
/// call of the encountering thread enters ahead of one the team's other
/// threads may make. None under a lower level.
fn announce_team(n: usize) -> Vec<u32> {
    if n < 2 || level() != Some(Level::Multiple) || STEPS.get().is_none() {
        return Vec::new();
    }
    let slots: Vec<u32> = (1..n)
        .map(|_| NEXT_SLOT.fetch_add(1, Ordering::Relaxed))
        .collect();
    for &slot in &slots {
        if !step_at(slot, fib_wire::ThreadStep::Started) {
            return Vec::new();
        }
    }
    slots
}

/// The calling thread runs the team slot numbered `slot` (or, with none,
/// its own number again): the number it had.
fn run_slot(slot: Option<u32>) -> Option<u32> {
    SLOT.with(|s| s.replace(slot))
}

/// The team slot `slot` ended; with `last`, the last of the region at
/// `key` to run, which releases its encountering thread.
fn slot_ended(slot: u32, key: usize, last: bool) {
    step_at(slot, fib_wire::ThreadStep::Ended);
    if last {
        wake(key);
    }
}

/// The encountering thread of a region goes on after its team's slots.
fn team_joined(slots: &[u32]) {
    let t = gate_index();
    for &joined in slots {
        step_at(t, fib_wire::ThreadStep::Joined { joined });
    }
}

/// The encountering thread waits for its team at the end of the region
/// at `key` (the last slot to end wakes it, [`slot_ended`]).
fn team_waits(key: usize) {
    park(gate_index(), key);
}

/// The encountering thread of the region at `key` has passed its end.
fn team_done(key: usize) {
    unwait(key, gate_index());
}

/// A thread is about to start while MPI provides `MPI_THREAD_MULTIPLE`:
/// its number, told to the gate first, so that no call of its creator
/// enters ahead of a call it may make. None under a lower level (a
/// thread then takes its number at its first use of fib's records).
fn announce() -> Option<usize> {
    if level() != Some(Level::Multiple) || STEPS.get().is_none() {
        return None;
    }
    let t = state().order.thread();
    step(t, fib_wire::ThreadStep::Started);
    Some(t)
}

/// Runs `wait`, in which the calling thread joins the thread `pthread`:
/// parked meanwhile (the thread that ends wakes it), if the gate knows
/// that thread.
fn join_parked<T>(pthread: usize, wait: impl FnOnce() -> T) -> T {
    let known = state().numbers.contains_key(&pthread);
    if known {
        parked_on(pthread, wait)
    } else {
        wait()
    }
}

/// The calling thread's join of `pthread` returned: what it does next
/// follows what that thread did.
fn joined_thread(pthread: usize) {
    let number = state().numbers.remove(&pthread);
    if let Some(joined) = number {
        step_at(
            gate_index(),
            fib_wire::ThreadStep::Joined {
                joined: joined as u32,
            },
        );
    }
}

/// A thread the gate was told of is `pthread`, numbered `number` (told
/// by its creator and by the thread itself, whichever comes first: a join
/// may come before the thread runs).
fn numbered(pthread: usize, number: usize) {
    state().numbers.insert(pthread, number);
}

/// A thread the gate was told of starts as `pthread`, numbered `number`.
fn born_as(pthread: usize, number: usize) {
    adopt(number);
    numbered(pthread, number);
}

/// The calling thread, numbered by its creator, ends: the thread that
/// joins it goes on.
fn ends() {
    step(me(), fib_wire::ThreadStep::Ended);
    // SAFETY: pthread_self has no preconditions.
    wake(unsafe { libc::pthread_self() } as usize);
}

/// The calling thread's index, made on first use like [`me`]'s, but none
/// while its storage is being destroyed (or already borrowed).
fn current() -> Option<usize> {
    let known = ME
        .try_with(|m| m.try_borrow().ok().map(|m| m.as_ref().map(|me| me.index)))
        .ok()??;
    Some(known.unwrap_or_else(me))
}

thread_local! {
    /// The site id of the call this thread is about to make, when it is
    /// written inside an OpenMP construct any thread of the team may run
    /// (`single`, `sections`, `task`; the instrumented copy says so:
    /// [`fib_set_any_thread`]).
    static ANY_THREAD: Cell<Option<u32>> = const { Cell::new(None) };
}

/// The MPI call this thread makes next, at the site-table entry `id`, is
/// written inside an OpenMP construct any thread of the team may run
/// (instrumented copies call this through `fib__any_thread(ID)`, after
/// `fib__site(ID)`).
#[no_mangle]
pub extern "C" fn fib_set_any_thread(id: c_int) {
    let _ = ANY_THREAD.try_with(|s| s.set(Some(id.max(0) as u32)));
}

/// Whether a second thread has been seen.
static MANY: AtomicBool = AtomicBool::new(false);

/// `MPI_Init_thread`'s `provided` is watched and the program has not read
/// it yet (what [`Init::unread`] says, readable without the state).
static UNREAD: AtomicBool = AtomicBool::new(false);

/// The rank has several threads: their accesses are kept from now on.
fn many() {
    if !MANY.swap(true, Ordering::Relaxed) {
        memory::history_on();
    }
}

/// Thread `t` stepped or acquired: the memory hooks date its accesses by
/// its entry and by the rank's calls it has seen return.
fn stepped(s: &State, t: usize) {
    let after = memory::keeps_history().then(|| s.seen_returns(t));
    memory::epoch(s.order.point(t).1, after);
}

/// What `MPI_Init`/`MPI_Init_thread` said.
#[derive(Clone, Copy)]
struct Init {
    /// The thread that initialised MPI.
    thread: usize,
    site: Site,
    required: Level,
    level: Level,
    /// Whether the program must still read the level provided (a load of
    /// `provided` since `MPI_Init_thread`, which the memory
    /// instrumentation watches).
    unread: bool,
}

#[derive(Default)]
struct State {
    order: Order,
    /// The last clocks of ended threads, by `pthread_t`.
    ended: HashMap<usize, Clock>,
    /// The number of each thread that started with `pthread_create`, by
    /// `pthread_t`.
    numbers: HashMap<usize, usize>,
    /// Per object (a mutex, a condition variable, a semaphore, a thread
    /// to join, a barrier's generation), the gate's numbers of the threads
    /// parked waiting on it ([`parked_on`]).
    waiters: HashMap<usize, Vec<u32>>,
    /// Per barrier generation, how many threads have arrived.
    arrivals: HashMap<usize, usize>,
    init: Option<Init>,
    faults: Vec<ThreadFault>,
    reported: HashSet<ThreadFault>,
    /// Per object threads must not use at once, each thread's last call
    /// on it: its point and site.
    users: HashMap<Shared, Vec<(usize, u32, Site)>>,
    /// Per thread, the calls it reported since the rank had several
    /// threads: the thread's entry once each returned, and the call's
    /// index among the rank's calls.
    returns: Vec<Vec<(u32, u64)>>,
    /// Per request variable (its address), the wait or test that last
    /// completed the request it held: the thread, its point and the site.
    emptied: HashMap<usize, (usize, u32, Site)>,
}

/// What two threads must not use at once under `MPI_THREAD_MULTIPLE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shared {
    /// A request variable (its address), completed by a wait or a test.
    Request(usize),
    /// A communicator's collective order (its wire id).
    Collectives(u32),
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

struct Guard(MutexGuard<'static, Option<State>>);

impl std::ops::Deref for Guard {
    type Target = State;
    fn deref(&self) -> &State {
        self.0.as_ref().expect("made by state()")
    }
}

impl std::ops::DerefMut for Guard {
    fn deref_mut(&mut self) -> &mut State {
        self.0.as_mut().expect("made by state()")
    }
}

fn state() -> Guard {
    let mut g = STATE.lock().unwrap_or_else(|e| e.into_inner());
    g.get_or_insert_with(State::default);
    Guard(g)
}

impl State {
    /// Per other thread that made calls while the rank had several, the
    /// latest of them thread `t` has seen return (its index among the
    /// rank's calls).
    fn seen_returns(&self, t: usize) -> Vec<u64> {
        (0..self.returns.len())
            .filter(|&u| u != t)
            .filter_map(|u| {
                let seen = self.order.entry(t, u);
                let calls = &self.returns[u];
                let k = calls.partition_point(|&(v, _)| v <= seen);
                k.checked_sub(1).map(|k| calls[k].1)
            })
            .collect()
    }

    fn fault(&mut self, f: ThreadFault) {
        if self.reported.len() < 256 && self.reported.insert(f.clone()) {
            self.faults.push(f);
        }
    }
}

/// MPI is initialised by the calling thread at `site`, at `level` (asked
/// `required`); `provided`, when given, is where `MPI_Init_thread` wrote
/// it, watched for the program's first load of it.
pub fn initialised(site: Site, required: Level, level: Level, provided: Option<usize>) {
    let unread = provided.is_some_and(|p| memory::sentinel(p, std::mem::size_of::<c_int>()));
    let thread = me();
    memory::threads_order(memory::ThreadsOrder {
        now: || {
            if !MANY.load(Ordering::Relaxed) {
                return None;
            }
            let t = current()?;
            Some(state().order.point(t))
        },
        unseen: |p| {
            let t = current()?;
            (!state().order.seen(t, p)).then_some(t)
        },
        all_seen: |p| state().order.seen_by_all(p),
        current,
        atomic,
        fence,
    });
    if MANY.load(Ordering::Relaxed) {
        memory::history_on();
    }
    let mut s = state();
    s.init = Some(Init {
        thread,
        site,
        required,
        level,
        unread,
    });
    UNREAD.store(unread, Ordering::Relaxed);
}

/// The level MPI provided, once initialised.
pub fn level() -> Option<Level> {
    state().init.map(|i| i.level)
}

/// The calling thread enters MPI with its call at `site`: the call is
/// checked against the level and the other threads' calls.
pub fn enter(site: Site) {
    // A rank with one thread has nothing to judge its calls against: a
    // thread it starts later comes after every one of them (its clock is
    // the creator's), so they need not be logged.
    if !MANY.load(Ordering::Relaxed) {
        return;
    }
    let index = me();
    // Asked before the state is held: the memory table is taken before
    // the state, never after.
    let read = memory::sentinel_read();
    // A call written in an OpenMP `single`, `sections` or `task` block is
    // any thread's to make, in a team of several.
    let in_any_threads_block = matches!(site, Site::Table(id) if ANY_THREAD.with(Cell::get) == Some(id))
        && wrap::team() > 1;
    let mut s = state();
    let number = index as u32;
    let clashes = s.order.enter(index, site);
    let Some(init) = s.init else {
        return;
    };
    let main = index == init.thread;
    let any_thread = in_any_threads_block && init.level <= Level::Funneled;
    if (!main || any_thread) && init.level <= Level::Funneled {
        s.fault(ThreadFault::NotMain {
            site,
            thread: number,
            level: init.level,
            init: init.site,
            any_thread,
        });
    }
    if init.level == Level::Serialized {
        for c in clashes {
            let other = c.thread as u32;
            s.fault(ThreadFault::Concurrent {
                site,
                thread: number,
                other_site: c.site,
                other,
                level: init.level,
                init: init.site,
                overlapped: c.inside,
            });
        }
    }
    if !main && init.unread {
        if read {
            s.init.as_mut().expect("checked").unread = false;
            UNREAD.store(false, Ordering::Relaxed);
        } else {
            s.fault(ThreadFault::Unchecked {
                site,
                thread: number,
                init: init.site,
                required: init.required,
                level: init.level,
            });
        }
    }
}

/// Whether the rank has had a second thread (until then no call of it is
/// judged against another's).
pub fn several() -> bool {
    MANY.load(Ordering::Relaxed)
}

/// The scheduler has been told that the rank has several threads.
static TOLD: AtomicBool = AtomicBool::new(false);

/// The rank has said hello to the scheduler: it may be told the rest.
static CONNECTED: AtomicBool = AtomicBool::new(false);

/// The rank's hello has gone to the scheduler (a program whose threads
/// start before `MPI_Init` has several already).
pub fn connected() {
    CONNECTED.store(true, Ordering::Relaxed);
}

/// Whether the rank has several threads and the scheduler does not know it
/// yet ([`fib_wire::Up::Threads`]); true once, after the hello.
pub fn newly_several() -> bool {
    several() && CONNECTED.load(Ordering::Relaxed) && !TOLD.swap(true, Ordering::Relaxed)
}

/// The calling thread's call at `site`, inside MPI, uses `shared`: under
/// `MPI_THREAD_MULTIPLE`, another thread's call on one of them that this
/// call is not ordered with is a fault (under a lower level, FIB042 or
/// FIB043 already reports the two calls).
pub fn uses(shared: &[Shared], site: Site) {
    if !several() {
        return;
    }
    let t = me();
    let mut s = state();
    if s.init.map(|i| i.level) != Some(Level::Multiple) {
        return;
    }
    let point = s.order.point(t);
    for &key in shared {
        let others: Vec<(usize, u32, Site)> = s.users.get(&key).cloned().unwrap_or_default();
        for (u, value, other_site) in others {
            if u != t && !s.order.seen(t, (u, value)) {
                let (thread, other) = (t as u32, u as u32);
                s.fault(match key {
                    Shared::Request(_) => ThreadFault::SharedRequest {
                        site,
                        thread,
                        other_site,
                        other,
                    },
                    Shared::Collectives(_) => ThreadFault::Collectives {
                        site,
                        thread,
                        other_site,
                        other,
                    },
                });
            }
        }
        let users = s.users.entry(key).or_default();
        users.retain(|(u, _, _)| *u != t);
        users.push((t, point.1, site));
    }
}

/// The calling thread's wait or test at `site` completed the requests the
/// variables at `vars` held: a new request in one of them must come after
/// ([`reuses`]).
pub fn emptied(vars: &[usize], site: Site) {
    if !several() || vars.is_empty() {
        return;
    }
    let t = me();
    let mut s = state();
    if s.init.map(|i| i.level) != Some(Level::Multiple) {
        return;
    }
    let point = s.order.point(t);
    for &var in vars {
        s.emptied.insert(var, (t, point.1, site));
    }
}

/// The calling thread's call at `site` puts a new request in the variable
/// at `var`, whose old request this run had completed (else the call is
/// `check::request_out`'s): under `MPI_THREAD_MULTIPLE`, a completion by
/// another thread that this call is not ordered after could have come
/// later, with the old request still active.
pub fn reuses(var: usize, site: Site) {
    if !several() {
        return;
    }
    let t = me();
    let mut s = state();
    let Some((u, value, other_site)) = s.emptied.remove(&var) else {
        return;
    };
    if s.init.map(|i| i.level) != Some(Level::Multiple) {
        return;
    }
    if u != t && !s.order.seen(t, (u, value)) {
        s.fault(ThreadFault::ReusedRequest {
            site,
            thread: t as u32,
            other_site,
            other: u as u32,
        });
    }
}

/// The calling thread's MPI call returns; `reported` is its index among
/// the rank's calls, if it was one.
pub fn leave(reported: Option<u64>) {
    // See [`enter`]: while the rank has one thread, nothing is logged.
    if !MANY.load(Ordering::Relaxed) {
        return;
    }
    let index = me();
    let mut s = state();
    s.order.leave(index);
    if let Some(i) = reported {
        let v = s.order.point(index).1;
        if s.returns.len() <= index {
            s.returns.resize(index + 1, Vec::new());
        }
        s.returns[index].push((v, i));
    }
    stepped(&s, index);
}

/// Whether a thread that finds another inside MPI waits for it to return
/// (the level lets one thread at a time call MPI, and the clash is the
/// program's, reported as such) rather than stopping the run.
pub fn waits_its_turn() -> bool {
    level().is_some_and(|l| l <= Level::Serialized)
}

/// Notes whether the program has read the level `MPI_Init_thread`
/// provided since its call (what `memory::sentinel` saw).
pub fn note_read() {
    if !UNREAD.load(Ordering::Relaxed) || !memory::sentinel_read() {
        return;
    }
    let mut s = state();
    if let Some(init) = s.init.as_mut() {
        init.unread = false;
    }
    UNREAD.store(false, Ordering::Relaxed);
}

/// While the rank has several threads: which thread makes the call the
/// rank reports next, of index `next`, and what of the other threads it
/// comes after ([`Up::CallThread`]).
pub fn call_thread(next: u64) -> Option<Up> {
    // Nothing goes to the scheduler before the hello (a program whose
    // threads start before `MPI_Init` has several already).
    if !MANY.load(Ordering::Relaxed) || !CONNECTED.load(Ordering::Relaxed) {
        return None;
    }
    // The thread holds the state for its call: its clock is still the
    // one it entered with (another thread's call that returned since is
    // one it has not seen).
    let t = me();
    let s = state();
    let after = s.seen_returns(t);
    Some(Up::CallThread {
        call: next,
        thread: t as u32,
        after,
        seen: s.order.clock(t).to_vec(),
    })
}

/// The faults found since the last call, as messages.
pub fn take() -> Vec<Up> {
    // Every fault is found with several threads ([`enter`], [`uses`]).
    if !MANY.load(Ordering::Relaxed) {
        return Vec::new();
    }
    let mut s = state();
    s.faults
        .drain(..)
        .map(|fault| Up::Thread { fault })
        .collect()
}

// What the wrappers tell the order, for the calling thread.

/// Releases the object `key`.
fn release(key: (usize, u64)) {
    let t = me();
    let mut s = state();
    s.order.release(t, key);
    stepped(&s, t);
}

/// The program's atomic operation `op` on the object at `addr`, with
/// acquire order or not given what it wrote: its edges join the threads'
/// order (see [`order`]) while the rank has several threads. `op` runs
/// with the order held, so that what it read and the clock the object
/// has agree ([`memory::ThreadsOrder::atomic`]).
fn atomic(addr: usize, acquire: &dyn Fn(Wrote) -> bool, op: &mut dyn FnMut() -> Wrote) {
    if !MANY.load(Ordering::Relaxed) {
        op();
        return;
    }
    let t = me();
    let mut s = state();
    let wrote = op();
    // The tag sets atomic objects apart from a lock or barrier at the
    // same address.
    let key = (addr, u64::MAX);
    if acquire(wrote) {
        s.order.acquire(t, key);
        stepped(&s, t);
    } else if !matches!(wrote, Wrote::Store { .. }) {
        s.order.load_relaxed(t, key);
    }
    match wrote {
        Wrote::Nothing => {}
        Wrote::Rmw { release: false } => s.order.rmw_relaxed(t, key),
        Wrote::Store { release: false } => s.order.store_relaxed(t, key),
        Wrote::Store { release: true } => {
            s.order.store_release(t, key);
            stepped(&s, t);
        }
        Wrote::Rmw { release: true } => {
            s.order.release(t, key);
            stepped(&s, t);
        }
    }
}

/// The program's `atomic_thread_fence` (see [`order::Order::fence`]).
fn fence(acquire: bool, release: bool) {
    if !MANY.load(Ordering::Relaxed) {
        return;
    }
    let t = me();
    let mut s = state();
    s.order.fence(t, acquire, release);
    if release || acquire {
        stepped(&s, t);
    }
}

/// Acquires the object `key`.
fn acquire(key: (usize, u64)) {
    let t = me();
    let mut s = state();
    s.order.acquire(t, key);
    stepped(&s, t);
}

/// Releases each object of `keys` (one step of the calling thread).
fn release_all(keys: &[(usize, u64)]) {
    let t = me();
    let mut s = state();
    for &k in keys {
        s.order.release(t, k);
    }
    stepped(&s, t);
}

/// Forgets the object `key`, which nothing will acquire again.
fn drop_object(key: (usize, u64)) {
    state().order.drop_object(key);
}

/// The calling thread's clock for a thread or team it starts.
fn fork() -> Clock {
    let t = me();
    many();
    let mut s = state();
    let c = s.order.fork(t);
    stepped(&s, t);
    c
}

/// Threads will start from `clock`, handed out under `key`, until
/// [`started`]: what every thread has seen is what they have seen too.
fn pending(key: usize, clock: &Clock) {
    state().order.pending(key, clock.clone());
}

/// The threads handed a clock under `key` have started (or never will).
fn started(key: usize) {
    state().order.started(key);
}

/// The calling thread comes after `clock`.
fn after(clock: &Clock) {
    let t = me();
    let mut s = state();
    s.order.after(t, clock);
    stepped(&s, t);
}

/// The calling thread joined the thread `pthread`, which has ended.
fn joined(pthread: usize) {
    let t = me();
    let mut s = state();
    if let Some(c) = s.ended.remove(&pthread) {
        s.order.after(t, &c);
        stepped(&s, t);
    }
}

/// Forgets the objects of the region at `key` (its barriers), once it
/// has ended: the buffers completed in it that every thread is now
/// ordered after need no watching either.
fn forget(key: usize) {
    state().order.forget(|k| k.0 != key);
    memory::prune_gone();
}

/// A barrier of `key` at generation `generation`: every thread's events
/// before it come before every thread's after it. The real barrier runs
/// between the release and the acquisition; the generation two before is
/// dropped (every thread has passed it).
fn barrier(
    key: usize,
    generation: u64,
    team: Option<usize>,
    wait: impl FnOnce() -> c_int,
) -> c_int {
    release((key, generation));
    if generation >= 2 {
        state().order.forget(|k| *k != (key, generation - 2));
    }
    let rc = barrier_parked(key ^ (generation as usize).rotate_left(48), team, wait);
    acquire((key, generation));
    // Once every thread passed, the buffers completed before the barrier
    // need no watching.
    memory::prune_gone();
    rc
}
