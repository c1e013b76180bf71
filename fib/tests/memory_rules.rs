//! The race rules of `fib::memory`, one test per rule, on hand-written
//! runs. Each names the race it expects (or that there is none).

use fib::memory::{
    races, AccOp, AccessKind, BasicType, Bytes, Event, EventId, FlushTarget, Grants, InputError,
    Node, Place, RaceRule, Rma, RmaKind, Run, Side, Threads, Win,
};

const W: Win = Win(0);
const INT: BasicType = BasicType(0);
const DOUBLE: BasicType = BasicType(1);

fn at(rank: usize, index: usize) -> EventId {
    EventId { rank, index }
}

fn win(rank: usize, offset: u64, len: u64) -> Place {
    Place::Window {
        win: W,
        rank,
        bytes: Bytes::new(offset, len),
    }
}

fn rma(kind: RmaKind, target: usize, offset: u64, len: u64) -> Rma {
    Rma {
        kind,
        win: W,
        target,
        bytes: Bytes::new(offset, len),
        origin: None,
        compare: None,
        result: None,
        request: None,
    }
}

fn put(target: usize, offset: u64, len: u64) -> Event {
    Event::Rma(rma(RmaKind::Put, target, offset, len))
}

fn acc(op: AccOp, ty: BasicType, target: usize, offset: u64) -> Event {
    Event::Rma(rma(RmaKind::Accumulate(op, ty), target, offset, 4))
}

fn lock(target: usize, exclusive: bool) -> Event {
    Event::Lock {
        win: W,
        target,
        exclusive,
    }
}

fn unlock(target: usize) -> Event {
    Event::Unlock { win: W, target }
}

fn flush(target: usize, local: bool) -> Event {
    Event::Flush {
        win: W,
        target: FlushTarget::One(target),
        local,
    }
}

fn barrier(set: u32) -> Event {
    Event::Collective { set }
}

fn run(ranks: Vec<Vec<Event>>, grants: Vec<(usize, Vec<EventId>)>) -> Run {
    let n = ranks.len();
    Run {
        threads: Vec::new(),
        ranks,
        windows: vec![(0..n).collect()],
        grants: grants
            .into_iter()
            .map(|(target, order)| Grants {
                win: W,
                target,
                order,
            })
            .collect(),
    }
}

/// An access: rank, event index, side.
type Who = (usize, usize, Side);

/// The races as `(first, second, rule)`.
fn found(r: &Run) -> Vec<(Who, Who, RaceRule)> {
    races(r)
        .expect("a well-formed run")
        .races
        .iter()
        .map(|x| {
            (
                (x.first.event.rank, x.first.event.index, x.first.side),
                (x.second.event.rank, x.second.event.index, x.second.side),
                x.rule,
            )
        })
        .collect()
}

/// Rank 1 puts into rank 0's window in an exclusive epoch.
fn locked_put() -> Vec<Event> {
    vec![lock(0, true), put(0, 0, 4), unlock(0)]
}

#[test]
fn a_barrier_after_the_unlock_orders_the_put_before_the_targets_load() {
    let mut one = locked_put();
    one.push(barrier(0));
    let r = run(
        vec![vec![barrier(0), Event::Load(win(0, 0, 4))], one],
        vec![(0, vec![at(1, 0)])],
    );
    assert_eq!(found(&r), vec![]);
    // It is ordered only through the barrier's match set.
    let out = races(&r).unwrap();
    let put = out
        .accesses
        .iter()
        .find(|a| a.side == Side::Target)
        .unwrap();
    let load = out
        .accesses
        .iter()
        .find(|a| a.kind == AccessKind::Load)
        .unwrap();
    assert!(out.before(put, load));
    assert!(!out.before_without(put, load, &[Node::Collective(0)]));
    assert!(out.before_without(put, load, &[Node::Collective(7)]));
}

#[test]
fn without_the_barrier_the_put_races_with_the_targets_load() {
    let r = run(
        vec![vec![Event::Load(win(0, 0, 4))], locked_put()],
        vec![(0, vec![at(1, 0)])],
    );
    assert_eq!(
        found(&r),
        vec![(
            (0, 0, Side::Program),
            (1, 1, Side::Target),
            RaceRule::Window
        )]
    );
    // Disjoint bytes do not race.
    let r = run(
        vec![vec![Event::Load(win(0, 4, 4))], locked_put()],
        vec![(0, vec![at(1, 0)])],
    );
    assert_eq!(found(&r), vec![]);
}

