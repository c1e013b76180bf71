//! The two kinds of message: [`Up`], from a rank to the scheduler, and
//! [`Down`], from the scheduler to a rank. A rank sends every intercepted
//! call as [`Up::Op`] and waits for a [`Down`] answer only for the calls
//! that block ([`Op::expects_reply`]). Their byte encoding is in the codec
//! module.

use crate::extents::Overflow;
use crate::onesided::RmaFault;
use crate::ops::Op;
use crate::site::Site;
use crate::threads::{ThreadFault, Unordered};

/// A message from a rank to the scheduler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Up {
    /// First message of every rank, sent from `MPI_Init`, with the run's
    /// key ([`env::KEY`](crate::env::KEY)): a connection that does not
    /// know it is not one of the run's ranks.
    Hello {
        rank: u32,
        size: u32,
        pid: u32,
        key: u64,
    },
    /// Names a file id, or a module id ([`module_id`](crate::module_id)), used
    /// in later [`Site`]s.
    File { id: u32, path: String },
    /// An intercepted call.
    Op { site: Site, op: Op },
    /// `MPI_Abort(comm, code)` was called.
    Abort { site: Site, code: i32 },
    /// The rank received a fatal signal; `site` is its last MPI call.
    Crash { site: Site, signal: i32 },
    /// The program called an MPI function fib does not model.
    Unsupported { site: Site, name: String },
    /// The MPI library raised error `code` (its text `text`) while the rank
    /// was in the call at `site`.
    MpiError { site: Site, code: i32, text: String },
    /// The process is exiting with a status other than 0; `site` is its
    /// last MPI call.
    Exit { site: Site, status: i32 },
    /// How the rank's next call ([`Up::Op`]) went ahead without the
    /// scheduler. With `posted`, the call is a receive with a named source
    /// that the rank posted to MPI itself (no receive of the rank was
    /// waiting for the scheduler, so MPI matches it as the engine will):
    /// the scheduler sends it no [`Down::PostRecv`]. With `settled`, the
    /// call (a blocking receive, or a wait whose requests complete without
    /// a choice) has already completed in MPI: the scheduler sends it no
    /// answer, and feeds the rank's later calls to the engine only once the
    /// engine has completed it too.
    Ahead { posted: bool, settled: bool },
    /// At `MPI_Finalize`: `count` handles that the call `call` (such as
    /// `MPI_Type_vector`) made at `site` were never freed. Sent just before the
    /// rank's `MPI_Finalize` ([`HandleKind`](crate::HandleKind) says what they
    /// are).
    Leaked {
        site: Site,
        call: String,
        count: u32,
    },
    /// The call at `site` has an argument MPI does not accept (a negative
    /// count, a tag above `MPI_TAG_UB`, `MPI_COMM_NULL`, ...), found by the
    /// rank before it calls MPI; `message` says which. The rank then waits
    /// for the scheduler to end the run.
    Invalid { site: Site, message: String },
    /// The call at `site` makes a request and is to write its handle into
    /// a variable that still holds the handle of the active request made
    /// at `first`: that request could never be completed. Found by the
    /// rank before it calls MPI; the rank then waits for the scheduler to
    /// end the run.
    Reused { site: Site, first: Site },
    /// With `on`, the rank has spent a while in a standard send that the
    /// engine has completed (buffered) but MPI has not: the program's own
    /// buffer is in flight, and MPI finishes it only once its receive is
    /// posted. Without `on`, the send has finished since. Sent only when
    /// sends are not copied (see `FIB_COPY_SENDS`); the scheduler reruns
    /// the interleaving with copies if no receive can come.
    Stuck { on: bool },
    /// The program touched memory that MPI owned then: `access` (a load or
    /// store by the program, of `size` bytes, or the buffer of the MPI
    /// call being made, `size` bytes of it overlapping) at `site`, `offset`
    /// bytes into the buffer of the pending operation `call` made at
    /// `owner`. Sent once per (site, owner) pair, at the rank's next MPI
    /// call (the access itself is no call); the run goes on. With
    /// `unordered`, the access is another thread's than the operation's
    /// call or completion, and nothing the program does orders the two.
    Owned {
        site: Site,
        access: Access,
        size: u64,
        offset: u64,
        owner: Site,
        call: String,
        unordered: Option<Unordered>,
    },
    /// Loads or stores (`store`) the program made at `site` in memory
    /// watched under `tag` (a window's, say), since the rank's previous
    /// message: the byte ranges `[start, end)` they touched, as offsets from
    /// the watched range's base, coalesced. Sent ahead of the rank's next
    /// call, so that its place in the rank's program order is the number of
    /// calls the rank reported before it. While the rank has several
    /// threads, the loads and stores of one thread between two of its
    /// steps are sent just before the first call whose thread has seen
    /// them, with `after`: per other thread, the latest of its calls the
    /// thread had seen return when it made them (indices among the rank's
    /// calls; they are ordered after those calls and what came before
    /// them, and nothing else of those threads), and `point`: the thread's index and its own clock entry
    /// then (a call whose thread's clock has at least that entry for the
    /// thread is ordered after them, [`Up::CallThread`]).
    Watched {
        tag: u64,
        site: Site,
        store: bool,
        ranges: Vec<(u64, u64)>,
        after: Vec<u64>,
        point: Option<(u32, u32)>,
    },
    /// The one-sided call `call` at `site`, on the window `win` made at
    /// `made` (none and unknown for a creation not made yet), is wrong as
    /// `fault` says, found by the rank before it calls MPI. The rank then
    /// waits for the scheduler to end the run.
    OneSided {
        site: Site,
        call: String,
        win: Option<u32>,
        made: Site,
        fault: RmaFault,
    },
    /// The buffer of the call the rank reports next (a send, a receive, a
    /// nonblocking collective) lies in memory watched under `tag` (a
    /// window's, say), at these byte ranges `[start, end)` from the watched
    /// range's base; MPI writes them (`writes`: a receive buffer) or only
    /// reads them. Sent just before that call's [`Up::Op`], so that its
    /// place in the rank's program order is the index of that call.
    Lent {
        tag: u64,
        writes: bool,
        ranges: Vec<(u64, u64)>,
    },
    /// A buffer of the call `call` at `site` runs past the heap block or
    /// variable it points into, as `fault` says, found by the rank before
    /// it calls MPI. The rank then waits for the scheduler to end the run.
    Overflow {
        site: Site,
        call: String,
        fault: Overflow,
    },
    /// In a recorded run ([`env::RECORD`](crate::env::RECORD)): the
    /// receive of request `req`, from `MPI_ANY_SOURCE` or one the program
    /// asked to cancel, got the message of world rank `src`, or was
    /// cancelled ([`CANCELLED`](crate::CANCELLED)). Sent once it
    /// completes, after its [`Up::Op`].
    Took { req: u32, src: u32 },
    /// In a recorded run: the `MPI_Waitany` or `MPI_Waitsome` the rank
    /// reported last returned the requests at these positions of its list
    /// (one for `MPI_Waitany`, ascending). Sent before the call returns.
    Picked { indices: Vec<u32> },
    /// In a recorded run: the test the rank reports next (`MPI_Test`,
    /// `MPI_Testall`, `MPI_Testany`, `MPI_Testsome`,
    /// `MPI_Request_get_status`) returned the requests at these positions
    /// of its list, in MPI. Sent just before the call's [`Up::Ahead`] and
    /// [`Up::Op`]. A test that returns nothing is not reported.
    Polled { indices: Vec<u32> },
    /// In a recorded run: the rank has made only tests that returned
    /// nothing for a while, and everything it did before is sent; followed
    /// by [`Up::Blocked`].
    Spinning,
    /// The rank has several threads from now on: while one of them waits
    /// inside MPI, another may still be running towards a call, so the
    /// scheduler gives it a moment before it takes a choice or declares a
    /// deadlock. Sent once, ahead of the first call after the second
    /// thread appeared.
    Threads,
    /// While the rank has several threads: the rank's call of index `call`
    /// (the next it reports; a later message for the same index replaces
    /// this one) is made by its thread `thread`, after the latest call of
    /// each other thread that had returned before it (`after`, call
    /// indices) and after every load and store of thread `u` made at a
    /// clock entry of at most `seen[u]` ([`Up::Watched`]'s `point`).
    CallThread {
        call: u64,
        thread: u32,
        after: Vec<u64>,
        seen: Vec<u32>,
    },
    /// Under `MPI_THREAD_MULTIPLE`, once the rank has started a thread
    /// while MPI runs, its threads' calls wait at its gate until the
    /// scheduler enters them into the rank's sequence of calls (the
    /// engine's `threads` module): what thread `thread` did that the gate
    /// needs to know. The first such message (`Started`) turns the gate
    /// on; from then on each call comes after [`Up::By`] and is answered
    /// [`Down::Entered`] as it enters.
    ThreadStep { thread: u32, step: ThreadStep },
    /// While the rank's gate is on ([`Up::ThreadStep`]): the next
    /// [`Up::Op`] is thread `thread`'s.
    By { thread: u32 },
    /// In a recorded run: the blocking probe from `MPI_ANY_SOURCE` the rank
    /// reported last found the message of world rank `src`. Sent before
    /// the call returns.
    Found { src: u32 },
    /// In a recorded run: the communicator constructor (or window
    /// creation) the rank reported last gave it a communicator (a window),
    /// which its later calls name `comm` (a
    /// name of the rank's own, [`RECORDED_COMMS`](crate::RECORDED_COMMS)
    /// and above, until the scheduler renames it), or none
    /// ([`NO_COMM`](crate::NO_COMM)). Sent before the call returns.
    Named { comm: u32 },
    /// In a recorded run: the lock call the rank reported last
    /// (`MPI_Win_lock`, or `MPI_Win_lock_all` for each rank of the window)
    /// was granted, at each target (a world rank), as the window's n-th
    /// grant there (counted from 0, by a lock of fib's own that the rank
    /// takes before MPI's). Sent before the call returns.
    Granted { grants: Vec<(u32, u64)> },
    /// In a recorded run: with `on`, the rank has waited a while in MPI
    /// for a call to complete, and everything it did before is sent;
    /// without, that call has completed since. The scheduler looks for a
    /// deadlock once every rank still running waits so.
    Blocked { on: bool },
    /// In a recorded run: the call the rank reported last is one whose
    /// outcome a recorded run does not follow yet (only the scheduler
    /// gives it). The rank exits; the program is checked with the
    /// scheduler instead.
    Unrecorded,
    /// The rank's threads call MPI in a way the level MPI provided does
    /// not allow, or before the program read that level, as `fault` says.
    /// Sent once per fault at the rank's next call; the run goes on.
    Thread { fault: ThreadFault },
    /// The call at `site` uses a datatype made by `MPI_Type_create_struct`
    /// (directly, or resized or duplicated from one): its blocks as the
    /// program gave them, each a byte displacement, a blocklength and the
    /// block's datatype (a predefined datatype's name, or a derived one's
    /// type signature as in [`Op::Args`](crate::Op::Args)), and the extent
    /// of the datatype the call names. Sent once per site and datatype,
    /// before the call's [`Up::Op`]; for the check of a struct datatype
    /// against the C struct the call's buffer holds.
    StructType {
        site: Site,
        blocks: Vec<(i64, i64, String)>,
        extent: i64,
    },
}

