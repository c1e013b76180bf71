//! One-sided communication: windows, their communication calls and every
//! synchronisation. Each call is reported and its real `PMPI_` call made at
//! the time the scheduler allows:
//!
//! - creation, `MPI_Win_fence` and `MPI_Win_free` are collectives: the real
//!   call runs once the scheduler answers (creation learns the window's id,
//!   like a new communicator's); after creation the ranks exchange their
//!   window sizes and displacement units with an allgather of the library's
//!   own, so that each rank can judge a target's displacement alone;
//! - `MPI_Win_start`, `MPI_Win_wait`, `MPI_Win_lock` and
//!   `MPI_Win_lock_all` wait for the scheduler's Go before the real call;
//!   `MPI_Win_test` asks, and makes the real wait only when the scheduler
//!   says the epoch is over;
//! - `MPI_Win_post`, `MPI_Win_complete`, the unlocks and the flushes make
//!   the real call and report it, flushing the report at once (a peer may
//!   wait in the scheduler for it). An unlock is reported only once MPI has
//!   released the lock, so that the scheduler never grants a lock MPI still
//!   holds.
//! - The communication calls are reported with the bytes of the target's
//!   window they touch, then made (the request forms hand the program a
//!   request of the library's, completed by the usual waits).
//!
//! In a recorded run nothing waits for the scheduler: the rank names the
//! window it makes itself (as a communicator, [`Up::Named`]); a fence and
//! the free first pass a nonblocking barrier of the library's over a
//! duplicate of the window's communicator, `MPI_Win_start` first waits for
//! the word each target's `MPI_Win_post` sends its origins over it, and
//! `MPI_Win_wait` polls `MPI_Win_test`, so that a rank that waits there
//! long says so ([`Up::Blocked`]) and a deadlock is found; an
//! `MPI_Win_test` that returns true is reported as a poll that returned
//! something, one that returns false not at all. Before MPI's lock, a
//! rank takes a lock of the library's own (over a window of its own), whose
//! grants are numbered per target, so that the rank can say in which order
//! conflicting locks were granted ([`Up::Granted`]) and a later run's plan
//! can hold a lock back until another was granted.
//!
//! The rank judges alone, before the real call, the errors that would make
//! MPI's behaviour undefined, and reports them typed ([`Up::OneSided`]):
//! epoch errors (FIB035): a communication call outside an access epoch to
//! its target, an unlock without its lock, `MPI_Win_complete` without
//! `MPI_Win_start`, `MPI_Win_wait` without `MPI_Win_post`, an epoch opened
//! twice, passive and active target synchronisation mixed in one epoch (or
//! a lock epoch inside a fence's, known at the closing fence), a
//! window freed (or `MPI_Finalize` called) with an epoch open, each with the
//! calls that opened the epochs concerned; and arguments outside the window
//! (FIB036): a target outside the window's group or bytes outside the
//! target's window, a null datatype or origin buffer for a nonzero count,
//! window memory that is a null pointer with a nonzero size or reaches past
//! the pages mapped from its start. Each ends the
//! run. Other bad arguments (a handle that is no window, a negative count
//! or size, an unknown lock type) are invalid calls ([`Up::Invalid`],
//! FIB012).

// `MPI_Aint` is the implementation's address-sized integer: the casts to
// `i64` are needed where it is narrower.
#![allow(clippy::unnecessary_cast)]

use std::os::raw::{c_int, c_void};
use std::sync::atomic::{AtomicU32, Ordering};

use fib_wire::{
    Down, Epoch, EpochKind, FlushKind, Op, RmaFault, RmaKind, Up, WinFlavor, PROC_NULL,
};
use mpi_sys::*;

use crate::conn::fatal;
use crate::handle::{bits, same};
use crate::held::lib;
use crate::state::{Kind, Lib, Opened, Private, Real, Win};

/// The window behind `win`, or the end of the run for a handle no
/// modelled call made.
fn window<'a>(l: &'a mut Lib, win: MPI_Win, call: &str) -> &'a mut Win {
    let b = bits(win);
    if !l.windows.contains_key(&b) {
        // SAFETY: reading a constant.
        let why = if same(win, unsafe { RSMPI_WIN_NULL }) {
            format!("{call}: MPI_WIN_NULL is not a window")
        } else {
            format!("{call}: the window was not made by a call fib models, or was freed")
        };
        crate::check::invalid(l, why);
    }
    l.windows.get_mut(&b).unwrap()
}

/// Ends the run for the invalid one-sided call `why`.
fn invalid(l: &mut Lib, why: String) -> ! {
    crate::check::invalid(l, why)
}

/// Ends the run for the one-sided call `call` on window `win`, wrong as
/// `fault` says.
fn fault(l: &mut Lib, call: &str, win: Option<u32>, fault: RmaFault) -> ! {
    let site = crate::site::for_call();
    let made = win
        .and_then(|id| l.windows.values().find(|w| w.id == id))
        .map(|w| w.opened.made)
        .unwrap_or_default();
    l.push(Up::OneSided {
        site,
        call: call.to_string(),
        win,
        made,
        fault,
    });
    l.conn.wait_for_eof()
}

/// How many of the `size` bytes from `base` are mapped in the process:
/// `size` when all are, else the bytes up to the first page that is not.
fn mapped_bytes(base: *const c_void, size: i64) -> i64 {
    // SAFETY: sysconf and mincore only read the process's page tables;
    // `vec` has room for one byte per page of the range.
    unsafe {
        let page = libc::sysconf(libc::_SC_PAGESIZE).max(1) as usize;
        let start = base as usize & !(page - 1);
        let end = (base as usize).saturating_add(size as usize);
        let pages = (end - start).div_ceil(page);
        let mut vec = vec![0u8; pages.max(1)];
        if libc::mincore(start as *mut c_void, end - start, vec.as_mut_ptr()) == 0 {
            return size;
        }
        if *libc::__errno_location() != libc::ENOMEM {
            return size;
        }
        // The first page that is not mapped.
        let mut one = [0u8; 1];
        for k in 0..pages {
            let p = start + k * page;
            if libc::mincore(p as *mut c_void, page, one.as_mut_ptr()) != 0 {
                return (p as i64 - base as i64).max(0);
            }
        }
        size
    }
}

/// Ends the run if the `size` bytes from `base` given to `call` as window
/// memory are a null pointer or reach past the process's memory.
fn memory_given(l: &mut Lib, call: &str, win: Option<u32>, base: *const c_void, size: i64) {
    if size <= 0 {
        return;
    }
    if base.is_null() {
        fault(l, call, win, RmaFault::NullMemory { size });
    }
    let mapped = mapped_bytes(base, size);
    if mapped < size {
        fault(l, call, win, RmaFault::ShortMemory { size, mapped });
    }
}

