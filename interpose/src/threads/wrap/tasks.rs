//! OpenMP's explicit tasks, as GCC's libgomp runs them. A task starts
//! after what its creator did before creating it. Its end comes before
//! what waits for it:
//! - its parent's `taskwait`;
//! - the end of a `taskgroup` it was created in (by its parent or by an
//!   ancestor);
//! - the next barrier of its team, and the end of the region;
//! - the sibling tasks created after it that depend on it (`depend`: an
//!   `in` after an `out` or `inout` on the same object, an `out` after
//!   either).
//!
//! `GOMP_task` is given a body of fib's (`run`) and a data block with
//! fib's record of the task in front of the program's data, which a copy
//! function of fib's (`copy`) fills as libgomp copies the block: the
//! record is found again wherever and whenever the task runs. A task with
//! a clause fib does not follow (a detachable task, a task reduction)
//! runs as the program asked, with no order of its own.

use std::os::raw::{c_int, c_long, c_uint, c_ulong, c_void};
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

use super::super::order::Clock;
use super::super::{acquire, drop_object, fork, me, pending, release_all, started, state, with_me};
use super::Body;

/// libgomp's task flags fib follows: untied, final, mergeable, depend and
/// priority. A task with any other runs unfollowed.
const FOLLOWED: c_uint = 0x1f;
const DEPEND: c_uint = 1 << 3;
/// libgomp's kind of an `in` dependence in an `omp_depend_t` object.
const DEPEND_IN: usize = 1;

/// Tags of the objects tasks synchronise through (the second half of an
/// object's key in the order). The children of an explicit task are keyed
/// by the task's number, of an implicit task by its region and thread; a
/// team's tasks by the region; a taskgroup's by its number. A dependence
/// is keyed by the object's address, with its parent task and kind in the
/// tag (`dependence`), which sets it apart from every other tag.
const TASK: u64 = 1 << 62;
const CHILDREN: u64 = TASK | 1;
const IMPLICIT: u64 = TASK | 2;
const TEAM: u64 = TASK | 3;
const GROUP: u64 = TASK | 4;
const DEPENDENCE: u64 = 1 << 63;

/// Numbers of explicit tasks and taskgroups.
static NEXT: AtomicUsize = AtomicUsize::new(1);

/// Regions running in the rank: dependences are forgotten once none is.
static REGIONS: AtomicUsize = AtomicUsize::new(0);

/// Whether a task with dependences was made since they were last
/// forgotten (else there are none to forget).
static DEPENDS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// A task a thread runs: the object its children's ends release, the
/// taskgroups open in it (innermost last), the taskgroups it belongs to
/// (its creator's, open or inherited) and its team's region.
pub struct Frame {
    children: (usize, u64),
    groups: Vec<usize>,
    member: Vec<usize>,
    team: usize,
}

/// The calling thread starts the implicit task of its thread in `region`.
pub(super) fn region_entered(region: usize) {
    REGIONS.fetch_add(1, Ordering::AcqRel);
    with_me(|me| {
        let children = (region, IMPLICIT | ((me.index as u64) << 8));
        me.tasks.push(Frame {
            children,
            groups: Vec::new(),
            member: Vec::new(),
            team: region,
        });
    });
}

/// The calling thread's implicit task in the region ends.
pub(super) fn region_left() {
    with_me(|me| me.tasks.pop());
    REGIONS.fetch_sub(1, Ordering::AcqRel);
}

/// The region `region` has ended (its encountering thread continues):
/// every task of its team has ended before.
pub(super) fn region_ended(region: usize) {
    acquire((region, TEAM));
    if REGIONS.load(Ordering::Acquire) == 0 && DEPENDS.swap(false, Ordering::AcqRel) {
        // No task of any region remains to depend on an earlier one.
        state()
            .order
            .forget(|k| k.1 & DEPENDENCE == 0 || k.1 == u64::MAX);
    }
}

/// A barrier of `region` has ended: so has every task of its team.
pub(super) fn barrier_passed(region: usize) {
    acquire((region, TEAM));
}

