//! The completion calls (`MPI_Wait*`, `MPI_Test*`). Each sends the ids of
//! the program's active requests, in array order, and the scheduler answers
//! with the positions of those that complete now; the library then finishes
//! them locally and fills in the outputs as MPI specifies. Null requests are
//! skipped; with none left, the call is answered locally.

use std::os::raw::c_int;

use fib_wire::{Down, Op, WaitKind};
use mpi_sys::*;

use crate::conn::fatal;
use crate::held::lib;
use crate::state::Lib;
use crate::values::{empty_status, put_empty, put_status, statuses_ignored, write_status};

/// Reports a wait (or, with `test`, a test) on `ids` and returns the
/// scheduler's answer, checked against what the call allows. A wait for
/// one or all requests that complete in MPI without a choice
/// ([`Lib::settles`]) is reported as settled and answered here: all of
/// them.
pub fn wait_ids(l: &mut Lib, kind: WaitKind, ids: &[u32], test: bool) -> Vec<u32> {
    let reqs = ids.to_vec();
    if !test && matches!(kind, WaitKind::One | WaitKind::All) && l.settles(ids) {
        l.event_settled(Op::Wait { kind, reqs }, true);
        l.settle(ids);
        return (0..ids.len() as u32).collect();
    }
    // A recorded run's Waitany or Waitsome returns what completes in MPI
    // (or what the plan forces), and says which.
    let picks = matches!(kind, WaitKind::Any | WaitKind::Some);
    if !test && picks && l.record.is_some() && l.settles(ids) {
        l.event_settled(Op::Wait { kind, reqs }, true);
        let indices = l.settle_picked(ids, kind == WaitKind::Some);
        l.push(fib_wire::Up::Picked {
            indices: indices.clone(),
        });
        return indices;
    }
    // A recorded run's test returns what MPI has completed.
    if test && l.record.is_some() && l.settles(ids) {
        let indices = l.test_recorded(ids, kind);
        l.polled(Op::Test { kind, reqs }, indices.clone());
        return indices;
    }
    l.event(if test {
        Op::Test { kind, reqs }
    } else {
        Op::Wait { kind, reqs }
    });
    // The communicators of `MPI_Comm_idup` requests that complete come
    // first, in the order of the positions.
    let indices = loop {
        match l.wait_down() {
            Down::Done { indices } => break indices,
            Down::NewComm { id } if id >= 0 => l.new_comms.push_back(id as u32),
            d => fatal(&format!("protocol error: expected Done, got {d:?}")),
        }
    };
    let n = ids.len();
    let mut seen = vec![false; n];
    for &i in &indices {
        if i as usize >= n || std::mem::replace(&mut seen[i as usize], true) {
            fatal(&format!(
                "protocol error: Done {indices:?} for a list of {n} requests"
            ));
        }
    }
    let ok = match (kind, test) {
        (WaitKind::One | WaitKind::All, false) => indices.len() == n,
        (WaitKind::One | WaitKind::All, true) => indices.is_empty() || indices.len() == n,
        (WaitKind::Any, false) => indices.len() == 1,
        (WaitKind::Any, true) => indices.len() <= 1,
        (WaitKind::Some, false) => !indices.is_empty(),
        (WaitKind::Some, true) => true,
    };
    if !ok {
        let call = if test { "test" } else { "wait" };
        fatal(&format!(
            "protocol error: Done {indices:?} does not answer a {kind:?} {call} on {n} requests"
        ));
    }
    indices
}

/// The common part of every completion call: reports the active requests
/// among `reqs[..count]` (an inactive persistent request counts as null),
/// completes those the scheduler releases (setting the program's handles to
/// `MPI_REQUEST_NULL`, a persistent one's aside) and returns their array positions
/// and statuses in the scheduler's order. `None` means no request was active.
unsafe fn completion(
    count: c_int,
    reqs: *mut MPI_Request,
    kind: WaitKind,
    test: bool,
) -> Option<Vec<(usize, MPI_Status)>> {
    let mut l = lib();
    // Two threads must not complete one request at once (nothing to build
    // while the rank has one thread).
    if crate::threads::several() {
        let vars: Vec<crate::threads::Shared> = (0..count.max(0) as usize)
            .map(|pos| crate::threads::Shared::Request(reqs.add(pos) as usize))
            .collect();
        crate::threads::uses(&vars, crate::site::current());
    }
    let mut active = Vec::new();
    for pos in 0..count.max(0) as usize {
        if let Some(id) = l.req_id(*reqs.add(pos)) {
            if !l.inactive(id) {
                active.push((pos, id));
            }
        }
    }
    if active.is_empty() {
        return None;
    }
    let ids: Vec<u32> = active.iter().map(|a| a.1).collect();
    let indices = wait_ids(&mut l, kind, &ids, test);
    let mut out = Vec::with_capacity(indices.len());
    for i in indices {
        let (pos, id) = active[i as usize];
        let st = l.complete(id);
        if !l.persistent.contains_key(&id) {
            *reqs.add(pos) = RSMPI_REQUEST_NULL;
        }
        out.push((pos, st));
    }
    if crate::threads::several() {
        let vars: Vec<usize> = out.iter().map(|&(pos, _)| reqs.add(pos) as usize).collect();
        crate::threads::emptied(&vars, crate::site::current());
    }
    Some(out)
}

