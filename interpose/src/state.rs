//! The library's per-rank state: the connection to the scheduler, the
//! communicator table, the requests handed to the program (persistent ones
//! and matched probes included), and the buffered sends still in flight;
//! and the one instance of it that `MPI_Init` installs and `MPI_Finalize`
//! drops. This module holds the types and that instance only, and depends
//! on nothing of the library but the connection's type, the handles' bits
//! and the plain MPI values (`values`), so that every other module can read
//! the state, the site table and the crash and error handlers included.
//! The operations on the state that talk to the scheduler or to MPI are
//! written in the modules above it: `held` (one thread at a time),
//! `report`, `tables`, `progress` and `ahead`.

use rustc_hash::FxHashMap as HashMap;
use std::cell::UnsafeCell;
use std::os::raw::{c_int, c_void};

use fib_wire::Site;
use mpi_sys::*;

use crate::conn::Conn;
use crate::handle::bits;
use crate::values::empty_status;

/// A real MPI request and, once it has completed, its status.
pub struct Real {
    pub req: MPI_Request,
    pub status: Option<MPI_Status>,
}

impl Real {
    pub fn new(req: MPI_Request) -> Real {
        Real { req, status: None }
    }

    /// Tests the request once; returns whether it has completed.
    pub fn test(&mut self) -> bool {
        if self.status.is_some() {
            return true;
        }
        let mut flag: c_int = 0;
        let mut st = empty_status();
        // SAFETY: the request is active and owned by this entry.
        unsafe { PMPI_Test(&mut self.req, &mut flag, &mut st) };
        if flag != 0 {
            self.status = Some(st);
            true
        } else {
            false
        }
    }
}

/// A deferred receive: the program's arguments, kept until the scheduler
/// says which source to post it with.
pub struct RecvReq {
    pub buf: *mut c_void,
    pub count: c_int,
    pub dtype: MPI_Datatype,
    pub comm: MPI_Comm,
    /// The program asked for `MPI_PROC_NULL`.
    pub proc_null: bool,
    /// The scheduler cancelled it before posting it (`MPI_Cancel`).
    pub cancelled: bool,
    pub real: Option<Real>,
}

/// What a request handed to the program stands for.
pub enum Kind {
    Recv(RecvReq),
    /// A synchronous send issued on the program's buffer.
    Sync(Real),
    /// A standard or ready send issued on the program's buffer while the
    /// run is buffered and sends are not copied: the engine completes it
    /// at once, MPI once the message has left, which for a message above
    /// MPI's eager limit takes its receive ([`Lib::copy_sends`]).
    Standard(Real),
    /// A nonblocking collective started in MPI when the program called it;
    /// completed only once the scheduler says it matched on every rank.
    Coll(Real),
    /// A send from fib's copy (its real request lives in the background
    /// list) or a send to `MPI_PROC_NULL`: nothing to complete locally.
    Nothing,
}

pub struct Req {
    pub kind: Kind,
}

/// A persistent request's arguments, kept from its `MPI_*_init` for each
/// `MPI_Start`.
#[derive(Clone, Copy)]
pub enum Persist {
    Send {
        buf: *const c_void,
        count: c_int,
        dtype: MPI_Datatype,
        dest: c_int,
        tag: c_int,
        comm: MPI_Comm,
        mode: fib_wire::SendMode,
    },
    Recv {
        buf: *mut c_void,
        count: c_int,
        dtype: MPI_Datatype,
        src: c_int,
        tag: c_int,
        comm: MPI_Comm,
    },
}

/// A buffered send: the real request and the private copy it sends from.
pub(crate) struct Background {
    pub(crate) req: MPI_Request,
    pub(crate) copy: Vec<u64>,
    /// For `MPI_Bsend`/`MPI_Ibsend`: the bytes of the attached buffer the
    /// message takes until it has left (`MPI_Pack_size` plus
    /// `MPI_BSEND_OVERHEAD`); 0 for a standard send.
    pub(crate) bsize: usize,
}

/// A window the program made, as the library tracks it to judge one-sided
/// calls alone: its id, its size and displacement unit at each rank, and
/// the epochs this rank has open on it.
pub struct Win {
    pub id: u32,
    /// The MPI function that made it.
    pub call: &'static str,
    /// `MPI_Win_create_dynamic`: displacements are addresses.
    pub dynamic: bool,
    /// Bytes and displacement unit at each rank of the window's group.
    pub sizes: Vec<(i64, i64)>,
    /// A fence opened an epoch (no `MPI_MODE_NOSUCCEED` since).
    pub fence: bool,
    /// A communication call since the last fence.
    pub fence_used: bool,
    /// Since the last fence, while its epoch may be open: whether a
    /// communication call was made (inside a lock epoch too), and the
    /// first passive-target epoch opened before any. With both, the next
    /// fence shows that its epoch (which such a call starts) and that
    /// lock epoch overlapped, which MPI forbids.
    pub fence_rma: bool,
    pub fence_passive: Option<fib_wire::Epoch>,
    /// The targets of the access epoch `MPI_Win_start` opened.
    pub access: Option<Vec<i32>>,
    /// `MPI_Win_post` opened an exposure epoch not waited for yet.
    pub exposure: bool,
    /// The targets this rank holds a lock on.
    pub locks: Vec<i32>,
    /// `MPI_Win_lock_all` holds.
    pub lock_all: bool,
    /// Where the epochs open now were opened: the last fence, the access
    /// and exposure epochs, each lock of `locks` (in its order), the
    /// lock-all.
    pub opened: Opened,
    /// The origin buffers MPI still reads or writes: per blocking-form
    /// communication call not completed at the origin yet, its target and
    /// the id its buffer is owned under ([`crate::memory::own`]).
    pub origins: Vec<(i32, u32)>,
    /// The tags other ranks' segments of a shared window are watched
    /// under, once `MPI_Win_shared_query` handed them to the program.
    pub segments: Vec<u64>,
    /// In a recorded run, the library's own objects for the window.
    pub private: Option<Private>,
}

