//! The check of a call's extents (FIB039): the bytes each buffer argument
//! covers (its count of elements of its datatype, from the lower bound of
//! its first element to the end of its last, `owned::bytes`; a root's
//! buffer of `size × count`; a `v` or `w` form's blocks at their
//! displacements) must lie in the memory the buffer pointer points into:
//!
//! - a variable the instrumented copy named for this argument just before
//!   the call (`fib__bound(ID, ARG, &v, sizeof v)`, for an array, struct or
//!   scalar buffer expression the site table bounds), kept per thread with
//!   the site id it was set for, so that an MPI call made while the
//!   arguments are evaluated does not take another call's bounds;
//! - else a heap block the program allocated (`heap.rs`).
//!
//! Memory in neither (a pointer into memory of unknown size, MPI's,
//! another library's) is not checked. A buffer that runs past its memory
//! ends the run before the call reaches MPI, with [`Up::Overflow`]: a
//! receive would corrupt the memory after it, and a send would read and
//! deliver bytes the program never meant to send, so what follows is not
//! the program's behaviour either way.

use std::cell::Cell;
use std::os::raw::{c_int, c_ulong, c_void};

use fib_wire::{Memory, Overflow, Site, Up};
use mpi_sys::*;

use crate::held::lib;

/// A variable's memory, set by the instrumented program for one buffer
/// argument of the call at site-table id `id`.
#[derive(Clone, Copy, Default)]
struct Bound {
    id: u32,
    arg: u32,
    base: usize,
    size: usize,
}

/// At most this many bounds per call (a call has at most two buffers).
const MAX: usize = 4;

thread_local! {
    static BOUNDS: Cell<([Bound; MAX], usize)> = const { Cell::new(([Bound { id: 0, arg: 0, base: 0, size: 0 }; MAX], 0)) };
}

/// Called by the instrumented program just before the call at site-table
/// id `id`: its buffer argument `arg` points into `size` bytes at `base`.
#[no_mangle]
pub extern "C" fn fib_set_bound(id: c_int, arg: c_int, base: *const c_void, size: c_ulong) {
    let b = Bound {
        id: id as u32,
        arg: arg as u32,
        base: base as usize,
        size: size as usize,
    };
    BOUNDS.with(|cell| {
        let (mut all, mut n) = cell.get();
        if n > 0 && all[0].id != b.id {
            n = 0;
        }
        match all[..n].iter().position(|x| x.arg == b.arg) {
            Some(i) => all[i] = b,
            None if n < MAX => {
                all[n] = b;
                n += 1;
            }
            None => {}
        }
        cell.set((all, n));
    });
}

/// The bounds set for the call at `id`, taken.
fn take_bounds(id: Option<u32>) -> ([Bound; MAX], usize) {
    BOUNDS.with(|cell| {
        let (all, n) = cell.get();
        cell.set((all, 0));
        match id {
            Some(id) if n > 0 && all[0].id == id => (all, n),
            _ => (all, 0),
        }
    })
}

/// What one buffer argument hands MPI.
pub struct Need {
    /// Its position in the call's argument list.
    pub arg: u32,
    pub buf: *const c_void,
    /// Bytes from `buf` to the first element.
    pub disp: isize,
    pub count: c_int,
    pub dtype: MPI_Datatype,
    pub writes: bool,
    /// A root's buffer of one block per rank: how many.
    pub ranks: u32,
    /// The rank whose block this is, for a `v` or `w` form.
    pub block: Option<u32>,
}

impl Need {
    /// `count` elements of `dtype` at `buf`.
    pub fn data(
        arg: u32,
        buf: *const c_void,
        count: c_int,
        dtype: MPI_Datatype,
        writes: bool,
    ) -> Need {
        Need {
            arg,
            buf,
            disp: 0,
            count,
            dtype,
            writes,
            ranks: 0,
            block: None,
        }
    }

    /// A root's buffer of `ranks` blocks of `count` elements each.
    pub fn roots(
        arg: u32,
        buf: *const c_void,
        ranks: usize,
        count: c_int,
        dtype: MPI_Datatype,
        writes: bool,
    ) -> Need {
        Need {
            ranks: ranks as u32,
            ..Need::data(
                arg,
                buf,
                count.saturating_mul(ranks as c_int),
                dtype,
                writes,
            )
        }
    }
}

