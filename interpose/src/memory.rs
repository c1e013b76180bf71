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

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::os::raw::{c_int, c_void};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use fib_wire::{Access, Site, Unordered, Up};

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

/// What a hook needs of its thread, in one thread-local (each lookup of
/// one costs a call in a shared library).
struct Local {
    /// How deep this thread is inside the library.
    inside: Cell<u32>,
    /// The value of this thread's own clock entry (the threads module
    /// sets it at each of the thread's steps).
    epoch: Cell<u32>,
    /// Per other thread that made calls, the latest of the rank's calls
    /// of that thread this thread has seen return (set with the epoch, and
    /// whenever the thread acquires).
    after: RefCell<Option<After>>,
    /// This thread's history, once it has one.
    mine: std::cell::OnceCell<Shared>,
}

thread_local! {
    static LOCAL: Local = const {
        Local {
            inside: Cell::new(0),
            epoch: Cell::new(0),
            after: RefCell::new(None),
            mine: std::cell::OnceCell::new(),
        }
    };
}

/// The thread enters the library: its accesses are MPI's until [`leave`].
pub fn enter() {
    LOCAL.with(|l| l.inside.set(l.inside.get() + 1));
}

/// The thread leaves the library.
pub fn leave() {
    LOCAL.with(|l| l.inside.set(l.inside.get().saturating_sub(1)));
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
    /// The point of the call that started it in the threads' order, while
    /// the rank has several threads.
    point: Option<(usize, u32)>,
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
        /// The accessing thread and the one that completed the operation,
        /// for an access after a completion it is not ordered with.
        unordered: Option<Unordered>,
    },
    /// A message ready to go.
    Ready(Up),
}

#[derive(Default)]
struct Mem {
    owned: Vec<Span>,
    /// Buffers of operations another thread may still be unordered with:
    /// completed while the rank had several threads, each with the point
    /// of the completion in the threads' order ([`threads_order`]).
    gone: Vec<(Span, (usize, u32))>,
    watches: Vec<Watch>,
    /// (access return address or new call's site words, owner site) pairs
    /// recorded.
    pairs: HashSet<(u64, Site)>,
    recs: Vec<Rec>,
    /// Watched accesses: (tag, return address, store) to offset ranges.
    watched: HashMap<(u64, usize, bool), Vec<(u64, u64)>>,
    /// Watched accesses while the rank has several threads: sent just
    /// before the first call whose thread has seen them ([`take_seen`]).
    threaded: HashMap<Threaded, Vec<(u64, u64)>>,
}

/// A thread's watched accesses: (tag, return address, store, the thread's
/// point, the latest call of each other thread it had seen return).
type Threaded = (u64, usize, bool, Point, After);