/// Makes a window: reports the creation, waits for its id, makes it with
/// `make` (which returns MPI's code and the rank's memory of the window),
/// exchanges sizes and displacement units over `comm`, and watches the
/// rank's memory of the window under the window's id, so that the
/// program's loads and stores of it reach the scheduler
/// ([`crate::memory::watch`]).
unsafe fn create(
    flavor: WinFlavor,
    comm: MPI_Comm,
    size: MPI_Aint,
    disp_unit: c_int,
    win: *mut MPI_Win,
    make: impl FnOnce() -> (c_int, *mut c_void),
) -> c_int {
    let call = flavor.mpi_name();
    let mut l = lib();
    crate::check::comm(&mut l, comm);
    if crate::values::is_inter(comm) {
        invalid(
            &mut l,
            format!("{call}: a window is made over an intracommunicator"),
        );
    }
    if size < 0 {
        invalid(&mut l, format!("{call}: the size {size} is negative"));
    }
    if disp_unit <= 0 && flavor != WinFlavor::Dynamic {
        invalid(
            &mut l,
            format!("{call}: the displacement unit {disp_unit} is not positive"),
        );
    }
    let cid = l.comm_id(comm);
    let recorded = l.record.is_some();
    let given = if recorded {
        // Sent before the creation: a rank the others' failure kills
        // inside it still has it reported.
        l.event_settled(Op::WinCreate { comm: cid, flavor }, true);
        l.conn.flush();
        // MPI's creation waits without a word for every rank of `comm`.
        crate::coll::polled_barrier(&mut l, comm);
        None
    } else {
        l.event(Op::WinCreate { comm: cid, flavor });
        match l.wait_down() {
            Down::NewComm { id } if id >= 0 => Some(id as u32),
            d => fatal(&format!("protocol error: expected a window id, got {d:?}")),
        }
    };
    let (rc, base) = make();
    let (id, private) = match given {
        Some(id) => (id, None),
        None => {
            let Some(rec) = l.record.as_mut() else {
                unreachable!("a recorded run")
            };
            let id = rec.name_comm();
            l.push(Up::Named { comm: id });
            (id, Some(private(comm)))
        }
    };
    if rc == 0 && !base.is_null() && size > 0 {
        crate::memory::watch(base as usize, size as usize, u64::from(id));
    }
    let mut n: c_int = 0;
    PMPI_Comm_size(comm, &mut n);
    let mine = [size as i64, disp_unit as i64];
    let mut all = vec![0i64; 2 * n as usize];
    PMPI_Allgather(
        mine.as_ptr() as *const c_void,
        2,
        RSMPI_INT64_T,
        all.as_mut_ptr() as *mut c_void,
        2,
        RSMPI_INT64_T,
        comm,
    );
    l.windows.insert(
        bits(*win),
        Win {
            id,
            call,
            dynamic: flavor == WinFlavor::Dynamic,
            sizes: all.chunks(2).map(|c| (c[0], c[1])).collect(),
            fence: false,
            fence_used: false,
            fence_rma: false,
            fence_passive: None,
            access: None,
            exposure: false,
            locks: Vec::new(),
            lock_all: false,
            opened: Opened {
                made: crate::site::for_call(),
                ..Opened::default()
            },
            origins: Vec::new(),
            segments: Vec::new(),
            private,
        },
    );
    rc
}

/// Reports the collective `op` on a window (a fence, the free) and waits
/// until the real call may be made: for the scheduler's Go, or in a
/// recorded run (the window's `private` communicator given) at the
/// library's barrier.
unsafe fn collective(l: &mut Lib, op: Op, private: Option<u64>) {
    match private {
        Some(private) => {
            l.event_settled(op, true);
            l.conn.flush();
            crate::coll::polled_barrier(l, crate::handle::from_bits(private));
        }
        None => {
            l.event(op);
            l.wait_go();
        }
    }
}

/// The tag of the word a recorded run's `MPI_Win_post` sends each origin
/// over the window's private communicator.
const POSTED: c_int = 1;

/// A recorded run's own objects for a window made over `comm`: a
/// duplicate of the communicator, and the lock window over it, each
/// rank's words zeroed before any rank reaches them, held open by a
/// lock-all for the window's life.
unsafe fn private(comm: MPI_Comm) -> Private {
    let mut dup = RSMPI_COMM_NULL;
    PMPI_Comm_dup(comm, &mut dup);
    let (mut n, mut me): (c_int, c_int) = (0, 0);
    PMPI_Comm_size(dup, &mut n);
    PMPI_Comm_rank(dup, &mut me);
    let words = 1 + n as usize;
    let mut base: *mut i64 = std::ptr::null_mut();
    let mut locks = RSMPI_WIN_NULL;
    PMPI_Win_allocate(
        (words * 8) as MPI_Aint,
        8,
        RSMPI_INFO_NULL,
        dup,
        &mut base as *mut *mut i64 as *mut c_void,
        &mut locks,
    );
    std::ptr::write_bytes(base, 0, words);
    PMPI_Barrier(dup);
    PMPI_Win_lock_all(MPI_MODE_NOCHECK as c_int, locks);
    Private {
        comm: bits(dup),
        locks: bits(locks),
        world: (0..n).map(|r| crate::record::to_world(comm, r)).collect(),
        me,
        held: Vec::new(),
        marks: vec![0; n as usize],
    }
}

/// Frees a recorded run's own objects of a window, once every rank of it
/// is done with them.
unsafe fn free_private(w: &Win) {
    if let Some(p) = &w.private {
        let mut locks: MPI_Win = crate::handle::from_bits(p.locks);
        PMPI_Win_unlock_all(locks);
        PMPI_Win_free(&mut locks);
        let mut comm: MPI_Comm = crate::handle::from_bits(p.comm);
        PMPI_Comm_free(&mut comm);
    }
}

// The lock of the library's own that a recorded run's rank takes before
// MPI's (so that MPI's is always free when asked): a word at each target,
// the readers in its low 31 bits, a writer in bit 31, and the number of
// grants made so far in its high half, changed by compare-and-swap, so
// that of two conflicting grants the earlier has the lower number; then,
// per rank of the window, a mark: one more than the ordinal among that
// rank's lock calls of the latest one granted there, which a plan's order
// waits on. Every request that MPI could grant is granted as soon as it
// can be, as the engine's rules have it.

/// The writer bit of a lock word, and one grant in its count.
const WRITER: i64 = 1 << 31;
const GRANT: i64 = 1 << 32;

/// Adds `add` to the word at `disp` of `target` in the lock window `win`
/// atomically; returns what it held.
unsafe fn lock_add(win: MPI_Win, target: c_int, disp: MPI_Aint, add: i64) -> i64 {
    let mut old: i64 = 0;
    PMPI_Fetch_and_op(
        &add as *const i64 as *const c_void,
        &mut old as *mut i64 as *mut c_void,
        RSMPI_INT64_T,
        target,
        disp,
        RSMPI_SUM,
        win,
    );
    PMPI_Win_flush(target, win);
    old
}

/// Takes the lock of `target` if it is free for this kind of request:
/// the grant's number there. (Another rank changing the word meanwhile is
/// no reason to give up while the lock stays free.)
unsafe fn try_lock(win: MPI_Win, target: c_int, exclusive: bool) -> Option<u64> {
    let mut now = lock_add(win, target, 0, 0);
    loop {
        let free = match exclusive {
            true => now & (GRANT - 1) == 0,
            false => now & WRITER == 0,
        };
        if !free {
            return None;
        }
        let new = now + GRANT + if exclusive { WRITER } else { 1 };
        let mut was: i64 = 0;
        PMPI_Compare_and_swap(
            &new as *const i64 as *const c_void,
            &now as *const i64 as *const c_void,
            &mut was as *mut i64 as *mut c_void,
            RSMPI_INT64_T,
            target,
            0,
            win,
        );
        PMPI_Win_flush(target, win);
        if was == now {
            return Some((now / GRANT) as u64);
        }
        now = was;
    }
}

/// Gives the lock of `target` back.
unsafe fn unlock(win: MPI_Win, target: c_int, exclusive: bool) {
    lock_add(win, target, 0, if exclusive { -WRITER } else { -1 });
}

