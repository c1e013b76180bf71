//! The program's loads and stores, and the memory MPI owns.
//!
//! A program that needs memory checking is compiled by the driver with
//! the compiler's ThreadSanitizer instrumentation pass
//! (`-fsanitize=thread`) but linked without its runtime: the hooks the
//! pass calls (`__tsan_read4`, `__tsan_write_range`, `__tsan_atomic32_load`,
//! ...) are defined here, and so are `__wrap_memcpy`, `__wrap_memmove`
//! and `__wrap_memset`, which the driver's link (`--wrap`) puts in place of
//! the program's own calls to libc's copies. `__tsan_init`, which every
//! instrumented object calls from a constructor, turns the table on.
//!
//! The table holds the byte ranges MPI owns: the buffers of the pending
//! nonblocking and started persistent operations, from the call that
//! starts them until the completion that hands them back ([`own`],
//! [`release`]), each with whether MPI only reads it (a send) or may
//! write it. A load or store of the program into an owned range that
//! conflicts (a store, or any access to memory MPI writes) is recorded
//! once per (access site, owning call's site), and so is a new
//! operation's buffer that conflicts with a pending one's; the records
//! go to the scheduler as [`Up::Owned`] at the rank's next MPI call.
//! [`watch`] and [`unwatch`] name other ranges (a window's memory) whose
//! accesses are recorded as coalesced offset ranges per (tag, site, kind)
//! and sent as [`Up::Watched`] the same way. A buffer handed to MPI that
//! lies in watched memory is named by [`own`]'s answer, [`Up::Lent`] per
//! (tag, read or written), which the caller sends just before its call.
//!
//! When nothing is owned or watched, a hook returns after one relaxed
//! atomic load. Accesses made while the thread is inside the library (a
//! user reduction operation that MPI calls, say) are MPI's own and are not
//! checked. The table is bounded: at most [`MAX_PAIRS`] pairs are recorded,
//! and a watched site's ranges are merged down to [`MAX_RANGES`].
//!
//! This module uses only `site` (to place an access by its return address).

use std::cell::Cell;
use std::collections::BTreeMap;
use std::os::raw::{c_int, c_void};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use fib_wire::{Access, Site, Up};

use crate::site;

/// How many (access, owner) pairs a rank records at most.
pub const MAX_PAIRS: usize = 4096;
/// How many ranges one (tag, site, kind) of watched accesses keeps at most
/// between two MPI calls; beyond, the closest ones are merged.
pub const MAX_RANGES: usize = 64;

/// Set by `__tsan_init`: the program reports its loads and stores.
static INSTRUMENTED: AtomicBool = AtomicBool::new(false);
/// Whether a range is owned or watched: the hooks' fast path.
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// The lowest address and the end of the highest range owned or watched.
static LO: AtomicUsize = AtomicUsize::new(usize::MAX);
static HI: AtomicUsize = AtomicUsize::new(0);
/// Whether records wait to be sent.
static PENDING: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// How deep this thread is inside the library.
    static INSIDE: Cell<u32> = const { Cell::new(0) };
}

/// The thread enters the library: its accesses are MPI's until [`leave`].
pub fn enter() {
    INSIDE.with(|c| c.set(c.get() + 1));
}

/// The thread leaves the library.
pub fn leave() {
    INSIDE.with(|c| c.set(c.get().saturating_sub(1)));
}

/// Whether the program was compiled to report its accesses.
pub fn instrumented() -> bool {
    INSTRUMENTED.load(Ordering::Relaxed)
}

/// One buffer of a pending operation.
struct Span {
    id: u32,
    lo: usize,
    hi: usize,
    /// MPI may write it (else it only reads it).
    writes: bool,
    call: &'static str,
    site: Site,
}

/// A watched range.
struct Watch {
    tag: u64,
    lo: usize,
    hi: usize,
    /// The address offsets are counted from: `lo`, or 0 for memory
    /// attached to a dynamic window, whose displacements are addresses.
    zero: usize,
}

/// A record waiting for the rank's next MPI call.
enum Rec {
    /// A program access, placed by its return address once sent.
    Access {
        ip: usize,
        store: bool,
        size: u64,
        offset: u64,
        owner: Site,
        call: &'static str,
    },
    /// A message ready to go.
    Ready(Up),
}

