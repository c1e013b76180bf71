//! The race rules on a long run: 2 400 rounds in which seven ranks each put
//! into their slot of rank 0's window under an exclusive lock, a barrier
//! follows, rank 0 loads every slot, and a second barrier ends the round.
//! Every tenth round leaves the first barrier out (its seven loads race with
//! its seven puts), and every seventh round rank 1 overwrites its origin
//! buffer before the unlock (a race on the buffer). 104 023 events;
//! the rules stay near-linear, so this runs in a moment.

use fib::memory::{
    races, races_without, Bytes, Event, EventId, Grants, Node, Place, RaceRule, Removed, Rma,
    RmaKind, Run, Side, Win,
};

const W: Win = Win(0);
const RANKS: usize = 8;

fn racy_barrier(round: usize) -> bool {
    round % 10 == 9
}

fn racy_buffer(round: usize) -> bool {
    round % 7 == 3
}

fn run(rounds: usize) -> Run {
    let mut ranks = vec![Vec::new(); RANKS];
    let mut locks = Vec::new();
    for k in 0..rounds {
        let (after_puts, after_loads) = (2 * k as u32, 2 * k as u32 + 1);
        for (r, events) in ranks.iter_mut().enumerate().skip(1) {
            locks.push(EventId {
                rank: r,
                index: events.len(),
            });
            events.push(Event::Lock {
                win: W,
                target: 0,
                exclusive: true,
            });
            events.push(Event::Rma(Rma {
                kind: RmaKind::Put,
                win: W,
                target: 0,
                bytes: Bytes::new(4 * r as u64, 4),
                origin: Some(Bytes::new(0, 4)),
                compare: None,
                result: None,
                request: None,
            }));
            if r == 1 && racy_buffer(k) {
                events.push(Event::Store(Place::Buffer(Bytes::new(0, 4))));
            }
            events.push(Event::Unlock { win: W, target: 0 });
            if !racy_barrier(k) {
                events.push(Event::Collective { set: after_puts });
            }
            events.push(Event::Collective { set: after_loads });
        }
        if !racy_barrier(k) {
            ranks[0].push(Event::Collective { set: after_puts });
        }
        for r in 1..RANKS {
            ranks[0].push(Event::Load(Place::Window {
                win: W,
                rank: 0,
                bytes: Bytes::new(4 * r as u64, 4),
            }));
        }
        ranks[0].push(Event::Collective { set: after_loads });
    }
    Run {
        threads: Vec::new(),
        ranks,
        windows: vec![(0..RANKS).collect()],
        grants: vec![Grants {
            win: W,
            target: 0,
            order: locks,
        }],
    }
}

fn expected(rounds: usize) -> (usize, usize) {
    let window = (0..rounds).filter(|&k| racy_barrier(k)).count() * (RANKS - 1);
    let buffer = (0..rounds).filter(|&k| racy_buffer(k)).count();
    (window, buffer)
}

fn count(r: &fib::memory::Races, rule: RaceRule) -> usize {
    r.races.iter().filter(|x| x.rule == rule).count()
}

#[test]
fn a_small_run_has_the_races_of_its_rounds() {
    let out = races(&run(20)).unwrap();
    assert_eq!(expected(20), (14, 3));
    assert_eq!(count(&out, RaceRule::Window), 14);
    assert_eq!(count(&out, RaceRule::OriginBuffer), 3);
    assert_eq!(out.races.len(), 17);
    // Each window race is a load of round 9 or 19 and the put into the
    // slot it loads.
    for x in out.races.iter().filter(|x| x.rule == RaceRule::Window) {
        assert_eq!((x.first.side, x.second.side), (Side::Program, Side::Target));
        assert_eq!(x.first.bytes, x.second.bytes);
    }
    // Round 0's put of rank 1 is before rank 0's load of its slot only
    // through the first barrier.
    let put = out
        .accesses
        .iter()
        .find(|a| a.side == Side::Target && a.event.rank == 1)
        .unwrap();
    let load = out
        .accesses
        .iter()
        .find(|a| a.side == Side::Program && a.event.rank == 0 && a.bytes == put.bytes)
        .unwrap();
    assert!(out.before(put, load));
    assert!(!out.before_without(put, load, &[Node::Collective(0)]));
    assert!(out.before_without(put, load, &[Node::Collective(1)]));
}

#[test]
fn a_hundred_thousand_events_are_checked() {
    let rounds = 2_400;
    let r = run(rounds);
    let events: usize = r.ranks.iter().map(Vec::len).sum();
    assert_eq!(events, 104_023);
    let out = races(&r).unwrap();
    let (window, buffer) = expected(rounds);
    assert_eq!((window, buffer), (1_680, 343));
    assert_eq!(count(&out, RaceRule::Window), window);
    assert_eq!(count(&out, RaceRule::OriginBuffer), buffer);
    assert_eq!(out.races.len(), window + buffer);
}

#[test]
fn deleting_one_barrier_of_a_long_run_is_one_more_pass() {
    // What the barrier verdicts ask of each run: the order without a
    // group's match sets, its races, and its conflicting lock epochs. The
    // epochs here put into disjoint slots: none conflict, whatever the
    // 16 800 grants.
    let rounds = 2_400;
    let r = run(rounds);
    let with = races(&r).unwrap();
    assert_eq!(with.lock_orders(&r), vec![]);
    // Round 5's first barrier (set 10) is all that orders its puts before
    // its loads: without it, its seven loads race with its seven puts.
    let removed = Removed {
        sets: [10].into_iter().collect(),
        ..Removed::default()
    };
    let without = races_without(&r, &removed).unwrap();
    let (window, buffer) = expected(rounds);
    assert_eq!(count(&without, RaceRule::Window), window + RANKS - 1);
    assert_eq!(count(&without, RaceRule::OriginBuffer), buffer);
    // Round 9 leaves its first barrier out; its second one (set 19) is
    // then all that orders its loads before round 10's puts: without it,
    // seven more races (the lock epochs order the puts only among
    // themselves).
    let removed = Removed {
        sets: [19].into_iter().collect(),
        ..Removed::default()
    };
    assert_eq!(
        count(&races_without(&r, &removed).unwrap(), RaceRule::Window),
        window + RANKS - 1
    );
}
