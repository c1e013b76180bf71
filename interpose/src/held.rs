//! The state as the wrappers reach it: held by one thread at a time.
//! [`lib`] returns a guard that gives the state back when dropped. Until
//! the rank's gate is on, the scheduler's protocol speaks of one call at a
//! time, so a thread that calls MPI while another one is inside is
//! reported as `MPI_THREAD_MULTIPLE` and the run stops; calls from several
//! threads one after the other hold the state in turn. Once the gate is on
//! ([`GATE`], `gate.rs`), a thread that waits for the scheduler or for MPI
//! lets go of the state meanwhile ([`pause`]), and a thread that finds the
//! state held waits for it.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use fib_wire::Up;

use crate::conn::{fatal, log};
use crate::memory;
use crate::site;
use crate::state::{try_lib, Lib};
use crate::threads;

/// The state, held by the calling thread until the returned [`Held`] is
/// dropped; a call before `MPI_Init` or after `MPI_Finalize` is fatal.
///
/// The state is the rank's one picture of the run, and the scheduler's
/// protocol speaks of one call at a time: fib does not model two threads
/// in MPI at once (`MPI_THREAD_MULTIPLE` used as such). A thread that
/// calls MPI while another one is inside (blocked in a receive, say) is
/// reported as unsupported and the run stops, rather than corrupting the
/// state or waiting for an answer that would look like a deadlock. Calls
/// from several threads one after the other (`MPI_THREAD_SERIALIZED`,
/// `FUNNELED`) hold it in turn.
pub fn lib() -> Held {
    let me = thread_id();
    HELD.with(|depth| {
        if depth.get() == 0 {
            threads::enter(site::current());
            while let Err(other) =
                OWNER.compare_exchange(0, me, Ordering::AcqRel, Ordering::Acquire)
            {
                // With the gate on, the other thread lets go of the state
                // while it waits; under a level that lets one thread at a
                // time call MPI, the clash is the program's, reported as
                // such: this thread waits for the other one to return.
                if GATE.load(Ordering::Acquire) {
                    take();
                    break;
                }
                if !threads::waits_its_turn() {
                    two_threads(other);
                }
                std::thread::sleep(std::time::Duration::from_micros(50));
            }
            memory::enter();
        }
        depth.set(depth.get() + 1);
    });
    match try_lib() {
        Some(l) => {
            // What the program did to memory MPI owns or watches since its
            // previous call goes ahead of this call, and what its threads
            // did wrong.
            for m in memory::take() {
                l.push(m);
            }
            threads::note_read();
            if threads::newly_several() {
                l.push(Up::Threads);
            }
            for m in threads::take() {
                l.push(m);
            }
            if let Some(m) = threads::call_thread(l.calls) {
                l.push(m);
            }
            memory::prune_gone();
            let start = l.calls;
            Held(l, start)
        }
        None => fatal("an MPI call was made before MPI_Init or after MPI_Finalize"),
    }
}

