//! The type signature of a derived datatype: the sequence of predefined
//! datatypes its type map holds, in order, run-length encoded
//! (`[(MPI_INT,2),(MPI_DOUBLE,1)]` for a struct of two ints and a double),
//! rebuilt through `MPI_Type_get_envelope` and `MPI_Type_get_contents`
//! for every constructor but `MPI_Type_create_darray`. Displacements play
//! no part in a signature: a vector's blocks are its count times its
//! blocklength elements of the old type, whatever the stride.
//!
//! The combiner values that `MPI_Type_get_envelope` returns differ between
//! MPI implementations, so the library learns them once, by building one
//! datatype of each constructor and asking for its combiner.

use std::os::raw::c_int;

use mpi_sys::*;

/// How many runs a signature may have before fib stops following it (it
/// is then not compared).
const MAX_RUNS: usize = 64;

/// How deep a derived datatype is followed.
const MAX_DEPTH: u32 = 16;

/// A type signature, run-length encoded: each predefined datatype's name
/// with how many of it follow in a row.
pub type Runs = Vec<(String, i64)>;

/// The combiner values of this MPI library, by constructor.
#[derive(Clone, Copy, Default)]
struct Combiners {
    dup: c_int,
    contiguous: c_int,
    vector: c_int,
    hvector: c_int,
    indexed: c_int,
    hindexed: c_int,
    indexed_block: c_int,
    hindexed_block: c_int,
    structure: c_int,
    subarray: c_int,
    resized: c_int,
}

static COMBINERS: std::sync::OnceLock<Combiners> = std::sync::OnceLock::new();

/// The combiner of the datatype `make` builds (freed after), -1 if it
/// could not be built.
unsafe fn learn(make: impl FnOnce(*mut MPI_Datatype) -> c_int) -> c_int {
    let mut t = RSMPI_DATATYPE_NULL;
    if make(&mut t) != MPI_SUCCESS as c_int {
        return -1;
    }
    let (mut ni, mut na, mut nd, mut comb) = (0, 0, 0, -1);
    PMPI_Type_get_envelope(t, &mut ni, &mut na, &mut nd, &mut comb);
    PMPI_Type_free(&mut t);
    comb
}

unsafe fn combiners() -> Combiners {
    if let Some(c) = COMBINERS.get() {
        return *c;
    }
    let b = RSMPI_INT32_T;
    let one: c_int = 1;
    let zero: c_int = 0;
    let zero_a: MPI_Aint = 0;
    let c = Combiners {
        dup: learn(|t| PMPI_Type_dup(b, t)),
        contiguous: learn(|t| PMPI_Type_contiguous(1, b, t)),
        vector: learn(|t| PMPI_Type_vector(1, 1, 1, b, t)),
        hvector: learn(|t| PMPI_Type_create_hvector(1, 1, 4, b, t)),
        indexed: learn(|t| PMPI_Type_indexed(1, &one, &zero, b, t)),
        hindexed: learn(|t| PMPI_Type_create_hindexed(1, &one, &zero_a, b, t)),
        indexed_block: learn(|t| PMPI_Type_create_indexed_block(1, 1, &zero, b, t)),
        hindexed_block: learn(|t| PMPI_Type_create_hindexed_block(1, 1, &zero_a, b, t)),
        structure: learn(|t| PMPI_Type_create_struct(1, &one, &zero_a, &b, t)),
        subarray: learn(|t| {
            PMPI_Type_create_subarray(1, &one, &one, &zero, MPI_ORDER_C as c_int, b, t)
        }),
        resized: learn(|t| PMPI_Type_create_resized(b, 0, 4, t)),
    };
    *COMBINERS.get_or_init(|| c)
}

/// Appends `n` of `name` to `runs`, merging with the last run.
fn push(runs: &mut Runs, name: &str, n: i64) {
    if n <= 0 {
        return;
    }
    match runs.last_mut() {
        Some((last, k)) if last == name => *k += n,
        _ => runs.push((name.to_string(), n)),
    }
}