/// The calls a thread has seen return: per other thread, the latest (an
/// index among the rank's calls). Shared by the accesses of one step.
pub type After = std::sync::Arc<[u64]>;

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
            .chain(self.gone.iter().map(|(s, _)| s))
            .map(|s| s.lo)
            .chain(self.watches.iter().map(|w| w.lo))
            .min();
        let hi = self
            .owned
            .iter()
            .chain(self.gone.iter().map(|(s, _)| s))
            .map(|s| s.hi)
            .chain(self.watches.iter().map(|w| w.hi))
            .max();
        LO.store(lo.unwrap_or(usize::MAX), Ordering::Relaxed);
        HI.store(hi.unwrap_or(0), Ordering::Relaxed);
        ACTIVE.store(
            instrumented()
                && (!self.owned.is_empty() || !self.gone.is_empty() || !self.watches.is_empty()),
            Ordering::Release,
        );
    }

    /// Keeps `b`, a buffer MPI used in `call` at `site` until the point
    /// `p` of the threads' order, for the threads not ordered after it.
    fn gone_at(&mut self, b: &Buf, call: &'static str, site: Site, p: (usize, u32)) {
        self.gone.push((
            Span {
                id: u32::MAX,
                lo: b.addr,
                hi: b.addr + b.len,
                writes: b.writes,
                call,
                site,
                point: Some(p),
            },
            p,
        ));
        if self.gone.len() > MAX_GONE {
            let extra = self.gone.len() - MAX_GONE;
            self.gone.drain(..extra);
        }
    }

    /// Records the program's access at `ip` (a store, else a load) of
    /// `size` bytes at `offset` in the buffer of the operation `call` made
    /// at `owner`, once per (access, owner).
    #[allow(clippy::too_many_arguments)]
    fn access(
        &mut self,
        ip: usize,
        store: bool,
        size: u64,
        offset: u64,
        owner: Site,
        call: &'static str,
        unordered: Option<Unordered>,
    ) {
        if self.first((ip as u64, owner)) {
            self.recs.push(Rec::Access {
                ip,
                store,
                size,
                offset,
                owner,
                call,
                unordered,
            });
            PENDING.store(true, Ordering::Relaxed);
        }
    }

    /// Records the accesses of other threads to `b` that the call `call`
    /// at `site` is not ordered after.
    fn earlier_accesses(&mut self, t: &ThreadsOrder, b: &Buf, call: &'static str, site: Site) {
        for (ip, store, size, offset, me, other) in earlier(t, b) {
            let unordered = Unordered {
                thread: other as u32,
                other: me as u32,
                before_call: true,
            };
            self.access(ip, store, size, offset, site, call, Some(unordered));
        }
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
        let threads = THREADS.get();
        let mut clashes: Vec<(u64, u64, Site, &'static str, Option<Unordered>)> = m
            .owned
            .iter()
            .filter(|s| Some(s.id) != id && s.lo < hi && lo < s.hi && (b.writes || s.writes))
            .map(|s| {
                let start = lo.max(s.lo);
                let end = hi.min(s.hi);
                (
                    (start - s.lo) as u64,
                    (end - start) as u64,
                    s.site,
                    s.call,
                    None,
                )
            })
            .collect();
        // A completed buffer this thread is not ordered after.
        if let Some(t) = threads {
            for (s, p) in m
                .gone
                .iter()
                .filter(|(s, _)| s.lo < hi && lo < s.hi && (b.writes || s.writes))
            {
                if let Some(me) = (t.unseen)(*p) {
                    let start = lo.max(s.lo);
                    let end = hi.min(s.hi);
                    clashes.push((
                        (start - s.lo) as u64,
                        (end - start) as u64,
                        s.site,
                        s.call,
                        Some(Unordered {
                            thread: me as u32,
                            other: p.0 as u32,
                            before_call: false,
                        }),
                    ));
                }
            }
        }
        // Other threads' earlier accesses this call is not ordered after:
        // each is recorded against this call, at the access.
        for (offset, size, owner, owner_call, unordered) in clashes {
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
                    unordered,
                }));
                PENDING.store(true, Ordering::Relaxed);
            }
        }
        let Some(id) = id else {
            // A blocking call's buffer is MPI's until the call returns:
            // another thread's access not ordered after the call may run
            // at the same time, as after a completion.
            if let Some(p) = threads.and_then(|t| (t.now)()) {
                m.gone_at(b, call, site, p);
            }
            continue;
        };
        m.owned.push(Span {
            id,
            lo,
            hi,
            writes: b.writes,
            call,
            site,
            point: threads.and_then(|t| (t.now)()),
        });
    }
    m.publish();
    // Other threads' accesses before the call, looked for once the buffers
    // are owned: an access that misses this look checks the table after
    // logging itself (see `check_at`), and finds them there.
    if let Some(t) = THREADS.get() {
        for b in bufs.iter().filter(|b| b.len > 0) {
            m.earlier_accesses(t, b, call, site);
        }
    }
    lent
}

/// Whether the threads' accesses are kept: the rank has several threads
/// and the program reports its accesses ([`blocking`] has work then).
pub fn threads_watched() -> bool {
    HISTORY.load(Ordering::Relaxed)
}

/// MPI uses `bufs` during the blocking call `call` at `site` (a
/// collective): the accesses of other threads that nothing orders with the
/// call, before it (their histories) or after its start (kept like a
/// completed operation's buffers), are recorded against it. Conflicts with
/// pending operations and window memory are not looked for here.
pub fn blocking(call: &'static str, site: Site, bufs: &[Buf]) {
    let Some(t) = THREADS.get() else {
        return;
    };
    let Some(p) = (t.now)() else {
        return;
    };
    let mut g = mem();
    let m = g.get_or_insert_with(Mem::default);
    for b in bufs.iter().filter(|b| b.len > 0) {
        m.gone_at(b, call, site, p);
    }
    m.publish();
    for b in bufs.iter().filter(|b| b.len > 0) {
        m.earlier_accesses(t, b, call, site);
    }
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

/// The operation `id` has completed: MPI hands its buffers back. While
/// the rank has several threads, the buffers stay watched for accesses of
/// threads not ordered after this completion.
pub fn release(id: u32) {
    hand_back(id, true);
}

/// The operation `id`'s request was freed while active: its buffers are
/// no longer watched at all (nothing can order an access with it).
pub fn forget(id: u32) {
    hand_back(id, false);
}

fn hand_back(id: u32, completed: bool) {
    if !ACTIVE.load(Ordering::Relaxed) {
        return;
    }
    let point = THREADS.get().filter(|_| completed).and_then(|t| (t.now)());
    let mut g = mem();
    if let Some(m) = g.as_mut() {
        let (gone, kept): (Vec<Span>, Vec<Span>) = std::mem::take(&mut m.owned)
            .into_iter()
            .partition(|s| s.id == id);
        m.owned = kept;
        if let Some(p) = point {
            m.gone.extend(gone.into_iter().map(|s| (s, p)));
            if m.gone.len() > MAX_GONE {
                let extra = m.gone.len() - MAX_GONE;
                m.gone.drain(..extra);
            }
        }
        m.publish();
    }
}

/// How many completed buffers are kept for the threads not yet ordered
/// after their completion (the oldest go first).
pub const MAX_GONE: usize = 256;

/// The order of the rank's threads, as the threads module tells it (it
/// uses this module, not the other way round).
pub struct ThreadsOrder {
    /// The calling thread's point now, while the rank has several
    /// threads (else none).
    pub now: fn() -> Option<(usize, u32)>,
    /// Whether the calling thread has seen a point: none when it has,
    /// else its own index.
    pub unseen: fn((usize, u32)) -> Option<usize>,
    /// Whether every thread has seen a point.
    pub all_seen: fn((usize, u32)) -> bool,
    /// The calling thread's index.
    pub current: fn() -> Option<usize>,
    /// Runs the program's atomic operation on the object at an address
    /// (see [`Wrote`]) with the threads' order held, and takes its edges:
    /// acquire order or not, given what it wrote.
    pub atomic: AtomicHook,
    /// The program's fence, acquiring and releasing or not.
    pub fence: fn(bool, bool),
}

/// [`ThreadsOrder::atomic`]: the object's address, whether the operation
/// acquires given what it wrote, and the operation.
pub type AtomicHook = fn(usize, &dyn Fn(Wrote) -> bool, &mut dyn FnMut() -> Wrote);

/// What an atomic operation of the program wrote.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Wrote {
    /// Nothing (a load, a failed compare-exchange).
    Nothing,
    /// A plain store, with release order or not.
    Store { release: bool },
    /// A read-modify-write, with release order or not.
    Rmw { release: bool },
}

