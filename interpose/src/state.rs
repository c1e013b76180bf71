//! The library's per-rank state: the connection, the communicator table, the
//! requests handed to the program, and the buffered sends still in flight.
//! It also holds the two loops every wrapper waits in: waiting for the
//! scheduler's answer, and polling a real MPI request. Both loops handle
//! [`Down::PostRecv`] as it arrives, so a receive the scheduler has matched is
//! posted even while its rank waits for something else.

use rustc_hash::FxHashMap as HashMap;
use std::cell::UnsafeCell;
use std::os::raw::{c_int, c_void};
use std::sync::atomic::{AtomicU64, Ordering};

/// How many times a rank looks for the scheduler's answer without sleeping
/// before it blocks in a socket read.
const SPIN_READS: u32 = 64;

use fib_wire::{Down, Op, Site, Up, ANY, PROC_NULL};
use mpi_sys::*;

use crate::conn::{fatal, log, Conn};
use crate::handle::{bits, fake_request_bits, from_bits};
use crate::site;

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
struct Background {
    req: MPI_Request,
    copy: Vec<u64>,
    /// For `MPI_Bsend`/`MPI_Ibsend`: the bytes of the attached buffer the
    /// message takes until it has left (`MPI_Pack_size` plus
    /// `MPI_BSEND_OVERHEAD`); 0 for a standard send.
    bsize: usize,
}

pub struct Lib {
    pub rank: i32,
    pub zero_buffer: bool,
    /// Whether standard and ready sends of a buffered run go from a
    /// private copy of the program's data (`FIB_COPY_SENDS=1`). Without,
    /// they go from the program's buffer and the call that gives the
    /// buffer back (the blocking send, or the wait or test of a
    /// nonblocking one) waits until MPI is done with it; a rank that waits
    /// long tells the scheduler ([`Up::Stuck`]), which reruns the
    /// interleaving with copies when the send's receive cannot come
    /// without it.
    pub copy_sends: bool,
    pub conn: Conn,
    /// Communicator handle bits to scheduler id.
    pub comms: HashMap<u64, u32>,
    pub reqs: HashMap<u32, Req>,
    /// Fake handle bits to request id.
    fakes: HashMap<u64, u32>,
    next_req: u32,
    background: Vec<Background>,
    /// Receives waiting for the scheduler to post them: while there is one,
    /// no later receive may be posted ahead of the scheduler (MPI would
    /// match it first).
    pub deferred: usize,
    /// Whether calls whose outcome is already determined go ahead of the
    /// scheduler ([`Lib::settle`]; `FIB_AHEAD=0` turns it off).
    pub ahead: bool,
    /// The last call [`Lib::settle`] completed waited [`SETTLE_WITHIN`] or
    /// more.
    settle_waited: bool,
    /// The size of the buffer attached with `MPI_Buffer_attach` (0 when
    /// none is).
    pub attached: usize,
    /// Requests the program freed while active ([`Lib::free_req`]) whose
    /// operation has not completed yet.
    freed: Vec<u32>,
    /// The persistent requests not freed. While one is started, its
    /// operation is in `reqs` under its id, like any nonblocking one; once
    /// completed it is inactive again and keeps its handle.
    pub persistent: HashMap<u32, Persist>,
    /// The persistent request an `MPI_Start` is starting: the next
    /// [`Lib::new_req`] registers its operation under that id.
    pub starting: Option<u32>,
    /// The matched probe (`MPI_Mprobe`, `MPI_Improbe`) the rank waits in:
    /// its id, and the source and tag (wire values) of the message the
    /// scheduler gave it, once [`Down::PostRecv`] names them.
    pub mprobe: Option<(u32, Option<(i32, i32)>)>,
    /// The message handles matched probes returned and no `MPI_Mrecv` or
    /// `MPI_Imrecv` has taken yet (their bits), with the probe's id.
    pub probed: HashMap<u64, u32>,
    /// The active `MPI_Comm_idup` requests, with where MPI writes the new
    /// communicator's handle.
    pub idups: HashMap<u32, *mut MPI_Comm>,
    /// The ids of the communicators `MPI_Comm_idup` calls made, as the
    /// scheduler named them ([`Down::NewComm`]) ahead of the answer of the
    /// wait or test that completes them, in the order of its positions.
    pub new_comms: std::collections::VecDeque<u32>,
}

/// How long a call that goes ahead of the scheduler ([`Lib::settle`]) waits
/// in MPI before it flushes the rank's batch of reports: long enough for a
/// running peer to answer (a round trip through shared memory takes a few
/// microseconds), short enough that a peer held by the scheduler, which may
/// need this rank's reports to be released, is not kept waiting long.
const SETTLE_WITHIN: std::time::Duration = std::time::Duration::from_micros(20);

/// How many polls of MPI [`Lib::settle`] makes between two readings of
/// the clock.
const CLOCK_EVERY: u32 = 8;

/// How long a rank waits in MPI for a standard send of the program's buffer
/// before it tells the scheduler it is stuck there ([`Up::Stuck`]): longer
/// than a message above the eager limit takes when its receive is posted.
const STUCK_AFTER: std::time::Duration = std::time::Duration::from_micros(500);

/// When a rank started waiting for a standard send of the program's buffer,
/// and whether it has told the scheduler ([`Lib::stuck_tick`]).
#[derive(Default)]
pub struct StuckClock(Option<(std::time::Instant, bool)>);