fn fence() -> Event {
    Event::Fence { win: W }
}

#[test]
fn a_fence_completes_the_put_before_the_next_epoch() {
    let r = run(
        vec![
            vec![fence(), put(1, 0, 4), fence()],
            vec![fence(), fence(), Event::Load(win(1, 0, 4))],
        ],
        vec![],
    );
    assert_eq!(found(&r), vec![]);
}

#[test]
fn a_load_in_the_puts_fence_epoch_races() {
    let r = run(
        vec![
            vec![fence(), put(1, 0, 4), fence()],
            vec![fence(), Event::Load(win(1, 2, 1)), fence()],
        ],
        vec![],
    );
    assert_eq!(
        found(&r),
        vec![(
            (0, 1, Side::Target),
            (1, 1, Side::Program),
            RaceRule::Window
        )]
    );
}

fn post(origins: Vec<usize>) -> Event {
    Event::Post { win: W, origins }
}

fn start(targets: Vec<usize>) -> Event {
    Event::Start { win: W, targets }
}

#[test]
fn pscw_orders_the_put_between_post_and_wait() {
    let origin = vec![start(vec![0]), put(0, 0, 4), Event::Complete { win: W }];
    // Stores before the post and loads after the wait are ordered.
    let r = run(
        vec![
            vec![
                Event::Store(win(0, 0, 4)),
                post(vec![1]),
                Event::Wait { win: W },
                Event::Load(win(0, 0, 4)),
            ],
            origin.clone(),
        ],
        vec![],
    );
    assert_eq!(found(&r), vec![]);
    // A load inside the exposure epoch is not.
    let r = run(
        vec![
            vec![
                post(vec![1]),
                Event::Load(win(0, 0, 4)),
                Event::Wait { win: W },
            ],
            origin,
        ],
        vec![],
    );
    assert_eq!(
        found(&r),
        vec![(
            (0, 1, Side::Program),
            (1, 1, Side::Target),
            RaceRule::Window
        )]
    );
}

#[test]
fn two_exclusive_epochs_are_ordered_by_their_grant_order() {
    let r = run(
        vec![vec![], locked_put(), locked_put()],
        vec![(0, vec![at(2, 0), at(1, 0)])],
    );
    assert_eq!(found(&r), vec![]);
}

#[test]
fn two_shared_epochs_with_puts_race() {
    let shared = vec![lock(0, false), put(0, 0, 4), unlock(0)];
    let r = run(
        vec![vec![], shared.clone(), shared],
        vec![(0, vec![at(1, 0), at(2, 0)])],
    );
    assert_eq!(
        found(&r),
        vec![((1, 1, Side::Target), (2, 1, Side::Target), RaceRule::Window)]
    );
}

#[test]
fn a_shared_epoch_after_an_exclusive_one_is_ordered_after_it() {
    let shared = vec![
        lock(0, false),
        Event::Rma(rma(RmaKind::Get, 0, 0, 4)),
        unlock(0),
    ];
    let r = run(
        vec![vec![], locked_put(), shared.clone(), shared],
        vec![(0, vec![at(1, 0), at(2, 0), at(3, 0)])],
    );
    // The two gets only read; each is after the put.
    assert_eq!(found(&r), vec![]);
}

fn shared_epoch(e: Event) -> Vec<Event> {
    vec![lock(0, false), e, unlock(0)]
}

#[test]
fn accumulates_with_one_operation_and_type_do_not_race() {
    let r = run(
        vec![
            vec![],
            shared_epoch(acc(AccOp::SUM, INT, 0, 0)),
            shared_epoch(acc(AccOp::SUM, INT, 0, 0)),
        ],
        vec![(0, vec![at(1, 0), at(2, 0)])],
    );
    assert_eq!(found(&r), vec![]);
    // MPI_NO_OP (an atomic read) goes with any operation of the type.
    let fetch = Event::Rma(rma(RmaKind::GetAccumulate(AccOp::NO_OP, INT), 0, 0, 4));
    let r = run(
        vec![
            vec![],
            shared_epoch(acc(AccOp::SUM, INT, 0, 0)),
            shared_epoch(fetch),
        ],
        vec![(0, vec![at(1, 0), at(2, 0)])],
    );
    assert_eq!(found(&r), vec![]);
}

