//! What a call's data is made of, reported as [`Op::Args`] just before the
//! call so the engine can compare it with the calls it matches (a send and
//! its receive, the members of a collective): the predefined datatype the
//! call's datatype is built from, found through `MPI_Type_get_envelope`
//! and `MPI_Type_get_contents` (its whole type signature, `typemap.rs`,
//! when it mixes several), named as MPI
//! names it (`MPI_Type_get_name`, so every rank and implementation says
//! the same), the number of such elements, and the predefined reduction
//! operation; for the `v` collectives whose counts by rank must agree
//! across ranks, those counts in such elements. A gather's or scatter's
//! members report the side the root's block for them must match: the
//! root its receive (gather) or send (scatter), so that `MPI_IN_PLACE`
//! leaves nothing of its own to compare, the others their send or
//! receive. The report holds for the rank's later calls too, so it is
//! sent only when it changes (a ping-pong of ints sends it once).

use rustc_hash::FxHashMap as HashMap;
use std::cell::UnsafeCell;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int};

use fib_wire::Op;
use mpi_sys::*;

use crate::handle::{bits, same};
use crate::held::lib;
use crate::state::Lib;

/// How deep a derived datatype is followed.
const MAX_DEPTH: u32 = 16;

/// The names of the predefined datatypes met so far (by handle bits:
/// predefined handles are never freed, so never reused), and the last
/// arguments reported.
#[derive(Default)]
struct Memo {
    named: HashMap<u64, String>,
    last: Option<(String, i64, &'static str, Vec<i64>)>,
    /// The last arguments reported, when they were a predefined
    /// datatype's (its handle's bits), a count and an operation's name:
    /// a call with the same is settled without a look at names.
    last_key: Option<(u64, i64, &'static str)>,
}

struct Global(UnsafeCell<Option<Memo>>);

// SAFETY: used only while the calling thread holds the library's state
// ([`lib`]), so by one thread at a time.
unsafe impl Sync for Global {}

static MEMO: Global = Global(UnsafeCell::new(None));

fn memo() -> &'static mut Memo {
    // SAFETY: see `Global`; no caller keeps the reference across another
    // call into this module.
    unsafe { (*MEMO.0.get()).get_or_insert_with(Memo::default) }
}

/// Whether `t` is a named (predefined) datatype, which has no contents.
unsafe fn named(t: MPI_Datatype) -> Option<(c_int, c_int, c_int)> {
    let (mut ni, mut na, mut nd, mut comb) = (0, 0, 0, 0);
    if PMPI_Type_get_envelope(t, &mut ni, &mut na, &mut nd, &mut comb) != MPI_SUCCESS as c_int {
        return None;
    }
    Some((ni, na, nd))
}

/// The predefined datatype `t` is made of, with its name; `None` when it
/// mixes several or fib cannot tell.
unsafe fn base(t: MPI_Datatype, depth: u32) -> Option<(String, MPI_Datatype)> {
    let (ni, na, nd) = named(t)?;
    if nd == 0 {
        let mut buf = [0 as c_char; 256];
        let mut len: c_int = 0;
        PMPI_Type_get_name(t, buf.as_mut_ptr(), &mut len);
        let name = CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned();
        return name.starts_with("MPI_").then_some((name, t));
    }
    if depth >= MAX_DEPTH {
        return None;
    }
    let mut ints = vec![0 as c_int; ni.max(0) as usize];
    let mut addrs = vec![0 as MPI_Aint; na.max(0) as usize];
    let mut types = vec![RSMPI_DATATYPE_NULL; nd as usize];
    if PMPI_Type_get_contents(
        t,
        ni,
        na,
        nd,
        ints.as_mut_ptr(),
        addrs.as_mut_ptr(),
        types.as_mut_ptr(),
    ) != MPI_SUCCESS as c_int
    {
        return None;
    }
    let mut found: Option<(String, MPI_Datatype)> = None;
    let mut mixed = false;
    for mut inner in types {
        match base(inner, depth + 1) {
            Some(b) if found.as_ref().is_none_or(|f| f.0 == b.0) => found = Some(b),
            _ => mixed = true,
        }
        // The contents of a derived datatype are handles of their own.
        if named(inner).is_some_and(|(_, _, nd)| nd != 0) {
            PMPI_Type_free(&mut inner);
        }
    }
    if mixed {
        None
    } else {
        found
    }
}

/// The name of a predefined reduction operation ("" for another one).
unsafe fn op_name(op: MPI_Op) -> &'static str {
    let ops = [
        (RSMPI_SUM, "MPI_SUM"),
        (RSMPI_PROD, "MPI_PROD"),
        (RSMPI_MAX, "MPI_MAX"),
        (RSMPI_MIN, "MPI_MIN"),
        (RSMPI_LAND, "MPI_LAND"),
        (RSMPI_BAND, "MPI_BAND"),
        (RSMPI_LOR, "MPI_LOR"),
        (RSMPI_BOR, "MPI_BOR"),
        (RSMPI_LXOR, "MPI_LXOR"),
        (RSMPI_BXOR, "MPI_BXOR"),
    ];
    ops.iter()
        .find(|(h, _)| same(*h, op))
        .map_or_else(|| unexported_op(op), |(_, name)| name)
}