/// The tag of the dependence of kind `out` (or `in`) among the children
/// of `parent`.
fn dependence(parent: (usize, u64), out: bool) -> u64 {
    let h = (parent.0 as u64).rotate_left(29) ^ parent.1.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    DEPENDENCE | ((h & (u64::MAX >> 3)) << 1) | u64::from(out)
}

/// fib's record of a task, in front of the program's data in the block
/// libgomp hands the task's body.
struct Task {
    body: Body,
    /// Where the program's data starts in the block.
    offset: usize,
    /// The creator's clock.
    clock: Clock,
    number: usize,
    /// The objects its end releases (its parent's children, its
    /// taskgroups, its team), before its dependences.
    ends: Vec<(usize, u64)>,
    /// Its dependences: the object's address and whether it is `out`.
    depends: Vec<(usize, bool)>,
    parent: (usize, u64),
    member: Vec<usize>,
    team: usize,
}

/// What `copy` is given by libgomp: fib's record and the program's data.
struct Source {
    task: *mut Task,
    data: *mut c_void,
    copy: Option<Copy>,
    size: usize,
    copied: bool,
}

type Copy = extern "C" fn(*mut c_void, *mut c_void);

/// Copies the program's data of a task into `dst`, with the program's
/// copy function if it has one, as libgomp would.
///
/// # Safety
/// `dst` holds `size` bytes; `data` is the program's data block.
unsafe fn copy_data(dst: *mut c_void, data: *mut c_void, copy: Option<Copy>, size: usize) {
    match copy {
        Some(c) => c(dst, data),
        None if size > 0 => {
            std::ptr::copy_nonoverlapping(data.cast::<u8>(), dst.cast::<u8>(), size)
        }
        None => {}
    }
}

/// libgomp copies the task's data block: fib's record, then the program's
/// data (with the program's copy function if it has one).
extern "C" fn copy(dst: *mut c_void, src: *mut c_void) {
    // SAFETY: `src` is the Source `__wrap_GOMP_task` passed as the data,
    // alive during the real call, which is when libgomp copies; `dst` is
    // a block of the size and alignment it asked for.
    unsafe {
        let s = &mut *src.cast::<Source>();
        dst.cast::<*mut Task>().write(s.task);
        let payload = dst.cast::<u8>().add((*s.task).offset).cast::<c_void>();
        copy_data(payload, s.data, s.copy, s.size);
        s.copied = true;
    }
}

/// The body libgomp runs for a followed task.
extern "C" fn run(block: *mut c_void) {
    // SAFETY: `block` is a data block `copy` filled: fib's record first,
    // owned by this run of the task.
    let task = unsafe { Box::from_raw(block.cast::<*mut Task>().read()) };
    started(&*task as *const Task as usize);
    begin(&task, task.number);
    // SAFETY: the program's data is at `offset` in the block.
    (task.body)(unsafe { block.cast::<u8>().add(task.offset) }.cast());
    end(&task, task.number);
}

/// The calling thread starts a run of `task`, numbered `number` (the key
/// of its children).
fn begin(task: &Task, number: usize) {
    let t = me();
    {
        let mut s = state();
        s.order.after(t, &task.clock);
        for &(addr, out) in &task.depends {
            // After the earlier siblings' `out` on the object, and, for an
            // `out`, their `in` too.
            s.order.acquire(t, (addr, dependence(task.parent, true)));
            if out {
                s.order.acquire(t, (addr, dependence(task.parent, false)));
            }
        }
    }
    with_me(|me| {
        me.tasks.push(Frame {
            children: (number, CHILDREN),
            groups: Vec::new(),
            member: task.member.clone(),
            team: task.team,
        })
    });
}

/// The calling thread ends the run `number` of `task`.
fn end(task: &Task, number: usize) {
    with_me(|me| me.tasks.pop());
    let mut keys = task.ends.clone();
    keys.extend(
        task.depends
            .iter()
            .map(|&(addr, out)| (addr, dependence(task.parent, out))),
    );
    release_all(&keys);
    drop_object((number, CHILDREN));
}