/// The program's atomic operation `op` on the object at `a`, whose edges
/// go to the threads' order once it is installed ([`ThreadsOrder::atomic`]);
/// `op` returns its result and what it wrote.
fn atomic_op<T>(a: usize, acquire: impl Fn(Wrote) -> bool, op: impl FnOnce() -> (T, Wrote)) -> T {
    let Some(t) = THREADS.get() else {
        return op().0;
    };
    let mut op = Some(op);
    let mut out = None;
    (t.atomic)(a, &acquire, &mut || {
        let (o, w) = (op.take().expect("run once"))();
        out = Some(o);
        w
    });
    out.expect("the operation ran")
}

static THREADS: std::sync::OnceLock<ThreadsOrder> = std::sync::OnceLock::new();

/// Installs the threads' order (once, when MPI is initialised).
pub fn threads_order(o: ThreadsOrder) {
    let _ = THREADS.set(o);
}

/// Drops the completed buffers, and the accesses of the threads'
/// histories, that every thread is ordered after.
pub fn prune_gone() {
    // Both are kept only while the rank has several threads (which turns
    // the history on): a rank with one thread returns here at each call.
    if !HISTORY.load(Ordering::Relaxed) {
        return;
    }
    let Some(t) = THREADS.get() else {
        return;
    };
    for h in histories().iter() {
        let mut h = h.lock().unwrap_or_else(|e| e.into_inner());
        let thread = h.thread;
        let keep = h
            .entries
            .iter()
            .position(|e| !(t.all_seen)((thread, e.value)))
            .unwrap_or(h.entries.len());
        if keep > 0 {
            h.entries.drain(..keep);
            h.open = [(usize::MAX, false, 0); OPEN];
            h.fresh = h.fresh.saturating_sub(keep);
            h.reindex();
        }
    }
    let mut g = mem();
    if let Some(m) = g.as_mut() {
        if !m.gone.is_empty() {
            m.gone.retain(|(_, p)| !(t.all_seen)(*p));
            m.publish();
        }
    }
}

/// Whether the threads' loads and stores are kept ([`history_on`]).
static HISTORY: AtomicBool = AtomicBool::new(false);
/// How many ranges one thread's history keeps at most; beyond, its new
/// accesses are not kept (an operation then misses them: no false alarm).
pub const MAX_HISTORY: usize = 1 << 16;

/// What one thread loaded and stored, in the order of its own clock entry
/// (`value`): byte ranges per (return address, kind), each grown while the
/// thread's accesses at that address touch it. An operation another thread
/// starts conflicts with the accesses whose value it has not seen.
struct History {
    thread: usize,
    value: u32,
    entries: Vec<Seen>,
    /// For the present value: the entries last grown, by (return address,
    /// store), most recent first (a loop's few places stay here).
    open: [(usize, bool, usize); OPEN],
    /// Where the present value's entries start: those before no longer
    /// grow.
    fresh: usize,
    /// The entries before `fresh` by (return address, store, bytes): only
    /// the latest of each is kept alive ([`History::freeze`]).
    frozen: HashMap<(usize, bool, usize, usize), usize>,
    /// How many entries are dead (a later one stands for them).
    dead: usize,
}

/// The bytes of a dead entry: they meet no buffer.
const DEAD: usize = usize::MAX;