struct Global(UnsafeCell<Option<Lib>>);

// SAFETY: MPI programs call the library from one thread at a time (fib does
// not model MPI_THREAD_MULTIPLE); the crash handler only reads.
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

/// The state, held by the calling thread until the returned [`Held`] is
/// dropped; a call before `MPI_Init` or after `MPI_Finalize` is fatal.
///
/// The state is the rank's one picture of the run, and the scheduler's
/// protocol speaks of one call at a time: fib does not model two threads
/// in MPI at once (`MPI_THREAD_MULTIPLE` used as such). A thread that
/// calls MPI while another one is inside (blocked in a receive, say) is
/// reported as unsupported and the run stops, rather than corrupting the
/// state or waiting for an answer that would look like a deadlock. Calls
/// from several threads one after the other (`MPI_THREAD_SERIALIZED`,
/// `FUNNELED`) hold it in turn.
pub fn lib() -> Held {
    let me = thread_id();
    HELD.with(|depth| {
        if depth.get() == 0 {
            if let Err(other) = OWNER.compare_exchange(0, me, Ordering::AcqRel, Ordering::Acquire) {
                two_threads(other);
            }
        }
        depth.set(depth.get() + 1);
    });
    match try_lib() {
        Some(l) => Held(l),
        None => fatal("an MPI call was made before MPI_Init or after MPI_Finalize"),
    }
}