/// What the end of a task of `parent` that belongs to the taskgroups
/// `member`, in the team of `team`, releases (before its dependences).
fn ends(parent: (usize, u64), member: &[usize], team: usize) -> Vec<(usize, u64)> {
    let mut ends = vec![parent, (team, TEAM)];
    ends.extend(member.iter().map(|&g| (g, GROUP)));
    ends
}

/// The dependences of a task's `depend` array (libgomp's two layouts).
///
/// # Safety
/// `depend` is the array the compiler passed with `flags`.
unsafe fn dependences(flags: c_uint, depend: *mut *mut c_void) -> Vec<(usize, bool)> {
    if flags & DEPEND == 0 || depend.is_null() {
        return Vec::new();
    }
    DEPENDS.store(true, Ordering::Release);
    let at = |i: usize| *depend.add(i) as usize;
    if at(0) != 0 {
        // Count, how many of them are `out`/`inout`, the addresses.
        let (n, out) = (at(0), at(1));
        return (0..n).map(|i| (at(2 + i), i < out)).collect();
    }
    // 0, count, `out`/`inout`, `mutexinoutset`, `in`, the addresses, then
    // `omp_depend_t` objects (address and kind).
    let (n, out) = (at(1), at(2) + at(3));
    let plain = out + at(4);
    (0..n)
        .map(|i| {
            if i < plain {
                (at(5 + i), i < out)
            } else {
                let d = at(5 + i) as *const usize;
                (*d, *d.add(1) != DEPEND_IN)
            }
        })
        .collect()
}

/// The calling thread's task, as the creator of another: its children's
/// key, the taskgroups a task it creates belongs to, and its team. None
/// outside a region (or in a thread libgomp did not start), where a task
/// runs at once in its creator, whose program order is then the order.
fn creator() -> Option<((usize, u64), Vec<usize>, usize)> {
    with_me(|me| {
        me.tasks.last().map(|f| {
            let mut member = f.member.clone();
            member.extend(&f.groups);
            (f.children, member, f.team)
        })
    })
}

/// # Safety
/// As libgomp's `GOMP_task` (GCC 11 and later).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __wrap_GOMP_task(
    body: Body,
    data: *mut c_void,
    cpyfn: Option<Copy>,
    size: c_long,
    align: c_long,
    if_clause: bool,
    flags: c_uint,
    depend: *mut *mut c_void,
    priority: c_int,
    detach: *mut c_void,
) {
    type Real = extern "C" fn(
        Body,
        *mut c_void,
        Option<Copy>,
        c_long,
        c_long,
        bool,
        c_uint,
        *mut *mut c_void,
        c_int,
        *mut c_void,
    );
    let f = real_fn!("GOMP_task" as Real);
    let Some((parent, member, team)) =
        creator().filter(|_| flags & !FOLLOWED == 0 && detach.is_null() && size >= 0 && align >= 0)
    else {
        return f(
            body, data, cpyfn, size, align, if_clause, flags, depend, priority, detach,
        );
    };
    let align = (align as usize).max(std::mem::align_of::<*mut Task>());
    let offset = std::mem::size_of::<*mut Task>().next_multiple_of(align);
    let task = Box::into_raw(Box::new(Task {
        body,
        offset,
        clock: fork(),
        number: NEXT.fetch_add(1, Ordering::Relaxed),
        ends: ends(parent, &member, team),
        depends: dependences(flags, depend),
        parent,
        member,
        team,
    }));
    pending(task as usize, &(*task).clock);
    let mut source = Source {
        task,
        data,
        copy: cpyfn,
        size: size as usize,
        copied: false,
    };
    f(
        run,
        (&mut source as *mut Source).cast(),
        Some(copy),
        (offset + size as usize) as c_long,
        align as c_long,
        if_clause,
        flags,
        depend,
        priority,
        detach,
    );
    if !source.copied {
        // libgomp dropped the task (a cancelled region or taskgroup).
        started(task as usize);
        drop(Box::from_raw(task));
    }
}