/// The blocks of a `v` form's buffer: `counts[i]` elements at `displs[i]`
/// elements, for each of `n` ranks.
///
/// # Safety
/// `counts` and `displs` are null or hold `n` entries.
pub unsafe fn blocks(
    arg: u32,
    buf: *const c_void,
    n: usize,
    counts: *const c_int,
    displs: *const c_int,
    dtype: MPI_Datatype,
    writes: bool,
) -> Vec<Need> {
    if counts.is_null() || displs.is_null() || crate::owned::in_place(buf) {
        return Vec::new();
    }
    refuse_null(dtype);
    let extent = extent(dtype);
    (0..n)
        .map(|i| Need {
            disp: (*displs.add(i) as isize).saturating_mul(extent as isize),
            block: Some(i as u32),
            ..Need::data(arg, buf, *counts.add(i), dtype, writes)
        })
        .collect()
}

/// The blocks of a `w` form's buffer: displacements in bytes, a datatype
/// per rank.
///
/// # Safety
/// `counts`, `displs` and `types` are null or hold `n` entries.
pub unsafe fn wblocks(
    arg: u32,
    buf: *const c_void,
    n: usize,
    counts: *const c_int,
    displs: *const c_int,
    types: *const MPI_Datatype,
    writes: bool,
) -> Vec<Need> {
    if counts.is_null() || displs.is_null() || types.is_null() || crate::owned::in_place(buf) {
        return Vec::new();
    }
    (0..n)
        .map(|i| Need {
            disp: *displs.add(i) as isize,
            block: Some(i as u32),
            ..Need::data(arg, buf, *counts.add(i), *types.add(i), writes)
        })
        .collect()
}

/// Ends the run at `MPI_DATATYPE_NULL` (FIB012) before MPI is asked
/// about it, which would raise MPI's error in the library's own call, in
/// whichever rank asks first. The state is taken only then: the check
/// runs on every call's buffers.
fn refuse_null(dtype: MPI_Datatype) {
    // SAFETY: reading a constant.
    if crate::handle::same(dtype, unsafe { RSMPI_DATATYPE_NULL }) {
        crate::check::datatype(&mut lib(), dtype);
    }
}

fn extent(dtype: MPI_Datatype) -> MPI_Aint {
    let (mut lb, mut extent): (MPI_Aint, MPI_Aint) = (0, 0);
    // SAFETY: MPI fills in two integers; a null datatype was refused
    // before (by [`blocks`] and [`check`], its callers).
    unsafe { PMPI_Type_get_extent(dtype, &mut lb, &mut extent) };
    extent
}

/// Checks the buffers of the call `call` being made; ends the run at the
/// first that runs past its memory.
///
/// # Safety
/// The needs' buffers, counts and datatypes are the call's arguments.
pub unsafe fn check(call: &str, needs: &[Need]) {
    let id = match crate::site::current() {
        Site::Table(id) => Some(id),
        _ => None,
    };
    let (bounds, n) = take_bounds(id);
    let bounds = &bounds[..n];
    if bounds.is_empty() && !crate::heap::any() {
        return;
    }
    for need in needs {
        if need.buf.is_null() || crate::owned::in_place(need.buf) {
            continue;
        }
        refuse_null(need.dtype);
        let Some(b) = crate::owned::bytes(need.buf, need.disp, need.count, need.dtype, need.writes)
        else {
            continue;
        };
        let at = need.buf as usize;
        let memory = match bounds.iter().find(|b| b.arg == need.arg) {
            Some(v) => Some((v.base, v.size, None)),
            None => crate::heap::containing(at).map(|(s, size, a, ret)| (s, size, Some((a, ret)))),
        };
        let Some((base, size, heap)) = memory else {
            continue;
        };
        if b.addr >= base && b.addr.saturating_add(b.len) <= base.saturating_add(size) {
            continue;
        }
        let mut l = lib();
        let memory = match heap {
            None => Memory::Variable,
            Some((a, ret)) => Memory::Heap {
                allocator: a.name().to_string(),
                site: if ret == 0 {
                    Site::Unknown
                } else {
                    crate::site::of_ip(ret).unwrap_or_default()
                },
            },
        };
        let datatype = if crate::sig::predefined(need.dtype) {
            crate::sig::basic_name(need.dtype)
        } else {
            String::new()
        };
        let start = b.addr as i64 - at as i64;
        let fault = Overflow {
            arg: need.arg,
            writes: need.writes,
            count: need.count.max(0) as u64,
            ranks: need.ranks,
            block: need.block,
            datatype,
            extent: extent(need.dtype).max(0) as u64,
            start,
            end: start + b.len as i64,
            offset: at as i64 - base as i64,
            size: size as u64,
            memory,
        };
        let site = crate::site::for_call();
        l.push(Up::Overflow {
            site,
            call: call.to_string(),
            fault,
        });
        l.conn.wait_for_eof()
    }
}