impl History {
    /// The entries of the value just over stop growing. An older entry of
    /// the same return address, kind and bytes dies: a thread that has
    /// not seen it has not seen the newer one either (its value is
    /// higher), which conflicts with the same buffers and is found first,
    /// so it would never be reported. A thread that loads a global or a
    /// stack variable in every iteration of a loop of MPI calls then keeps
    /// one entry for it, not one per call, and [`earlier`]'s scans stay
    /// short.
    fn freeze(&mut self) {
        for pos in self.fresh..self.entries.len() {
            let e = &self.entries[pos];
            if let Some(old) = self.frozen.insert((e.ip, e.store, e.lo, e.hi), pos) {
                self.entries[old].lo = DEAD;
                self.entries[old].hi = DEAD;
                self.dead += 1;
            }
        }
        self.fresh = self.entries.len();
        if self.dead > 64 && self.dead * 2 > self.entries.len() {
            self.entries.retain(|e| e.lo != DEAD);
            self.fresh = self.entries.len();
            self.reindex();
        }
    }

    /// Rebuilds `frozen` once entries have moved.
    fn reindex(&mut self) {
        self.frozen.clear();
        self.dead = 0;
        for (pos, e) in self.entries[..self.fresh].iter().enumerate() {
            if e.lo == DEAD {
                self.dead += 1;
            } else {
                self.frozen.insert((e.ip, e.store, e.lo, e.hi), pos);
            }
        }
    }
}

/// How many entries a history keeps open for growing.
const OPEN: usize = 8;

struct Seen {
    value: u32,
    lo: usize,
    hi: usize,
    store: bool,
    ip: usize,
}

type Shared = std::sync::Arc<Mutex<History>>;

static HISTORIES: Mutex<Vec<Shared>> = Mutex::new(Vec::new());

fn histories() -> MutexGuard<'static, Vec<Shared>> {
    HISTORIES.lock().unwrap_or_else(|e| e.into_inner())
}

/// From now on the threads' loads and stores are kept: the rank has
/// several threads, and the program reports its accesses.
pub fn history_on() {
    if instrumented() && THREADS.get().is_some() {
        HISTORY.store(true, Ordering::Relaxed);
    }
}

/// Whether the threads' loads and stores are kept ([`history_on`]): only
/// then are they dated by the calls their thread has seen return.
pub fn keeps_history() -> bool {
    HISTORY.load(Ordering::Relaxed)
}

/// The calling thread's own clock entry is now `value`, and the calls of
/// the other threads it has seen return are `after`, when it is given
/// (kept shared while it stays the same).
pub fn epoch(value: u32, after: Option<Vec<u64>>) {
    let _ = LOCAL.try_with(|l| {
        l.epoch.set(value);
        let (Some(after), Ok(mut kept)) = (after, l.after.try_borrow_mut()) else {
            return;
        };
        if kept.as_deref() != Some(after.as_slice()) {
            *kept = Some(after.into());
        }
    });
}

#[cold]
fn register() -> Option<Shared> {
    let thread = (THREADS.get()?.current)()?;
    let h = std::sync::Arc::new(Mutex::new(History {
        thread,
        value: 0,
        entries: Vec::new(),
        open: [(usize::MAX, false, 0); OPEN],
        fresh: 0,
        frozen: HashMap::default(),
        dead: 0,
    }));
    histories().push(h.clone());
    Some(h)
}

/// Keeps a load or store of the calling thread in its history.
fn remember(addr: usize, size: usize, store: bool, ip: usize) {
    if size == 0 {
        return;
    }
    let _ = LOCAL.try_with(|l| {
        if l.inside.get() > 0 {
            return;
        }
        let h = match l.mine.get() {
            Some(h) => h,
            None => match register() {
                Some(h) => l.mine.get_or_init(|| h),
                None => return,
            },
        };
        let value = l.epoch.get();
        let mut h = h.lock().unwrap_or_else(|e| e.into_inner());
        let h = &mut *h;
        if h.value != value {
            h.freeze();
            h.value = value;
            h.open = [(usize::MAX, false, 0); OPEN];
        }
        let end = addr.saturating_add(size);
        if let Some(k) = h.open.iter().position(|o| o.0 == ip && o.1 == store) {
            let i = h.open[k].2;
            let e = &mut h.entries[i];
            if e.lo <= end && addr <= e.hi {
                e.lo = e.lo.min(addr);
                e.hi = e.hi.max(end);
                return;
            }
        }
        if h.entries.len() >= MAX_HISTORY {
            return;
        }
        h.entries.push(Seen {
            value,
            lo: addr,
            hi: end,
            store,
            ip,
        });
        let i = h.entries.len() - 1;
        h.open.rotate_right(1);
        h.open[0] = (ip, store, i);
    });
}