// Task loops. libgomp writes each task's bounds at the start of its data
// block, so fib's record cannot go there: a loop runs through one of a few
// bodies of fib's, each with its slot holding the loop's record, and fib's
// copy function counts the tasks libgomp makes. The record lives until
// the call has returned and every task it made has ended.

/// How many task loops fib follows at once (more run unfollowed).
const LOOPS: usize = 8;

/// The flags of a task loop fib follows: those of a task, and the loop's
/// direction, grain size, `if` clause and `nogroup`; a task reduction is
/// not followed.
const LOOP_FOLLOWED: c_uint = FOLLOWED | (1 << 8) | (1 << 9) | (1 << 10) | NOGROUP;
const NOGROUP: c_uint = 1 << 11;

/// A followed task loop: its record, and the call and tasks not ended.
struct Loop {
    task: Task,
    /// The call (until it returns) and each task made and not ended.
    open: AtomicUsize,
    /// Its implicit taskgroup (none with `nogroup`).
    group: Option<usize>,
}

static SLOTS: [AtomicPtr<Loop>; LOOPS] = [const { AtomicPtr::new(std::ptr::null_mut()) }; LOOPS];

/// The body a task of the loop in slot `K` runs.
extern "C" fn in_loop<const K: usize>(block: *mut c_void) {
    // SAFETY: the slot holds the loop until its call has returned and
    // every task it made (this one too) has ended.
    let l = unsafe { &*SLOTS[K].load(Ordering::Acquire) };
    let number = NEXT.fetch_add(1, Ordering::Relaxed);
    begin(&l.task, number);
    (l.task.body)(block);
    end(&l.task, number);
    close(K);
}

const IN_LOOP: [Body; LOOPS] = [
    in_loop::<0>,
    in_loop::<1>,
    in_loop::<2>,
    in_loop::<3>,
    in_loop::<4>,
    in_loop::<5>,
    in_loop::<6>,
    in_loop::<7>,
];

/// What a loop's copy function is given: the loop's slot and the
/// program's data.
struct LoopSource {
    slot: usize,
    data: *mut c_void,
    copy: Option<Copy>,
    size: usize,
}

/// libgomp copies the data of a task of a followed loop: the program's
/// data as the program asked, and one more task to wait for.
extern "C" fn copy_loop(dst: *mut c_void, src: *mut c_void) {
    // SAFETY: `src` is the LoopSource the wrapper passed as the data,
    // alive during the real call, when libgomp makes the tasks; `dst` is a
    // block of the program's size and alignment.
    unsafe {
        let s = &*src.cast::<LoopSource>();
        copy_data(dst, s.data, s.copy, s.size);
        (*SLOTS[s.slot].load(Ordering::Acquire))
            .open
            .fetch_add(1, Ordering::AcqRel);
    }
}

/// The call or a task of the loop in `slot` has ended: the last one frees
/// the slot.
fn close(slot: usize) {
    let l = SLOTS[slot].load(Ordering::Acquire);
    // SAFETY: the loop is alive while `open` counts this closer.
    if unsafe { &*l }.open.fetch_sub(1, Ordering::AcqRel) == 1 {
        started(l as usize);
        SLOTS[slot].store(std::ptr::null_mut(), Ordering::Release);
        // SAFETY: made by `start_loop`; nothing refers to it any more.
        drop(unsafe { Box::from_raw(l) });
    }
}