/// What touched memory MPI owned ([`Up::Owned`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Access {
    /// A load by the program.
    Load,
    /// A store by the program.
    Store,
    /// The buffer of a new MPI operation, the named call, which MPI writes
    /// (a receive) or reads (a send).
    Call { name: String, writes: bool },
}

/// A message from the scheduler to a rank.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Down {
    /// The blocking call the rank waits in may complete.
    Go,
    /// Post the deferred receive `req` with this source and tag (ranks in the
    /// receive's communicator). May arrive at any time, before the answer of
    /// whatever call the rank waits in.
    PostRecv { req: u32, src: i32, tag: i32 },
    /// Answer to `MPI_Probe`/`MPI_Iprobe` (and to an `MPI_Improbe` that
    /// finds nothing): whether a message is there, and
    /// which (source in the probe's communicator).
    Probed { found: bool, src: i32, tag: i32 },
    /// Answer to `MPI_Wait*`/`MPI_Test*`: the positions, in the request list
    /// the rank sent, of the requests that complete now. Empty means "flag is
    /// false" for the test calls.
    Done { indices: Vec<u32> },
    /// Answer to a communicator constructor: the new communicator's
    /// scheduler-wide id, or `-1` for `MPI_COMM_NULL`. Also sent ahead of
    /// the [`Down::Done`] of a wait or test that completes
    /// [`Op::CommIdup`] requests: one per such request, in the order of
    /// `Done`'s positions.
    NewComm { id: i32 },
    /// The receive of request `req`, which the program asked to cancel,
    /// is cancelled: it takes no message, and completes. Like
    /// [`Down::PostRecv`], it may arrive before the answer of whatever
    /// call the rank waits in.
    Cancelled { req: u32 },
    /// To a rank whose gate is on ([`Up::ThreadStep`]): the call the
    /// addressed thread waits with entered the rank's sequence of calls.
    /// The thread then hands its operation to MPI (before any call that
    /// entered after it), and a call that waits in MPI waits for its own
    /// answer next.
    Entered,
    /// To a rank whose gate is on: the next message (not a
    /// [`Down::PostRecv`] or [`Down::Cancelled`], which are the rank's) is
    /// for its thread `thread`.
    To { thread: u32 },
}

/// What a thread of a rank whose gate is on did ([`Up::ThreadStep`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThreadStep {
    /// It is about to start (told by the thread that starts it, before
    /// it runs).
    Started,
    /// It waits outside MPI for another thread of the rank (a join, a
    /// barrier, a lock, a condition variable).
    Parked,
    /// It goes on after waiting so (not after a join).
    Running,
    /// It goes on after thread `joined` ended (a join returned).
    Joined { joined: u32 },
    /// It will make no more calls.
    Ended,
}
