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
//! This module uses `memory` only (and `conn` for a fatal error).

mod order;
mod wrap;

use std::cell::RefCell;
use std::os::raw::c_int;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use fib_wire::{Level, Site, ThreadFault, Up};

use crate::memory;
use order::{Clock, Order};

/// The calling thread: its index in the order, and the OpenMP regions it
/// is in (innermost last) with how many barriers it has passed in each,
/// and its barrier generations per pthread barrier.
struct Me {
    index: usize,
    regions: Vec<(usize, u64)>,
    barriers: HashMap<usize, u64>,
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
            if index > 0 {
                MANY.store(true, Ordering::Relaxed);
            }
            Me {
                index,
                regions: Vec::new(),
                barriers: HashMap::default(),
            }
        });
        f(me)
    })
}

/// The calling thread's index.
fn me() -> usize {
    with_me(|me| me.index)
}

/// Whether a second thread has been seen.
static MANY: AtomicBool = AtomicBool::new(false);

/// What `MPI_Init`/`MPI_Init_thread` said.
#[derive(Clone, Copy)]
struct Init {
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
    init: Option<Init>,
    /// Each thread's number in reports, by index: 0 is the thread that
    /// initialised MPI, the others in the order of their first MPI call.
    numbers: HashMap<usize, u32>,
    faults: Vec<ThreadFault>,
    reported: HashSet<ThreadFault>,
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
    fn fault(&mut self, f: ThreadFault) {
        if self.reported.len() < 256 && self.reported.insert(f.clone()) {
            self.faults.push(f);
        }
    }

    fn number(&mut self, index: usize) -> u32 {
        let next = self.numbers.len() as u32;
        *self.numbers.entry(index).or_insert(next)
    }
}

/// MPI is initialised by the calling thread at `site`, at `level` (asked
/// `required`); `provided`, when given, is where `MPI_Init_thread` wrote
/// it, watched for the program's first load of it.
pub fn initialised(site: Site, required: Level, level: Level, provided: Option<usize>) {
    let unread = provided.is_some_and(|p| memory::sentinel(p, std::mem::size_of::<c_int>()));
    let index = me();
    let mut s = state();
    // The initialising call was the rank's first (its entry numbered it).
    debug_assert_eq!(s.numbers.get(&index), Some(&0));
    s.init = Some(Init {
        site,
        required,
        level,
        unread,
    });
}

/// The level MPI provided, once initialised.
pub fn level() -> Option<Level> {
    state().init.map(|i| i.level)
}

/// The calling thread enters MPI with its call at `site`: the call is
/// checked against the level and the other threads' calls.
pub fn enter(site: Site) {
    let index = me();
    let mut s = state();
    let number = s.number(index);
    let clashes = s.order.enter(index, site);
    let Some(init) = s.init else {
        return;
    };
    if !MANY.load(Ordering::Relaxed) {
        return;
    }
    if number != 0 && init.level <= Level::Funneled {
        s.fault(ThreadFault::NotMain {
            site,
            thread: number,
            level: init.level,
            init: init.site,
        });
    }
    if init.level == Level::Serialized {
        for c in clashes {
            let other = s.number(c.thread);
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
    if number != 0 && init.unread {
        if memory::sentinel_read() {
            s.init.as_mut().expect("checked").unread = false;
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

/// The calling thread's MPI call returns.
pub fn leave() {
    let index = me();
    state().order.leave(index);
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
    let mut s = state();
    if let Some(init) = s.init.as_mut() {
        if init.unread && memory::sentinel_read() {
            init.unread = false;
        }
    }
}

/// The faults found since the last call, as messages.
pub fn take() -> Vec<Up> {
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
    state().order.release(t, key);
}

/// Acquires the object `key`.
fn acquire(key: (usize, u64)) {
    let t = me();
    state().order.acquire(t, key);
}

/// The calling thread's clock for a thread or team it starts.
fn fork() -> Clock {
    let t = me();
    MANY.store(true, Ordering::Relaxed);
    state().order.fork(t)
}

/// The calling thread comes after `clock`.
fn after(clock: &Clock) {
    let t = me();
    state().order.after(t, clock);
}

/// The calling thread joined the thread `pthread`, which has ended.
fn joined(pthread: usize) {
    let t = me();
    let mut s = state();
    if let Some(c) = s.ended.remove(&pthread) {
        s.order.after(t, &c);
    }
}

/// Forgets the objects of the region at `key` (its barriers).
fn forget(key: usize) {
    state().order.forget(|k| k.0 != key);
}

/// A barrier of `key` at generation `generation`: every thread's events
/// before it come before every thread's after it. The real barrier runs
/// between the release and the acquisition; the generation two before is
/// dropped (every thread has passed it).
fn barrier(key: usize, generation: u64, wait: impl FnOnce() -> c_int) -> c_int {
    release((key, generation));
    if generation >= 2 {
        state().order.forget(|k| *k != (key, generation - 2));
    }
    let rc = wait();
    acquire((key, generation));
    rc
}