/// The accesses of other threads to `b` that the calling thread has not
/// seen and that conflict with it (one of the two writes): (return
/// address, store, bytes, offset into `b`, the calling thread, the
/// accessing thread), one per return address and kind.
fn earlier(t: &ThreadsOrder, b: &Buf) -> Vec<(usize, bool, u64, u64, usize, usize)> {
    if !HISTORY.load(Ordering::Relaxed) {
        return Vec::new();
    }
    let (lo, hi) = (b.addr, b.addr + b.len);
    let mut out: Vec<(usize, bool, u64, u64, usize, usize)> = Vec::new();
    let all: Vec<Shared> = histories().clone();
    // The calling thread's own accesses come before its call.
    let caller = (t.current)();
    for h in all {
        let h = h.lock().unwrap_or_else(|e| e.into_inner());
        if Some(h.thread) == caller {
            continue;
        }
        for e in h.entries.iter().rev() {
            if !(e.lo < hi && lo < e.hi && (e.store || b.writes)) {
                continue;
            }
            if out
                .iter()
                .any(|o| o.0 == e.ip && o.1 == e.store && o.5 == h.thread)
            {
                continue;
            }
            let Some(me) = (t.unseen)((h.thread, e.value)) else {
                continue;
            };
            if me == h.thread {
                continue;
            }
            let start = lo.max(e.lo);
            out.push((
                e.ip,
                e.store,
                (hi.min(e.hi) - start) as u64,
                (start - lo) as u64,
                me,
                h.thread,
            ));
        }
    }
    out
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
                unordered,
            } => Up::Owned {
                site: place(ip),
                access: if store { Access::Store } else { Access::Load },
                size,
                offset,
                owner,
                call: call.to_string(),
                unordered,
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
            after: Vec::new(),
            point: None,
        });
    }
    out
}

/// Where the calling thread's watched access goes while the rank has
/// several threads: its point and the calls it has seen return.
fn threaded_place() -> Option<(Point, After)> {
    if !HISTORY.load(Ordering::Relaxed) {
        return None;
    }
    let t = (THREADS.get()?.current)()?;
    LOCAL
        .try_with(|l| {
            let after = l
                .after
                .try_borrow()
                .ok()?
                .clone()
                .unwrap_or_else(|| [].into());
            Some(((t, l.epoch.get()), after))
        })
        .ok()?
}

/// The watched accesses of the rank's threads that the calling thread
/// has seen (its own among them), as messages to send just before its
/// call: that call is the first one ordered after them. With `all`,
/// every one, seen or not (the rank's calls are over).
pub fn take_seen(all: bool) -> Vec<Up> {
    // Only a rank with several threads keeps them apart.
    if !HISTORY.load(Ordering::Relaxed) {
        return Vec::new();
    }
    let Some(t) = THREADS.get() else {
        return Vec::new();
    };
    let mut seen: Vec<_> = match mem().as_mut() {
        Some(m) => m
            .threaded
            .extract_if(|k, _| all || (t.unseen)(k.3).is_none())
            .collect(),
        None => return Vec::new(),
    };
    seen.sort_by(|a, b| a.0.cmp(&b.0));
    seen.into_iter()
        .map(|((tag, ip, store, point, after), ranges)| Up::Watched {
            tag,
            site: site::of_ip(ip).unwrap_or_default(),
            store,
            ranges,
            after: after.to_vec(),
            point: Some((point.0 as u32, point.1)),
        })
        .collect()
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
    check_at(addr, size, store, 0);
}

/// A hook's work, given the program's return address (0 when the hook
/// could not take it: it is then found by walking the stack, if needed).
///
/// The access is logged in its thread's history before the table is
/// looked at: an operation another thread starts meanwhile either finds
/// it in the history (its look came after the log, under the history's
/// lock) or made its buffers owned before this thread looks at the table.
#[inline(always)]
fn check_at(addr: usize, size: usize, store: bool, ip: usize) {
    if HISTORY.load(Ordering::Relaxed) {
        remember(addr, size, store, ip);
    }
    if ACTIVE.load(Ordering::Acquire) {
        slow(addr, size, store, ip);
    }
}

/// A point in the threads' order: a thread's index and its own entry.
type Point = (usize, u32);