#[test]
fn an_accumulate_races_with_a_put_another_operation_or_another_type() {
    for other in [
        put(0, 0, 4),
        acc(AccOp::SUM, INT, 0, 0),
        acc(AccOp::SUM, DOUBLE, 0, 0),
    ] {
        let r = run(
            vec![
                vec![],
                shared_epoch(acc(AccOp::REPLACE, INT, 0, 0)),
                shared_epoch(other.clone()),
            ],
            vec![(0, vec![at(1, 0), at(2, 0)])],
        );
        assert_eq!(
            found(&r),
            vec![((1, 1, Side::Target), (2, 1, Side::Target), RaceRule::Window)],
            "{other:?}"
        );
    }
}

#[test]
fn one_origins_calls_to_one_target_race_unless_both_accumulate_or_a_flush_separates_them() {
    let epoch = |calls: Vec<Event>| {
        let mut e = vec![lock(0, false)];
        e.extend(calls);
        e.push(unlock(0));
        run(vec![vec![], e], vec![(0, vec![at(1, 0)])])
    };
    assert_eq!(
        found(&epoch(vec![put(0, 0, 4), put(0, 2, 4)])),
        vec![(
            (1, 1, Side::Target),
            (1, 2, Side::Target),
            RaceRule::SameOrigin
        )]
    );
    assert_eq!(
        found(&epoch(vec![put(0, 0, 4), flush(0, false), put(0, 2, 4)])),
        vec![]
    );
    // A local flush does not complete the put at the target.
    assert_eq!(
        found(&epoch(vec![put(0, 0, 4), flush(0, true), put(0, 2, 4)])),
        vec![(
            (1, 1, Side::Target),
            (1, 3, Side::Target),
            RaceRule::SameOrigin
        )]
    );
    // Accumulates of one origin are ordered, whatever their operations.
    assert_eq!(
        found(&epoch(vec![
            acc(AccOp::SUM, INT, 0, 0),
            acc(AccOp::REPLACE, DOUBLE, 0, 0)
        ])),
        vec![]
    );
}

fn put_from(buffer: Bytes) -> Event {
    Event::Rma(Rma {
        origin: Some(buffer),
        ..rma(RmaKind::Put, 0, 0, 4)
    })
}

#[test]
fn storing_to_a_puts_origin_buffer_before_flush_local_races() {
    let b = Bytes::new(64, 4);
    let r = run(
        vec![
            vec![],
            vec![
                lock(0, false),
                put_from(b),
                Event::Store(Place::Buffer(Bytes::new(66, 1))),
                Event::Load(Place::Buffer(b)),
                flush(0, true),
                unlock(0),
            ],
        ],
        vec![(0, vec![at(1, 0)])],
    );
    // The load only reads what MPI reads.
    assert_eq!(
        found(&r),
        vec![(
            (1, 1, Side::Origin),
            (1, 2, Side::Program),
            RaceRule::OriginBuffer
        )]
    );
    let r = run(
        vec![
            vec![],
            vec![
                lock(0, false),
                put_from(b),
                flush(0, true),
                Event::Store(Place::Buffer(b)),
                unlock(0),
            ],
        ],
        vec![(0, vec![at(1, 0)])],
    );
    assert_eq!(found(&r), vec![]);
}