#[derive(Default)]
struct Mem {
    owned: Vec<Span>,
    watches: Vec<Watch>,
    /// (access return address or new call's site words, owner site) pairs
    /// recorded.
    pairs: HashSet<(u64, Site)>,
    recs: Vec<Rec>,
    /// Watched accesses: (tag, return address, store) to offset ranges.
    watched: HashMap<(u64, usize, bool), Vec<(u64, u64)>>,
}

static MEM: Mutex<Option<Mem>> = Mutex::new(None);

fn mem() -> MutexGuard<'static, Option<Mem>> {
    MEM.lock().unwrap_or_else(|e| e.into_inner())
}

impl Mem {
    /// Recomputes the fast path's flag and bounds.
    fn publish(&self) {
        let lo = self
            .owned
            .iter()
            .map(|s| s.lo)
            .chain(self.watches.iter().map(|w| w.lo))
            .min();
        let hi = self
            .owned
            .iter()
            .map(|s| s.hi)
            .chain(self.watches.iter().map(|w| w.hi))
            .max();
        LO.store(lo.unwrap_or(usize::MAX), Ordering::Relaxed);
        HI.store(hi.unwrap_or(0), Ordering::Relaxed);
        ACTIVE.store(
            instrumented() && (!self.owned.is_empty() || !self.watches.is_empty()),
            Ordering::Release,
        );
    }

    /// Records a pair once; false when it was recorded before or the table
    /// is full.
    fn first(&mut self, key: (u64, Site)) -> bool {
        self.pairs.len() < MAX_PAIRS && self.pairs.insert(key)
    }
}

/// A buffer handed to MPI: `len` bytes at `addr`, which MPI writes (else
/// only reads).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Buf {
    pub addr: usize,
    pub len: usize,
    pub writes: bool,
}

