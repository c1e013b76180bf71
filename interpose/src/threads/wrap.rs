//! The `__wrap_*` synchronisation functions the driver links the program
//! with (its `THREAD_WRAPPED`): each calls the real one and tells the
//! parent module what it ordered. OpenMP's explicit tasks have a module
//! of their own (`tasks`).

use std::os::raw::{c_int, c_uint, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::order::Clock;
use super::{
    acquire, after, announce, announce_team, barrier, born_as, ends, forget, fork, join_parked,
    joined, joined_thread, numbered, parked_on, pending, release, run_slot, slot_ended, started,
    step, team_done, team_joined, team_waits, wake, with_me,
};

/// Keys of objects without an address of their own.
const CRITICAL: usize = 1;
const ATOMIC: usize = 2;
/// The tag of a region's `ordered` sections (keyed by the region).
const ORDERED: u64 = 1 << 61;

/// The real function `name` of the library that defines it (libgomp for
/// OpenMP's), looked up once.
pub(super) fn real(cache: &AtomicUsize, name: &'static [u8]) -> usize {
    let mut f = cache.load(Ordering::Relaxed);
    if f == 0 {
        // SAFETY: `name` is NUL-terminated.
        f = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr().cast()) } as usize;
        if f == 0 {
            // The link dropped the OpenMP runtime as unneeded (`--as-needed`
            // once the program's only references to it went to the
            // wrappers): it is loaded here.
            // SAFETY: a NUL-terminated library name; dlsym on its handle.
            unsafe {
                let h = libc::dlopen(c"libgomp.so.1".as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL);
                if !h.is_null() {
                    f = libc::dlsym(h, name.as_ptr().cast()) as usize;
                }
            }
        }
        if f == 0 {
            crate::conn::fatal(&format!(
                "the program calls {} but no library defines it",
                String::from_utf8_lossy(&name[..name.len() - 1])
            ));
        }
        cache.store(f, Ordering::Relaxed);
    }
    f
}

macro_rules! real_fn {
    ($name:literal as $ty:ty) => {{
        static CACHE: AtomicUsize = AtomicUsize::new(0);
        let f = $crate::threads::wrap::real(&CACHE, concat!($name, "\0").as_bytes());
        // SAFETY: the symbol is the named function, of this signature.
        unsafe { std::mem::transmute::<usize, $ty>(f) }
    }};
}

/// How many threads the calling thread's innermost parallel region has: 1
/// outside every region fib saw start.
pub(super) fn team() -> usize {
    if super::with_me(|me| me.regions.is_empty()) {
        return 1;
    }
    real_fn!("omp_get_num_threads" as extern "C" fn() -> c_int)().max(1) as usize
}

fn join(into: &mut Clock, from: &Clock) {
    if into.len() < from.len() {
        into.resize(from.len(), 0);
    }
    for (a, b) in into.iter_mut().zip(from) {
        *a = (*a).max(*b);
    }
}

mod tasks;

pub use tasks::Frame;

// POSIX threads.

type Start = extern "C" fn(*mut c_void) -> *mut c_void;

struct Birth {
    start: Start,
    arg: *mut c_void,
    clock: Clock,
    /// The number its creator gave it, told to the rank's gate.
    number: Option<usize>,
}

extern "C" fn born(p: *mut c_void) -> *mut c_void {
    // SAFETY: `p` is the Birth `__wrap_pthread_create` boxed for this thread.
    let b = unsafe { Box::from_raw(p.cast::<Birth>()) };
    if let Some(n) = b.number {
        // SAFETY: pthread_self has no preconditions.
        born_as(unsafe { libc::pthread_self() } as usize, n);
    }
    after(&b.clock);
    started(p as usize);
    let out = (b.start)(b.arg);
    if b.number.is_some() {
        ends();
    }
    out
}