#[test]
fn a_gets_buffer_is_mpis_until_the_wait_of_its_request_which_also_completes_it_at_the_target() {
    let b = Bytes::new(0, 4);
    let rget = Event::Rma(Rma {
        result: Some(b),
        request: Some(9),
        ..rma(RmaKind::Get, 0, 0, 4)
    });
    // Rank 1 reads rank 0's window, waits, then tells rank 0, which
    // overwrites it: ordered. Reading the buffer before the wait races.
    let r = run(
        vec![
            vec![Event::Recv { msg: 1 }, Event::Store(win(0, 0, 4))],
            vec![
                Event::LockAll { win: W },
                rget.clone(),
                Event::Load(Place::Buffer(b)),
                Event::WaitReq { req: 9 },
                Event::Load(Place::Buffer(b)),
                Event::Send { msg: 1 },
                Event::UnlockAll { win: W },
            ],
        ],
        vec![(0, vec![at(1, 0)]), (1, vec![at(1, 0)])],
    );
    assert_eq!(
        found(&r),
        vec![(
            (1, 1, Side::Result),
            (1, 2, Side::Program),
            RaceRule::OriginBuffer
        )]
    );
    // An Rput's wait frees its buffer only: the store still races.
    let rput = Event::Rma(Rma {
        origin: Some(b),
        request: Some(9),
        ..rma(RmaKind::Put, 0, 0, 4)
    });
    let r = run(
        vec![
            vec![Event::Recv { msg: 1 }, Event::Store(win(0, 0, 4))],
            vec![
                Event::LockAll { win: W },
                rput,
                Event::WaitReq { req: 9 },
                Event::Store(Place::Buffer(b)),
                Event::Send { msg: 1 },
                Event::UnlockAll { win: W },
            ],
        ],
        vec![(0, vec![at(1, 0)]), (1, vec![at(1, 0)])],
    );
    assert_eq!(
        found(&r),
        vec![(
            (0, 1, Side::Program),
            (1, 1, Side::Target),
            RaceRule::Window
        )]
    );
}

#[test]
fn a_store_to_another_ranks_shared_segment_races_with_its_load_unless_synchronised() {
    let r = run(
        vec![
            vec![Event::Store(win(1, 0, 8))],
            vec![Event::WinSync { win: W }, Event::Load(win(1, 4, 4))],
        ],
        vec![],
    );
    assert_eq!(
        found(&r),
        vec![(
            (0, 0, Side::Program),
            (1, 1, Side::Program),
            RaceRule::Window
        )]
    );
    let r = run(
        vec![
            vec![Event::Store(win(1, 0, 8)), barrier(3)],
            vec![barrier(3), Event::Load(win(1, 4, 4))],
        ],
        vec![],
    );
    assert_eq!(found(&r), vec![]);
}

#[test]
fn records_the_rules_cannot_read_are_named() {
    let r = run(vec![vec![Event::Recv { msg: 4 }], vec![]], vec![]);
    assert_eq!(
        races(&r).unwrap_err(),
        InputError::UnmatchedRecv {
            at: at(0, 0),
            msg: 4
        }
    );
    let r = run(vec![vec![], locked_put()], vec![]);
    let e = races(&r).unwrap_err();
    assert_eq!(e, InputError::UngrantedLock { at: at(1, 0) });
    assert_eq!(
        e.to_string(),
        "rank 1 event 0: a lock epoch that went on is in no grant order of its target"
    );
    let r = run(
        vec![
            vec![Event::Recv { msg: 1 }, Event::Send { msg: 2 }],
            vec![Event::Recv { msg: 2 }, Event::Send { msg: 1 }],
        ],
        vec![],
    );
    assert!(matches!(races(&r).unwrap_err(), InputError::Cycle { .. }));
    let r = run(vec![vec![put(5, 0, 1)]], vec![]);
    assert_eq!(
        races(&r).unwrap_err(),
        InputError::UnknownRank {
            at: at(0, 0),
            rank: 5
        }
    );
    let r = run(vec![vec![], locked_put()], vec![(0, vec![at(1, 1)])]);
    assert_eq!(
        races(&r).unwrap_err(),
        InputError::NotALock { at: at(1, 1) }
    );
}

fn lent(place: Place, write: bool, until: Option<u32>) -> Event {
    Event::Buffer {
        place,
        write,
        until,
    }
}