/// The state, held by one thread (see [`lib`]), with how many calls the
/// rank had reported when it took it.
pub struct Held(&'static mut Lib, u64);

impl std::ops::Deref for Held {
    type Target = Lib;
    fn deref(&self) -> &Lib {
        self.0
    }
}

impl std::ops::DerefMut for Held {
    fn deref_mut(&mut self) -> &mut Lib {
        self.0
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        HELD.with(|depth| {
            depth.set(depth.get() - 1);
            if depth.get() == 0 {
                // The call this thread reported while it held the state,
                // if it did: its index among the rank's calls.
                let calls = self.0.calls;
                self.0.finish_entry();
                threads::leave((calls > self.1).then(|| calls - 1));
                OWNER.store(0, Ordering::Release);
                memory::leave();
            }
        });
    }
}

/// The thread inside the library (its kernel thread id), or 0.
static OWNER: AtomicU64 = AtomicU64::new(0);

/// The rank's gate is on (`gate.rs`): its threads may be inside MPI at
/// once, and hold the state in turn.
pub static GATE: AtomicBool = AtomicBool::new(false);

/// How many threads wait to take the state (with the gate on), and how
/// many times a thread took it: a thread that lets go of the state for a
/// moment ([`pause`]) waits until one of those waiting has taken it, so
/// that a thread waiting for an answer cannot keep the others out.
static WAITING: AtomicU64 = AtomicU64::new(0);
static TAKEN: AtomicU64 = AtomicU64::new(0);

/// Takes the state for the calling thread, waiting while another holds it.
fn take() {
    let me = thread_id();
    if OWNER
        .compare_exchange(0, me, Ordering::AcqRel, Ordering::Acquire)
        .is_err()
    {
        WAITING.fetch_add(1, Ordering::AcqRel);
        while OWNER
            .compare_exchange(0, me, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            // SAFETY: always safe.
            unsafe { libc::sched_yield() };
        }
        WAITING.fetch_sub(1, Ordering::AcqRel);
    }
    TAKEN.fetch_add(1, Ordering::AcqRel);
}

/// With the gate on, lets the other threads hold the state for a moment
/// (the calling thread, which holds it, waits for the scheduler or for
/// MPI), napping a little with `nap`; otherwise only yields. `l` is the
/// state the caller holds: passed, so that the compiler reads it afresh
/// once the thread holds it again.
#[inline(never)]
pub fn pause(l: &mut Lib, nap: bool) {
    let _ = std::hint::black_box(l as *mut Lib);
    if GATE.load(Ordering::Acquire) {
        let taken = TAKEN.load(Ordering::Acquire);
        OWNER.store(0, Ordering::Release);
        // A thread waiting to take the state takes it first.
        let mut spins = 0u32;
        while WAITING.load(Ordering::Acquire) > 0
            && TAKEN.load(Ordering::Acquire) == taken
            && spins < 10_000
        {
            spins += 1;
            // SAFETY: always safe.
            unsafe { libc::sched_yield() };
        }
        if nap {
            std::thread::sleep(std::time::Duration::from_micros(50));
        } else {
            // SAFETY: always safe.
            unsafe { libc::sched_yield() };
        }
        take();
    } else {
        // SAFETY: always safe.
        unsafe { libc::sched_yield() };
    }
}

/// Runs `f` on the state outside any MPI call (a thread starts or ends,
/// say), holding it meanwhile; nothing before `MPI_Init` or after
/// `MPI_Finalize`.
pub fn with_lib<T>(f: impl FnOnce(&mut Lib) -> T) -> Option<T> {
    let outer = HELD.with(|depth| depth.get());
    if outer == 0 {
        take();
    }
    HELD.with(|depth| depth.set(depth.get() + 1));
    let out = try_lib().map(f);
    HELD.with(|depth| depth.set(depth.get() - 1));
    if outer == 0 {
        OWNER.store(0, Ordering::Release);
    }
    out
}

thread_local! {
    /// How many [`Held`]s this thread has (wrappers call helpers that take
    /// the state again).
    static HELD: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// The calling thread's kernel id, asked of the kernel once per thread.
fn thread_id() -> u64 {
    thread_local! {
        static TID: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }
    TID.with(|t| {
        if t.get() == 0 {
            // SAFETY: gettid has no preconditions.
            t.set(unsafe { libc::gettid() } as u64);
        }
        t.get()
    })
}

/// Reports that this thread called MPI while thread `other` was inside, and
/// waits to be stopped. The report goes straight to the socket in one
/// write: the other thread owns the buffered connection.
fn two_threads(other: u64) -> ! {
    let fd = crate::conn::FD.load(Ordering::Relaxed);
    if fd >= 0 {
        let mut frame = Vec::new();
        Up::Unsupported {
            site: site::current(),
            name: fib_wire::THREAD_MULTIPLE.to_string(),
        }
        .encode(&mut frame);
        crate::conn::raw_write_all(fd, &frame);
    } else {
        log(&format!(
            "MPI called from two threads at once (thread {other} was inside); fib does not model MPI_THREAD_MULTIPLE"
        ));
    }
    loop {
        // SAFETY: pause has no preconditions; the scheduler ends the run.
        unsafe { libc::pause() };
    }
}