/// Takes the library's lock of the window of `p` at every one of
/// `targets` at once (none, or all: a lock-all waits for none while it
/// holds some), after the grants the plan's `waits` name (another rank's
/// mark at a target); marks the targets with the call's ordinal `k`;
/// returns each target's world rank and grant number. A rank that waits
/// long says so.
unsafe fn take_locks(
    l: &mut Lib,
    p: &mut Private,
    targets: &[c_int],
    exclusive: bool,
    k: u64,
    waits: &[(u32, u32, u64)],
) -> Vec<(u32, u64)> {
    let win: MPI_Win = crate::handle::from_bits(p.locks);
    let place = |w: u32| p.world.iter().position(|&x| x == w).map(|i| i as c_int);
    let waits: Vec<(c_int, MPI_Aint, u64)> = waits
        .iter()
        .filter_map(|&(x, t, j)| {
            let t = place(t).filter(|t| targets.contains(t))?;
            Some((t, 1 + place(x)? as MPI_Aint, j))
        })
        .collect();
    // A rank that waits here still serves the others' one-sided calls:
    // MPI may need this rank's progress to grant or serve them. (A lock
    // taken at the first try pays for no probe.)
    let progress = crate::progress::poke_progress;
    if !waits.is_empty() {
        l.spin(|| {
            let marked = waits
                .iter()
                .all(|&(t, x, j)| lock_add(win, t, x, 0) as u64 >= j);
            if !marked {
                progress();
            }
            marked
        });
    }
    let mut got: Vec<(c_int, u64)> = Vec::new();
    l.spin(|| {
        for &t in targets {
            match try_lock(win, t, exclusive) {
                Some(n) => got.push((t, n)),
                None => {
                    for &(u, _) in &got {
                        unlock(win, u, exclusive);
                    }
                    got.clear();
                    progress();
                    return false;
                }
            }
        }
        true
    });
    for &(t, _) in &got {
        let mark = &mut p.marks[t as usize];
        lock_add(win, t, 1 + p.me as MPI_Aint, (k + 1 - *mark) as i64);
        *mark = k + 1;
    }
    got.into_iter()
        .map(|(t, n)| (p.world[t as usize], n))
        .collect()
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Win_create(
    base: *mut c_void,
    size: MPI_Aint,
    disp_unit: c_int,
    info: MPI_Info,
    comm: MPI_Comm,
    win: *mut MPI_Win,
) -> c_int {
    memory_given(&mut lib(), "MPI_Win_create", None, base, size as i64);
    create(WinFlavor::Create, comm, size, disp_unit, win, || {
        (
            PMPI_Win_create(base, size, disp_unit, info, comm, win),
            base,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Win_allocate(
    size: MPI_Aint,
    disp_unit: c_int,
    info: MPI_Info,
    comm: MPI_Comm,
    baseptr: *mut c_void,
    win: *mut MPI_Win,
) -> c_int {
    create(WinFlavor::Allocate, comm, size, disp_unit, win, || {
        let rc = PMPI_Win_allocate(size, disp_unit, info, comm, baseptr, win);
        (rc, *(baseptr as *mut *mut c_void))
    })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Win_allocate_shared(
    size: MPI_Aint,
    disp_unit: c_int,
    info: MPI_Info,
    comm: MPI_Comm,
    baseptr: *mut c_void,
    win: *mut MPI_Win,
) -> c_int {
    create(WinFlavor::Shared, comm, size, disp_unit, win, || {
        let rc = PMPI_Win_allocate_shared(size, disp_unit, info, comm, baseptr, win);
        (rc, *(baseptr as *mut *mut c_void))
    })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Win_create_dynamic(
    info: MPI_Info,
    comm: MPI_Comm,
    win: *mut MPI_Win,
) -> c_int {
    create(WinFlavor::Dynamic, comm, 0, 1, win, || {
        (
            PMPI_Win_create_dynamic(info, comm, win),
            std::ptr::null_mut(),
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Win_attach(win: MPI_Win, base: *mut c_void, size: MPI_Aint) -> c_int {
    let mut l = lib();
    let w = window(&mut l, win, "MPI_Win_attach");
    let id = w.id;
    if !w.dynamic {
        invalid(
            &mut l,
            "MPI_Win_attach: the window was not made by MPI_Win_create_dynamic".into(),
        );
    }
    memory_given(&mut l, "MPI_Win_attach", Some(id), base, size as i64);
    let rc = PMPI_Win_attach(win, base, size);
    if rc == 0 && size > 0 {
        // Watched until detached, with the addresses as offsets: a
        // dynamic window's displacements are the target's addresses.
        crate::memory::watch_from(base as usize, size as usize, u64::from(id), 0);
    }
    rc
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Win_detach(win: MPI_Win, base: *const c_void) -> c_int {
    let mut l = lib();
    let id = window(&mut l, win, "MPI_Win_detach").id;
    crate::memory::unwatch_at(u64::from(id), base as usize);
    PMPI_Win_detach(win, base)
}

/// Stops watching the rank's memory of `w` and the other ranks' segments
/// it was handed.
fn unwatch_all(w: &Win) {
    crate::memory::unwatch(u64::from(w.id));
    for &tag in &w.segments {
        crate::memory::unwatch(tag);
    }
}

/// The tag the segment of rank `rank` of the shared window `id` is watched
/// under when another rank reaches it: the window's id, and the rank plus
/// one above it (the rank's own memory of a window is watched under the
/// window's id alone).
pub fn segment_tag(id: u32, rank: c_int) -> u64 {
    u64::from(id) | (rank as u64 + 1) << 32
}

/// `MPI_Win_shared_query`: hands the program another rank's segment of a
/// shared window, which is then watched as that rank's window memory.
/// `MPI_PROC_NULL` names the segment of the lowest rank whose size is not
/// zero (the usual way to share one rank's allocation).
#[no_mangle]
pub unsafe extern "C" fn MPI_Win_shared_query(
    win: MPI_Win,
    rank: c_int,
    size: *mut MPI_Aint,
    disp_unit: *mut c_int,
    baseptr: *mut c_void,
) -> c_int {
    let rc = PMPI_Win_shared_query(win, rank, size, disp_unit, baseptr);
    let named = rank >= 0 || rank == RSMPI_PROC_NULL;
    if rc != 0 || !named || !crate::memory::instrumented() {
        return rc;
    }
    let mut group: MPI_Group = RSMPI_GROUP_EMPTY;
    let mut me: c_int = -1;
    PMPI_Win_get_group(win, &mut group);
    PMPI_Group_rank(group, &mut me);
    PMPI_Group_free(&mut group);
    let mut l = lib();
    let w = window(&mut l, win, "MPI_Win_shared_query");
    let rank = if rank == RSMPI_PROC_NULL {
        match w.sizes.iter().position(|&(bytes, _)| bytes > 0) {
            Some(owner) => owner as c_int,
            None => return rc,
        }
    } else {
        rank
    };
    let tag = segment_tag(w.id, rank);
    let (base, len) = (*(baseptr as *mut *mut c_void), *size);
    if rank != me && len > 0 && !base.is_null() && !w.segments.contains(&tag) {
        w.segments.push(tag);
        crate::memory::watch(base as usize, len as usize, tag);
    }
    rc
}

/// The epochs of `w` still open (a fence's not counted).
fn open_epochs(w: &Win) -> Vec<Epoch> {
    let mut open = Vec::new();
    if let Some(t) = &w.access {
        open.push(Epoch {
            kind: EpochKind::Access,
            ranks: t.clone(),
            site: w.opened.access,
        });
    }
    if w.exposure {
        open.push(Epoch {
            kind: EpochKind::Exposure,
            ranks: w.opened.exposure_group.clone(),
            site: w.opened.exposure,
        });
    }
    for (i, &t) in w.locks.iter().enumerate() {
        open.push(Epoch {
            kind: EpochKind::Lock,
            ranks: vec![t],
            site: w.opened.locks.get(i).copied().unwrap_or_default(),
        });
    }
    if w.lock_all {
        open.push(Epoch {
            kind: EpochKind::LockAll,
            ranks: Vec::new(),
            site: w.opened.lock_all,
        });
    }
    open
}

/// The open epoch of kind `kind` (and target `rank`, for a lock).
fn epoch_of(w: &Win, kind: EpochKind, rank: i32) -> Epoch {
    open_epochs(w)
        .into_iter()
        .find(|e| e.kind == kind && (kind != EpochKind::Lock || e.ranks == [rank]))
        .unwrap_or(Epoch {
            kind,
            ranks: Vec::new(),
            site: Default::default(),
        })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Win_free(win: *mut MPI_Win) -> c_int {
    let mut l = lib();
    let w = window(&mut l, *win, "MPI_Win_free");
    let id = w.id;
    let open = open_epochs(w);
    if !open.is_empty() {
        fault(
            &mut l,
            "MPI_Win_free",
            Some(id),
            RmaFault::StillOpen { open },
        );
    }
    let private = w.private.as_ref().map(|p| p.comm);
    collective(&mut l, Op::WinFree { win: id }, private);
    let key = bits(*win);
    let rc = PMPI_Win_free(win);
    if let Some(w) = l.windows.remove(&key) {
        unwatch_all(&w);
        free_private(&w);
    }
    rc
}

/// At `MPI_Finalize`: a window with an epoch still open ends the run.
pub fn at_finalize(l: &mut Lib) {
    let mut ws: Vec<&Win> = l.windows.values().collect();
    ws.sort_unstable_by_key(|w| w.id);
    let open = ws.into_iter().find_map(|w| {
        let open = open_epochs(w);
        (!open.is_empty()).then_some((w.id, open))
    });
    if let Some((id, open)) = open {
        fault(l, "MPI_Finalize", Some(id), RmaFault::StillOpen { open });
    }
}

/// After `MPI_Finalize`'s Go: frees the windows the program never freed
/// (the scheduler reports them, FIB037), in the order they were made, so
/// that MPI does not fail in `PMPI_Finalize` over them. Every member of
/// each such window is in `MPI_Finalize` too: a free some members made
/// would have left the others' `MPI_Win_free` unmatched.
pub unsafe fn free_leaked(l: &mut Lib) {
    let mut left: Vec<(u32, u64)> = l.windows.iter().map(|(b, w)| (w.id, *b)).collect();
    left.sort_unstable();
    for (_, b) in left {
        let mut win: MPI_Win = crate::handle::from_bits(b);
        PMPI_Win_free(&mut win);
        if let Some(w) = l.windows.remove(&b) {
            unwatch_all(&w);
            free_private(&w);
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Win_fence(assert: c_int, win: MPI_Win) -> c_int {
    let mut l = lib();
    let w = window(&mut l, win, "MPI_Win_fence");
    let id = w.id;
    // A communication call between the last fence and this one started
    // the fence's epoch there: a lock epoch opened in between overlapped
    // it (the call may even be the lock epoch's own). One still open is
    // reported as such first.
    let overlapped = w.fence_passive.take().filter(|_| w.fence && w.fence_rma);
    w.fence_rma = false;
    let fence_site = w.opened.fence;
    let open = open_epochs(w);
    if !open.is_empty() {
        let passive = open.iter().all(|e| e.kind.passive());
        if passive {
            fault(
                &mut l,
                "MPI_Win_fence",
                Some(id),
                RmaFault::Mixed {
                    passive: false,
                    open,
                },
            );
        }
        // A fence inside a PSCW epoch: the epoch is still open.
        fault(
            &mut l,
            "MPI_Win_fence",
            Some(id),
            RmaFault::StillOpen { open },
        );
    }
    if let Some(lock) = overlapped {
        let fence = Epoch {
            kind: EpochKind::Fence,
            ranks: Vec::new(),
            site: fence_site,
        };
        fault(
            &mut l,
            "MPI_Win_fence",
            Some(id),
            RmaFault::Overlapped { fence, lock },
        );
    }
    let w = window(&mut l, win, "MPI_Win_fence");
    w.opened.fence = crate::site::for_call();
    let private = w.private.as_ref().map(|p| p.comm);
    collective(&mut l, Op::WinFence { win: id }, private);
    let rc = PMPI_Win_fence(assert, win);
    let w = window(&mut l, win, "MPI_Win_fence");
    w.fence = assert as i64 & MPI_MODE_NOSUCCEED as i64 == 0;
    w.fence_used = false;
    origins_done(&mut l, win, "MPI_Win_fence", None);
    rc
}

/// The ranks of the window's group that the ranks of `group` are.
unsafe fn group_ranks(win: MPI_Win, group: MPI_Group) -> Vec<u32> {
    let mut wg: MPI_Group = RSMPI_GROUP_EMPTY;
    PMPI_Win_get_group(win, &mut wg);
    let mut n: c_int = 0;
    PMPI_Group_size(group, &mut n);
    let ranks: Vec<c_int> = (0..n).collect();
    let mut out = vec![0 as c_int; n as usize];
    PMPI_Group_translate_ranks(group, n, ranks.as_ptr(), wg, out.as_mut_ptr());
    PMPI_Group_free(&mut wg);
    out.into_iter().map(|r| r as u32).collect()
}

/// A passive-target epoch just opened on `w` (the lock on `rank`, or the
/// lock-all): if a fence's epoch may still be started by a communication
/// call before the next fence, the next fence judges the two
/// ([`Win::fence_passive`]). One that a call already started was judged
/// now, by [`no_mixing`].
fn note_passive(w: &mut Win, kind: EpochKind, rank: i32) {
    if w.fence && !w.fence_used && w.fence_passive.is_none() {
        w.fence_passive = Some(epoch_of(w, kind, rank));
    }
}

/// Refuses passive-target synchronisation while an active-target epoch is
/// open, and the reverse.
fn no_mixing(l: &mut Lib, win: MPI_Win, call: &str, passive: bool) {
    let w = window(l, win, call);
    let id = w.id;
    let mut open: Vec<Epoch> = open_epochs(w)
        .into_iter()
        .filter(|e| e.kind.passive() != passive)
        .collect();
    if passive && w.fence && w.fence_used {
        open.push(Epoch {
            kind: EpochKind::Fence,
            ranks: Vec::new(),
            site: w.opened.fence,
        });
    }
    if !open.is_empty() {
        fault(l, call, Some(id), RmaFault::Mixed { passive, open });
    }
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Win_post(group: MPI_Group, assert: c_int, win: MPI_Win) -> c_int {
    let mut l = lib();
    no_mixing(&mut l, win, "MPI_Win_post", false);
    let w = window(&mut l, win, "MPI_Win_post");
    let id = w.id;
    if w.exposure {
        let open = epoch_of(w, EpochKind::Exposure, 0);
        fault(
            &mut l,
            "MPI_Win_post",
            Some(id),
            RmaFault::AlreadyOpen { open },
        );
    }
    w.exposure = true;
    let ranks = group_ranks(win, group);
    let w = window(&mut l, win, "MPI_Win_post");
    w.opened.exposure = crate::site::for_call();
    w.opened.exposure_group = ranks.iter().map(|&r| r as i32).collect();
    let private = w.private.as_ref().map(|p| p.comm);
    let rc = PMPI_Win_post(group, assert, win);
    if let Some(private) = private {
        // The word `MPI_Win_start` waits for at each origin.
        let comm: MPI_Comm = crate::handle::from_bits(private);
        for &r in &ranks {
            let mut req = RSMPI_REQUEST_NULL;
            PMPI_Isend(
                std::ptr::null(),
                0,
                RSMPI_UINT8_T,
                r as c_int,
                POSTED,
                comm,
                &mut req,
            );
            PMPI_Request_free(&mut req);
        }
    }
    l.event(Op::WinPost {
        win: id,
        group: ranks,
    });
    l.conn.flush();
    rc
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Win_start(group: MPI_Group, assert: c_int, win: MPI_Win) -> c_int {
    let mut l = lib();
    no_mixing(&mut l, win, "MPI_Win_start", false);
    let w = window(&mut l, win, "MPI_Win_start");
    let id = w.id;
    if w.access.is_some() {
        let open = epoch_of(w, EpochKind::Access, 0);
        fault(
            &mut l,
            "MPI_Win_start",
            Some(id),
            RmaFault::AlreadyOpen { open },
        );
    }
    let ranks = group_ranks(win, group);
    let w = window(&mut l, win, "MPI_Win_start");
    w.access = Some(ranks.iter().map(|&r| r as i32).collect());
    w.opened.access = crate::site::for_call();
    let private = w.private.as_ref().map(|p| p.comm);
    let op = Op::WinStart {
        win: id,
        group: ranks.clone(),
    };
    match private {
        Some(private) => {
            l.event_settled(op, true);
            l.conn.flush();
            // Every target's post first, as the engine has it.
            let comm: MPI_Comm = crate::handle::from_bits(private);
            let mut reqs = vec![RSMPI_REQUEST_NULL; ranks.len()];
            for (req, &r) in reqs.iter_mut().zip(&ranks) {
                PMPI_Irecv(
                    std::ptr::null_mut(),
                    0,
                    RSMPI_UINT8_T,
                    r as c_int,
                    POSTED,
                    comm,
                    req,
                );
            }
            l.spin(|| {
                let mut flag: c_int = 0;
                PMPI_Testall(
                    reqs.len() as c_int,
                    reqs.as_mut_ptr(),
                    &mut flag,
                    RSMPI_STATUSES_IGNORE,
                );
                flag != 0
            });
        }
        None => {
            l.event(op);
            l.wait_go();
        }
    }
    PMPI_Win_start(group, assert, win)
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Win_complete(win: MPI_Win) -> c_int {
    let mut l = lib();
    let w = window(&mut l, win, "MPI_Win_complete");
    let id = w.id;
    if w.access.take().is_none() {
        fault(&mut l, "MPI_Win_complete", Some(id), RmaFault::NoStart);
    }
    // Reported first: the target may wait in the scheduler for it while
    // MPI completes this call.
    l.event(Op::WinComplete { win: id });
    l.conn.flush();
    let rc = PMPI_Win_complete(win);
    origins_done(&mut l, win, "MPI_Win_complete", None);
    rc
}

/// `MPI_Win_wait` (`flag` null) or `MPI_Win_test`.
unsafe fn wait(win: MPI_Win, flag: *mut c_int) -> c_int {
    let test = !flag.is_null();
    let call = if test { "MPI_Win_test" } else { "MPI_Win_wait" };
    let mut l = lib();
    let w = window(&mut l, win, call);
    let id = w.id;
    if !w.exposure {
        fault(&mut l, call, Some(id), RmaFault::NoPost);
    }
    if w.private.is_some() {
        return recorded_wait(&mut l, win, id, flag);
    }
    l.event(Op::WinWait { win: id, test });
    let over = match l.wait_down() {
        Down::Go => true,
        Down::Done { indices } => !indices.is_empty(),
        d => fatal(&format!("protocol error: unexpected {d:?} for {call}")),
    };
    if test {
        *flag = over as c_int;
    }
    if !over {
        return MPI_SUCCESS as c_int;
    }
    window(&mut l, win, call).exposure = false;
    PMPI_Win_wait(win)
}

/// A recorded run's `MPI_Win_wait` (`flag` null) or `MPI_Win_test`: the
/// wait polls MPI's test, saying so when it waits long; a test that
/// returns true is a poll that returned something, one that returns false
/// is not reported.
unsafe fn recorded_wait(l: &mut Lib, win: MPI_Win, id: u32, flag: *mut c_int) -> c_int {
    let mut rc = MPI_SUCCESS as c_int;
    if flag.is_null() {
        l.event_settled(
            Op::WinWait {
                win: id,
                test: false,
            },
            true,
        );
        l.conn.flush();
        l.spin(|| {
            let mut done: c_int = 0;
            rc = PMPI_Win_test(win, &mut done);
            done != 0 || rc != MPI_SUCCESS as c_int
        });
    } else {
        rc = PMPI_Win_test(win, flag);
        if *flag == 0 {
            l.polled_nothing();
            return rc;
        }
        l.polled(
            Op::WinWait {
                win: id,
                test: true,
            },
            vec![0],
        );
    }
    window(l, win, "MPI_Win_wait").exposure = false;
    rc
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Win_wait(win: MPI_Win) -> c_int {
    wait(win, std::ptr::null_mut())
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Win_test(win: MPI_Win, flag: *mut c_int) -> c_int {
    if flag.is_null() {
        invalid(&mut lib(), "MPI_Win_test: flag is a null pointer".into());
    }
    wait(win, flag)
}

/// Checks a target rank of the window: in its group or `MPI_PROC_NULL`.
fn target_rank(l: &mut Lib, win: MPI_Win, call: &str, target: c_int) {
    let w = window(l, win, call);
    let (id, n) = (w.id, w.sizes.len());
    // SAFETY: reading a constant.
    if target != unsafe { RSMPI_PROC_NULL } && (target < 0 || target as usize >= n) {
        fault(
            l,
            call,
            Some(id),
            RmaFault::TargetOutside {
                target,
                size: n as u32,
            },
        );
    }
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Win_lock(
    lock_type: c_int,
    rank: c_int,
    assert: c_int,
    win: MPI_Win,
) -> c_int {
    let mut l = lib();
    target_rank(&mut l, win, "MPI_Win_lock", rank);
    no_mixing(&mut l, win, "MPI_Win_lock", true);
    let exclusive = lock_type as i64 == MPI_LOCK_EXCLUSIVE as i64;
    if !exclusive && lock_type as i64 != MPI_LOCK_SHARED as i64 {
        invalid(
            &mut l,
            format!("MPI_Win_lock: lock type {lock_type} is neither MPI_LOCK_EXCLUSIVE nor MPI_LOCK_SHARED"),
        );
    }
    let w = window(&mut l, win, "MPI_Win_lock");
    let id = w.id;
    if w.locks.contains(&rank) || w.lock_all {
        let open = if w.lock_all {
            epoch_of(w, EpochKind::LockAll, 0)
        } else {
            epoch_of(w, EpochKind::Lock, rank)
        };
        fault(
            &mut l,
            "MPI_Win_lock",
            Some(id),
            RmaFault::AlreadyOpen { open },
        );
    }
    if rank != RSMPI_PROC_NULL {
        w.locks.push(rank);
        w.opened.locks.push(crate::site::for_call());
        note_passive(w, EpochKind::Lock, rank);
    }
    let op = Op::WinLock {
        win: id,
        target: crate::values::rank_to_wire(rank),
        exclusive,
    };
    if l.record.is_some() {
        // The library's lock held, no conflicting lock is held or asked
        // for: MPI need not ask the target (whose progress it would wait
        // for while the target may wait in the library's lock).
        let assert = assert | MPI_MODE_NOCHECK as c_int;
        return recorded_lock(&mut l, win, op, &[rank], exclusive, || {
            PMPI_Win_lock(lock_type, rank, assert, win)
        });
    }
    l.event(op);
    l.wait_go();
    PMPI_Win_lock(lock_type, rank, assert, win)
}

/// A recorded run's `MPI_Win_lock` (`targets` its one target) or
/// `MPI_Win_lock_all` (`targets` empty: every rank of the window): reported
/// as settled, the library's lock taken after the grants the plan makes
/// it wait for, then MPI's (`real`), and the grants' numbers reported
/// ([`Up::Granted`]). A lock of `MPI_PROC_NULL` takes nothing.
unsafe fn recorded_lock(
    l: &mut Lib,
    win: MPI_Win,
    op: Op,
    targets: &[c_int],
    exclusive: bool,
    real: impl FnOnce() -> c_int,
) -> c_int {
    l.event_settled(op, true);
    let Some(rec) = l.record.as_mut() else {
        unreachable!("a recorded run")
    };
    let (k, waits) = rec.next_lock();
    if targets == [RSMPI_PROC_NULL] {
        return real();
    }
    let w = window(l, win, "MPI_Win_lock");
    let Some(mut p) = w.private.take() else {
        unreachable!("a recorded run's window")
    };
    let targets: Vec<c_int> = match targets {
        [] => (0..p.world.len() as c_int).collect(),
        t => t.to_vec(),
    };
    let grants = take_locks(l, &mut p, &targets, exclusive, k, &waits);
    p.held.extend(targets.iter().map(|&t| (t, exclusive)));
    window(l, win, "MPI_Win_lock").private = Some(p);
    let rc = real();
    l.push(Up::Granted { grants });
    rc
}

/// A recorded run's unlock of `targets` (every rank of the window, for
/// `None`): the library's locks go back once MPI's are released.
unsafe fn recorded_unlock(l: &mut Lib, win: MPI_Win, targets: Option<c_int>) {
    let w = window(l, win, "MPI_Win_unlock");
    let Some(p) = w.private.as_mut() else {
        return;
    };
    let lw: MPI_Win = crate::handle::from_bits(p.locks);
    p.held.retain(|&(t, exclusive)| {
        let hit = targets.is_none_or(|x| x == t);
        if hit {
            unlock(lw, t, exclusive);
        }
        !hit
    });
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Win_unlock(rank: c_int, win: MPI_Win) -> c_int {
    let mut l = lib();
    target_rank(&mut l, win, "MPI_Win_unlock", rank);
    let w = window(&mut l, win, "MPI_Win_unlock");
    let id = w.id;
    if rank != RSMPI_PROC_NULL {
        match w.locks.iter().position(|&t| t == rank) {
            Some(p) => {
                w.locks.remove(p);
                if p < w.opened.locks.len() {
                    w.opened.locks.remove(p);
                }
            }
            None => fault(
                &mut l,
                "MPI_Win_unlock",
                Some(id),
                RmaFault::NoLock { target: rank },
            ),
        }
    }
    let rc = PMPI_Win_unlock(rank, win);
    recorded_unlock(&mut l, win, Some(rank));
    origins_done(&mut l, win, "MPI_Win_unlock", Some(rank));
    l.event(Op::WinUnlock {
        win: id,
        target: crate::values::rank_to_wire(rank),
    });
    l.conn.flush();
    rc
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Win_lock_all(assert: c_int, win: MPI_Win) -> c_int {
    let mut l = lib();
    no_mixing(&mut l, win, "MPI_Win_lock_all", true);
    let w = window(&mut l, win, "MPI_Win_lock_all");
    let id = w.id;
    if w.lock_all || !w.locks.is_empty() {
        let open = match w.lock_all {
            true => epoch_of(w, EpochKind::LockAll, 0),
            false => open_epochs(w).remove(0),
        };
        fault(
            &mut l,
            "MPI_Win_lock_all",
            Some(id),
            RmaFault::AlreadyOpen { open },
        );
    }
    w.lock_all = true;
    w.opened.lock_all = crate::site::for_call();
    note_passive(w, EpochKind::LockAll, 0);
    if l.record.is_some() {
        let assert = assert | MPI_MODE_NOCHECK as c_int;
        return recorded_lock(&mut l, win, Op::WinLockAll { win: id }, &[], false, || {
            PMPI_Win_lock_all(assert, win)
        });
    }
    l.event(Op::WinLockAll { win: id });
    l.wait_go();
    PMPI_Win_lock_all(assert, win)
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Win_unlock_all(win: MPI_Win) -> c_int {
    let mut l = lib();
    let w = window(&mut l, win, "MPI_Win_unlock_all");
    let id = w.id;
    if !w.lock_all {
        fault(&mut l, "MPI_Win_unlock_all", Some(id), RmaFault::NoLockAll);
    }
    w.lock_all = false;
    let rc = PMPI_Win_unlock_all(win);
    recorded_unlock(&mut l, win, None);
    origins_done(&mut l, win, "MPI_Win_unlock_all", None);
    l.event(Op::WinUnlockAll { win: id });
    l.conn.flush();
    rc
}

/// A flush or `MPI_Win_sync`: made, then reported.
unsafe fn flush(how: FlushKind, rank: c_int, win: MPI_Win, real: impl FnOnce() -> c_int) -> c_int {
    let call = how.mpi_name();
    let mut l = lib();
    if how.has_target() {
        target_rank(&mut l, win, call, rank);
    }
    let w = window(&mut l, win, call);
    let id = w.id;
    let passive = !w.locks.is_empty() || w.lock_all;
    let held = w.lock_all || w.locks.contains(&rank);
    if how.has_target() && !held {
        fault(&mut l, call, Some(id), RmaFault::NoLock { target: rank });
    }
    if how != FlushKind::Sync && !passive {
        fault(&mut l, call, Some(id), RmaFault::NoPassiveEpoch);
    }
    let rc = real();
    if how != FlushKind::Sync {
        origins_done(&mut l, win, call, how.has_target().then_some(rank));
    }
    l.event(Op::WinFlush {
        win: id,
        how,
        target: if how.has_target() {
            crate::values::rank_to_wire(rank)
        } else {
            PROC_NULL
        },
    });
    rc
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Win_flush(rank: c_int, win: MPI_Win) -> c_int {
    flush(FlushKind::Flush, rank, win, || PMPI_Win_flush(rank, win))
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Win_flush_all(win: MPI_Win) -> c_int {
    flush(FlushKind::FlushAll, 0, win, || PMPI_Win_flush_all(win))
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Win_flush_local(rank: c_int, win: MPI_Win) -> c_int {
    flush(FlushKind::FlushLocal, rank, win, || {
        PMPI_Win_flush_local(rank, win)
    })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Win_flush_local_all(win: MPI_Win) -> c_int {
    flush(FlushKind::FlushLocalAll, 0, win, || {
        PMPI_Win_flush_local_all(win)
    })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Win_sync(win: MPI_Win) -> c_int {
    flush(FlushKind::Sync, 0, win, || PMPI_Win_sync(win))
}

/// What a communication call names: its origin buffer (null for none),
/// count and datatype, its target, and the operation of an accumulate.
struct Call {
    kind: RmaKind,
    origin: *const c_void,
    origin_count: c_int,
    origin_dtype: MPI_Datatype,
    target: c_int,
    disp: MPI_Aint,
    target_count: c_int,
    target_dtype: MPI_Datatype,
    op: Option<MPI_Op>,
    /// The result buffer of a fetching call (MPI writes it), with its
    /// count and datatype.
    result: Option<(*const c_void, c_int, MPI_Datatype)>,
    /// `MPI_Compare_and_swap`'s compare buffer (MPI reads it).
    compare: *const c_void,
}

/// Checks a communication call and reports it; `req` is the id of the
/// request of an `MPI_R*` form.
unsafe fn rma(l: &mut Lib, c: &Call, win: MPI_Win, req: Option<u32>) {
    let call = c.kind.mpi_name(req.is_some());
    target_rank(l, win, call, c.target);
    for (count, what) in [(c.origin_count, "origin"), (c.target_count, "target")] {
        if count < 0 {
            invalid(l, format!("{call}: the {what} count {count} is negative"));
        }
    }
    for (dtype, count, what) in [
        (c.origin_dtype, c.origin_count, "origin"),
        (c.target_dtype, c.target_count, "target"),
    ] {
        if same(dtype, RSMPI_DATATYPE_NULL) && count > 0 {
            let id = window(l, win, call).id;
            fault(
                l,
                call,
                Some(id),
                RmaFault::NullDatatype {
                    origin: what == "origin",
                    count,
                },
            );
        }
    }
    if c.origin.is_null()
        && c.origin_count > 0
        // The fetching accumulates ignore the origin buffer with MPI_NO_OP.
        && matches!(c.kind, RmaKind::Put | RmaKind::Acc | RmaKind::Cas)
        && crate::sig::predefined(c.origin_dtype)
    {
        let id = window(l, win, call).id;
        fault(
            l,
            call,
            Some(id),
            RmaFault::NullBuffer {
                count: c.origin_count,
            },
        );
    }
    let null = c.target == RSMPI_PROC_NULL;
    let w = window(l, win, call);
    let id = w.id;
    let open = w.fence
        || w.lock_all
        || w.locks.contains(&c.target)
        || w.access.as_ref().is_some_and(|a| a.contains(&c.target));
    if !null && !open {
        fault(
            l,
            call,
            Some(id),
            RmaFault::NoAccessEpoch { target: c.target },
        );
    }
    // A call inside a lock or PSCW epoch belongs to that epoch, not to the
    // fence epoch a fence without MPI_MODE_NOSUCCEED left open.
    let in_other = w.lock_all
        || w.locks.contains(&c.target)
        || w.access.as_ref().is_some_and(|a| a.contains(&c.target));
    if w.fence && !in_other {
        w.fence_used = true;
    }
    if w.fence {
        w.fence_rma = true;
    }
    let (mut lb, mut extent): (MPI_Aint, MPI_Aint) = (0, 0);
    if !same(c.target_dtype, RSMPI_DATATYPE_NULL) {
        PMPI_Type_get_extent(c.target_dtype, &mut lb, &mut extent);
    }
    let bytes = (c.target_count as i64 * extent as i64).max(0);
    let (size, unit) = if null {
        (0, 1)
    } else {
        w.sizes[c.target as usize]
    };
    let dynamic = w.dynamic;
    let disp = if dynamic {
        c.disp as i64
    } else {
        c.disp as i64 * unit
    };
    if !null && !dynamic && (disp < 0 || disp + bytes > size) {
        fault(
            l,
            call,
            Some(id),
            RmaFault::BytesOutside {
                target: c.target,
                disp: c.disp as i64,
                unit,
                count: c.target_count,
                start: disp,
                end: disp + bytes,
                size,
            },
        );
    }
    let (op, dtype) = match c.op {
        Some(o) => (
            crate::sig::op_named(o).to_string(),
            crate::sig::basic_name(c.target_dtype),
        ),
        None => (String::new(), String::new()),
    };
    l.event(Op::Rma {
        win: id,
        kind: c.kind,
        target: crate::values::rank_to_wire(c.target),
        disp: disp.max(0) as u64,
        bytes: bytes as u64,
        req,
        op,
        dtype,
    });
    if !null && crate::memory::instrumented() {
        // MPI reads the origin buffer (writes it, for a get; ignores it for
        // an MPI_NO_OP fetch) and the compare buffer, and writes the result
        // buffer, until the call completes at the origin: a request form's
        // wait, or the flush, unlock, fence or complete that ends its epoch.
        let no_op = c.op.is_some_and(|o| crate::sig::op_named(o) == "MPI_NO_OP");
        let mut bufs = Vec::new();
        let ignored = no_op && c.kind != RmaKind::Acc;
        if !c.origin.is_null() && !ignored {
            let writes = c.kind == RmaKind::Get;
            bufs.extend(crate::owned::data(
                c.origin,
                c.origin_count,
                c.origin_dtype,
                writes,
            ));
        }
        if !c.compare.is_null() {
            bufs.extend(crate::owned::data(c.compare, 1, c.origin_dtype, false));
        }
        if let Some((buf, count, dtype)) = c.result.filter(|r| !r.0.is_null()) {
            bufs.extend(crate::owned::data(buf, count, dtype, true));
        }
        if !bufs.is_empty() {
            let owner = req.unwrap_or_else(|| NEXT_ORIGIN.fetch_add(1, Ordering::Relaxed));
            crate::memory::own(Some(owner), call, crate::site::for_call(), &bufs);
            if req.is_none() {
                window(l, win, call).origins.push((c.target, owner));
            }
        }
    }
}

/// The ids the origin buffers of blocking-form communication calls are
/// owned under: apart from request ids, which count up from 0.
static NEXT_ORIGIN: AtomicU32 = AtomicU32::new(1 << 31);

/// The communication calls of `win` to `target` (to every target for
/// `None`) are complete at the origin: MPI hands their origin buffers back.
unsafe fn origins_done(l: &mut Lib, win: MPI_Win, call: &'static str, target: Option<i32>) {
    let w = window(l, win, call);
    let mut done = Vec::new();
    w.origins.retain(|&(t, id)| {
        let hit = target.is_none_or(|x| x == t);
        if hit {
            done.push(id);
        }
        !hit
    });
    for id in done {
        crate::memory::release(id);
    }
}

/// A blocking-form communication call: checked, reported, made.
unsafe fn plain(c: Call, win: MPI_Win, real: impl FnOnce() -> c_int) -> c_int {
    let mut l = lib();
    rma(&mut l, &c, win, None);
    real()
}

/// A request-form communication call: checked, reported with a request
/// of the library's, made; the program's waits complete it.
unsafe fn with_request(
    c: Call,
    win: MPI_Win,
    request: *mut MPI_Request,
    real: impl FnOnce(*mut MPI_Request) -> c_int,
) -> c_int {
    let mut l = lib();
    crate::check::request_out(&mut l, request);
    let mut r = RSMPI_REQUEST_NULL;
    let (id, fake) = l.new_req(Kind::Nothing);
    rma(&mut l, &c, win, Some(id));
    let rc = real(&mut r);
    if let Some(q) = l.reqs.get_mut(&id) {
        q.kind = Kind::Coll(Real::new(r));
    }
    *request = fake;
    rc
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Put(
    origin_addr: *const c_void,
    origin_count: c_int,
    origin_datatype: MPI_Datatype,
    target_rank: c_int,
    target_disp: MPI_Aint,
    target_count: c_int,
    target_datatype: MPI_Datatype,
    win: MPI_Win,
) -> c_int {
    let c = Call {
        kind: RmaKind::Put,
        origin: origin_addr,
        origin_count,
        origin_dtype: origin_datatype,
        target: target_rank,
        disp: target_disp,
        target_count,
        target_dtype: target_datatype,
        op: None,
        result: None,
        compare: std::ptr::null(),
    };
    plain(c, win, || {
        PMPI_Put(
            origin_addr,
            origin_count,
            origin_datatype,
            target_rank,
            target_disp,
            target_count,
            target_datatype,
            win,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Get(
    origin_addr: *mut c_void,
    origin_count: c_int,
    origin_datatype: MPI_Datatype,
    target_rank: c_int,
    target_disp: MPI_Aint,
    target_count: c_int,
    target_datatype: MPI_Datatype,
    win: MPI_Win,
) -> c_int {
    let c = Call {
        kind: RmaKind::Get,
        origin: origin_addr,
        origin_count,
        origin_dtype: origin_datatype,
        target: target_rank,
        disp: target_disp,
        target_count,
        target_dtype: target_datatype,
        op: None,
        result: None,
        compare: std::ptr::null(),
    };
    plain(c, win, || {
        PMPI_Get(
            origin_addr,
            origin_count,
            origin_datatype,
            target_rank,
            target_disp,
            target_count,
            target_datatype,
            win,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Accumulate(
    origin_addr: *const c_void,
    origin_count: c_int,
    origin_datatype: MPI_Datatype,
    target_rank: c_int,
    target_disp: MPI_Aint,
    target_count: c_int,
    target_datatype: MPI_Datatype,
    op: MPI_Op,
    win: MPI_Win,
) -> c_int {
    let c = Call {
        kind: RmaKind::Acc,
        origin: origin_addr,
        origin_count,
        origin_dtype: origin_datatype,
        target: target_rank,
        disp: target_disp,
        target_count,
        target_dtype: target_datatype,
        op: Some(op),
        result: None,
        compare: std::ptr::null(),
    };
    plain(c, win, || {
        PMPI_Accumulate(
            origin_addr,
            origin_count,
            origin_datatype,
            target_rank,
            target_disp,
            target_count,
            target_datatype,
            op,
            win,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Get_accumulate(
    origin_addr: *const c_void,
    origin_count: c_int,
    origin_datatype: MPI_Datatype,
    result_addr: *mut c_void,
    result_count: c_int,
    result_datatype: MPI_Datatype,
    target_rank: c_int,
    target_disp: MPI_Aint,
    target_count: c_int,
    target_datatype: MPI_Datatype,
    op: MPI_Op,
    win: MPI_Win,
) -> c_int {
    let c = Call {
        kind: RmaKind::GetAcc,
        origin: origin_addr,
        origin_count,
        origin_dtype: origin_datatype,
        target: target_rank,
        disp: target_disp,
        target_count,
        target_dtype: target_datatype,
        op: Some(op),
        result: Some((result_addr as *const c_void, result_count, result_datatype)),
        compare: std::ptr::null(),
    };
    plain(c, win, || {
        PMPI_Get_accumulate(
            origin_addr,
            origin_count,
            origin_datatype,
            result_addr,
            result_count,
            result_datatype,
            target_rank,
            target_disp,
            target_count,
            target_datatype,
            op,
            win,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Fetch_and_op(
    origin_addr: *const c_void,
    result_addr: *mut c_void,
    datatype: MPI_Datatype,
    target_rank: c_int,
    target_disp: MPI_Aint,
    op: MPI_Op,
    win: MPI_Win,
) -> c_int {
    let c = Call {
        kind: RmaKind::FetchOp,
        origin: origin_addr,
        origin_count: 1,
        origin_dtype: datatype,
        target: target_rank,
        disp: target_disp,
        target_count: 1,
        target_dtype: datatype,
        op: Some(op),
        result: Some((result_addr as *const c_void, 1, datatype)),
        compare: std::ptr::null(),
    };
    plain(c, win, || {
        PMPI_Fetch_and_op(
            origin_addr,
            result_addr,
            datatype,
            target_rank,
            target_disp,
            op,
            win,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Compare_and_swap(
    origin_addr: *const c_void,
    compare_addr: *const c_void,
    result_addr: *mut c_void,
    datatype: MPI_Datatype,
    target_rank: c_int,
    target_disp: MPI_Aint,
    win: MPI_Win,
) -> c_int {
    let c = Call {
        kind: RmaKind::Cas,
        origin: origin_addr,
        origin_count: 1,
        origin_dtype: datatype,
        target: target_rank,
        disp: target_disp,
        target_count: 1,
        target_dtype: datatype,
        op: None,
        result: Some((result_addr as *const c_void, 1, datatype)),
        compare: compare_addr,
    };
    plain(c, win, || {
        PMPI_Compare_and_swap(
            origin_addr,
            compare_addr,
            result_addr,
            datatype,
            target_rank,
            target_disp,
            win,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Rput(
    origin_addr: *const c_void,
    origin_count: c_int,
    origin_datatype: MPI_Datatype,
    target_rank: c_int,
    target_disp: MPI_Aint,
    target_count: c_int,
    target_datatype: MPI_Datatype,
    win: MPI_Win,
    request: *mut MPI_Request,
) -> c_int {
    let c = Call {
        kind: RmaKind::Put,
        origin: origin_addr,
        origin_count,
        origin_dtype: origin_datatype,
        target: target_rank,
        disp: target_disp,
        target_count,
        target_dtype: target_datatype,
        op: None,
        result: None,
        compare: std::ptr::null(),
    };
    with_request(c, win, request, |r| {
        PMPI_Rput(
            origin_addr,
            origin_count,
            origin_datatype,
            target_rank,
            target_disp,
            target_count,
            target_datatype,
            win,
            r,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Rget(
    origin_addr: *mut c_void,
    origin_count: c_int,
    origin_datatype: MPI_Datatype,
    target_rank: c_int,
    target_disp: MPI_Aint,
    target_count: c_int,
    target_datatype: MPI_Datatype,
    win: MPI_Win,
    request: *mut MPI_Request,
) -> c_int {
    let c = Call {
        kind: RmaKind::Get,
        origin: origin_addr,
        origin_count,
        origin_dtype: origin_datatype,
        target: target_rank,
        disp: target_disp,
        target_count,
        target_dtype: target_datatype,
        op: None,
        result: None,
        compare: std::ptr::null(),
    };
    with_request(c, win, request, |r| {
        PMPI_Rget(
            origin_addr,
            origin_count,
            origin_datatype,
            target_rank,
            target_disp,
            target_count,
            target_datatype,
            win,
            r,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Raccumulate(
    origin_addr: *const c_void,
    origin_count: c_int,
    origin_datatype: MPI_Datatype,
    target_rank: c_int,
    target_disp: MPI_Aint,
    target_count: c_int,
    target_datatype: MPI_Datatype,
    op: MPI_Op,
    win: MPI_Win,
    request: *mut MPI_Request,
) -> c_int {
    let c = Call {
        kind: RmaKind::Acc,
        origin: origin_addr,
        origin_count,
        origin_dtype: origin_datatype,
        target: target_rank,
        disp: target_disp,
        target_count,
        target_dtype: target_datatype,
        op: Some(op),
        result: None,
        compare: std::ptr::null(),
    };
    with_request(c, win, request, |r| {
        PMPI_Raccumulate(
            origin_addr,
            origin_count,
            origin_datatype,
            target_rank,
            target_disp,
            target_count,
            target_datatype,
            op,
            win,
            r,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Rget_accumulate(
    origin_addr: *const c_void,
    origin_count: c_int,
    origin_datatype: MPI_Datatype,
    result_addr: *mut c_void,
    result_count: c_int,
    result_datatype: MPI_Datatype,
    target_rank: c_int,
    target_disp: MPI_Aint,
    target_count: c_int,
    target_datatype: MPI_Datatype,
    op: MPI_Op,
    win: MPI_Win,
    request: *mut MPI_Request,
) -> c_int {
    let c = Call {
        kind: RmaKind::GetAcc,
        origin: origin_addr,
        origin_count,
        origin_dtype: origin_datatype,
        target: target_rank,
        disp: target_disp,
        target_count,
        target_dtype: target_datatype,
        op: Some(op),
        result: Some((result_addr as *const c_void, result_count, result_datatype)),
        compare: std::ptr::null(),
    };
    with_request(c, win, request, |r| {
        PMPI_Rget_accumulate(
            origin_addr,
            origin_count,
            origin_datatype,
            result_addr,
            result_count,
            result_datatype,
            target_rank,
            target_disp,
            target_count,
            target_datatype,
            op,
            win,
            r,
        )
    })
}