/// Rank 0 receives into its window bytes 0..8 with `MPI_Irecv` (request 5)
/// and waits for it; rank 1 sends the message, and before (or after) puts
/// into those bytes in an exclusive epoch.
fn irecv_into_window(rank0_barrier: bool, rank1_barrier: bool) -> Run {
    let mut zero = vec![
        lent(win(0, 0, 8), true, Some(5)),
        Event::Recv { msg: 0 },
        Event::WaitReq { req: 5 },
    ];
    if rank0_barrier {
        zero.push(barrier(0));
    }
    let mut one = vec![Event::Send { msg: 0 }];
    if rank1_barrier {
        one.push(barrier(0));
    }
    let lock_at = one.len();
    one.extend([lock(0, true), put(0, 4, 4), unlock(0)]);
    run(vec![zero, one], vec![(0, vec![at(1, lock_at)])])
}

#[test]
fn a_put_into_a_pending_receive_buffer_races_with_it() {
    let r = irecv_into_window(false, false);
    assert_eq!(
        found(&r),
        vec![(
            (0, 0, Side::Message),
            (1, 2, Side::Target),
            RaceRule::Window
        )]
    );
    let out = races(&r).unwrap();
    let buffer = out
        .accesses
        .iter()
        .find(|a| a.side == Side::Message)
        .unwrap();
    // MPI's use of the buffer lasts from the call to its request's wait.
    assert_eq!(buffer.kind, AccessKind::Message { write: true });
    assert_eq!((buffer.start, buffer.end), (at(0, 0), Some(at(0, 2))));
}

#[test]
fn a_barrier_after_the_wait_orders_the_receive_buffer_before_the_put() {
    let r = irecv_into_window(true, true);
    assert_eq!(found(&r), vec![]);
    // Through the barrier's match set only: without it, the race is back.
    let out = races(&r).unwrap();
    let buffer = out
        .accesses
        .iter()
        .find(|a| a.side == Side::Message)
        .unwrap();
    let put = out
        .accesses
        .iter()
        .find(|a| a.side == Side::Target)
        .unwrap();
    assert!(out.before(buffer, put));
    assert!(!out.before_without(buffer, put, &[Node::Collective(0)]));
    // A barrier before the wait orders nothing: the buffer is still MPI's.
    let mut early = irecv_into_window(false, true);
    early.ranks[0].insert(1, barrier(0));
    assert_eq!(
        found(&early),
        vec![(
            (0, 0, Side::Message),
            (1, 3, Side::Target),
            RaceRule::Window
        )]
    );
}

#[test]
fn a_receive_never_completed_owns_its_buffer_to_the_end() {
    let r = run(
        vec![
            vec![lent(win(0, 0, 4), true, Some(1)), barrier(0)],
            vec![barrier(0), lock(0, false), put(0, 0, 4), unlock(0)],
        ],
        vec![(0, vec![at(1, 1)])],
    );
    assert_eq!(
        found(&r),
        vec![(
            (0, 0, Side::Message),
            (1, 2, Side::Target),
            RaceRule::Window
        )]
    );
}

#[test]
fn a_send_buffer_is_read_so_a_get_does_not_race_with_it_and_a_put_does() {
    let send = |e: Event| {
        run(
            vec![
                vec![
                    lent(win(0, 0, 8), false, Some(2)),
                    Event::Send { msg: 0 },
                    Event::WaitReq { req: 2 },
                ],
                vec![Event::Recv { msg: 0 }, lock(0, true), e, unlock(0)],
            ],
            vec![(0, vec![at(1, 1)])],
        )
    };
    assert_eq!(
        found(&send(put(0, 0, 4))),
        vec![(
            (0, 0, Side::Message),
            (1, 2, Side::Target),
            RaceRule::Window
        )]
    );
    assert_eq!(found(&send(Event::Rma(rma(RmaKind::Get, 0, 0, 4)))), vec![]);
    // Disjoint bytes do not race.
    assert_eq!(found(&send(put(0, 8, 4))), vec![]);
}

#[test]
fn a_blocking_calls_buffer_is_mpis_during_the_call_only() {
    // A blocking receive's buffer, written after the message arrived: a
    // put of the sender made before its send is ordered before it, one
    // made after races.
    let recv = |before: bool| {
        let mut one = vec![lock(0, true), put(0, 0, 4), unlock(0)];
        let (send_at, lock_at) = if before { (3, 0) } else { (0, 1) };
        one.insert(send_at, Event::Send { msg: 0 });
        run(
            vec![
                vec![Event::Recv { msg: 0 }, lent(win(0, 0, 4), true, None)],
                one,
            ],
            vec![(0, vec![at(1, lock_at)])],
        )
    };
    assert_eq!(found(&recv(true)), vec![]);
    assert_eq!(
        found(&recv(false)),
        vec![(
            (0, 1, Side::Message),
            (1, 2, Side::Target),
            RaceRule::Window
        )]
    );
}