/// The collectives' buffers, for this rank's part (the remote group's size
/// on an intercommunicator; nothing for `MPI_PROC_NULL`'s side). Each
/// takes the call's arguments as the program passed them, from the
/// wrappers of `coll.rs` and `icoll.rs`.
pub mod coll {
    use super::{blocks, check, wblocks, Need};
    use crate::owned::{group, Role};
    use mpi_sys::*;
    use std::os::raw::{c_int, c_void};

    /// This rank's group size, index and role, or `None` (nothing to check)
    /// for a null communicator or when nothing is tracked.
    unsafe fn who(comm: MPI_Comm, root: c_int) -> Option<(usize, usize, Role)> {
        if crate::handle::bits(comm) == crate::handle::bits(RSMPI_COMM_NULL) {
            return None;
        }
        let (n, me, role) = group(comm, root);
        (role != Role::Idle).then_some((n, me, role))
    }

    pub unsafe fn bcast(
        call: &str,
        buf: *const c_void,
        count: c_int,
        dt: MPI_Datatype,
        root: c_int,
        comm: MPI_Comm,
    ) {
        let Some((_, _, role)) = who(comm, root) else {
            return;
        };
        check(call, &[Need::data(0, buf, count, dt, role != Role::Root)]);
    }

    /// `MPI_Reduce`: the root's receive buffer too.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn reduce(
        call: &str,
        send: *const c_void,
        recv: *const c_void,
        count: c_int,
        dt: MPI_Datatype,
        root: c_int,
        comm: MPI_Comm,
    ) {
        let Some((_, _, role)) = who(comm, root) else {
            return;
        };
        let mut needs = vec![Need::data(0, send, count, dt, false)];
        if role == Role::Root {
            needs.push(Need::data(1, recv, count, dt, true));
        }
        check(call, &needs);
    }

    /// `MPI_Allreduce`, `MPI_Scan`, `MPI_Exscan` (whose receive buffer
    /// rank 0 does not get).
    pub unsafe fn allreduce(
        call: &str,
        send: *const c_void,
        recv: *const c_void,
        count: c_int,
        dt: MPI_Datatype,
        comm: MPI_Comm,
    ) {
        let Some((_, me, _)) = who(comm, -1) else {
            return;
        };
        let mut needs = vec![Need::data(0, send, count, dt, false)];
        if !(call.ends_with("xscan") && me == 0) {
            needs.push(Need::data(1, recv, count, dt, true));
        }
        check(call, &needs);
    }

    /// `MPI_Gather` (`gather`), `MPI_Scatter`: the root's buffer holds a
    /// block per rank.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn rooted(
        call: &str,
        gather: bool,
        send: *const c_void,
        sc: c_int,
        st: MPI_Datatype,
        recv: *const c_void,
        rc: c_int,
        rt: MPI_Datatype,
        root: c_int,
        comm: MPI_Comm,
    ) {
        let Some((n, _, role)) = who(comm, root) else {
            return;
        };
        let mut needs = Vec::new();
        match (gather, role == Role::Root) {
            (true, true) => needs.push(Need::roots(3, recv, n, rc, rt, true)),
            (false, true) => needs.push(Need::roots(0, send, n, sc, st, false)),
            _ => {}
        }
        let inter = crate::values::is_inter(comm);
        if role != Role::Root || !inter {
            needs.push(match gather {
                true => Need::data(0, send, sc, st, false),
                false => Need::data(3, recv, rc, rt, true),
            });
        }
        check(call, &needs);
    }

    /// `MPI_Allgather` and `MPI_Alltoall` (`all`: the send buffer too
    /// holds a block per rank).
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn allgather(
        call: &str,
        all: bool,
        send: *const c_void,
        sc: c_int,
        st: MPI_Datatype,
        recv: *const c_void,
        rc: c_int,
        rt: MPI_Datatype,
        comm: MPI_Comm,
    ) {
        let Some((n, _, _)) = who(comm, -1) else {
            return;
        };
        let send = match all {
            true => Need::roots(0, send, n, sc, st, false),
            false => Need::data(0, send, sc, st, false),
        };
        check(call, &[send, Need::roots(3, recv, n, rc, rt, true)]);
    }

    /// `MPI_Gatherv` (`gather`) and `MPI_Scatterv`: the root's blocks at
    /// their displacements. `arg` is the position of the root's buffer.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn rooted_v(
        call: &str,
        gather: bool,
        own: (u32, *const c_void, c_int, MPI_Datatype),
        at_root: (u32, *const c_void, *const c_int, *const c_int, MPI_Datatype),
        root: c_int,
        comm: MPI_Comm,
    ) {
        let Some((n, _, role)) = who(comm, root) else {
            return;
        };
        let mut needs = Vec::new();
        if role == Role::Root {
            let (arg, buf, counts, displs, dt) = at_root;
            needs.extend(blocks(arg, buf, n, counts, displs, dt, gather));
        }
        if role != Role::Root || !crate::values::is_inter(comm) {
            let (arg, buf, count, dt) = own;
            needs.push(Need::data(arg, buf, count, dt, !gather));
        }
        check(call, &needs);
    }

    /// `MPI_Allgatherv`.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn allgatherv(
        call: &str,
        send: *const c_void,
        sc: c_int,
        st: MPI_Datatype,
        recv: *const c_void,
        counts: *const c_int,
        displs: *const c_int,
        rt: MPI_Datatype,
        comm: MPI_Comm,
    ) {
        let Some((n, _, _)) = who(comm, -1) else {
            return;
        };
        let mut needs = vec![Need::data(0, send, sc, st, false)];
        needs.extend(blocks(3, recv, n, counts, displs, rt, true));
        check(call, &needs);
    }

    /// `MPI_Alltoallv`.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn alltoallv(
        call: &str,
        send: (*const c_void, *const c_int, *const c_int, MPI_Datatype),
        recv: (*const c_void, *const c_int, *const c_int, MPI_Datatype),
        comm: MPI_Comm,
    ) {
        let Some((n, _, _)) = who(comm, -1) else {
            return;
        };
        let mut needs = blocks(0, send.0, n, send.1, send.2, send.3, false);
        needs.extend(blocks(4, recv.0, n, recv.1, recv.2, recv.3, true));
        check(call, &needs);
    }

    /// `MPI_Alltoallw`.
    pub unsafe fn alltoallw(
        call: &str,
        send: (
            *const c_void,
            *const c_int,
            *const c_int,
            *const MPI_Datatype,
        ),
        recv: (
            *const c_void,
            *const c_int,
            *const c_int,
            *const MPI_Datatype,
        ),
        comm: MPI_Comm,
    ) {
        let Some((n, _, _)) = who(comm, -1) else {
            return;
        };
        let mut needs = wblocks(0, send.0, n, send.1, send.2, send.3, false);
        needs.extend(wblocks(4, recv.0, n, recv.1, recv.2, recv.3, true));
        check(call, &needs);
    }

    /// `MPI_Reduce_scatter` (`counts` by rank) and
    /// `MPI_Reduce_scatter_block` (`count` each).
    pub unsafe fn reduce_scatter(
        call: &str,
        send: *const c_void,
        recv: *const c_void,
        counts: Result<*const c_int, c_int>,
        dt: MPI_Datatype,
        comm: MPI_Comm,
    ) {
        let Some((n, me, _)) = who(comm, -1) else {
            return;
        };
        let (total, mine) = match counts {
            Ok(p) if p.is_null() => return,
            Ok(p) => (
                (0..n)
                    .map(|i| *p.add(i))
                    .fold(0 as c_int, |a, c| a.saturating_add(c.max(0))),
                *p.add(me),
            ),
            Err(c) => (c.saturating_mul(n as c_int), c),
        };
        check(
            call,
            &[
                Need::data(0, send, total, dt, false),
                Need::data(1, recv, mine, dt, true),
            ],
        );
    }
}