/// Appends `times` copies of the signature `sig` to `runs`; false when
/// that makes too many runs.
fn repeat(runs: &mut Runs, sig: &Runs, times: i64) -> bool {
    if times <= 0 || sig.is_empty() {
        return true;
    }
    if let [(name, n)] = sig.as_slice() {
        push(runs, name, n.saturating_mul(times));
        return true;
    }
    if sig.len().saturating_mul(times as usize) > MAX_RUNS {
        return false;
    }
    for _ in 0..times {
        for (name, n) in sig {
            push(runs, name, *n);
        }
    }
    runs.len() <= MAX_RUNS
}

/// What `MPI_Type_get_contents` says of a derived datatype.
pub struct Contents {
    pub combiner: c_int,
    pub ints: Vec<c_int>,
    pub addrs: Vec<MPI_Aint>,
    pub types: Vec<MPI_Datatype>,
}

impl Drop for Contents {
    fn drop(&mut self) {
        // The contents' derived datatypes are handles of their own.
        for t in &mut self.types {
            // SAFETY: each handle came from `MPI_Type_get_contents` and is
            // freed once, here.
            unsafe {
                if !predefined(*t) {
                    PMPI_Type_free(t);
                }
            }
        }
    }
}

/// The number of integers, addresses and datatypes in `t`'s contents, and
/// its combiner.
unsafe fn envelope(t: MPI_Datatype) -> Option<(c_int, c_int, c_int, c_int)> {
    let (mut ni, mut na, mut nd, mut comb) = (0, 0, 0, 0);
    if PMPI_Type_get_envelope(t, &mut ni, &mut na, &mut nd, &mut comb) != MPI_SUCCESS as c_int {
        return None;
    }
    Some((ni, na, nd, comb))
}

/// Whether `t` is predefined (it has no contents).
pub unsafe fn predefined(t: MPI_Datatype) -> bool {
    envelope(t).is_some_and(|(_, _, nd, _)| nd == 0)
}

/// The contents of the derived datatype `t`; `None` for a predefined one.
pub unsafe fn contents(t: MPI_Datatype) -> Option<Contents> {
    let (ni, na, nd, combiner) = envelope(t)?;
    if nd == 0 {
        return None;
    }
    let mut c = Contents {
        combiner,
        ints: vec![0; ni.max(0) as usize],
        addrs: vec![0; na.max(0) as usize],
        types: vec![RSMPI_DATATYPE_NULL; nd.max(0) as usize],
    };
    let rc = PMPI_Type_get_contents(
        t,
        ni,
        na,
        nd,
        c.ints.as_mut_ptr(),
        c.addrs.as_mut_ptr(),
        c.types.as_mut_ptr(),
    );
    if rc != MPI_SUCCESS as c_int {
        // Nothing was handed out to free.
        c.types.clear();
        return None;
    }
    Some(c)
}

/// The name of a predefined datatype, as MPI names it.
pub unsafe fn name(t: MPI_Datatype) -> Option<String> {
    let mut buf = [0 as std::os::raw::c_char; 256];
    let mut len: c_int = 0;
    PMPI_Type_get_name(t, buf.as_mut_ptr(), &mut len);
    let name = std::ffi::CStr::from_ptr(buf.as_ptr())
        .to_string_lossy()
        .into_owned();
    name.starts_with("MPI_").then_some(name)
}

/// The type signature of `t`, `None` when fib cannot follow it (a darray,
/// a datatype of no name, or too many runs).
pub unsafe fn signature(t: MPI_Datatype) -> Option<Runs> {
    let mut runs = Runs::new();
    append(&mut runs, t, 0).then_some(runs)
}

