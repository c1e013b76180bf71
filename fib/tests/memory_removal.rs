//! What deleting a barrier group does to one run's memory, on hand-written
//! runs: the order without the group's match sets or messages
//! (`races_without`), and the lock orders it forces or leaves open
//! (`LockOrder::forced`, `Order::before_call`). The fast method of the
//! barrier verdicts is built on these; `tests/fibgen` compares it with the
//! proof by removal on generated programs.

use std::collections::HashSet;

use fib::memory::{
    races, races_without, Bytes, Event, EventId, Grants, Place, Removed, Rma, RmaKind, Run, Win,
};

const W: Win = Win(0);

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

fn rma(kind: RmaKind, target: usize, offset: u64) -> Event {
    Event::Rma(Rma {
        kind,
        win: W,
        target,
        bytes: Bytes::new(offset, 4),
        origin: None,
        compare: None,
        result: None,
        request: None,
    })
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

fn sets(s: &[u32]) -> Removed {
    Removed {
        sets: s.iter().copied().collect(),
        msgs: HashSet::new(),
    }
}

/// The races of `r` without `removed`, as (first event, second event).
fn pairs(r: &Run, removed: &Removed) -> Vec<(EventId, EventId)> {
    races_without(r, removed)
        .unwrap()
        .races
        .iter()
        .map(|x| (x.first.event, x.second.event))
        .collect()
}

/// Rank 1: lock 0, put, unlock, barrier 0; rank 0: barrier 0, load.
fn put_then_read(offset: u64) -> Run {
    run(
        vec![
            vec![Event::Collective { set: 0 }, Event::Load(win(0, offset, 4))],
            vec![
                lock(0, true),
                rma(RmaKind::Put, 0, 0),
                unlock(0),
                Event::Collective { set: 0 },
            ],
        ],
        vec![(0, vec![at(1, 0)])],
    )
}

#[test]
fn deleting_the_barrier_lets_the_put_race_the_read() {
    let r = put_then_read(0);
    assert_eq!(pairs(&r, &Removed::default()), vec![]);
    assert_eq!(pairs(&r, &sets(&[0])), vec![(at(0, 1), at(1, 1))]);
    // Another set's removal changes nothing.
    assert_eq!(pairs(&r, &sets(&[7])), vec![]);
}

#[test]
fn on_disjoint_bytes_nothing_races_either_way() {
    let r = put_then_read(8);
    assert_eq!(pairs(&r, &sets(&[0])), vec![]);
}

#[test]
fn a_fence_before_the_barrier_still_orders_the_put() {
    // Both ranks: fence, (rank 1 puts), fence, barrier; rank 0 loads.
    let fence = Event::Fence { win: W };
    let r = run(
        vec![
            vec![
                fence.clone(),
                fence.clone(),
                Event::Collective { set: 0 },
                Event::Load(win(0, 0, 4)),
            ],
            vec![
                fence.clone(),
                rma(RmaKind::Put, 0, 0),
                fence,
                Event::Collective { set: 0 },
            ],
        ],
        vec![],
    );
    assert_eq!(pairs(&r, &sets(&[0])), vec![]);
    let without = races_without(&r, &sets(&[0])).unwrap();
    let put = &without.accesses[1];
    let load = &without.accesses[0];
    assert!(without.before(put, load), "the second fence orders them");
}

#[test]
fn a_nonblocking_barriers_messages_are_what_deleting_it_takes_away() {
    // Rank 1's Ibarrier is message 0 to rank 0's wait, after the put's
    // unlock; rank 0 loads after the wait.
    let r = run(
        vec![
            vec![Event::Recv { msg: 0 }, Event::Load(win(0, 0, 4))],
            vec![
                lock(0, true),
                rma(RmaKind::Put, 0, 0),
                unlock(0),
                Event::Send { msg: 0 },
            ],
        ],
        vec![(0, vec![at(1, 0)])],
    );
    assert_eq!(pairs(&r, &Removed::default()), vec![]);
    let removed = Removed {
        sets: HashSet::new(),
        msgs: [0].into_iter().collect(),
    };
    assert_eq!(pairs(&r, &removed), vec![(at(0, 1), at(1, 1))]);
}

/// Rank 1: lock 0 exclusive, put element 0, unlock, barrier; rank 2:
/// barrier, lock 0 exclusive, get element `offset`, unlock.
fn two_epochs(offset: u64) -> Run {
    run(
        vec![
            vec![Event::Collective { set: 0 }],
            vec![
                lock(0, true),
                rma(RmaKind::Put, 0, 0),
                unlock(0),
                Event::Collective { set: 0 },
            ],
            vec![
                Event::Collective { set: 0 },
                lock(0, true),
                rma(RmaKind::Get, 0, offset),
                unlock(0),
            ],
        ],
        vec![(0, vec![at(1, 0), at(2, 1)])],
    )
}

#[test]
fn a_barrier_forces_the_order_of_two_conflicting_lock_epochs() {
    let r = two_epochs(0);
    let with = races(&r).unwrap();
    assert_eq!(with.races, vec![]);
    assert_eq!(with.lock_orders(&r).len(), 1);
    let l = with.lock_orders(&r)[0];
    assert_eq!((l.first, l.second, l.target), (at(1, 0), at(2, 1), 0));
    assert!(l.forced, "rank 2 asks for its lock after the barrier");
    assert!(with.order.before_call(at(1, 0), at(2, 1)));
    // Without the barrier the order is a choice, and still no race.
    let without = races_without(&r, &sets(&[0])).unwrap();
    assert_eq!(without.races, vec![]);
    assert!(!without.lock_orders(&r)[0].forced);
    assert!(!without.order.before_call(at(1, 0), at(2, 1)));
}

#[test]
fn epochs_whose_accesses_do_not_conflict_have_no_order_that_matters() {
    let r = two_epochs(8);
    assert!(races(&r).unwrap().lock_orders(&r).is_empty());
    // Two shared epochs are not serialised at all: their conflict is a
    // race, not an order.
    let mut r = two_epochs(0);
    r.ranks[1][0] = lock(0, false);
    r.ranks[2][1] = lock(0, false);
    let without = races_without(&r, &sets(&[0])).unwrap();
    assert!(without.lock_orders(&r).is_empty());
    assert_eq!(without.races.len(), 1);
}

#[test]
fn the_witness_path_goes_through_the_barrier() {
    use fib::memory::Node;
    let r = two_epochs(0);
    let with = races(&r).unwrap();
    let path = with.order.path_to_call(at(1, 0), at(2, 1)).unwrap();
    assert_eq!(path.first(), Some(&Node::Event(at(1, 0))));
    assert_eq!(path.last(), Some(&Node::Event(at(2, 1))));
    assert!(path.contains(&Node::Collective(0)), "{path:?}");
    let r = put_then_read(0);
    let with = races(&r).unwrap();
    assert_eq!(
        with.order
            .path(Node::Event(at(1, 2)), Node::Event(at(0, 1))),
        Some(vec![
            Node::Event(at(1, 2)),
            Node::Event(at(1, 3)),
            Node::Collective(0),
            Node::Event(at(0, 1)),
        ])
    );
}