/// # Safety
/// As `pthread_create`.
#[no_mangle]
pub unsafe extern "C" fn __wrap_pthread_create(
    thread: *mut libc::pthread_t,
    attr: *const libc::pthread_attr_t,
    start: Start,
    arg: *mut c_void,
) -> c_int {
    let clock = fork();
    let number = announce();
    let birth = Box::into_raw(Box::new(Birth {
        start,
        arg,
        clock,
        number,
    }));
    pending(birth as usize, &(*birth).clock);
    let rc = libc::pthread_create(thread, attr, born, birth.cast());
    if rc == 0 {
        if let Some(n) = number {
            numbered(*thread as usize, n);
        }
    } else {
        started(birth as usize);
        if let Some(n) = number {
            step(n, fib_wire::ThreadStep::Ended);
        }
        drop(Box::from_raw(birth));
    }
    rc
}

/// # Safety
/// As `pthread_join`.
#[no_mangle]
pub unsafe extern "C" fn __wrap_pthread_join(
    thread: libc::pthread_t,
    ret: *mut *mut c_void,
) -> c_int {
    let rc = join_parked(thread as usize, || libc::pthread_join(thread, ret));
    if rc == 0 {
        joined(thread as usize);
        joined_thread(thread as usize);
    }
    rc
}

/// # Safety
/// As `pthread_mutex_lock`.
#[no_mangle]
pub unsafe extern "C" fn __wrap_pthread_mutex_lock(m: *mut libc::pthread_mutex_t) -> c_int {
    // A thread that waits for the lock waits for another thread.
    let mut rc = libc::pthread_mutex_trylock(m);
    if rc == libc::EBUSY {
        rc = parked_on(m as usize, || libc::pthread_mutex_lock(m));
    }
    if rc == 0 {
        acquire((m as usize, 0));
    }
    rc
}

/// # Safety
/// As `pthread_mutex_trylock`.
#[no_mangle]
pub unsafe extern "C" fn __wrap_pthread_mutex_trylock(m: *mut libc::pthread_mutex_t) -> c_int {
    let rc = libc::pthread_mutex_trylock(m);
    if rc == 0 {
        acquire((m as usize, 0));
    }
    rc
}

/// # Safety
/// As `pthread_mutex_unlock`.
#[no_mangle]
pub unsafe extern "C" fn __wrap_pthread_mutex_unlock(m: *mut libc::pthread_mutex_t) -> c_int {
    release((m as usize, 0));
    wake(m as usize);
    libc::pthread_mutex_unlock(m)
}

/// # Safety
/// As `pthread_cond_wait`.
#[no_mangle]
pub unsafe extern "C" fn __wrap_pthread_cond_wait(
    c: *mut libc::pthread_cond_t,
    m: *mut libc::pthread_mutex_t,
) -> c_int {
    release((m as usize, 0));
    let rc = parked_on(c as usize, || libc::pthread_cond_wait(c, m));
    acquire((m as usize, 0));
    rc
}

/// # Safety
/// As `pthread_cond_timedwait`.
#[no_mangle]
pub unsafe extern "C" fn __wrap_pthread_cond_timedwait(
    c: *mut libc::pthread_cond_t,
    m: *mut libc::pthread_mutex_t,
    t: *const libc::timespec,
) -> c_int {
    release((m as usize, 0));
    let rc = parked_on(c as usize, || libc::pthread_cond_timedwait(c, m, t));
    acquire((m as usize, 0));
    rc
}

/// # Safety
/// As `pthread_cond_signal`.
#[no_mangle]
pub unsafe extern "C" fn __wrap_pthread_cond_signal(c: *mut libc::pthread_cond_t) -> c_int {
    // Which waiter wakes is the system's: each is taken
    // as running (one that is not is taken as waiting again once quiet).
    wake(c as usize);
    libc::pthread_cond_signal(c)
}

/// # Safety
/// As `pthread_cond_broadcast`.
#[no_mangle]
pub unsafe extern "C" fn __wrap_pthread_cond_broadcast(c: *mut libc::pthread_cond_t) -> c_int {
    wake(c as usize);
    libc::pthread_cond_broadcast(c)
}

/// # Safety
/// As `pthread_barrier_wait`.
#[no_mangle]
pub unsafe extern "C" fn __wrap_pthread_barrier_wait(b: *mut libc::pthread_barrier_t) -> c_int {
    let generation = with_me(|me| {
        let g = me.barriers.entry(b as usize).or_insert(0);
        *g += 1;
        *g
    });
    barrier(b as usize, generation, None, || {
        libc::pthread_barrier_wait(b)
    })
}

