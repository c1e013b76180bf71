//! The pass on a long run: rank 0 collects 100 000 messages, some with
//! `MPI_ANY_SOURCE`, with barriers in between. Before the pass was made
//! near-linear it did not finish on such runs; it classifies them now, with
//! the verdicts a small run of the same shape gets from the oracle.

mod common;

use common::collector::{trace, Shape};
use common::oracle;

fn shape(rounds: usize) -> Shape {
    Shape {
        ranks: 8,
        rounds,
        barrier_every: 4,
        wildcard_every: 3,
    }
}

#[test]
fn a_small_collector_run_gets_the_oracles_verdicts() {
    let s = shape(24);
    let (ops, fired) = trace(s);
    let new = fib::analyze(&ops, &fired);
    let old = oracle::analyze(&ops, &fired);
    assert_eq!(new.barriers, old.barriers);
    let pairs = |a: &fib::Analysis| -> Vec<_> {
        a.relevant
            .iter()
            .map(|r| (r.barrier, r.recv, r.send))
            .collect()
    };
    assert_eq!(pairs(&new), pairs(&old));
    assert_eq!(new, old);
    assert_eq!(new.barriers.len(), 6);
    assert_eq!(new.relevant.len(), s.relevant());
    assert_eq!(s.relevant(), 2);
}

#[test]
fn a_hundred_thousand_receives_on_one_rank_are_classified() {
    // 7 senders, 14 286 rounds: 100 002 receives on rank 0.
    let s = shape(14_286);
    let (ops, fired) = trace(s);
    assert_eq!(
        ops[0].iter().filter(|o| o.name == "MPI_Recv").count(),
        100_002
    );
    let a = fib::analyze(&ops, &fired);
    assert_eq!(a.barriers.len(), 3_571);
    assert_eq!(a.relevant.len(), 1_191);
    assert_eq!(a.relevant.len(), s.relevant());
    // Each relevant barrier follows a round of wildcards; its witness is
    // one of them and a message sent after the barrier, which the path
    // reaches through the barrier.
    for r in &a.relevant {
        assert_eq!(r.recv.rank, 0);
        assert!(matches!(
            ops[0][r.recv.index].kind,
            poe::engine::Kind::Recv {
                src: poe::engine::Peer::Any,
                ..
            }
        ));
        let members = &a.barriers.iter().find(|b| b.0 == r.barrier).unwrap().1;
        assert!(r.recv.index < members[0].index);
        assert!(r.send.index > members[r.send.rank].index);
        assert!(r.path.contains(&fib::Node::Collective(r.barrier)));
    }
}