/// A recorded run's own objects for a window (see `windows.rs`).
pub struct Private {
    /// A duplicate of the window's communicator (its bits): the library's
    /// barriers before a fence or the free, and the word of each post to
    /// its origins, go over it.
    pub comm: u64,
    /// The library's lock window (its bits), over `comm`: at each rank, a
    /// word holding the lock's state and how many grants it made, then
    /// how many times each rank of the window was granted it.
    pub locks: u64,
    /// The world rank of each rank of the window's group.
    pub world: Vec<u32>,
    /// This rank's place in the window's group.
    pub me: c_int,
    /// The targets whose lock of the library's this rank holds, and
    /// whether exclusively.
    pub held: Vec<(c_int, bool)>,
    /// Per target, the mark this rank last left in the lock window there:
    /// one more than the ordinal of its latest lock call granted there.
    pub marks: Vec<u64>,
}

/// The sites of the calls that opened a window's epochs ([`Win::opened`]).
#[derive(Default)]
pub struct Opened {
    /// The call that made the window.
    pub made: Site,
    pub fence: Site,
    pub access: Site,
    pub exposure: Site,
    /// The group `MPI_Win_post` exposed the window to.
    pub exposure_group: Vec<i32>,
    pub locks: Vec<Site>,
    pub lock_all: Site,
}

pub struct Lib {
    pub rank: i32,
    pub zero_buffer: bool,
    /// How many calls the rank has reported (as the scheduler counts
    /// them: a call's arguments and exchanges are no call).
    pub calls: u64,
    /// Whether standard and ready sends of a buffered run go from a
    /// private copy of the program's data (`FIB_COPY_SENDS=1`). Without,
    /// they go from the program's buffer and the call that gives the
    /// buffer back (the blocking send, or the wait or test of a
    /// nonblocking one) waits until MPI is done with it; a rank that waits
    /// long tells the scheduler ([`fib_wire::Up::Stuck`]), which reruns the
    /// interleaving with copies when the send's receive cannot come
    /// without it.
    pub copy_sends: bool,
    pub conn: Conn,
    /// Communicator handle bits to scheduler id.
    pub comms: HashMap<u64, u32>,
    pub reqs: HashMap<u32, Req>,
    /// Fake handle bits to request id.
    pub(crate) fakes: HashMap<u64, u32>,
    pub(crate) next_req: u32,
    /// Where each request the program holds was made (the nonblocking
    /// call, or the `MPI_Start` that started a persistent one), for the
    /// check that a call does not write its new request's handle over an
    /// active one ([`fib_wire::Up::Reused`]).
    pub(crate) origins: HashMap<u32, fib_wire::Site>,
    pub(crate) background: Vec<Background>,
    /// How many of them were in flight after the last test of them all.
    pub(crate) swept: usize,
    /// Receives waiting for the scheduler to post them: while there is one,
    /// no later receive may be posted ahead of the scheduler (MPI would
    /// match it first).
    pub deferred: usize,
    /// Whether calls whose outcome is already determined go ahead of the
    /// scheduler ([`Lib::settle`]; `FIB_AHEAD=0` turns it off).
    pub ahead: bool,
    /// The last call [`Lib::settle`] completed waited `SETTLE_WITHIN` or
    /// more.
    pub(crate) settle_waited: bool,
    /// The size of the buffer attached with `MPI_Buffer_attach` (0 when
    /// none is).
    pub attached: usize,
    /// Requests the program freed while active ([`Lib::free_req`]) whose
    /// operation has not completed yet.
    pub(crate) freed: Vec<u32>,
    /// The persistent requests not freed. While one is started, its
    /// operation is in `reqs` under its id, like any nonblocking one; once
    /// completed it is inactive again and keeps its handle.
    pub persistent: HashMap<u32, Persist>,
    /// The duplicates of derived datatypes the persistent requests keep
    /// (by request id): the program may free its datatype once the request
    /// is made, and each `MPI_Start` sends or receives with it again.
    pub persistent_types: HashMap<u32, MPI_Datatype>,
    /// The persistent request an `MPI_Start` is starting: the next
    /// [`Lib::new_req`] registers its operation under that id.
    pub starting: Option<u32>,
    /// The matched probe (`MPI_Mprobe`, `MPI_Improbe`) the rank waits in:
    /// its id, and the source and tag (wire values) of the message the
    /// scheduler gave it, once [`fib_wire::Down::PostRecv`] names them.
    pub mprobe: Option<(u32, Option<(i32, i32)>)>,
    /// The message handles matched probes returned and no `MPI_Mrecv` or
    /// `MPI_Imrecv` has taken yet (their bits), with the probe's id.
    pub probed: HashMap<u64, u32>,
    /// The active `MPI_Comm_idup` requests, with where MPI writes the new
    /// communicator's handle.
    pub idups: HashMap<u32, *mut MPI_Comm>,
    /// The ids of the communicators `MPI_Comm_idup` calls made, as the
    /// scheduler named them ([`fib_wire::Down::NewComm`]) ahead of the answer of the
    /// wait or test that completes them, in the order of its positions.
    pub new_comms: std::collections::VecDeque<u32>,
    /// The windows not freed, by handle bits.
    pub windows: HashMap<u64, Win>,
    /// A recorded run's state ([`crate::record`]); `None` when the
    /// scheduler answers the rank.
    pub record: Option<crate::record::Recording>,
    /// The rank's gate, once a thread started under
    /// `MPI_THREAD_MULTIPLE` (`gate.rs`).
    pub gate: Gate,
}