/// A task loop of `body` starts, with `flags`, in the calling thread: the
/// slot fib follows it in, if it does.
fn start_loop(body: Body, flags: c_uint, size: c_long) -> Option<usize> {
    if flags & !LOOP_FOLLOWED != 0 || size < 0 {
        return None;
    }
    let (parent, mut member, team) = creator()?;
    let group = (flags & NOGROUP == 0).then(|| NEXT.fetch_add(1, Ordering::Relaxed));
    member.extend(group);
    let l = Box::into_raw(Box::new(Loop {
        task: Task {
            body,
            offset: 0,
            clock: Clock::new(),
            number: 0,
            ends: ends(parent, &member, team),
            depends: Vec::new(),
            parent,
            member,
            team,
        },
        open: AtomicUsize::new(1),
        group,
    }));
    let Some(slot) = (0..LOOPS).find(|&k| {
        SLOTS[k]
            .compare_exchange(std::ptr::null_mut(), l, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }) else {
        // SAFETY: made above, in no slot.
        drop(unsafe { Box::from_raw(l) });
        return None;
    };
    let clock = fork();
    pending(l as usize, &clock);
    // SAFETY: in the slot, and no task of it runs before the real call.
    unsafe { (*l).task.clock = clock };
    Some(slot)
}

/// The call of the loop in `slot` returns: unless `nogroup`, every task
/// of it has ended.
fn loop_returned(slot: usize) {
    // SAFETY: the call still counts among the loop's closers.
    let group = unsafe { &*SLOTS[slot].load(Ordering::Acquire) }.group;
    if let Some(g) = group {
        acquire((g, GROUP));
        drop_object((g, GROUP));
    }
    close(slot);
}

macro_rules! taskloop {
    ($wrap:ident, $name:literal, $ty:ty) => {
        /// # Safety
        /// As libgomp's function of this name without `__wrap_`.
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "C" fn $wrap(
            body: Body,
            data: *mut c_void,
            cpyfn: Option<Copy>,
            size: c_long,
            align: c_long,
            flags: c_uint,
            num_tasks: c_ulong,
            priority: c_int,
            start: $ty,
            end: $ty,
            step: $ty,
        ) {
            type Real = extern "C" fn(
                Body,
                *mut c_void,
                Option<Copy>,
                c_long,
                c_long,
                c_uint,
                c_ulong,
                c_int,
                $ty,
                $ty,
                $ty,
            );
            let f = real_fn!($name as Real);
            let Some(slot) = start_loop(body, flags, size) else {
                return f(
                    body, data, cpyfn, size, align, flags, num_tasks, priority, start, end, step,
                );
            };
            let mut source = LoopSource {
                slot,
                data,
                copy: cpyfn,
                size: size as usize,
            };
            f(
                IN_LOOP[slot],
                (&mut source as *mut LoopSource).cast(),
                Some(copy_loop),
                size,
                align,
                flags,
                num_tasks,
                priority,
                start,
                end,
                step,
            );
            loop_returned(slot);
        }
    };
}

taskloop!(__wrap_GOMP_taskloop, "GOMP_taskloop", c_long);
taskloop!(__wrap_GOMP_taskloop_ull, "GOMP_taskloop_ull", u64);

/// # Safety
/// As libgomp's `GOMP_taskwait`.
#[no_mangle]
pub unsafe extern "C" fn __wrap_GOMP_taskwait() {
    real_fn!("GOMP_taskwait" as extern "C" fn())();
    if let Some(children) = with_me(|me| me.tasks.last().map(|f| f.children)) {
        acquire(children);
    }
}

/// # Safety
/// As libgomp's `GOMP_taskgroup_start`.
#[no_mangle]
pub unsafe extern "C" fn __wrap_GOMP_taskgroup_start() {
    real_fn!("GOMP_taskgroup_start" as extern "C" fn())();
    with_me(|me| {
        if let Some(f) = me.tasks.last_mut() {
            f.groups.push(NEXT.fetch_add(1, Ordering::Relaxed));
        }
    });
}

/// # Safety
/// As libgomp's `GOMP_taskgroup_end`.
#[no_mangle]
pub unsafe extern "C" fn __wrap_GOMP_taskgroup_end() {
    real_fn!("GOMP_taskgroup_end" as extern "C" fn())();
    if let Some(group) = with_me(|me| me.tasks.last_mut().and_then(|f| f.groups.pop())) {
        acquire((group, GROUP));
        drop_object((group, GROUP));
    }
}