/// # Safety
/// As `sem_wait`.
#[no_mangle]
pub unsafe extern "C" fn __wrap_sem_wait(s: *mut libc::sem_t) -> c_int {
    let rc = parked_on(s as usize, || libc::sem_wait(s));
    if rc == 0 {
        acquire((s as usize, 0));
    }
    rc
}

/// # Safety
/// As `sem_post`.
#[no_mangle]
pub unsafe extern "C" fn __wrap_sem_post(s: *mut libc::sem_t) -> c_int {
    release((s as usize, 0));
    wake(s as usize);
    libc::sem_post(s)
}

// OpenMP, as GCC's libgomp runs it.

type Body = extern "C" fn(*mut c_void);

/// A parallel region: the body, the encountering thread's clock, and the
/// clocks its threads end with.
struct Region {
    body: Body,
    data: *mut c_void,
    fork: Clock,
    end: Mutex<Clock>,
    /// How many threads of the team have started.
    arrived: AtomicUsize,
    /// Under `MPI_THREAD_MULTIPLE`, the gate's numbers of the team's
    /// slots but the first, and which of them a thread ran.
    slots: Vec<u32>,
    ran: Mutex<Vec<bool>>,
    /// How many of the team's other slots run their part now.
    running: AtomicUsize,
}

extern "C" fn in_region(p: *mut c_void) {
    // SAFETY: `p` is the Region `fork_join` made, alive until the real
    // call returns, after every thread of the team has run this.
    let r = unsafe { &*p.cast::<Region>() };
    after(&r.fork);
    // Once the whole team has started, no thread is still to start from
    // the region's clock.
    let team = real_fn!("omp_get_num_threads" as extern "C" fn() -> c_int)();
    if r.arrived.fetch_add(1, Ordering::AcqRel) + 1 >= team.max(1) as usize {
        started(p as usize);
    }
    with_me(|me| me.regions.push((p as usize, 0)));
    tasks::region_entered(p as usize);
    let k = real_fn!("omp_get_thread_num" as extern "C" fn() -> c_int)().max(0) as usize;
    let slot = k.checked_sub(1).and_then(|i| r.slots.get(i).copied());
    let outer = slot.map(|s| run_slot(Some(s)));
    if slot.is_some() {
        r.ran.lock().unwrap_or_else(|e| e.into_inner())[k - 1] = true;
        r.running.fetch_add(1, Ordering::AcqRel);
    }
    (r.body)(r.data);
    match (slot, outer) {
        (Some(s), Some(outer)) => {
            let last = r.running.fetch_sub(1, Ordering::AcqRel) == 1;
            slot_ended(s, p as usize, last);
            run_slot(outer);
        }
        _ if k == 0 && !r.slots.is_empty() => team_waits(p as usize),
        _ => {}
    }
    tasks::region_left();
    with_me(|me| me.regions.pop());
    let last = fork();
    join(&mut r.end.lock().unwrap_or_else(|e| e.into_inner()), &last);
}

/// Runs a parallel region through `run` (the real entry point, given the
/// wrapped body and its data): the team starts from the encountering
/// thread's clock, which continues from all of theirs.
fn fork_join(body: Body, data: *mut c_void, threads: c_uint, run: impl FnOnce(Body, *mut c_void)) {
    let fork = fork();
    let team = if threads == 0 {
        real_fn!("omp_get_max_threads" as extern "C" fn() -> c_int)().max(1) as usize
    } else {
        threads as usize
    };
    let slots = announce_team(team);
    let region = Region {
        body,
        data,
        fork,
        end: Mutex::new(Clock::new()),
        arrived: AtomicUsize::new(0),
        ran: Mutex::new(vec![false; slots.len()]),
        running: AtomicUsize::new(0),
        slots,
    };
    let key = &region as *const Region as usize;
    pending(key, &region.fork);
    run(in_region, (&region as *const Region).cast_mut().cast());
    started(key);
    // The slots no thread ran (a smaller team) end too; the encountering
    // thread goes on after all of them.
    let ran = region.ran.lock().unwrap_or_else(|e| e.into_inner()).clone();
    for (slot, ran) in region.slots.iter().zip(ran) {
        if !ran {
            slot_ended(*slot, key, false);
        }
    }
    team_done(key);
    team_joined(&region.slots);
    let end = region.end.into_inner().unwrap_or_else(|e| e.into_inner());
    after(&end);
    tasks::region_ended(key);
    // The region's own barriers are done with.
    forget(key);
}