/// A rank's gate: with it on, the threads' calls wait until the scheduler
/// enters them into the rank's sequence ([`fib_wire::Down::Entered`]),
/// and hand their operations to MPI in that order.
#[derive(Default)]
pub struct Gate {
    pub on: bool,
    /// The thread the next answer read is for ([`fib_wire::Down::To`]).
    pub to: Option<u32>,
    /// The answers read for threads that have not taken them yet: the
    /// thread, the answer, and for an entry, its number among the rank's
    /// entries.
    pub mail: Vec<(u32, fib_wire::Down, Option<u64>)>,
    /// How many entries were read, and how many of their threads have
    /// handed their operations to MPI: an entry's thread goes on only
    /// once every earlier one has.
    pub read: u64,
    pub done: u64,
}

thread_local! {
    /// The entry the calling thread took and has not finished handing to
    /// MPI ([`Lib::finish_entry`]).
    pub static ENTRY: std::cell::Cell<Option<u64>> = const { std::cell::Cell::new(None) };
}

impl Lib {
    /// The calling thread has handed the operation of its entered call to
    /// MPI (it waits again, or returns): the next entry's thread may go
    /// on.
    pub fn finish_entry(&mut self) {
        if ENTRY.with(|e| e.take()).is_some() {
            self.gate.done += 1;
        }
    }
}

struct Global(UnsafeCell<Option<Lib>>);

// SAFETY: one thread at a time holds the state (`held`: a thread that
// waits lets go of it only while it reads nothing of it); the crash
// handler only reads.
unsafe impl Sync for Global {}

static LIB: Global = Global(UnsafeCell::new(None));

/// Installs the state built by `MPI_Init`.
pub fn install(lib: Lib) {
    // SAFETY: see `Global`.
    unsafe { *LIB.0.get() = Some(lib) };
}

/// Drops the state (after `MPI_Finalize`).
pub fn uninstall() {
    // SAFETY: see `Global`.
    unsafe { *LIB.0.get() = None };
}

/// The state, if `MPI_Init` has run and `MPI_Finalize` has not.
pub fn try_lib() -> Option<&'static mut Lib> {
    // SAFETY: see `Global`; wrappers do not nest.
    unsafe { (*LIB.0.get()).as_mut() }
}

impl Lib {
    pub fn new(rank: i32, zero_buffer: bool, conn: Conn) -> Lib {
        let mut comms = HashMap::default();
        // SAFETY: reading constants.
        unsafe {
            comms.insert(bits(RSMPI_COMM_WORLD), fib_wire::COMM_WORLD);
            comms.insert(bits(RSMPI_COMM_SELF), fib_wire::COMM_SELF);
        }
        Lib {
            rank,
            zero_buffer,
            calls: 0,
            copy_sends: std::env::var(fib_wire::env::COPY_SENDS).is_ok_and(|v| v == "1"),
            conn,
            comms,
            reqs: HashMap::default(),
            fakes: HashMap::default(),
            next_req: 0,
            origins: HashMap::default(),
            background: Vec::new(),
            swept: 0,
            deferred: 0,
            ahead: std::env::var(fib_wire::env::AHEAD).map_or(true, |v| v != "0"),
            settle_waited: false,
            attached: 0,
            freed: Vec::new(),
            persistent: HashMap::default(),
            persistent_types: HashMap::default(),
            starting: None,
            mprobe: None,
            probed: HashMap::default(),
            idups: HashMap::default(),
            new_comms: std::collections::VecDeque::new(),
            windows: HashMap::default(),
            record: crate::record::Recording::from_env(rank),
            gate: Gate::default(),
        }
    }
}