/// Appends `t`'s signature to `runs`; false when fib cannot follow it.
unsafe fn append(runs: &mut Runs, t: MPI_Datatype, depth: u32) -> bool {
    if depth >= MAX_DEPTH {
        return false;
    }
    let Some(c) = contents(t) else {
        return match name(t) {
            Some(n) => {
                push(runs, &n, 1);
                true
            }
            None => false,
        };
    };
    let k = combiners();
    let ints = |i: usize| c.ints.get(i).copied().unwrap_or(0) as i64;
    let inner = |i: usize| {
        let mut r = Runs::new();
        c.types
            .get(i)
            .is_some_and(|&t| append(&mut r, t, depth + 1))
            .then_some(r)
    };
    let times = match c.combiner {
        x if x == k.dup || x == k.resized => 1,
        x if x == k.contiguous => ints(0),
        x if x == k.vector || x == k.hvector => ints(0).saturating_mul(ints(1)),
        x if x == k.indexed || x == k.hindexed => {
            let n = ints(0).max(0) as usize;
            (1..=n).map(ints).sum()
        }
        x if x == k.indexed_block || x == k.hindexed_block => ints(0).saturating_mul(ints(1)),
        x if x == k.subarray => {
            let n = ints(0).max(0) as usize;
            (0..n).map(|d| ints(1 + n + d)).product()
        }
        x if x == k.structure => {
            let n = ints(0).max(0) as usize;
            for i in 0..n {
                let Some(sig) = inner(i) else {
                    return false;
                };
                if !repeat(runs, &sig, ints(1 + i)) {
                    return false;
                }
            }
            return true;
        }
        _ => return false,
    };
    match inner(0) {
        Some(sig) => repeat(runs, &sig, times),
        None => false,
    }
}

/// A signature as fib shows and reports it: `[(MPI_INT,2),(MPI_DOUBLE,1)]`.
pub fn show(runs: &Runs) -> String {
    let parts: Vec<String> = runs.iter().map(|(n, k)| format!("({n},{k})")).collect();
    format!("[{}]", parts.join(","))
}

/// The blocks of the struct datatype `t` is (directly, or resized or
/// duplicated from one): each block's byte displacement, blocklength and
/// datatype (a predefined one's name, a derived one's signature).
// `MPI_Aint` is `i64` on the targets fib runs on, but not by definition.
#[allow(clippy::unnecessary_cast)]
unsafe fn struct_blocks(t: MPI_Datatype, depth: u32) -> Option<Vec<(i64, i64, String)>> {
    if depth >= MAX_DEPTH {
        return None;
    }
    let c = contents(t)?;
    let k = combiners();
    if c.combiner == k.dup || c.combiner == k.resized {
        return struct_blocks(*c.types.first()?, depth + 1);
    }
    if c.combiner != k.structure {
        return None;
    }
    let n = c.ints.first().copied().unwrap_or(0).max(0) as usize;
    (0..n)
        .map(|i| {
            let t = *c.types.get(i)?;
            let dtype = match name(t).filter(|_| predefined(t)) {
                Some(n) => n,
                None => signature(t).map(|r| show(&r)).unwrap_or_default(),
            };
            Some((*c.addrs.get(i)? as i64, *c.ints.get(1 + i)? as i64, dtype))
        })
        .collect()
}

/// The (site, datatype) pairs already reported.
static REPORTED: std::sync::Mutex<Vec<((u32, u32), u64)>> = std::sync::Mutex::new(Vec::new());

/// Reports the struct datatype `dtype` of the call about to be made at the
/// current site ([`fib_wire::Up::StructType`]), once per site and datatype,
/// when the site is one of the site table's and `dtype` is made by
/// `MPI_Type_create_struct`.
#[allow(clippy::unnecessary_cast)]
pub unsafe fn report_struct(l: &mut crate::state::Lib, dtype: MPI_Datatype) {
    let site = crate::site::current();
    if !matches!(site, fib_wire::Site::Table(_)) || predefined(dtype) {
        return;
    }
    let key = (site.to_raw(), crate::handle::bits(dtype));
    {
        let Ok(mut seen) = REPORTED.lock() else {
            return;
        };
        if seen.contains(&key) {
            return;
        }
        seen.push(key);
    }
    let Some(blocks) = struct_blocks(dtype, 0) else {
        return;
    };
    let (mut lb, mut extent): (MPI_Aint, MPI_Aint) = (0, 0);
    PMPI_Type_get_extent(dtype, &mut lb, &mut extent);
    l.push(fib_wire::Up::StructType {
        site,
        blocks,
        extent: extent as i64,
    });
}