/// The state, held by one thread (see [`lib`]).
pub struct Held(&'static mut Lib);

impl std::ops::Deref for Held {
    type Target = Lib;
    fn deref(&self) -> &Lib {
        self.0
    }
}

impl std::ops::DerefMut for Held {
    fn deref_mut(&mut self) -> &mut Lib {
        self.0
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        HELD.with(|depth| {
            depth.set(depth.get() - 1);
            if depth.get() == 0 {
                OWNER.store(0, Ordering::Release);
            }
        });
    }
}

/// The thread inside the library (its kernel thread id), or 0.
static OWNER: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// How many [`Held`]s this thread has (wrappers call helpers that take
    /// the state again).
    static HELD: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// The calling thread's kernel id, asked of the kernel once per thread.
fn thread_id() -> u64 {
    thread_local! {
        static TID: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }
    TID.with(|t| {
        if t.get() == 0 {
            // SAFETY: gettid has no preconditions.
            t.set(unsafe { libc::gettid() } as u64);
        }
        t.get()
    })
}

/// Reports that this thread called MPI while thread `other` was inside, and
/// waits to be stopped. The report goes straight to the socket in one
/// write: the other thread owns the buffered connection.
fn two_threads(other: u64) -> ! {
    let fd = crate::conn::FD.load(Ordering::Relaxed);
    if fd >= 0 {
        let mut frame = Vec::new();
        Up::Unsupported {
            site: site::current(),
            name: fib_wire::THREAD_MULTIPLE.to_string(),
        }
        .encode(&mut frame);
        crate::conn::raw_write_all(fd, &frame);
    } else {
        log(&format!(
            "MPI called from two threads at once (thread {other} was inside); fib does not model MPI_THREAD_MULTIPLE"
        ));
    }
    loop {
        // SAFETY: pause has no preconditions; the scheduler ends the run.
        unsafe { libc::pause() };
    }
}

/// Sends [`Up::File`] for files not yet named, if connected.
pub fn announce_files() {
    if let Some(l) = try_lib() {
        site::announce(&mut l.conn.pending);
    }
}

/// A status as MPI defines it for a null request: any source, any tag,
/// success, nothing received.
pub fn empty_status() -> MPI_Status {
    // Made through MPI once (every completion of a send or a wait needs
    // one), and copied after that.
    static EMPTY: std::sync::OnceLock<MPI_Status> = std::sync::OnceLock::new();
    *EMPTY.get_or_init(|| {
        // SAFETY: MPI_Status is a plain C struct; all zeros is a valid
        // value, and the fields that matter are set through MPI below.
        let mut st: MPI_Status = unsafe { std::mem::zeroed() };
        unsafe {
            st.MPI_SOURCE = RSMPI_ANY_SOURCE;
            st.MPI_TAG = RSMPI_ANY_TAG;
            st.MPI_ERROR = MPI_SUCCESS as c_int;
            PMPI_Status_set_elements(&mut st, RSMPI_UINT8_T, 0);
            PMPI_Status_set_cancelled(&mut st, 0);
        }
        st
    })
}

/// The status of a receive from `MPI_PROC_NULL`.
pub fn proc_null_status() -> MPI_Status {
    let mut st = empty_status();
    // SAFETY: reading constants.
    unsafe { st.MPI_SOURCE = RSMPI_PROC_NULL };
    st
}

/// The status of a receive cancelled before it was posted to MPI.
pub fn cancelled_status() -> MPI_Status {
    let mut st = empty_status();
    // SAFETY: setting a field of a valid status.
    unsafe { PMPI_Status_set_cancelled(&mut st, 1) };
    st
}

/// The status reported for a completed send.
pub fn send_status() -> MPI_Status {
    let mut st = empty_status();
    st.MPI_SOURCE = 0;
    st.MPI_TAG = 0;
    st
}

/// A private copy of `count` elements of `dtype` at `buf`, and the address
/// to hand MPI in place of `buf` (the copy keeps the datatype's layout from
/// its true lower bound on).
pub unsafe fn copy_of(
    buf: *const c_void,
    count: c_int,
    dtype: MPI_Datatype,
) -> (Vec<u64>, *const c_void) {
    let mut lb: MPI_Aint = 0;
    let mut extent: MPI_Aint = 0;
    let mut tlb: MPI_Aint = 0;
    let mut textent: MPI_Aint = 0;
    PMPI_Type_get_extent(dtype, &mut lb, &mut extent);
    PMPI_Type_get_true_extent(dtype, &mut tlb, &mut textent);
    let n = if count > 0 {
        ((count as MPI_Aint - 1) * extent + textent).max(0) as usize
    } else {
        0
    };
    let mut copy = vec![0u64; n.div_ceil(8)];
    if n > 0 {
        std::ptr::copy_nonoverlapping(
            (buf as *const u8).wrapping_offset(tlb as isize),
            copy.as_mut_ptr() as *mut u8,
            n,
        );
    }
    let from = (copy.as_ptr() as *const u8).wrapping_offset(-(tlb as isize));
    (copy, from.cast())
}

/// A source or destination rank as sent on the wire.
pub fn rank_to_wire(r: c_int) -> i32 {
    // SAFETY: reading constants.
    unsafe {
        if r == RSMPI_ANY_SOURCE {
            ANY
        } else if r == RSMPI_PROC_NULL {
            PROC_NULL
        } else {
            r
        }
    }
}

/// A collective's root as sent on the wire: `MPI_ROOT` and
/// `MPI_PROC_NULL` (on an intercommunicator) become [`fib_wire::ROOT`] and
/// [`PROC_NULL`].
pub fn root_to_wire(r: c_int) -> i32 {
    if r == MPI_ROOT {
        fib_wire::ROOT
    } else {
        rank_to_wire(r)
    }
}

/// A rank from the wire as MPI wants it.
pub fn rank_from_wire(r: i32) -> c_int {
    // SAFETY: reading constants.
    unsafe {
        match r {
            ANY => RSMPI_ANY_SOURCE,
            PROC_NULL => RSMPI_PROC_NULL,
            r => r,
        }
    }
}

/// A tag as sent on the wire.
pub fn tag_to_wire(t: c_int) -> i32 {
    // SAFETY: reading a constant.
    if t == unsafe { RSMPI_ANY_TAG } {
        ANY
    } else {
        t
    }
}

/// A tag from the wire as MPI wants it.
pub fn tag_from_wire(t: i32) -> c_int {
    if t == ANY {
        // SAFETY: reading a constant.
        unsafe { RSMPI_ANY_TAG }
    } else {
        t
    }
}

/// Copies `st` to the program's status unless it passed `MPI_STATUS_IGNORE`.
pub unsafe fn put_status(dst: *mut MPI_Status, st: &MPI_Status) {
    if !dst.is_null() && dst != RSMPI_STATUS_IGNORE {
        write_status(dst, st);
    }
}

/// Writes `st` to the program's status at `dst`, all but its `MPI_ERROR`
/// field: MPI sets that only when a call that completes several requests
/// fails with `MPI_ERR_IN_STATUS`, which fib's calls never return, so the
/// program's value stays (MPICH's tests check that it does).
pub unsafe fn write_status(dst: *mut MPI_Status, st: &MPI_Status) {
    let error = (*dst).MPI_ERROR;
    *dst = *st;
    (*dst).MPI_ERROR = error;
}

/// Writes the empty status to the program's status unless it passed
/// `MPI_STATUS_IGNORE`: all of it, `MPI_ERROR` too, which the empty
/// status sets to `MPI_SUCCESS`. `MPI_Request_get_status` of a null or
/// inactive request answers so in MPICH (its test `rqstatus` checks it);
/// MPICH's waits and tests of a null request leave `MPI_ERROR` alone, and
/// so do fib's ([`write_status`]).
pub unsafe fn put_empty(dst: *mut MPI_Status) {
    if !dst.is_null() && dst != RSMPI_STATUS_IGNORE {
        *dst = empty_status();
    }
}

/// Whether the program passed `MPI_STATUSES_IGNORE`.
pub unsafe fn statuses_ignored(p: *mut MPI_Status) -> bool {
    p.is_null() || p == RSMPI_STATUSES_IGNORE
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
            copy_sends: std::env::var(fib_wire::env::COPY_SENDS).is_ok_and(|v| v == "1"),
            conn,
            comms,
            reqs: HashMap::default(),
            fakes: HashMap::default(),
            next_req: 0,
            background: Vec::new(),
            deferred: 0,
            ahead: std::env::var(fib_wire::env::AHEAD).map_or(true, |v| v != "0"),
            settle_waited: false,
            attached: 0,
            freed: Vec::new(),
            persistent: HashMap::default(),
            starting: None,
            mprobe: None,
            probed: HashMap::default(),
            idups: HashMap::default(),
            new_comms: std::collections::VecDeque::new(),
        }
    }

    /// Queues one message (naming new files first).
    pub fn push(&mut self, m: Up) {
        site::announce(&mut self.conn.pending);
        self.conn.push(&m);
    }

    /// Queues an intercepted call at the current site.
    pub fn event(&mut self, op: Op) {
        let site = site::for_call();
        self.push(Up::Op { site, op });
    }

    /// Reports an unsupported call or object and waits for the scheduler to
    /// end the run.
    pub fn unsupported(&mut self, name: &str) -> ! {
        let site = site::for_call();
        self.push(Up::Unsupported {
            site,
            name: name.to_string(),
        });
        self.conn.wait_for_eof()
    }

    /// The scheduler id of `comm`; a communicator the library has not seen
    /// created is reported as unsupported.
    pub fn comm_id(&mut self, comm: MPI_Comm) -> u32 {
        match self.comms.get(&bits(comm)) {
            Some(id) => *id,
            // SAFETY: reading a constant.
            None if bits(comm) == bits(unsafe { RSMPI_COMM_NULL }) => {
                crate::check::invalid(self, "MPI_COMM_NULL is not a communicator".into())
            }
            // SAFETY: the program keeps an `MPI_Comm_idup`'s output valid
            // until the request completes.
            None if self
                .idups
                .values()
                .any(|p| bits(unsafe { **p }) == bits(comm)) =>
            {
                crate::check::invalid(
                    self,
                    "the communicator of an MPI_Comm_idup is used before its request completed"
                        .into(),
                )
            }
            None => self.unsupported("communicator not created through a supported call"),
        }
    }

    /// Registers a new request and returns its id and fake handle.
    pub fn new_req(&mut self, kind: Kind) -> (u32, MPI_Request) {
        if let Some(id) = self.starting.take() {
            self.reqs.insert(id, Req { kind });
            return (id, from_bits(fake_request_bits(id)));
        }
        let id = self.next_req;
        self.next_req = self.next_req.wrapping_add(1);
        let fb = fake_request_bits(id);
        self.fakes.insert(fb, id);
        self.reqs.insert(id, Req { kind });
        (id, from_bits(fb))
    }

    /// The id of the request behind a handle: `None` for `MPI_REQUEST_NULL`;
    /// a handle the library did not hand out is reported as unsupported.
    pub fn req_id(&mut self, h: MPI_Request) -> Option<u32> {
        // SAFETY: reading a constant.
        if bits(h) == bits(unsafe { RSMPI_REQUEST_NULL }) {
            return None;
        }
        match self.fakes.get(&bits(h)) {
            Some(id) => Some(*id),
            None => self.unsupported("request not created through a supported call"),
        }
    }

    /// `MPI_Request_free` of the active request `id`: its handle is
    /// forgotten at once, but a real operation in flight stays in the table
    /// so that MPI's progress keeps driving it, and a deferred receive is
    /// still posted when the scheduler matches it (its entry is dropped
    /// once it has completed, in [`Lib::progress`]).
    pub fn free_req(&mut self, id: u32) {
        self.fakes.remove(&fake_request_bits(id));
        let done = match self.reqs.get(&id).map(|r| &r.kind) {
            Some(Kind::Nothing) | None => true,
            Some(Kind::Recv(r)) => r.proc_null,
            Some(_) => false,
        };
        if done {
            self.reqs.remove(&id);
        } else {
            self.freed.push(id);
        }
    }

    /// Forgets a completed request (a persistent one keeps its handle).
    pub fn drop_req(&mut self, id: u32) {
        self.reqs.remove(&id);
        if !self.persistent.contains_key(&id) {
            self.fakes.remove(&fake_request_bits(id));
        }
    }

    /// Registers a persistent request and returns its id and fake handle.
    pub fn new_persistent(&mut self, p: Persist) -> (u32, MPI_Request) {
        let id = self.next_req;
        self.next_req = self.next_req.wrapping_add(1);
        let fb = fake_request_bits(id);
        self.fakes.insert(fb, id);
        self.persistent.insert(id, p);
        (id, from_bits(fb))
    }

    /// Whether `id` is a persistent request that is not started: a
    /// completion call treats it as `MPI_REQUEST_NULL` (it completes at
    /// once, with an empty status), but leaves its handle.
    pub fn inactive(&self, id: u32) -> bool {
        self.persistent.contains_key(&id) && !self.reqs.contains_key(&id)
    }

    /// Starts a buffered send of a private copy of the program's data;
    /// `bsize` is what it takes of the attached buffer ([`Background`]).
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn buffered_send(
        &mut self,
        buf: *const c_void,
        count: c_int,
        dtype: MPI_Datatype,
        dest: c_int,
        tag: c_int,
        comm: MPI_Comm,
        bsize: usize,
    ) {
        if !self.background.is_empty() {
            self.test_background();
        }
        let (copy, from) = copy_of(buf, count, dtype);
        let mut req: MPI_Request = RSMPI_REQUEST_NULL;
        PMPI_Isend(from, count, dtype, dest, tag, comm, &mut req);
        self.background.push(Background { req, copy, bsize });
    }

    /// Checks that the attached buffer has room for a buffered send of
    /// `count` elements of `dtype` on `comm` (`call` names it), beside the
    /// buffered sends still in flight; when it has not, reports the call as
    /// an MPI error (as MPI itself would fail it, with `MPI_ERR_BUFFER`)
    /// and ends the rank. Returns the bytes the message takes.
    pub unsafe fn bsend_room(
        &mut self,
        count: c_int,
        dtype: MPI_Datatype,
        comm: MPI_Comm,
        call: &str,
    ) -> usize {
        if !self.background.is_empty() {
            self.test_background();
        }
        let mut packed: c_int = 0;
        PMPI_Pack_size(count, dtype, comm, &mut packed);
        let need = packed.max(0) as usize + MPI_BSEND_OVERHEAD as usize;
        let used: usize = self.background.iter().map(|b| b.bsize).sum();
        let free = self.attached.saturating_sub(used);
        if need > free {
            let text = if self.attached == 0 {
                format!(
                    "{call} needs {need} bytes of buffer space (MPI_Pack_size plus \
                     MPI_BSEND_OVERHEAD) but no buffer is attached (MPI_Buffer_attach)"
                )
            } else {
                format!(
                    "{call} needs {need} bytes of buffer space (MPI_Pack_size plus \
                     MPI_BSEND_OVERHEAD) but only {free} of the {} bytes attached are free",
                    self.attached
                )
            };
            let site = site::for_call();
            self.push(Up::MpiError {
                site,
                code: MPI_ERR_BUFFER as c_int,
                text,
            });
            self.conn.flush();
            libc::_exit(1);
        }
        need
    }

    /// `MPI_Buffer_detach`: MPI waits there until the buffered messages
    /// have left the buffer, so none of them takes space of a buffer
    /// attached later.
    pub fn buffer_detached(&mut self) {
        self.attached = 0;
        for b in &mut self.background {
            b.bsize = 0;
        }
    }

    /// An id for a call the scheduler matches as a receive but that hands
    /// the program no request (a matched probe).
    pub fn new_id(&mut self) -> u32 {
        let id = self.next_req;
        self.next_req = self.next_req.wrapping_add(1);
        id
    }

    /// Posts the deferred receive `id` from `src` with `tag` (wire values);
    /// for the matched probe in progress, notes which message it gets.
    pub fn post_recv(&mut self, id: u32, src: i32, tag: i32) {
        if let Some((m, chosen)) = &mut self.mprobe {
            if *m == id {
                *chosen = Some((src, tag));
                return;
            }
        }
        let Some(Req {
            kind: Kind::Recv(r),
        }) = self.reqs.get_mut(&id)
        else {
            fatal(&format!(
                "protocol error: PostRecv for request {id}, which is not a pending receive"
            ));
        };
        if r.real.is_some() {
            fatal(&format!(
                "protocol error: PostRecv for request {id}, which is already posted"
            ));
        }
        // SAFETY: the program's receive arguments, kept as it passed them.
        let mut req = unsafe { RSMPI_REQUEST_NULL };
        unsafe {
            PMPI_Irecv(
                r.buf,
                r.count,
                r.dtype,
                rank_from_wire(src),
                tag_from_wire(tag),
                r.comm,
                &mut req,
            )
        };
        r.real = Some(Real::new(req));
        self.deferred = self.deferred.saturating_sub(1);
    }

    /// Cancels the receive `id`, as the scheduler decided with every rank
    /// waiting. A deferred receive (a wildcard one is always deferred) is
    /// never posted. A receive posted to MPI (one naming its source) is
    /// cancelled there: the scheduler cancels it only when no send it has
    /// seen can reach it, and every rank's sends have been reported.
    pub fn cancel_recv(&mut self, id: u32) {
        let Some(Req {
            kind: Kind::Recv(r),
        }) = self.reqs.get_mut(&id)
        else {
            fatal(&format!(
                "protocol error: request {id} cancelled, which is not a receive"
            ));
        };
        match &mut r.real {
            None => {
                r.cancelled = true;
                self.deferred = self.deferred.saturating_sub(1);
            }
            Some(real) => {
                // SAFETY: the request is active and owned by this entry.
                unsafe { PMPI_Cancel(&mut real.req) };
                // MPI completes it cancelled; its status stays with it
                // for the program's completion call.
                let st = self.peek(id);
                let mut flag: c_int = 0;
                // SAFETY: a status MPI filled in.
                unsafe { PMPI_Test_cancelled(&st, &mut flag) };
                if flag == 0 {
                    fatal(&format!(
                        "MPI matched the receive of request {id}, which the scheduler cancelled"
                    ));
                }
            }
        }
    }

    /// Posts a receive with a named source to MPI at once, when going
    /// ahead is on and no receive of this rank waits for the scheduler:
    /// MPI then matches it as the engine will (non-overtaking, in posting
    /// order). Returns the real request.
    pub unsafe fn post_ahead(
        &mut self,
        buf: *mut c_void,
        count: c_int,
        dtype: MPI_Datatype,
        src: c_int,
        tag: c_int,
        comm: MPI_Comm,
    ) -> Option<Real> {
        if !self.ahead || self.deferred > 0 || src == RSMPI_ANY_SOURCE || src == RSMPI_PROC_NULL {
            return None;
        }
        let mut req = RSMPI_REQUEST_NULL;
        PMPI_Irecv(buf, count, dtype, src, tag, comm, &mut req);
        Some(Real::new(req))
    }

    /// Whether a wait for all of `ids` can complete in MPI without the
    /// scheduler: each is a send, or a receive already posted (by
    /// [`Lib::post_ahead`] or the scheduler), and MPI matches these exactly
    /// as the engine will. Such a call needs no answer: the rank reports it
    /// as settled ([`fib_wire::Up::Ahead`]), completes it with
    /// [`Lib::settle`], and the scheduler lets the engine catch up.
    pub fn settles(&self, ids: &[u32]) -> bool {
        self.ahead
            && ids
                .iter()
                .all(|id| match self.reqs.get(id).map(|r| &r.kind) {
                    Some(Kind::Recv(r)) => r.real.is_some() || r.proc_null,
                    // Only the scheduler knows when a collective matched.
                    Some(Kind::Coll(_)) => false,
                    Some(_) => true,
                    None => false,
                })
    }

    /// Completes the requests of `ids` in MPI, which [`Lib::settles`] said
    /// it can, once the call has been reported. The reports of the rank's
    /// earlier calls stay batched while its calls complete at once; once a
    /// call has waited [`SETTLE_WITHIN`], they are flushed, so that the
    /// scheduler sees the rank waiting (a peer may wait for a choice that
    /// needs every rank seen waiting, and a deadlock is declared only then),
    /// and from then on the rank also takes receives the scheduler posts.
    ///
    /// A call that had to wait that long flushes the next one's reports
    /// before it polls: a rank whose calls keep waiting (a client waiting
    /// for a server that takes its requests with wildcard receives) would
    /// otherwise hold every choice of the scheduler's back by that much.
    pub fn settle(&mut self, ids: &[u32]) {
        let mut since: Option<std::time::Instant> = None;
        let mut flushed = std::mem::take(&mut self.settle_waited);
        if flushed {
            self.conn.flush();
        }
        let mut clock = StuckClock::default();
        let mut polls: u32 = 0;
        loop {
            let mut all = true;
            let mut sends = false;
            for id in ids {
                all &= match self.reqs.get_mut(id).map(|r| &mut r.kind) {
                    Some(Kind::Sync(real)) => real.test(),
                    Some(Kind::Standard(real)) => {
                        let done = real.test();
                        sends |= !done;
                        done
                    }
                    Some(Kind::Recv(RecvReq {
                        real: Some(real), ..
                    })) => real.test(),
                    _ => true,
                };
            }
            if all {
                self.settle_waited = since.is_some_and(|s| s.elapsed() >= SETTLE_WITHIN);
                self.stuck_end(clock);
                return;
            }
            if sends {
                self.stuck_tick(&mut clock);
            }
            if !self.background.is_empty() {
                self.test_background();
            }
            if flushed {
                since.get_or_insert_with(std::time::Instant::now);
                self.poll_socket();
            } else {
                // A call that completes within microseconds (the peer's
                // message is on its way) spins on MPI alone: a yield per
                // poll costs a system call, and a switch to another
                // process when one is runnable, each time. The clock is
                // read every few polls only: on a virtual machine reading
                // it can cost more than a poll.
                polls += 1;
                if !polls.is_multiple_of(CLOCK_EVERY) {
                    continue;
                }
                let now = std::time::Instant::now();
                if now - *since.get_or_insert(now) < SETTLE_WITHIN {
                    continue;
                }
                self.conn.flush();
                flushed = true;
            }
            // SAFETY: always safe.
            unsafe { libc::sched_yield() };
        }
    }

    /// Handles the messages already read: posts receives, and returns the
    /// first other message.
    fn drain(&mut self) -> Option<Down> {
        while let Some(d) = self.conn.next() {
            match d {
                Down::PostRecv { req, src, tag } => self.post_recv(req, src, tag),
                Down::Cancelled { req } => self.cancel_recv(req),
                other => return Some(other),
            }
        }
        None
    }

    /// Reads the socket without blocking and posts any receives the scheduler
    /// has released; any other message is a protocol error, since nothing
    /// else is awaited.
    pub fn poll_socket(&mut self) {
        self.conn.read(0);
        if let Some(d) = self.drain() {
            fatal(&format!(
                "protocol error: unexpected {d:?} while no answer was awaited"
            ));
        }
    }

    /// Whether real MPI operations of this rank are still in flight.
    fn in_flight(&self) -> bool {
        !self.background.is_empty()
            || self.reqs.values().any(|r| match &r.kind {
                Kind::Recv(RecvReq {
                    real: Some(real), ..
                })
                | Kind::Sync(real)
                | Kind::Standard(real)
                | Kind::Coll(real) => real.status.is_none(),
                _ => false,
            })
    }

    /// Tests every real operation in flight once (which also drives MPI's
    /// progress engine); returns whether any completed.
    pub fn progress(&mut self) -> bool {
        let mut any = false;
        for r in self.reqs.values_mut() {
            match &mut r.kind {
                Kind::Recv(RecvReq {
                    real: Some(real), ..
                })
                | Kind::Sync(real)
                | Kind::Standard(real)
                | Kind::Coll(real)
                    if real.status.is_none() =>
                {
                    any |= real.test();
                }
                _ => {}
            }
        }
        if !self.freed.is_empty() {
            self.drop_freed();
        }
        self.test_background() || any
    }

    /// Forgets the freed requests whose operation has completed.
    fn drop_freed(&mut self) {
        let reqs = &mut self.reqs;
        self.freed.retain(|id| {
            let done = match reqs.get(id).map(|r| &r.kind) {
                Some(Kind::Sync(real))
                | Some(Kind::Standard(real))
                | Some(Kind::Coll(real))
                | Some(Kind::Recv(RecvReq {
                    real: Some(real), ..
                })) => real.status.is_some(),
                Some(_) => false,
                None => true,
            };
            if done {
                reqs.remove(id);
            }
            !done
        });
    }

    /// Tests the buffered sends in flight and drops the finished ones.
    fn test_background(&mut self) -> bool {
        let before = self.background.len();
        self.background.retain_mut(|b| {
            let mut flag: c_int = 0;
            // SAFETY: the request is active and owned by the list.
            unsafe { PMPI_Test(&mut b.req, &mut flag, RSMPI_STATUS_IGNORE) };
            flag == 0
        });
        self.background.len() != before
    }

    /// Flushes and waits for the scheduler's answer, posting receives as they
    /// are released. While real operations are in flight it keeps driving
    /// MPI's progress engine, so that a peer waiting on this rank's data (a
    /// rendezvous send, a synchronous send's acknowledgement) is not stalled
    /// by this rank sleeping in a socket read.
    pub fn wait_down(&mut self) -> Down {
        self.conn.flush();
        let mut idle = 0u32;
        loop {
            if let Some(d) = self.drain() {
                return d;
            }
            if self.in_flight() {
                if self.progress() {
                    idle = 0;
                }
                if idle < 200 {
                    idle += 1;
                    if !self.conn.read(0) {
                        // SAFETY: always safe.
                        unsafe { libc::sched_yield() };
                    }
                } else {
                    self.conn.read(1);
                }
            } else if idle < SPIN_READS {
                // An answer usually comes within microseconds: looking for
                // it a few times before sleeping saves a cross-CPU wakeup.
                // Yielding in between hands the CPU to any runnable rank.
                idle += 1;
                if !self.conn.read(0) {
                    // SAFETY: always safe.
                    unsafe { libc::sched_yield() };
                }
            } else {
                // Nothing of this rank's is in flight, but MPI may still owe
                // a peer something that only this rank's progress engine
                // sends (a synchronous send's acknowledgement, the rest of
                // a window of messages): poke it now and then while held,
                // soon at first, then every 64 ms.
                poke_progress();
                let wait = 1i32 << (idle - SPIN_READS).min(6);
                idle = idle.saturating_add(1);
                self.conn.read(wait);
            }
        }
    }

    /// Waits for [`Down::Go`].
    pub fn wait_go(&mut self) {
        match self.wait_down() {
            Down::Go => {}
            d => fatal(&format!("protocol error: expected Go, got {d:?}")),
        }
    }

    /// Polls until `done` says so, posting released receives meanwhile.
    pub fn spin(&mut self, mut done: impl FnMut() -> bool) {
        loop {
            if done() {
                return;
            }
            self.poll_socket();
            // SAFETY: always safe.
            unsafe { libc::sched_yield() };
        }
    }

    /// After one more poll of a standard send MPI has not finished: once the
    /// rank has waited [`STUCK_AFTER`] for it, tells the scheduler
    /// ([`Up::Stuck`]).
    pub fn stuck_tick(&mut self, clock: &mut StuckClock) {
        let now = std::time::Instant::now();
        let (since, told) = clock.0.get_or_insert((now, false));
        if !*told && now - *since >= STUCK_AFTER {
            *told = true;
            self.push(Up::Stuck { on: true });
            self.conn.flush();
        }
    }

    /// The sends a [`StuckClock`] timed have finished: tells the scheduler
    /// if it was told they were stuck.
    pub fn stuck_end(&mut self, clock: StuckClock) {
        if matches!(clock.0, Some((_, true))) {
            self.push(Up::Stuck { on: false });
            self.conn.flush();
        }
    }

    /// Polls a standard send of the program's buffer (not one in the
    /// table) until MPI has finished it, telling the scheduler if that takes
    /// long ([`Lib::stuck_tick`]).
    pub fn spin_standard(&mut self, mut req: MPI_Request) {
        let mut clock = StuckClock::default();
        loop {
            let mut flag: c_int = 0;
            // SAFETY: the request is active and owned by the caller.
            unsafe { PMPI_Test(&mut req, &mut flag, RSMPI_STATUS_IGNORE) };
            if flag != 0 {
                break;
            }
            self.stuck_tick(&mut clock);
            self.poll_socket();
            // SAFETY: always safe.
            unsafe { libc::sched_yield() };
        }
        self.stuck_end(clock);
    }

    /// Polls a real request (not one in the table) until it completes.
    pub fn spin_request(&mut self, mut req: MPI_Request) -> MPI_Status {
        let mut st = empty_status();
        self.spin(|| {
            let mut flag: c_int = 0;
            // SAFETY: the request is active and owned by the caller.
            unsafe { PMPI_Test(&mut req, &mut flag, &mut st) };
            flag != 0
        });
        st
    }

    /// Completes the request `id` locally once the scheduler has said it may
    /// complete: polls its real operation, forgets it and returns its status.
    pub fn complete(&mut self, id: u32) -> MPI_Status {
        let st = self.peek(id);
        if let Some(newcomm) = self.idups.remove(&id) {
            let Some(cid) = self.new_comms.pop_front() else {
                fatal(&format!(
                    "protocol error: MPI_Comm_idup request {id} completed with no communicator id"
                ));
            };
            // SAFETY: MPI wrote the new handle there by the time the
            // request completed; the program keeps it valid until then.
            self.comms.insert(bits(unsafe { *newcomm }), cid);
        }
        self.drop_req(id);
        st
    }

    /// The status of the request `id` once the scheduler has said it is
    /// complete, leaving it in the table (`MPI_Request_get_status`): polls
    /// its real operation, whose status [`Real`] keeps for the completion.
    pub fn peek(&mut self, id: u32) -> MPI_Status {
        let mut clock = StuckClock::default();
        loop {
            let Some(r) = self.reqs.get_mut(&id) else {
                fatal(&format!("internal error: request {id} is not in the table"));
            };
            match &mut r.kind {
                Kind::Nothing => return send_status(),
                Kind::Sync(real) => {
                    if real.test() {
                        return send_status();
                    }
                }
                Kind::Standard(real) => {
                    if real.test() {
                        self.stuck_end(clock);
                        return send_status();
                    }
                    self.stuck_tick(&mut clock);
                }
                Kind::Coll(real) => {
                    if real.test() {
                        return empty_status();
                    }
                }
                Kind::Recv(rr) => match &mut rr.real {
                    None if rr.proc_null => return proc_null_status(),
                    None if rr.cancelled => return cancelled_status(),
                    None => fatal(&format!(
                        "protocol error: receive {id} may complete but was never posted"
                    )),
                    Some(real) => {
                        if real.test() {
                            return real.status.unwrap();
                        }
                    }
                },
            }
            self.poll_socket();
            // SAFETY: always safe.
            unsafe { libc::sched_yield() };
        }
    }

    /// Finishes the buffered sends before `MPI_Finalize`: the scheduler lets
    /// a rank finalize only when every rank has reached `MPI_Finalize`, so a
    /// send still unmatched then never will be; it is cancelled and freed.
    pub fn finish_background(&mut self) {
        // Freed requests the scheduler matched complete as MPI progresses.
        for _ in 0..1000 {
            if self.freed.is_empty() {
                break;
            }
            self.progress();
            // SAFETY: always safe.
            unsafe { libc::sched_yield() };
        }
        self.finish_standard();
        for _ in 0..100 {
            if self.background.is_empty() {
                return;
            }
            self.test_background();
            // SAFETY: always safe.
            unsafe { libc::sched_yield() };
        }
        for mut b in std::mem::take(&mut self.background) {
            // SAFETY: the request is active and owned by the list. Once
            // freed, MPI owns it and the copy is leaked on purpose, since MPI
            // may still read it.
            if !unsafe { cancel_send(&mut b.req) } {
                std::mem::forget(b.copy);
            }
        }
    }

    /// Standard sends of the program's buffer still in flight at
    /// `MPI_Finalize` (never waited for, or freed): those MPI does not
    /// finish soon are cancelled, as [`Lib::finish_background`] does with
    /// copies.
    fn finish_standard(&mut self) {
        let open = |reqs: &HashMap<u32, Req>| -> Vec<u32> {
            reqs.iter()
                .filter(|(_, r)| matches!(&r.kind, Kind::Standard(real) if real.status.is_none()))
                .map(|(id, _)| *id)
                .collect()
        };
        for _ in 0..100 {
            if open(&self.reqs).is_empty() {
                return;
            }
            self.progress();
            // SAFETY: always safe.
            unsafe { libc::sched_yield() };
        }
        for id in open(&self.reqs) {
            let Some(Req {
                kind: Kind::Standard(real),
            }) = self.reqs.get_mut(&id)
            else {
                continue;
            };
            // SAFETY: the request is active and owned by the table; once
            // freed, MPI owns it.
            unsafe { cancel_send(&mut real.req) };
            real.status = Some(empty_status());
        }
    }

    /// The current site (for messages built by hand).
    pub fn site(&self) -> Site {
        site::current()
    }
}

