//! The MPI objects a program must free besides requests and communicators:
//! groups, derived datatypes, user operations, info objects and error
//! handlers. Each call in [`fib_wire::HANDLE_MAKERS`] runs as it is and the
//! handle it returns is remembered with its site; its free call forgets it.
//! At `MPI_Finalize` ([`report`]) the rank sends one [`Up::Leaked`] per
//! site and call whose objects are still there. Nothing here involves the
//! scheduler's decisions: the reports ride with the rank's other ones.

use std::cell::UnsafeCell;
use std::collections::{BTreeMap, HashMap};
use std::os::raw::c_int;

use fib_wire::{HandleKind, Site, Up};
use mpi_sys::*;

use crate::handle::bits;
use crate::held::lib;
use crate::site;
use crate::state::{try_lib, Lib};

/// The objects made and not yet freed, by kind and handle bits: the site
/// and call that made each.
type Live = HashMap<(HandleKind, u64), (Site, &'static str)>;

struct Table(UnsafeCell<Option<Live>>);

// SAFETY: used only while the calling thread holds the library's state
// ([`lib`]), so by one thread at a time.
unsafe impl Sync for Table {}

static LIVE: Table = Table(UnsafeCell::new(None));

fn live() -> &'static mut Live {
    // SAFETY: see `Table`; callers hold the state and keep no reference
    // across another call into this module.
    unsafe { (*LIVE.0.get()).get_or_insert_with(HashMap::new) }
}

/// Remembers the handle `h` that `call` just made (when it succeeded and
/// MPI is running under fib).
fn made<T: Copy>(rc: c_int, call: &'static str, h: T) {
    if rc != MPI_SUCCESS as c_int || try_lib().is_none() {
        return;
    }
    let kind = HandleKind::of(call).expect("a handle maker");
    // MPI_GROUP_EMPTY is predefined: a group call may return it, and it
    // needs no freeing.
    // SAFETY: reading a constant.
    if kind == HandleKind::Group && bits(h) == bits(unsafe { RSMPI_GROUP_EMPTY }) {
        return;
    }
    let _held = lib();
    live().insert((kind, bits(h)), (site::for_call(), call));
}

/// Forgets the handle `h` of `kind`, which the program is freeing.
fn freeing<T: Copy>(kind: HandleKind, h: T) {
    if try_lib().is_none() {
        return;
    }
    let _held = lib();
    live().remove(&(kind, bits(h)));
}

/// Queues one [`Up::Leaked`] per site and call whose objects were never
/// freed; called by `MPI_Finalize` before it reports itself.
pub fn report(l: &mut Lib) {
    let mut by_site: BTreeMap<(Site, &'static str), u32> = BTreeMap::new();
    for (site, call) in live().values() {
        *by_site.entry((*site, call)).or_default() += 1;
    }
    live().clear();
    for ((site, call), count) in by_site {
        l.push(Up::Leaked {
            site,
            call: call.to_string(),
            count,
        });
    }
}

/// Defines the wrapper of a call that makes one handle, returned through
/// its last argument: the arguments before it are passed on as they are
/// (cast to the implementation's own pointer types).
macro_rules! maker {
    ($name:ident, $pmpi:ident, $out:ty, ($($arg:ident: $ty:ty),*)) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name($($arg: $ty,)* out: *mut $out) -> c_int {
            #[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
            let rc = $pmpi($($arg as _,)* out);
            made(rc, stringify!($name), *out);
            rc
        }
    };
}

/// Defines the wrapper of a free call.
macro_rules! freer {
    ($name:ident, $pmpi:ident, $h:ty, $kind:expr) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name(h: *mut $h) -> c_int {
            if !h.is_null() {
                freeing($kind, *h);
            }
            $pmpi(h)
        }
    };
}

type Ranges = *mut [c_int; 3];