/// `MPI_MINLOC`, `MPI_MAXLOC`, `MPI_REPLACE`, `MPI_NO_OP` and
/// `MPI_OP_NULL`, which the bindings do not export ("" for another
/// operation): Open MPI's handles are the addresses of its predefined
/// objects, found by name; MPICH's are fixed values of its `mpi.h`.
fn unexported_op(op: MPI_Op) -> &'static str {
    static HANDLES: std::sync::OnceLock<Vec<(u64, &'static str)>> = std::sync::OnceLock::new();
    let handles = HANDLES.get_or_init(|| {
        let named = [
            (c"ompi_mpi_op_minloc", 0x5800_000b, "MPI_MINLOC"),
            (c"ompi_mpi_op_maxloc", 0x5800_000c, "MPI_MAXLOC"),
            (c"ompi_mpi_op_replace", 0x5800_000d, "MPI_REPLACE"),
            (c"ompi_mpi_op_no_op", 0x5800_000e, "MPI_NO_OP"),
            (c"ompi_mpi_op_null", 0x1800_0000, "MPI_OP_NULL"),
        ];
        named
            .into_iter()
            .map(|(symbol, mpich, name)| {
                // SAFETY: a lookup of a NUL-terminated name.
                let at = unsafe { libc::dlsym(libc::RTLD_DEFAULT, symbol.as_ptr()) };
                (if at.is_null() { mpich } else { at as u64 }, name)
            })
            .collect()
    });
    let b = bits(op);
    handles
        .iter()
        .find(|(h, _)| *h == b)
        .map_or("", |(_, name)| name)
}

/// Reports `count` elements of `dtype` (and the operation `op`) as the
/// arguments of the rank's next call.
pub unsafe fn report(l: &mut Lib, count: c_int, dtype: MPI_Datatype, op: Option<MPI_Op>) {
    report_by_rank(l, count, dtype, op, &[]);
}

/// [`report`], with the counts by rank `by_rank` of a `v` collective.
unsafe fn report_by_rank(
    l: &mut Lib,
    count: c_int,
    dtype: MPI_Datatype,
    op: Option<MPI_Op>,
    by_rank: &[c_int],
) {
    let op = op.map_or("", |o| op_name(o));
    // With the gate on, the rank's calls enter in the scheduler's order,
    // not in the order their threads reported them: "the same as the last
    // call's" would name another thread's call. Every call reports its own.
    let gated = l.gate.on;
    let key = (bits(dtype), count as i64, op);
    let plain = !gated && by_rank.is_empty();
    if plain
        && memo()
            .last_key
            .is_some_and(|(b, c, o)| b == key.0 && c == key.1 && std::ptr::eq(o, key.2))
    {
        return;
    }
    let known = memo().named.get(&key.0).cloned();
    let predefined = known.is_some();
    let (name, per) = match known {
        Some(name) => (name, 1),
        None => {
            crate::typemap::report_struct(l, dtype);
            made_of(dtype)
        }
    };
    let counts = by_rank.iter().map(|&c| c as i64 * per).collect();
    let now = (name, count as i64 * per, op, counts);
    let m = memo();
    m.last_key = (plain && predefined).then_some(key);
    if !gated && m.last.as_ref() == Some(&now) {
        return;
    }
    m.last = (!gated).then(|| now.clone());
    l.event(Op::Args {
        dtype: now.0,
        count: now.1,
        op: now.2.to_string(),
        counts: now.3,
    });
}

/// The predefined datatype `dtype` is made of, and how many of its
/// elements one `dtype` holds.
pub unsafe fn made_of(dtype: MPI_Datatype) -> (String, i64) {
    if named(dtype).is_some_and(|(_, _, nd)| nd == 0) {
        if let Some((name, _)) = base(dtype, 0) {
            memo().named.insert(bits(dtype), name.clone());
            return (name, 1);
        }
    }
    // A signature of several predefined datatypes travels whole, as one
    // element per `dtype` (`[(MPI_INT,2),(MPI_DOUBLE,1)]`).
    match crate::typemap::signature(dtype).as_deref() {
        Some([(name, n)]) => return (name.clone(), *n),
        Some(runs) if !runs.is_empty() => return (crate::typemap::show(&runs.to_vec()), 1),
        _ => {}
    }
    match base(dtype, 0) {
        Some((name, b)) => {
            let (mut whole, mut one) = (0, 0);
            PMPI_Type_size(dtype, &mut whole);
            PMPI_Type_size(b, &mut one);
            let per = if one > 0 { whole / one } else { 1 };
            (name, per as i64)
        }
        None => (String::new(), 1),
    }
}