/// Cancels a send still in flight at `MPI_Finalize` and polls it a while;
/// returns whether it completed (cancelled, or sent after all). One that
/// has not is freed: MPI owns it, and its buffer, from then on.
unsafe fn cancel_send(req: &mut MPI_Request) -> bool {
    PMPI_Cancel(req);
    let mut flag: c_int = 0;
    for _ in 0..100 {
        PMPI_Test(req, &mut flag, RSMPI_STATUS_IGNORE);
        if flag != 0 {
            return true;
        }
        libc::sched_yield();
    }
    PMPI_Request_free(req);
    false
}

/// Lets MPI's progress engine run once, without touching any of the
/// program's messages: a probe on `MPI_COMM_SELF` matches nothing the
/// program sends elsewhere, and consumes nothing. Not once MPI is
/// finalized.
fn poke_progress() {
    let mut done: c_int = 0;
    // SAFETY: MPI_Finalized may be called at any time.
    unsafe { PMPI_Finalized(&mut done) };
    if done != 0 {
        return;
    }
    let mut flag: c_int = 0;
    // SAFETY: a probe with valid arguments, after MPI_Init.
    unsafe {
        PMPI_Iprobe(
            RSMPI_ANY_SOURCE,
            RSMPI_ANY_TAG,
            RSMPI_COMM_WORLD,
            &mut flag,
            RSMPI_STATUS_IGNORE,
        )
    };
}