/// MPI owns `bufs` for the operation `id`, made by `call` at `site`, until
/// [`release`]; with no `id` (a blocking call), only while the call runs.
/// A buffer that conflicts with a pending operation's (one of them written
/// by MPI) is recorded against it. Returns, for the bytes of `bufs` that
/// lie in watched memory, one [`Up::Lent`] per (tag, written or read): a
/// message or collective call sends them just before its [`Up::Op`], so
/// that their place in the rank's program order is that call's (a
/// one-sided call's origin buffers are its own accesses, and it drops
/// them).
pub fn own(id: Option<u32>, call: &'static str, site: Site, bufs: &[Buf]) -> Vec<Up> {
    if !instrumented() || bufs.iter().all(|b| b.len == 0) {
        return Vec::new();
    }
    let mut g = mem();
    let m = g.get_or_insert_with(Mem::default);
    let lent = lent(&m.watches, bufs);
    let (file, line) = site.to_raw();
    let key = u64::from(file) << 32 | u64::from(line);
    for b in bufs.iter().filter(|b| b.len > 0) {
        let (lo, hi) = (b.addr, b.addr + b.len);
        let clashes: Vec<(u64, u64, Site, &'static str)> = m
            .owned
            .iter()
            .filter(|s| Some(s.id) != id && s.lo < hi && lo < s.hi && (b.writes || s.writes))
            .map(|s| {
                let start = lo.max(s.lo);
                let end = hi.min(s.hi);
                ((start - s.lo) as u64, (end - start) as u64, s.site, s.call)
            })
            .collect();
        for (offset, size, owner, owner_call) in clashes {
            if m.first((key, owner)) {
                m.recs.push(Rec::Ready(Up::Owned {
                    site,
                    access: Access::Call {
                        name: call.to_string(),
                        writes: b.writes,
                    },
                    size,
                    offset,
                    owner,
                    call: owner_call.to_string(),
                }));
                PENDING.store(true, Ordering::Relaxed);
            }
        }
        let Some(id) = id else {
            continue;
        };
        m.owned.push(Span {
            id,
            lo,
            hi,
            writes: b.writes,
            call,
            site,
        });
    }
    m.publish();
    lent
}

/// The bytes of `bufs` in the ranges `watches` names, as offsets the way
/// [`Up::Watched`] gives them: one [`Up::Lent`] per (tag, written or read),
/// in that order.
fn lent(watches: &[Watch], bufs: &[Buf]) -> Vec<Up> {
    if watches.is_empty() {
        return Vec::new();
    }
    let mut found: BTreeMap<(u64, bool), Vec<(u64, u64)>> = BTreeMap::new();
    for b in bufs.iter().filter(|b| b.len > 0) {
        let (lo, hi) = (b.addr, b.addr.saturating_add(b.len));
        for w in watches.iter().filter(|w| w.lo < hi && lo < w.hi) {
            let a = (lo.max(w.lo) - w.zero) as u64;
            let z = (hi.min(w.hi) - w.zero) as u64;
            add_range(found.entry((w.tag, b.writes)).or_default(), a, z);
        }
    }
    found
        .into_iter()
        .map(|((tag, writes), ranges)| Up::Lent {
            tag,
            writes,
            ranges,
        })
        .collect()
}

/// The operation `id` has completed: MPI hands its buffers back.
pub fn release(id: u32) {
    if !ACTIVE.load(Ordering::Relaxed) {
        return;
    }
    let mut g = mem();
    if let Some(m) = g.as_mut() {
        m.owned.retain(|s| s.id != id);
        m.publish();
    }
}

/// Watches `len` bytes at `base` under `tag`: the program's accesses to
/// them are recorded (see the module's documentation) until [`unwatch`].
pub fn watch(base: usize, len: usize, tag: u64) {
    watch_from(base, len, tag, base);
}

/// Like [`watch`], with the offsets of the records counted from `zero`
/// instead of `base` (0 for the memory attached to a dynamic window).
pub fn watch_from(base: usize, len: usize, tag: u64, zero: usize) {
    if !instrumented() || len == 0 {
        return;
    }
    let mut g = mem();
    let m = g.get_or_insert_with(Mem::default);
    m.watches.push(Watch {
        tag,
        lo: base,
        hi: base + len,
        zero,
    });
    m.publish();
}

/// The tag of the sentinel: memory whose first load by the program is all
/// that is wanted of it ([`sentinel`]).
const SENTINEL_TAG: u64 = u64::MAX;
/// Whether the program has loaded the sentinel since [`sentinel`].
static SENTINEL_READ: AtomicBool = AtomicBool::new(false);

/// Watches `len` bytes at `base` for a load by the program (the level
/// `MPI_Init_thread` wrote, say); [`sentinel_read`] tells whether one came.
/// Returns false when the program does not report its accesses: nothing
/// would come.
pub fn sentinel(base: usize, len: usize) -> bool {
    if !instrumented() || len == 0 {
        return false;
    }
    SENTINEL_READ.store(false, Ordering::Relaxed);
    unwatch(SENTINEL_TAG);
    watch(base, len, SENTINEL_TAG);
    true
}

/// Whether the program loaded the sentinel's memory; once it has, the
/// memory is no longer watched.
pub fn sentinel_read() -> bool {
    let read = SENTINEL_READ.load(Ordering::Relaxed);
    if read {
        unwatch(SENTINEL_TAG);
    }
    read
}

/// Stops watching the ranges watched under `tag`.
pub fn unwatch(tag: u64) {
    let mut g = mem();
    if let Some(m) = g.as_mut() {
        m.watches.retain(|w| w.tag != tag);
        m.publish();
    }
}

/// Stops watching the range at `base` watched under `tag`.
pub fn unwatch_at(tag: u64, base: usize) {
    let mut g = mem();
    if let Some(m) = g.as_mut() {
        m.watches.retain(|w| w.tag != tag || w.lo != base);
        m.publish();
    }
}

/// The records waiting to be sent, as messages (only from the thread that
/// holds the state: return addresses are placed then).
pub fn take() -> Vec<Up> {
    if !PENDING.swap(false, Ordering::Relaxed) {
        return Vec::new();
    }
    let (recs, watched) = {
        let mut g = mem();
        let Some(m) = g.as_mut() else {
            return Vec::new();
        };
        (std::mem::take(&mut m.recs), std::mem::take(&mut m.watched))
    };
    let place = |ip: usize| site::of_ip(ip).unwrap_or_default();
    let mut out: Vec<Up> = recs
        .into_iter()
        .map(|r| match r {
            Rec::Ready(m) => m,
            Rec::Access {
                ip,
                store,
                size,
                offset,
                owner,
                call,
            } => Up::Owned {
                site: place(ip),
                access: if store { Access::Store } else { Access::Load },
                size,
                offset,
                owner,
                call: call.to_string(),
            },
        })
        .collect();
    let mut watched: Vec<_> = watched.into_iter().collect();
    watched.sort_by_key(|(k, _)| *k);
    for ((tag, ip, store), ranges) in watched {
        out.push(Up::Watched {
            tag,
            site: place(ip),
            store,
            ranges,
        });
    }
    out
}

/// Adds `[a, b)` to sorted, disjoint ranges, merging what touches it; keeps
/// at most [`MAX_RANGES`] by merging the closest neighbours.
fn add_range(v: &mut Vec<(u64, u64)>, a: u64, b: u64) {
    let i = v.partition_point(|r| r.1 < a);
    let mut j = i;
    let (mut lo, mut hi) = (a, b);
    while j < v.len() && v[j].0 <= hi {
        lo = lo.min(v[j].0);
        hi = hi.max(v[j].1);
        j += 1;
    }
    v.splice(i..j, [(lo, hi)]);
    while v.len() > MAX_RANGES {
        let k = (0..v.len() - 1)
            .min_by_key(|&k| v[k + 1].0 - v[k].1)
            .unwrap_or(0);
        v[k].1 = v[k + 1].1;
        v.remove(k + 1);
    }
}

/// An access of `size` bytes at `addr` (`store`); `ip` is its return
/// address if known.
#[inline(always)]
fn check(addr: usize, size: usize, store: bool) {
    if ACTIVE.load(Ordering::Relaxed) {
        slow(addr, size, store);
    }
}

#[cold]
#[inline(never)]
fn slow(addr: usize, size: usize, store: bool) {
    let end = addr.saturating_add(size);
    if end <= LO.load(Ordering::Relaxed) || addr >= HI.load(Ordering::Relaxed) || size == 0 {
        return;
    }
    if INSIDE.with(|c| c.get()) > 0 {
        return;
    }
    let mut g = mem();
    let Some(m) = g.as_mut() else {
        return;
    };
    let mut ip = None;
    let mut at = || *ip.get_or_insert_with(|| site::program_ip().unwrap_or(0));
    let hits: Vec<(u64, u64, Site, &'static str)> = m
        .owned
        .iter()
        .filter(|s| s.lo < end && addr < s.hi && (store || s.writes))
        .map(|s| {
            let start = addr.max(s.lo);
            (
                (start - s.lo) as u64,
                (end.min(s.hi) - start) as u64,
                s.site,
                s.call,
            )
        })
        .collect();
    for (offset, size, owner, call) in hits {
        let ip = at();
        if m.first((ip as u64, owner)) {
            m.recs.push(Rec::Access {
                ip,
                store,
                size,
                offset,
                owner,
                call,
            });
            PENDING.store(true, Ordering::Relaxed);
        }
    }
    let touched: Vec<(u64, u64, u64)> = m
        .watches
        .iter()
        .filter(|w| w.lo < end && addr < w.hi)
        .map(|w| {
            (
                w.tag,
                (addr.max(w.lo) - w.zero) as u64,
                (end.min(w.hi) - w.zero) as u64,
            )
        })
        .collect();
    for (tag, a, b) in touched {
        if tag == SENTINEL_TAG {
            if !store {
                SENTINEL_READ.store(true, Ordering::Relaxed);
            }
            continue;
        }
        let ip = at();
        add_range(m.watched.entry((tag, ip, store)).or_default(), a, b);
        PENDING.store(true, Ordering::Relaxed);
    }
}

// The hooks of the instrumentation pass. Their names and signatures are
// the compiler's; their safety contract is that the pass calls them as it
// does.

#[no_mangle]
pub extern "C" fn __tsan_init() {
    INSTRUMENTED.store(true, Ordering::Relaxed);
}

#[no_mangle]
pub extern "C" fn __tsan_func_entry(_pc: *mut c_void) {}

#[no_mangle]
pub extern "C" fn __tsan_func_exit() {}

#[no_mangle]
pub extern "C" fn __tsan_ignore_thread_begin() {}

#[no_mangle]
pub extern "C" fn __tsan_ignore_thread_end() {}

macro_rules! plain_hooks {
    ($($name:ident $size:literal $store:literal),* $(,)?) => {$(
        #[no_mangle]
        pub extern "C" fn $name(addr: *mut c_void) {
            check(addr as usize, $size, $store);
        }
    )*};
}

plain_hooks! {
    __tsan_read1 1 false, __tsan_read2 2 false, __tsan_read4 4 false,
    __tsan_read8 8 false, __tsan_read16 16 false,
    __tsan_write1 1 true, __tsan_write2 2 true, __tsan_write4 4 true,
    __tsan_write8 8 true, __tsan_write16 16 true,
    __tsan_unaligned_read2 2 false, __tsan_unaligned_read4 4 false,
    __tsan_unaligned_read8 8 false, __tsan_unaligned_read16 16 false,
    __tsan_unaligned_write2 2 true, __tsan_unaligned_write4 4 true,
    __tsan_unaligned_write8 8 true, __tsan_unaligned_write16 16 true,
    __tsan_volatile_read1 1 false, __tsan_volatile_read2 2 false,
    __tsan_volatile_read4 4 false, __tsan_volatile_read8 8 false,
    __tsan_volatile_read16 16 false,
    __tsan_volatile_write1 1 true, __tsan_volatile_write2 2 true,
    __tsan_volatile_write4 4 true, __tsan_volatile_write8 8 true,
    __tsan_volatile_write16 16 true,
    __tsan_vptr_read 8 false,
}

macro_rules! pc_hooks {
    ($($name:ident $size:literal $store:literal),* $(,)?) => {$(
        #[no_mangle]
        pub extern "C" fn $name(addr: *mut c_void, _pc: *mut c_void) {
            check(addr as usize, $size, $store);
        }
    )*};
}

pc_hooks! {
    __tsan_read1_pc 1 false, __tsan_read2_pc 2 false, __tsan_read4_pc 4 false,
    __tsan_read8_pc 8 false, __tsan_read16_pc 16 false,
    __tsan_write1_pc 1 true, __tsan_write2_pc 2 true, __tsan_write4_pc 4 true,
    __tsan_write8_pc 8 true, __tsan_write16_pc 16 true,
}

#[no_mangle]
pub extern "C" fn __tsan_vptr_update(addr: *mut c_void, _new: *mut c_void) {
    check(addr as usize, 8, true);
}

#[no_mangle]
pub extern "C" fn __tsan_read_range(addr: *mut c_void, size: usize) {
    check(addr as usize, size, false);
}

#[no_mangle]
pub extern "C" fn __tsan_write_range(addr: *mut c_void, size: usize) {
    check(addr as usize, size, true);
}

#[no_mangle]
pub unsafe extern "C" fn __wrap_memcpy(d: *mut c_void, s: *const c_void, n: usize) -> *mut c_void {
    check(s as usize, n, false);
    check(d as usize, n, true);
    libc::memcpy(d, s, n)
}

#[no_mangle]
pub unsafe extern "C" fn __wrap_memmove(d: *mut c_void, s: *const c_void, n: usize) -> *mut c_void {
    check(s as usize, n, false);
    check(d as usize, n, true);
    libc::memmove(d, s, n)
}

#[no_mangle]
pub unsafe extern "C" fn __wrap_memset(d: *mut c_void, c: c_int, n: usize) -> *mut c_void {
    check(d as usize, n, true);
    libc::memset(d, c, n)
}

/// The memory order of a hook's `mo` argument (C11's numbering; bits
/// above the low byte are hints the pass may add).
fn order(mo: c_int) -> Ordering {
    match mo & 0xff {
        0 => Ordering::Relaxed,
        1 | 2 => Ordering::Acquire,
        3 => Ordering::Release,
        4 => Ordering::AcqRel,
        _ => Ordering::SeqCst,
    }
}

fn load_order(mo: c_int) -> Ordering {
    match order(mo) {
        Ordering::Release => Ordering::Relaxed,
        Ordering::AcqRel => Ordering::Acquire,
        o => o,
    }
}

fn store_order(mo: c_int) -> Ordering {
    match order(mo) {
        Ordering::Acquire => Ordering::Relaxed,
        Ordering::AcqRel => Ordering::Release,
        o => o,
    }
}

#[no_mangle]
pub extern "C" fn __tsan_atomic_thread_fence(mo: c_int) {
    std::sync::atomic::fence(match order(mo) {
        Ordering::Relaxed => return,
        o => o,
    });
}

#[no_mangle]
pub extern "C" fn __tsan_atomic_signal_fence(mo: c_int) {
    std::sync::atomic::compiler_fence(match order(mo) {
        Ordering::Relaxed => return,
        o => o,
    });
}

macro_rules! atomic_hooks {
    ($t:ty, $atomic:ty, $size:literal,
     $load:ident, $store:ident, $xchg:ident, $add:ident, $sub:ident, $and:ident,
     $or:ident, $xor:ident, $nand:ident, $strong:ident, $weak:ident, $val:ident) => {
        #[no_mangle]
        pub unsafe extern "C" fn $load(a: *mut $t, mo: c_int) -> $t {
            check(a as usize, $size, false);
            <$atomic>::from_ptr(a).load(load_order(mo))
        }
        #[no_mangle]
        pub unsafe extern "C" fn $store(a: *mut $t, v: $t, mo: c_int) {
            check(a as usize, $size, true);
            <$atomic>::from_ptr(a).store(v, store_order(mo))
        }
        #[no_mangle]
        pub unsafe extern "C" fn $xchg(a: *mut $t, v: $t, mo: c_int) -> $t {
            check(a as usize, $size, true);
            <$atomic>::from_ptr(a).swap(v, order(mo))
        }
        #[no_mangle]
        pub unsafe extern "C" fn $add(a: *mut $t, v: $t, mo: c_int) -> $t {
            check(a as usize, $size, true);
            <$atomic>::from_ptr(a).fetch_add(v, order(mo))
        }
        #[no_mangle]
        pub unsafe extern "C" fn $sub(a: *mut $t, v: $t, mo: c_int) -> $t {
            check(a as usize, $size, true);
            <$atomic>::from_ptr(a).fetch_sub(v, order(mo))
        }
        #[no_mangle]
        pub unsafe extern "C" fn $and(a: *mut $t, v: $t, mo: c_int) -> $t {
            check(a as usize, $size, true);
            <$atomic>::from_ptr(a).fetch_and(v, order(mo))
        }
        #[no_mangle]
        pub unsafe extern "C" fn $or(a: *mut $t, v: $t, mo: c_int) -> $t {
            check(a as usize, $size, true);
            <$atomic>::from_ptr(a).fetch_or(v, order(mo))
        }
        #[no_mangle]
        pub unsafe extern "C" fn $xor(a: *mut $t, v: $t, mo: c_int) -> $t {
            check(a as usize, $size, true);
            <$atomic>::from_ptr(a).fetch_xor(v, order(mo))
        }
        #[no_mangle]
        pub unsafe extern "C" fn $nand(a: *mut $t, v: $t, mo: c_int) -> $t {
            check(a as usize, $size, true);
            <$atomic>::from_ptr(a).fetch_nand(v, order(mo))
        }
        #[no_mangle]
        pub unsafe extern "C" fn $strong(
            a: *mut $t,
            c: *mut $t,
            v: $t,
            mo: c_int,
            fmo: c_int,
        ) -> c_int {
            check(a as usize, $size, true);
            match <$atomic>::from_ptr(a).compare_exchange(*c, v, order(mo), load_order(fmo)) {
                Ok(_) => 1,
                Err(now) => {
                    *c = now;
                    0
                }
            }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $weak(
            a: *mut $t,
            c: *mut $t,
            v: $t,
            mo: c_int,
            fmo: c_int,
        ) -> c_int {
            $strong(a, c, v, mo, fmo)
        }
        #[no_mangle]
        pub unsafe extern "C" fn $val(a: *mut $t, c: $t, v: $t, mo: c_int, fmo: c_int) -> $t {
            check(a as usize, $size, true);
            match <$atomic>::from_ptr(a).compare_exchange(c, v, order(mo), load_order(fmo)) {
                Ok(old) | Err(old) => old,
            }
        }
    };
}

use std::sync::atomic::{AtomicI16, AtomicI32, AtomicI64, AtomicI8};

atomic_hooks!(
    i8,
    AtomicI8,
    1,
    __tsan_atomic8_load,
    __tsan_atomic8_store,
    __tsan_atomic8_exchange,
    __tsan_atomic8_fetch_add,
    __tsan_atomic8_fetch_sub,
    __tsan_atomic8_fetch_and,
    __tsan_atomic8_fetch_or,
    __tsan_atomic8_fetch_xor,
    __tsan_atomic8_fetch_nand,
    __tsan_atomic8_compare_exchange_strong,
    __tsan_atomic8_compare_exchange_weak,
    __tsan_atomic8_compare_exchange_val
);
atomic_hooks!(
    i16,
    AtomicI16,
    2,
    __tsan_atomic16_load,
    __tsan_atomic16_store,
    __tsan_atomic16_exchange,
    __tsan_atomic16_fetch_add,
    __tsan_atomic16_fetch_sub,
    __tsan_atomic16_fetch_and,
    __tsan_atomic16_fetch_or,
    __tsan_atomic16_fetch_xor,
    __tsan_atomic16_fetch_nand,
    __tsan_atomic16_compare_exchange_strong,
    __tsan_atomic16_compare_exchange_weak,
    __tsan_atomic16_compare_exchange_val
);
atomic_hooks!(
    i32,
    AtomicI32,
    4,
    __tsan_atomic32_load,
    __tsan_atomic32_store,
    __tsan_atomic32_exchange,
    __tsan_atomic32_fetch_add,
    __tsan_atomic32_fetch_sub,
    __tsan_atomic32_fetch_and,
    __tsan_atomic32_fetch_or,
    __tsan_atomic32_fetch_xor,
    __tsan_atomic32_fetch_nand,
    __tsan_atomic32_compare_exchange_strong,
    __tsan_atomic32_compare_exchange_weak,
    __tsan_atomic32_compare_exchange_val
);
atomic_hooks!(
    i64,
    AtomicI64,
    8,
    __tsan_atomic64_load,
    __tsan_atomic64_store,
    __tsan_atomic64_exchange,
    __tsan_atomic64_fetch_add,
    __tsan_atomic64_fetch_sub,
    __tsan_atomic64_fetch_and,
    __tsan_atomic64_fetch_or,
    __tsan_atomic64_fetch_xor,
    __tsan_atomic64_fetch_nand,
    __tsan_atomic64_compare_exchange_strong,
    __tsan_atomic64_compare_exchange_weak,
    __tsan_atomic64_compare_exchange_val
);

/// 128-bit atomics: Rust has no stable 128-bit atomic type, so every
/// 128-bit atomic of the program goes through this lock (all of them are
/// instrumented calls, so they exclude each other).
static WIDE: Mutex<()> = Mutex::new(());

/// Runs `f` on the 128-bit value at `a` under [`WIDE`].
unsafe fn wide<R>(a: *mut i128, store: bool, f: impl FnOnce(&mut i128) -> R) -> R {
    check(a as usize, 16, store);
    let _g = WIDE.lock().unwrap_or_else(|e| e.into_inner());
    let mut v = std::ptr::read_volatile(a);
    let r = f(&mut v);
    if store {
        std::ptr::write_volatile(a, v);
    }
    r
}

#[no_mangle]
pub unsafe extern "C" fn __tsan_atomic128_load(a: *mut i128, _mo: c_int) -> i128 {
    wide(a, false, |v| *v)
}

#[no_mangle]
pub unsafe extern "C" fn __tsan_atomic128_store(a: *mut i128, x: i128, _mo: c_int) {
    wide(a, true, |v| *v = x)
}

macro_rules! wide_rmw {
    ($($name:ident $f:expr),* $(,)?) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $name(a: *mut i128, x: i128, _mo: c_int) -> i128 {
            wide(a, true, |v| {
                let old = *v;
                *v = $f(old, x);
                old
            })
        }
    )*};
}

wide_rmw! {
    __tsan_atomic128_exchange |_: i128, x: i128| x,
    __tsan_atomic128_fetch_add |o: i128, x: i128| o.wrapping_add(x),
    __tsan_atomic128_fetch_sub |o: i128, x: i128| o.wrapping_sub(x),
    __tsan_atomic128_fetch_and |o: i128, x: i128| o & x,
    __tsan_atomic128_fetch_or |o: i128, x: i128| o | x,
    __tsan_atomic128_fetch_xor |o: i128, x: i128| o ^ x,
    __tsan_atomic128_fetch_nand |o: i128, x: i128| !(o & x),
}

#[no_mangle]
pub unsafe extern "C" fn __tsan_atomic128_compare_exchange_strong(
    a: *mut i128,
    c: *mut i128,
    x: i128,
    _mo: c_int,
    _fmo: c_int,
) -> c_int {
    wide(a, true, |v| {
        if *v == *c {
            *v = x;
            1
        } else {
            *c = *v;
            0
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn __tsan_atomic128_compare_exchange_weak(
    a: *mut i128,
    c: *mut i128,
    x: i128,
    mo: c_int,
    fmo: c_int,
) -> c_int {
    __tsan_atomic128_compare_exchange_strong(a, c, x, mo, fmo)
}

#[no_mangle]
pub unsafe extern "C" fn __tsan_atomic128_compare_exchange_val(
    a: *mut i128,
    c: i128,
    x: i128,
    _mo: c_int,
    _fmo: c_int,
) -> i128 {
    wide(a, true, |v| {
        let old = *v;
        if old == c {
            *v = x;
        }
        old
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_coalesce_and_stay_bounded() {
        let mut v = Vec::new();
        add_range(&mut v, 8, 12);
        add_range(&mut v, 0, 4);
        add_range(&mut v, 4, 8);
        assert_eq!(v, [(0, 12)]);
        add_range(&mut v, 20, 24);
        add_range(&mut v, 10, 21);
        assert_eq!(v, [(0, 24)]);
        for i in 0..1000u64 {
            add_range(&mut v, 100 + 8 * i, 104 + 8 * i);
        }
        assert_eq!(v.len(), MAX_RANGES);
        assert_eq!(v[0], (0, 24));
        assert_eq!(v.last().unwrap().1, 104 + 8 * 999);
    }

    /// The interposition side of a watched window: accesses are recorded
    /// per (tag, site, kind) as coalesced offsets, sent at the next call,
    /// and nothing is recorded once unwatched or inside the library.
    #[test]
    fn watched_accesses_are_recorded_once_per_site_and_kind() {
        __tsan_init();
        let mut window = [0u64; 16];
        let base = window.as_mut_ptr() as usize;
        watch(base, 128, 7);
        for i in 0..4 {
            __tsan_write8((base + 8 * i) as *mut c_void);
        }
        __tsan_read4((base + 64) as *mut c_void);
        __tsan_read4((base + 200) as *mut c_void);
        enter();
        __tsan_write8((base + 120) as *mut c_void);
        leave();
        let got = take();
        let w: Vec<_> = got
            .iter()
            .filter_map(|m| match m {
                Up::Watched {
                    tag, store, ranges, ..
                } => Some((*tag, *store, ranges.clone())),
                _ => None,
            })
            .collect();
        assert!(w.contains(&(7, true, vec![(0, 32)])), "{w:?}");
        assert!(w.contains(&(7, false, vec![(64, 68)])), "{w:?}");
        assert_eq!(w.len(), 2, "{w:?}");
        unwatch(7);
        __tsan_write8(base as *mut c_void);
        assert!(take().is_empty());
        // Memory attached to a dynamic window: offsets are addresses, and
        // detaching one region leaves the others watched.
        watch_from(base, 64, 9, 0);
        watch_from(base + 64, 64, 9, 0);
        __tsan_write4((base + 4) as *mut c_void);
        let got = take();
        assert!(
            got.iter()
                .any(|m| matches!(m, Up::Watched { tag: 9, ranges, .. }
                if ranges == &vec![(base as u64 + 4, base as u64 + 8)])),
            "{got:?}"
        );
        unwatch_at(9, base);
        __tsan_write4((base + 4) as *mut c_void);
        assert!(take().is_empty());
        __tsan_write4((base + 68) as *mut c_void);
        assert_eq!(take().len(), 1);
        unwatch(9);
        // A buffer handed to MPI in watched memory is named for the call,
        // by tag and by whether MPI writes it; one outside is not.
        watch(base + 32, 64, 11);
        let lent = own(
            None,
            "MPI_Sendrecv",
            Site::Table(5),
            &[
                Buf {
                    addr: base + 24,
                    len: 16,
                    writes: false,
                },
                Buf {
                    addr: base + 88,
                    len: 16,
                    writes: true,
                },
                Buf {
                    addr: base + 100,
                    len: 8,
                    writes: true,
                },
            ],
        );
        assert_eq!(
            lent,
            vec![
                Up::Lent {
                    tag: 11,
                    writes: false,
                    ranges: vec![(0, 8)],
                },
                Up::Lent {
                    tag: 11,
                    writes: true,
                    ranges: vec![(56, 64)],
                },
            ]
        );
        unwatch(11);
        assert!(own(
            None,
            "MPI_Send",
            Site::Table(5),
            &[Buf {
                addr: base,
                len: 8,
                writes: false,
            }],
        )
        .is_empty());
        assert!(take().is_empty());
        // Owned buffers: a store into a send's buffer, once per pair.
        own(
            Some(1),
            "MPI_Isend",
            Site::Table(3),
            &[Buf {
                addr: base,
                len: 16,
                writes: false,
            }],
        );
        __tsan_read8(base as *mut c_void);
        assert!(take().is_empty());
        for _ in 0..3 {
            __tsan_write8((base + 8) as *mut c_void);
        }
        own(
            Some(2),
            "MPI_Irecv",
            Site::Table(4),
            &[Buf {
                addr: base + 8,
                len: 8,
                writes: true,
            }],
        );
        release(1);
        release(2);
        __tsan_write8(base as *mut c_void);
        let got = take();
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(matches!(
            &got[0],
            Up::Owned { access: Access::Store, size: 8, offset: 8, owner: Site::Table(3), call, .. } if call == "MPI_Isend"
        ));
        assert!(matches!(
            &got[1],
            Up::Owned {
                site: Site::Table(4),
                access: Access::Call { writes: true, .. },
                offset: 8,
                ..
            }
        ));
    }
}