maker!(MPI_Comm_group, PMPI_Comm_group, MPI_Group, (comm: MPI_Comm));
maker!(MPI_Group_incl, PMPI_Group_incl, MPI_Group, (g: MPI_Group, n: c_int, ranks: *const c_int));
maker!(MPI_Group_excl, PMPI_Group_excl, MPI_Group, (g: MPI_Group, n: c_int, ranks: *const c_int));
maker!(MPI_Group_range_incl, PMPI_Group_range_incl, MPI_Group, (g: MPI_Group, n: c_int, r: Ranges));
maker!(MPI_Group_range_excl, PMPI_Group_range_excl, MPI_Group, (g: MPI_Group, n: c_int, r: Ranges));
maker!(MPI_Group_union, PMPI_Group_union, MPI_Group, (a: MPI_Group, b: MPI_Group));
maker!(MPI_Group_intersection, PMPI_Group_intersection, MPI_Group, (a: MPI_Group, b: MPI_Group));
maker!(MPI_Group_difference, PMPI_Group_difference, MPI_Group, (a: MPI_Group, b: MPI_Group));

maker!(MPI_Type_contiguous, PMPI_Type_contiguous, MPI_Datatype, (n: c_int, old: MPI_Datatype));
maker!(
    MPI_Type_vector,
    PMPI_Type_vector,
    MPI_Datatype,
    (n: c_int, len: c_int, stride: c_int, old: MPI_Datatype)
);
maker!(
    MPI_Type_create_hvector,
    PMPI_Type_create_hvector,
    MPI_Datatype,
    (n: c_int, len: c_int, stride: MPI_Aint, old: MPI_Datatype)
);
maker!(
    MPI_Type_indexed,
    PMPI_Type_indexed,
    MPI_Datatype,
    (n: c_int, lens: *const c_int, displs: *const c_int, old: MPI_Datatype)
);
maker!(
    MPI_Type_create_hindexed,
    PMPI_Type_create_hindexed,
    MPI_Datatype,
    (n: c_int, lens: *const c_int, displs: *const MPI_Aint, old: MPI_Datatype)
);
maker!(
    MPI_Type_create_indexed_block,
    PMPI_Type_create_indexed_block,
    MPI_Datatype,
    (n: c_int, len: c_int, displs: *const c_int, old: MPI_Datatype)
);
maker!(
    MPI_Type_create_hindexed_block,
    PMPI_Type_create_hindexed_block,
    MPI_Datatype,
    (n: c_int, len: c_int, displs: *const MPI_Aint, old: MPI_Datatype)
);
maker!(
    MPI_Type_create_struct,
    PMPI_Type_create_struct,
    MPI_Datatype,
    (n: c_int, lens: *const c_int, displs: *const MPI_Aint, types: *const MPI_Datatype)
);
maker!(
    MPI_Type_create_subarray,
    PMPI_Type_create_subarray,
    MPI_Datatype,
    (
        ndims: c_int,
        sizes: *const c_int,
        subsizes: *const c_int,
        starts: *const c_int,
        order: c_int,
        old: MPI_Datatype
    )
);
maker!(
    MPI_Type_create_resized,
    PMPI_Type_create_resized,
    MPI_Datatype,
    (old: MPI_Datatype, lb: MPI_Aint, extent: MPI_Aint)
);
maker!(MPI_Type_dup, PMPI_Type_dup, MPI_Datatype, (old: MPI_Datatype));

maker!(MPI_Op_create, PMPI_Op_create, MPI_Op, (f: MPI_User_function, commute: c_int));
maker!(MPI_Info_create, PMPI_Info_create, MPI_Info, ());
maker!(MPI_Info_dup, PMPI_Info_dup, MPI_Info, (info: MPI_Info));
maker!(
    MPI_Comm_create_errhandler,
    PMPI_Comm_create_errhandler,
    MPI_Errhandler,
    (f: MPI_Comm_errhandler_function)
);

freer!(
    MPI_Group_free,
    PMPI_Group_free,
    MPI_Group,
    HandleKind::Group
);
freer!(
    MPI_Type_free,
    PMPI_Type_free,
    MPI_Datatype,
    HandleKind::Datatype
);
freer!(MPI_Op_free, PMPI_Op_free, MPI_Op, HandleKind::Op);
freer!(MPI_Info_free, PMPI_Info_free, MPI_Info, HandleKind::Info);
freer!(
    MPI_Errhandler_free,
    PMPI_Errhandler_free,
    MPI_Errhandler,
    HandleKind::Errhandler
);