/// Writes `st` to `statuses[i]` unless the program passed
/// `MPI_STATUSES_IGNORE`.
unsafe fn put_nth(statuses: *mut MPI_Status, i: usize, st: &MPI_Status) {
    if !statuses_ignored(statuses) {
        write_status(statuses.add(i), st);
    }
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Wait(request: *mut MPI_Request, status: *mut MPI_Status) -> c_int {
    match completion(1, request, WaitKind::One, false) {
        Some(done) => put_status(status, &done[0].1),
        None => put_status(status, &empty_status()),
    }
    MPI_SUCCESS as c_int
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Test(
    request: *mut MPI_Request,
    flag: *mut c_int,
    status: *mut MPI_Status,
) -> c_int {
    match completion(1, request, WaitKind::One, true) {
        Some(done) if done.is_empty() => *flag = 0,
        Some(done) => {
            *flag = 1;
            put_status(status, &done[0].1);
        }
        None => {
            *flag = 1;
            put_status(status, &empty_status());
        }
    }
    MPI_SUCCESS as c_int
}

/// Fills the statuses of an all-or-nothing completion: released requests get
/// theirs, null ones an empty status.
unsafe fn fill_all(count: c_int, statuses: *mut MPI_Status, done: &[(usize, MPI_Status)]) {
    if statuses_ignored(statuses) {
        return;
    }
    for i in 0..count.max(0) as usize {
        write_status(statuses.add(i), &empty_status());
    }
    for (pos, st) in done {
        write_status(statuses.add(*pos), st);
    }
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Waitall(
    count: c_int,
    array_of_requests: *mut MPI_Request,
    array_of_statuses: *mut MPI_Status,
) -> c_int {
    let done = completion(count, array_of_requests, WaitKind::All, false).unwrap_or_default();
    fill_all(count, array_of_statuses, &done);
    MPI_SUCCESS as c_int
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Testall(
    count: c_int,
    array_of_requests: *mut MPI_Request,
    flag: *mut c_int,
    array_of_statuses: *mut MPI_Status,
) -> c_int {
    match completion(count, array_of_requests, WaitKind::All, true) {
        Some(done) if done.is_empty() => *flag = 0,
        done => {
            *flag = 1;
            fill_all(count, array_of_statuses, &done.unwrap_or_default());
        }
    }
    MPI_SUCCESS as c_int
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Waitany(
    count: c_int,
    array_of_requests: *mut MPI_Request,
    index: *mut c_int,
    status: *mut MPI_Status,
) -> c_int {
    match completion(count, array_of_requests, WaitKind::Any, false) {
        Some(done) => {
            *index = done[0].0 as c_int;
            put_status(status, &done[0].1);
        }
        None => {
            *index = RSMPI_UNDEFINED;
            put_status(status, &empty_status());
        }
    }
    MPI_SUCCESS as c_int
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Testany(
    count: c_int,
    array_of_requests: *mut MPI_Request,
    index: *mut c_int,
    flag: *mut c_int,
    status: *mut MPI_Status,
) -> c_int {
    match completion(count, array_of_requests, WaitKind::Any, true) {
        Some(done) if done.is_empty() => {
            *flag = 0;
            *index = RSMPI_UNDEFINED;
        }
        Some(done) => {
            *flag = 1;
            *index = done[0].0 as c_int;
            put_status(status, &done[0].1);
        }
        None => {
            *flag = 1;
            *index = RSMPI_UNDEFINED;
            put_status(status, &empty_status());
        }
    }
    MPI_SUCCESS as c_int
}

/// Fills the outputs of `MPI_Waitsome`/`MPI_Testsome`.
unsafe fn fill_some(
    done: Option<Vec<(usize, MPI_Status)>>,
    outcount: *mut c_int,
    indices: *mut c_int,
    statuses: *mut MPI_Status,
) {
    match done {
        None => *outcount = RSMPI_UNDEFINED,
        Some(done) => {
            *outcount = done.len() as c_int;
            for (j, (pos, st)) in done.iter().enumerate() {
                *indices.add(j) = *pos as c_int;
                put_nth(statuses, j, st);
            }
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Waitsome(
    incount: c_int,
    array_of_requests: *mut MPI_Request,
    outcount: *mut c_int,
    array_of_indices: *mut c_int,
    array_of_statuses: *mut MPI_Status,
) -> c_int {
    let done = completion(incount, array_of_requests, WaitKind::Some, false);
    fill_some(done, outcount, array_of_indices, array_of_statuses);
    MPI_SUCCESS as c_int
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Testsome(
    incount: c_int,
    array_of_requests: *mut MPI_Request,
    outcount: *mut c_int,
    array_of_indices: *mut c_int,
    array_of_statuses: *mut MPI_Status,
) -> c_int {
    let done = completion(incount, array_of_requests, WaitKind::Some, true);
    fill_some(done, outcount, array_of_indices, array_of_statuses);
    MPI_SUCCESS as c_int
}

/// `MPI_Request_get_status`: a test that leaves the request active. A
/// null or inactive request answers at once, with an empty status.
#[no_mangle]
pub unsafe extern "C" fn MPI_Request_get_status(
    request: MPI_Request,
    flag: *mut c_int,
    status: *mut MPI_Status,
) -> c_int {
    let mut l = lib();
    let id = match l.req_id(request) {
        Some(id) if !l.inactive(id) => id,
        _ => {
            *flag = 1;
            put_empty(status);
            return MPI_SUCCESS as c_int;
        }
    };
    // A recorded run's answers what MPI has completed.
    if l.record.is_some() && l.settles(&[id]) {
        let done = l.done_in_mpi(id);
        l.polled(
            Op::RequestGetStatus { req: id },
            if done { vec![0] } else { Vec::new() },
        );
        if done {
            *flag = 1;
            let st = l.peek(id);
            l.say_taken(id, &st);
            put_status(status, &st);
        } else {
            *flag = 0;
        }
        return MPI_SUCCESS as c_int;
    }
    l.event(Op::RequestGetStatus { req: id });
    match l.wait_down() {
        Down::Done { indices } if indices.is_empty() => *flag = 0,
        Down::Done { indices } if indices == [0] => {
            *flag = 1;
            let st = l.peek(id);
            put_status(status, &st);
        }
        d => fatal(&format!(
            "protocol error: MPI_Request_get_status answered {d:?}"
        )),
    }
    MPI_SUCCESS as c_int
}

/// `MPI_Cancel`: local, as in MPI. The scheduler is told, and decides later
/// whether a receive not matched yet is cancelled or gets a message
/// ([`fib_wire::Down::Cancelled`], handled wherever the rank waits); a
/// send's cancel always fails, and the send goes on. The program still
/// completes or frees the request; a cancelled receive's status says so
/// (`MPI_Test_cancelled`, which MPI answers from the status). An inactive
/// persistent request has nothing to cancel.
#[no_mangle]
pub unsafe extern "C" fn MPI_Cancel(request: *mut MPI_Request) -> c_int {
    let mut l = lib();
    let Some(id) = l.req_id(*request) else {
        drop(l);
        return PMPI_Cancel(request);
    };
    if l.inactive(id) {
        return MPI_SUCCESS as c_int;
    }
    l.event(Op::Cancel { req: id });
    // Whether MPI cancels or matches the receive is the scheduler's choice;
    // in a recorded run, the plan's or MPI's.
    if l.record.is_some() {
        l.cancel_recorded(id);
    }
    MPI_SUCCESS as c_int
}

/// `MPI_Request_free`: an active request's operation goes on (a receive is
/// still matched and posted), but nothing will wait for it; a persistent
/// request is gone; the scheduler is told so. Freeing `MPI_REQUEST_NULL` is
/// passed to MPI, which fails it.
#[no_mangle]
pub unsafe extern "C" fn MPI_Request_free(request: *mut MPI_Request) -> c_int {
    let mut l = lib();
    let Some(id) = l.req_id(*request) else {
        drop(l);
        return PMPI_Request_free(request);
    };
    l.event(Op::RequestFree { req: id });
    // A freed wildcard receive's message is the scheduler's choice: nothing
    // completes it in the rank to say what it took.
    if l.record.as_ref().is_some_and(|r| r.wild.contains_key(&id)) {
        l.unrecorded();
    }
    l.free_persistent(id);
    l.free_req(id);
    *request = RSMPI_REQUEST_NULL;
    MPI_SUCCESS as c_int
}