/// # Safety
/// As libgomp's `GOMP_parallel`.
#[no_mangle]
pub unsafe extern "C" fn __wrap_GOMP_parallel(
    body: Body,
    data: *mut c_void,
    threads: c_uint,
    flags: c_uint,
) {
    let f = real_fn!("GOMP_parallel" as extern "C" fn(Body, *mut c_void, c_uint, c_uint));
    fork_join(body, data, threads, |b, d| f(b, d, threads, flags));
}

macro_rules! parallel_loop {
    ($wrap:ident, $name:literal) => {
        /// # Safety
        /// As libgomp's function of this name without `__wrap_`.
        #[no_mangle]
        pub unsafe extern "C" fn $wrap(
            body: Body,
            data: *mut c_void,
            threads: c_uint,
            start: libc::c_long,
            end: libc::c_long,
            incr: libc::c_long,
            chunk: libc::c_long,
            flags: c_uint,
        ) {
            let f = real_fn!(
                $name
                    as extern "C" fn(
                        Body,
                        *mut c_void,
                        c_uint,
                        libc::c_long,
                        libc::c_long,
                        libc::c_long,
                        libc::c_long,
                        c_uint,
                    )
            );
            fork_join(body, data, threads, |b, d| {
                f(b, d, threads, start, end, incr, chunk, flags)
            });
        }
    };
}

parallel_loop!(
    __wrap_GOMP_parallel_loop_static,
    "GOMP_parallel_loop_static"
);
parallel_loop!(
    __wrap_GOMP_parallel_loop_dynamic,
    "GOMP_parallel_loop_dynamic"
);
parallel_loop!(
    __wrap_GOMP_parallel_loop_guided,
    "GOMP_parallel_loop_guided"
);
parallel_loop!(
    __wrap_GOMP_parallel_loop_runtime,
    "GOMP_parallel_loop_runtime"
);

/// # Safety
/// As libgomp's `GOMP_parallel_sections`.
#[no_mangle]
pub unsafe extern "C" fn __wrap_GOMP_parallel_sections(
    body: Body,
    data: *mut c_void,
    threads: c_uint,
    count: c_uint,
    flags: c_uint,
) {
    let f = real_fn!(
        "GOMP_parallel_sections" as extern "C" fn(Body, *mut c_void, c_uint, c_uint, c_uint)
    );
    fork_join(body, data, threads, |b, d| f(b, d, threads, count, flags));
}

/// An OpenMP barrier of the calling thread's innermost region (outside
/// any region, the real call alone).
fn omp_barrier(wait: impl FnOnce()) {
    let at = with_me(|me| {
        me.regions.last_mut().map(|(region, generation)| {
            *generation += 1;
            (*region, *generation)
        })
    });
    match at {
        Some((region, generation)) => {
            barrier(region, generation, Some(team()), || {
                wait();
                0
            });
            tasks::barrier_passed(region);
        }
        None => wait(),
    }
}

/// # Safety
/// As libgomp's `GOMP_barrier`.
#[no_mangle]
pub unsafe extern "C" fn __wrap_GOMP_barrier() {
    let f = real_fn!("GOMP_barrier" as extern "C" fn());
    omp_barrier(|| f());
}

/// # Safety
/// As libgomp's `GOMP_loop_end` (the barrier ending a work-sharing loop).
#[no_mangle]
pub unsafe extern "C" fn __wrap_GOMP_loop_end() {
    let f = real_fn!("GOMP_loop_end" as extern "C" fn());
    omp_barrier(|| f());
}

