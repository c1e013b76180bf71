//! The state's tables as the wrappers use them: the scheduler's id of each
//! communicator handle, the requests handed to the program under fake
//! handles (nonblocking, persistent and freed ones, and the ids of matched
//! probes), and the buffered sends that go from fib's private copies, with
//! the room each takes in the buffer attached by `MPI_Buffer_attach`.

use std::os::raw::{c_int, c_void};

use fib_wire::Up;
use mpi_sys::*;

use crate::handle::{bits, fake_request_bits, from_bits};
use crate::site;
use crate::state::{Background, Kind, Lib, Persist, Req};
use crate::values::copy_of;

/// Up to this many buffered sends in flight are tested one by one, and
/// swept at each new one.
const SWEEP_FROM: usize = 16;

impl Lib {
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

    /// What the request `id` stands for is `kind` (its operation went to
    /// MPI after the request was made: with the gate on).
    pub fn set_kind(&mut self, id: u32, kind: Kind) {
        if let Some(r) = self.reqs.get_mut(&id) {
            r.kind = kind;
        }
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
        // Its buffers are no longer watched: nothing the program does can
        // order its accesses with the operation now (FIB029 says so), and
        // what MPI has finished would depend on timing.
        crate::memory::forget(id);
        self.fakes.remove(&fake_request_bits(id));
        self.origins.remove(&id);
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
        crate::memory::release(id);
        if !self.persistent.contains_key(&id) {
            self.fakes.remove(&fake_request_bits(id));
            self.origins.remove(&id);
        }
    }

    /// Registers a persistent request and returns its id and fake handle.
    /// A derived datatype is kept as a duplicate of the library's, which
    /// the program's `MPI_Type_free` leaves alive, as MPI keeps the type a
    /// persistent request names ([`Lib::free_persistent`] frees it).
    pub fn new_persistent(&mut self, mut p: Persist) -> (u32, MPI_Request) {
        let id = self.next_req;
        self.next_req = self.next_req.wrapping_add(1);
        let fb = fake_request_bits(id);
        self.fakes.insert(fb, id);
        let (Persist::Send { dtype, .. } | Persist::Recv { dtype, .. }) = &mut p;
        // SAFETY: `dtype` is the datatype the program passed, checked
        // before (not `MPI_DATATYPE_NULL`).
        unsafe {
            if !crate::sig::predefined(*dtype) {
                let mut dup = RSMPI_DATATYPE_NULL;
                if PMPI_Type_dup(*dtype, &mut dup) == MPI_SUCCESS as c_int {
                    *dtype = dup;
                    self.persistent_types.insert(id, dup);
                }
            }
        }
        self.persistent.insert(id, p);
        (id, from_bits(fb))
    }

    /// Forgets the persistent request `id`, freeing the datatype it kept.
    pub fn free_persistent(&mut self, id: u32) {
        self.persistent.remove(&id);
        if let Some(mut t) = self.persistent_types.remove(&id) {
            // SAFETY: a duplicate this library made and nothing else holds.
            unsafe { PMPI_Type_free(&mut t) };
        }
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
        // A sweep costs the whole list: sweeping only once it has doubled
        // since the last keeps a thread that sends faster than its peer
        // receives linear (it once tested every send in flight at each new
        // one).
        if self.background.len() >= (2 * self.swept).max(SWEEP_FROM) {
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

    /// Tests the buffered sends in flight and drops the finished ones: a
    /// few one by one, more in one `MPI_Testsome` (one pass of MPI's
    /// progress and its lock for the list, not one per send).
    pub(crate) fn test_background(&mut self) -> bool {
        let before = self.background.len();
        if before <= SWEEP_FROM {
            self.background.retain_mut(|b| {
                let mut flag: c_int = 0;
                // SAFETY: the request is active and owned by the list.
                unsafe { PMPI_Test(&mut b.req, &mut flag, RSMPI_STATUS_IGNORE) };
                flag == 0
            });
        } else {
            let mut reqs: Vec<MPI_Request> = self.background.iter().map(|b| b.req).collect();
            let mut done: Vec<c_int> = vec![0; reqs.len()];
            let mut n: c_int = 0;
            // SAFETY: every request is active and owned by the list; the
            // arrays hold one entry per request.
            unsafe {
                PMPI_Testsome(
                    reqs.len() as c_int,
                    reqs.as_mut_ptr(),
                    &mut n,
                    done.as_mut_ptr(),
                    RSMPI_STATUSES_IGNORE,
                )
            };
            let mut finished = vec![false; reqs.len()];
            for &i in &done[..n.max(0) as usize] {
                finished[i as usize] = true;
            }
            let mut k = 0;
            self.background.retain(|_| {
                k += 1;
                !finished[k - 1]
            });
        }
        self.swept = self.background.len();
        self.background.len() != before
    }
}