/// An access's bytes in an operation's buffer (offset, size), the
/// operation's site and call, and what the thread order says of it.
type Hit<P> = (u64, u64, Site, &'static str, P);

#[cold]
#[inline(never)]
fn slow(addr: usize, size: usize, store: bool, ip: usize) {
    let end = addr.saturating_add(size);
    if end <= LO.load(Ordering::Relaxed) || addr >= HI.load(Ordering::Relaxed) || size == 0 {
        return;
    }
    if LOCAL.with(|l| l.inside.get()) > 0 {
        return;
    }
    let mut g = mem();
    let Some(m) = g.as_mut() else {
        return;
    };
    let mut ip = (ip != 0).then_some(ip);
    let mut at = || *ip.get_or_insert_with(|| site::program_ip().unwrap_or(0));
    let meets = |s: &Span| s.lo < end && addr < s.hi && (store || s.writes);
    // A thread has seen its own points (its program order): only another
    // thread's need the threads' order, which is shared and locked.
    let caller = THREADS.get().and_then(|t| (t.current)());
    let other = |p: &Point| Some(p.0) != caller;
    // Most accesses in the watched span touch no buffer (a thread filling
    // its own buffers while another's are owned): nothing is gathered.
    let hit_owned = m.owned.iter().any(meets);
    let hit_gone = m.gone.iter().any(|(s, p)| meets(s) && other(p));
    if hit_owned {
        let hits: Vec<Hit<Option<Point>>> = m
            .owned
            .iter()
            .filter(|s| meets(s))
            .map(|s| {
                let start = addr.max(s.lo);
                (
                    (start - s.lo) as u64,
                    (end.min(s.hi) - start) as u64,
                    s.site,
                    s.call,
                    s.point,
                )
            })
            .collect();
        for (offset, size, owner, call, point) in hits {
            // Another thread's access that the call did not order before it
            // runs at once with the call in some execution, as an access
            // before the call would: both are reported alike.
            let unordered = point.filter(other).and_then(|p| {
                let me = (THREADS.get()?.unseen)(p)?;
                (me != p.0).then_some(Unordered {
                    thread: me as u32,
                    other: p.0 as u32,
                    before_call: true,
                })
            });
            m.access(at(), store, size, offset, owner, call, unordered);
        }
    }
    if let (true, Some(t)) = (hit_gone, THREADS.get()) {
        let late: Vec<Hit<Point>> = m
            .gone
            .iter()
            .filter(|(s, p)| meets(s) && other(p))
            .map(|(s, p)| {
                let start = addr.max(s.lo);
                (
                    (start - s.lo) as u64,
                    (end.min(s.hi) - start) as u64,
                    s.site,
                    s.call,
                    *p,
                )
            })
            .collect();
        for (offset, size, owner, call, p) in late {
            let Some(me) = (t.unseen)(p) else {
                continue;
            };
            let unordered = Unordered {
                thread: me as u32,
                other: p.0 as u32,
                before_call: false,
            };
            m.access(at(), store, size, offset, owner, call, Some(unordered));
        }
    }
    if !m.watches.iter().any(|w| w.lo < end && addr < w.hi) {
        return;
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
        match threaded_place() {
            Some((point, after)) => add_range(
                m.threaded
                    .entry((tag, ip, store, point, after))
                    .or_default(),
                a,
                b,
            ),
            None => add_range(m.watched.entry((tag, ip, store)).or_default(), a, b),
        }
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

/// The body of the fixed-size hooks: `kind` is the access's size times
/// two, plus one for a store.
extern "C" fn hooked(addr: *mut c_void, ip: usize, kind: usize) {
    check_at(addr as usize, kind >> 1, kind & 1 == 1, ip);
}

// On x86-64 each hook is a trampoline that hands `hooked` the program's
// return address (the word on top of the stack at entry) and its kind.
macro_rules! plain_hooks {
    ($($name:ident $size:literal $store:literal),* $(,)?) => {$(
        #[cfg(target_arch = "x86_64")]
        #[unsafe(naked)]
        #[no_mangle]
        pub unsafe extern "C" fn $name(addr: *mut c_void) {
            core::arch::naked_asm!(
                "mov rsi, qword ptr [rsp]",
                "mov edx, {kind}",
                "jmp {target}",
                kind = const $size * 2 + $store as usize,
                target = sym hooked,
            )
        }

        #[cfg(not(target_arch = "x86_64"))]
        #[no_mangle]
        pub extern "C" fn $name(addr: *mut c_void) {
            hooked(addr, 0, $size * 2 + $store as usize);
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

// The `_pc` forms are given the access's program counter: it stands for
// the return address.
macro_rules! pc_hooks {
    ($($name:ident $size:literal $store:literal),* $(,)?) => {$(
        #[no_mangle]
        pub extern "C" fn $name(addr: *mut c_void, pc: *mut c_void) {
            check_at(addr as usize, $size, $store, pc as usize);
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

extern "C" fn range_at(addr: *mut c_void, size: usize, ip: usize, store: usize) {
    check_at(addr as usize, size, store == 1, ip);
}

unsafe extern "C" fn memcpy_at(
    d: *mut c_void,
    s: *const c_void,
    n: usize,
    ip: usize,
) -> *mut c_void {
    check_at(s as usize, n, false, ip);
    check_at(d as usize, n, true, ip);
    libc::memcpy(d, s, n)
}

unsafe extern "C" fn memmove_at(
    d: *mut c_void,
    s: *const c_void,
    n: usize,
    ip: usize,
) -> *mut c_void {
    check_at(s as usize, n, false, ip);
    check_at(d as usize, n, true, ip);
    libc::memmove(d, s, n)
}

unsafe extern "C" fn memset_at(d: *mut c_void, c: c_int, n: usize, ip: usize) -> *mut c_void {
    check_at(d as usize, n, true, ip);
    libc::memset(d, c, n)
}

// The range hooks and the copies: trampolines too on x86-64, the return
// address going in the argument register after the function's own.
macro_rules! trampoline {
    ($name:ident ( $($a:ident : $t:ty),* ) $(-> $r:ty)?, [$($setup:literal),*], $target:ident, $fallback:expr) => {
        #[cfg(target_arch = "x86_64")]
        #[unsafe(naked)]
        #[no_mangle]
        pub unsafe extern "C" fn $name($($a: $t),*) $(-> $r)? {
            core::arch::naked_asm!($($setup,)* "jmp {target}", target = sym $target)
        }

        #[cfg(not(target_arch = "x86_64"))]
        #[no_mangle]
        pub unsafe extern "C" fn $name($($a: $t),*) $(-> $r)? {
            $fallback
        }
    };
}

trampoline!(
    __tsan_read_range(addr: *mut c_void, size: usize),
    ["mov rdx, qword ptr [rsp]", "xor ecx, ecx"],
    range_at,
    range_at(addr, size, 0, 0)
);
trampoline!(
    __tsan_write_range(addr: *mut c_void, size: usize),
    ["mov rdx, qword ptr [rsp]", "mov ecx, 1"],
    range_at,
    range_at(addr, size, 0, 1)
);
trampoline!(
    __wrap_memcpy(d: *mut c_void, s: *const c_void, n: usize) -> *mut c_void,
    ["mov rcx, qword ptr [rsp]"],
    memcpy_at,
    memcpy_at(d, s, n, 0)
);
trampoline!(
    __wrap_memmove(d: *mut c_void, s: *const c_void, n: usize) -> *mut c_void,
    ["mov rcx, qword ptr [rsp]"],
    memmove_at,
    memmove_at(d, s, n, 0)
);
trampoline!(
    __wrap_memset(d: *mut c_void, c: c_int, n: usize) -> *mut c_void,
    ["mov rcx, qword ptr [rsp]"],
    memset_at,
    memset_at(d, c, n, 0)
);

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
    if let Some(t) = THREADS.get() {
        (t.fence)(acquires(mo), releases(mo));
    }
}

#[no_mangle]
pub extern "C" fn __tsan_atomic_signal_fence(mo: c_int) {
    std::sync::atomic::compiler_fence(match order(mo) {
        Ordering::Relaxed => return,
        o => o,
    });
}

/// Whether an atomic operation of order `mo` acquires.
fn acquires(mo: c_int) -> bool {
    matches!(
        order(mo),
        Ordering::Acquire | Ordering::AcqRel | Ordering::SeqCst
    )
}

/// Whether an atomic operation of order `mo` releases.
fn releases(mo: c_int) -> bool {
    matches!(
        order(mo),
        Ordering::Release | Ordering::AcqRel | Ordering::SeqCst
    )
}

/// The program's read-modify-write of order `mo` on `a`: its edges go to
/// the threads' order ([`ThreadsOrder::atomic`]).
fn rmw<T>(a: usize, mo: c_int, op: impl FnOnce() -> T) -> T {
    atomic_op(
        a,
        |_| acquires(mo),
        || {
            (
                op(),
                Wrote::Rmw {
                    release: releases(mo),
                },
            )
        },
    )
}

/// A compare-exchange of orders `mo` (it wrote) and `fmo` (it failed):
/// `op` says whether it wrote.
fn cas<T>(a: usize, mo: c_int, fmo: c_int, op: impl FnOnce() -> (T, bool)) -> T {
    atomic_op(
        a,
        |w| match w {
            Wrote::Nothing => acquires(fmo),
            _ => acquires(mo),
        },
        || {
            let (out, wrote) = op();
            let w = match wrote {
                true => Wrote::Rmw {
                    release: releases(mo),
                },
                false => Wrote::Nothing,
            };
            (out, w)
        },
    )
}

macro_rules! atomic_hooks {
    ($t:ty, $atomic:ty, $size:literal,
     $load:ident, $store:ident, $xchg:ident, $add:ident, $sub:ident, $and:ident,
     $or:ident, $xor:ident, $nand:ident, $strong:ident, $weak:ident, $val:ident) => {
        #[no_mangle]
        pub unsafe extern "C" fn $load(a: *mut $t, mo: c_int) -> $t {
            check(a as usize, $size, false);
            atomic_op(
                a as usize,
                |_| acquires(mo),
                || (<$atomic>::from_ptr(a).load(load_order(mo)), Wrote::Nothing),
            )
        }
        #[no_mangle]
        pub unsafe extern "C" fn $store(a: *mut $t, v: $t, mo: c_int) {
            check(a as usize, $size, true);
            atomic_op(
                a as usize,
                |_| false,
                || {
                    <$atomic>::from_ptr(a).store(v, store_order(mo));
                    (
                        (),
                        Wrote::Store {
                            release: releases(mo),
                        },
                    )
                },
            )
        }
        #[no_mangle]
        pub unsafe extern "C" fn $xchg(a: *mut $t, v: $t, mo: c_int) -> $t {
            check(a as usize, $size, true);
            rmw(a as usize, mo, || <$atomic>::from_ptr(a).swap(v, order(mo)))
        }
        #[no_mangle]
        pub unsafe extern "C" fn $add(a: *mut $t, v: $t, mo: c_int) -> $t {
            check(a as usize, $size, true);
            rmw(a as usize, mo, || {
                <$atomic>::from_ptr(a).fetch_add(v, order(mo))
            })
        }
        #[no_mangle]
        pub unsafe extern "C" fn $sub(a: *mut $t, v: $t, mo: c_int) -> $t {
            check(a as usize, $size, true);
            rmw(a as usize, mo, || {
                <$atomic>::from_ptr(a).fetch_sub(v, order(mo))
            })
        }
        #[no_mangle]
        pub unsafe extern "C" fn $and(a: *mut $t, v: $t, mo: c_int) -> $t {
            check(a as usize, $size, true);
            rmw(a as usize, mo, || {
                <$atomic>::from_ptr(a).fetch_and(v, order(mo))
            })
        }
        #[no_mangle]
        pub unsafe extern "C" fn $or(a: *mut $t, v: $t, mo: c_int) -> $t {
            check(a as usize, $size, true);
            rmw(a as usize, mo, || {
                <$atomic>::from_ptr(a).fetch_or(v, order(mo))
            })
        }
        #[no_mangle]
        pub unsafe extern "C" fn $xor(a: *mut $t, v: $t, mo: c_int) -> $t {
            check(a as usize, $size, true);
            rmw(a as usize, mo, || {
                <$atomic>::from_ptr(a).fetch_xor(v, order(mo))
            })
        }
        #[no_mangle]
        pub unsafe extern "C" fn $nand(a: *mut $t, v: $t, mo: c_int) -> $t {
            check(a as usize, $size, true);
            rmw(a as usize, mo, || {
                <$atomic>::from_ptr(a).fetch_nand(v, order(mo))
            })
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
            cas(a as usize, mo, fmo, || {
                match <$atomic>::from_ptr(a).compare_exchange(*c, v, order(mo), load_order(fmo)) {
                    Ok(_) => (1, true),
                    Err(now) => {
                        *c = now;
                        (0, false)
                    }
                }
            })
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
            cas(a as usize, mo, fmo, || {
                match <$atomic>::from_ptr(a).compare_exchange(c, v, order(mo), load_order(fmo)) {
                    Ok(old) => (old, true),
                    Err(old) => (old, false),
                }
            })
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

    /// A store at one place in the program (a hook's return address names
    /// it).
    #[inline(never)]
    fn store8(a: usize) {
        // SAFETY: the hook reads nothing of the address.
        unsafe { __tsan_write8(a as *mut c_void) };
        // Not a tail call: the hook returns here.
        std::hint::black_box(a);
    }

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
            store8(base + 8 * i);
        }
        // SAFETY: the hook reads nothing of the address.
        unsafe { __tsan_read4((base + 64) as *mut c_void) };
        // SAFETY: the hook reads nothing of the address.
        unsafe { __tsan_read4((base + 200) as *mut c_void) };
        enter();
        // SAFETY: the hook reads nothing of the address.
        unsafe { __tsan_write8((base + 120) as *mut c_void) };
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
        // SAFETY: the hook reads nothing of the address.
        unsafe { __tsan_write8(base as *mut c_void) };
        assert!(take().is_empty());
        // Memory attached to a dynamic window: offsets are addresses, and
        // detaching one region leaves the others watched.
        watch_from(base, 64, 9, 0);
        watch_from(base + 64, 64, 9, 0);
        // SAFETY: the hook reads nothing of the address.
        unsafe { __tsan_write4((base + 4) as *mut c_void) };
        let got = take();
        assert!(
            got.iter()
                .any(|m| matches!(m, Up::Watched { tag: 9, ranges, .. }
                if ranges == &vec![(base as u64 + 4, base as u64 + 8)])),
            "{got:?}"
        );
        unwatch_at(9, base);
        // SAFETY: the hook reads nothing of the address.
        unsafe { __tsan_write4((base + 4) as *mut c_void) };
        assert!(take().is_empty());
        // SAFETY: the hook reads nothing of the address.
        unsafe { __tsan_write4((base + 68) as *mut c_void) };
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
        // SAFETY: the hook reads nothing of the address.
        unsafe { __tsan_read8(base as *mut c_void) };
        assert!(take().is_empty());
        for _ in 0..3 {
            store8(base + 8);
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
        // SAFETY: the hook reads nothing of the address.
        unsafe { __tsan_write8(base as *mut c_void) };
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