#[test]
fn a_ranks_own_loads_stores_and_buffers_are_left_to_the_run_time_check() {
    // A store into the pending receive buffer and a second receive into it
    // are the rank's own business (FIB034); a peer's store into a shared
    // segment's pending buffer races.
    let r = run(
        vec![
            vec![
                lent(win(0, 0, 8), true, Some(1)),
                Event::Store(win(0, 0, 4)),
                lent(win(0, 4, 4), true, Some(2)),
                Event::WaitReq { req: 1 },
                Event::WaitReq { req: 2 },
            ],
            vec![Event::Store(win(0, 4, 1))],
        ],
        vec![],
    );
    assert_eq!(
        found(&r),
        vec![
            (
                (0, 0, Side::Message),
                (1, 0, Side::Program),
                RaceRule::Window
            ),
            (
                (0, 2, Side::Message),
                (1, 0, Side::Program),
                RaceRule::Window
            ),
        ]
    );
}

#[test]
fn a_message_buffer_in_buffer_memory_races_with_a_pending_rma_buffer() {
    let get_into = |bytes: Bytes| {
        Event::Rma(Rma {
            result: Some(bytes),
            ..rma(RmaKind::Get, 1, 0, 4)
        })
    };
    let r = run(
        vec![
            vec![
                lock(1, false),
                get_into(Bytes::new(0, 4)),
                lent(Place::Buffer(Bytes::new(2, 4)), false, None),
                unlock(1),
            ],
            vec![],
        ],
        vec![(1, vec![at(0, 0)])],
    );
    assert_eq!(
        found(&r),
        vec![(
            (0, 1, Side::Result),
            (0, 2, Side::Message),
            RaceRule::PendingBuffers
        )]
    );
}

/// Rank 1's two threads: one puts into rank 0's window in an exclusive
/// epoch, the other calls the barrier after the target's load (the
/// RMARaceBench shape: a section's epoch and another section's barrier).
/// The rank made the barrier last; `sync` orders it after the unlock in
/// the threads' own order, or not.
fn threaded_put_and_barrier(sync: bool) -> Run {
    let mut one = locked_put();
    one.push(barrier(0));
    let mut r = run(
        vec![vec![barrier(0), Event::Load(win(0, 0, 4))], one],
        vec![(0, vec![at(1, 0)])],
    );
    r.threads = vec![
        None,
        Some(Threads {
            thread: vec![0, 0, 0, 1],
            after: vec![vec![], vec![], vec![], if sync { vec![2] } else { vec![] }],
        }),
    ];
    r
}

#[test]
fn another_threads_barrier_does_not_order_the_put_before_the_targets_load() {
    let r = threaded_put_and_barrier(false);
    assert_eq!(
        found(&r),
        vec![(
            (0, 1, Side::Program),
            (1, 1, Side::Target),
            RaceRule::Window
        )]
    );
}

#[test]
fn a_barrier_its_thread_calls_after_the_unlock_orders_the_put() {
    let r = threaded_put_and_barrier(true);
    assert_eq!(found(&r), vec![]);
}

#[test]
fn threads_that_do_not_describe_the_rank_are_refused() {
    let mut r = threaded_put_and_barrier(true);
    if let Some(Some(t)) = r.threads.get_mut(1) {
        t.after[1] = vec![3];
    }
    assert_eq!(
        races(&r).map(|_| ()).unwrap_err(),
        InputError::BadThreads { at: at(1, 1) }
    );
    let mut r = threaded_put_and_barrier(true);
    if let Some(Some(t)) = r.threads.get_mut(1) {
        t.thread.pop();
    }
    assert_eq!(
        races(&r).map(|_| ()).unwrap_err(),
        InputError::BadThreads { at: at(1, 0) }
    );
}