/// The name of the predefined datatype `dtype` is made of ("" when it
/// mixes several or has no name), for one-sided accumulates.
pub unsafe fn basic_name(dtype: MPI_Datatype) -> String {
    base(dtype, 0).map(|(n, _)| n).unwrap_or_default()
}

/// The name of a predefined reduction operation ("" for another one).
pub unsafe fn op_named(op: MPI_Op) -> &'static str {
    op_name(op)
}

/// Whether `dtype` is a predefined datatype (no contents: a null buffer
/// with it is no address computed from `MPI_BOTTOM`).
pub unsafe fn predefined(dtype: MPI_Datatype) -> bool {
    named(dtype).is_some_and(|(_, _, nd)| nd == 0)
}

/// `MPI_OP_NULL` where a reduction needs an operation: FIB012
/// ([`crate::check::invalid`]).
unsafe fn check_op(l: &mut Lib, op: Option<MPI_Op>) {
    if op.is_some_and(|o| op_name(o) == "MPI_OP_NULL") {
        crate::check::invalid(l, "MPI_OP_NULL is not an operation".into());
    }
}

/// A collective's count, datatype and operation: checked
/// ([`crate::check::data`]) and reported.
pub unsafe fn coll(count: c_int, dtype: MPI_Datatype, op: Option<MPI_Op>) {
    let mut l = lib();
    crate::check::data(&mut l, count, dtype);
    check_op(&mut l, op);
    report(&mut l, count, dtype, op);
}

/// The number of processes of the intracommunicator `comm`, `None` on an
/// intercommunicator (whose collectives are not compared) or
/// `MPI_COMM_NULL` (which the call's own check reports).
unsafe fn intra_size(comm: MPI_Comm) -> Option<c_int> {
    if same(comm, RSMPI_COMM_NULL) || crate::values::is_inter(comm) {
        return None;
    }
    let mut n = 0;
    PMPI_Comm_size(comm, &mut n);
    Some(n)
}

/// A `v` collective's counts by rank `counts` (one per process of `comm`),
/// datatype and operation, the same on every member (`MPI_Allgatherv`'s
/// receive, `MPI_Reduce_scatter`): checked and reported.
pub unsafe fn coll_by_rank(
    comm: MPI_Comm,
    counts: *const c_int,
    dtype: MPI_Datatype,
    op: Option<MPI_Op>,
) {
    let Some(n) = intra_size(comm) else {
        return;
    };
    let mut l = lib();
    crate::check::datatype(&mut l, dtype);
    check_op(&mut l, op);
    if counts.is_null() {
        return;
    }
    let counts = std::slice::from_raw_parts(counts, n as usize);
    report_by_rank(&mut l, 0, dtype, op, counts);
}

/// One side of a gather or scatter: a count (`by_rank` null) or the counts
/// by rank, and a datatype.
pub struct Side {
    count: c_int,
    by_rank: *const c_int,
    dtype: MPI_Datatype,
}

impl Side {
    /// `count` elements of `dtype` (for each rank, at the root).
    pub fn one(count: c_int, dtype: MPI_Datatype) -> Side {
        Side {
            count,
            by_rank: std::ptr::null(),
            dtype,
        }
    }

    /// `counts[i]` elements of `dtype` for rank `i` (the root of a `v`
    /// form).
    pub fn by_rank(counts: *const c_int, dtype: MPI_Datatype) -> Side {
        Side {
            count: 0,
            by_rank: counts,
            dtype,
        }
    }
}

/// A gather's or scatter's arguments (blocking or not, `v` or not) on
/// `comm` with the root `root`: the root reports `at_root` (its receive of
/// a gather, its send of a scatter), every other rank `own` (its send of a
/// gather, its receive of a scatter), whose signature must be the root's
/// block for it. Nothing on an intercommunicator.
pub unsafe fn rooted(comm: MPI_Comm, root: c_int, at_root: Side, own: Side) {
    let Some(n) = intra_size(comm) else {
        return;
    };
    let mut me = 0;
    PMPI_Comm_rank(comm, &mut me);
    let side = if me == root { at_root } else { own };
    let mut l = lib();
    crate::check::datatype(&mut l, side.dtype);
    if side.by_rank.is_null() {
        crate::check::count(&mut l, side.count);
        report(&mut l, side.count, side.dtype, None);
    } else {
        let counts = std::slice::from_raw_parts(side.by_rank, n as usize);
        report_by_rank(&mut l, 0, side.dtype, None, counts);
    }
}