/// # Safety
/// As libgomp's `GOMP_sections_end`.
#[no_mangle]
pub unsafe extern "C" fn __wrap_GOMP_sections_end() {
    let f = real_fn!("GOMP_sections_end" as extern "C" fn());
    omp_barrier(|| f());
}

/// # Safety
/// As libgomp's `GOMP_critical_start`.
#[no_mangle]
pub unsafe extern "C" fn __wrap_GOMP_critical_start() {
    real_fn!("GOMP_critical_start" as extern "C" fn())();
    acquire((CRITICAL, 0));
}

/// # Safety
/// As libgomp's `GOMP_critical_end`.
#[no_mangle]
pub unsafe extern "C" fn __wrap_GOMP_critical_end() {
    release((CRITICAL, 0));
    real_fn!("GOMP_critical_end" as extern "C" fn())();
}

/// # Safety
/// As libgomp's `GOMP_critical_name_start`.
#[no_mangle]
pub unsafe extern "C" fn __wrap_GOMP_critical_name_start(name: *mut *mut c_void) {
    real_fn!("GOMP_critical_name_start" as extern "C" fn(*mut *mut c_void))(name);
    acquire((name as usize, 0));
}

/// # Safety
/// As libgomp's `GOMP_critical_name_end`.
#[no_mangle]
pub unsafe extern "C" fn __wrap_GOMP_critical_name_end(name: *mut *mut c_void) {
    release((name as usize, 0));
    real_fn!("GOMP_critical_name_end" as extern "C" fn(*mut *mut c_void))(name);
}

/// # Safety
/// As libgomp's `GOMP_atomic_start`.
#[no_mangle]
pub unsafe extern "C" fn __wrap_GOMP_atomic_start() {
    real_fn!("GOMP_atomic_start" as extern "C" fn())();
    acquire((ATOMIC, 0));
}

/// # Safety
/// As libgomp's `GOMP_atomic_end`.
#[no_mangle]
pub unsafe extern "C" fn __wrap_GOMP_atomic_end() {
    release((ATOMIC, 0));
    real_fn!("GOMP_atomic_end" as extern "C" fn())();
}

/// The object the `ordered` sections of the calling thread's innermost
/// region pass on, one to the next in the loop's order (none outside a
/// region).
fn ordered() -> Option<(usize, u64)> {
    with_me(|me| me.regions.last().map(|&(region, _)| (region, ORDERED)))
}

/// # Safety
/// As libgomp's `GOMP_ordered_start`.
#[no_mangle]
pub unsafe extern "C" fn __wrap_GOMP_ordered_start() {
    real_fn!("GOMP_ordered_start" as extern "C" fn())();
    if let Some(key) = ordered() {
        acquire(key);
    }
}

/// # Safety
/// As libgomp's `GOMP_ordered_end`.
#[no_mangle]
pub unsafe extern "C" fn __wrap_GOMP_ordered_end() {
    if let Some(key) = ordered() {
        release(key);
    }
    real_fn!("GOMP_ordered_end" as extern "C" fn())();
}

macro_rules! omp_lock {
    ($set:ident, $set_name:literal, $unset:ident, $unset_name:literal) => {
        /// # Safety
        /// As the OpenMP function of this name without `__wrap_`.
        #[no_mangle]
        pub unsafe extern "C" fn $set(lock: *mut c_void) {
            real_fn!($set_name as extern "C" fn(*mut c_void))(lock);
            acquire((lock as usize, 0));
        }

        /// # Safety
        /// As the OpenMP function of this name without `__wrap_`.
        #[no_mangle]
        pub unsafe extern "C" fn $unset(lock: *mut c_void) {
            release((lock as usize, 0));
            real_fn!($unset_name as extern "C" fn(*mut c_void))(lock);
        }
    };
}

omp_lock!(
    __wrap_omp_set_lock,
    "omp_set_lock",
    __wrap_omp_unset_lock,
    "omp_unset_lock"
);
omp_lock!(
    __wrap_omp_set_nest_lock,
    "omp_set_nest_lock",
    __wrap_omp_unset_nest_lock,
    "omp_unset_nest_lock"
);
