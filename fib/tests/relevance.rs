//! The Fib pass on traces from the POE engine (simulated ranks, no MPI):
//! a barrier that keeps a later send away from a wildcard receive is
//! relevant, with that receive and send as witness; barriers that order
//! nothing a wildcard could see are irrelevant.

use fib::{analyze, Node};
use fib_wire::{CollKind, Op, SendMode, WaitKind, ANY, COMM_WORLD};
use poe::engine::{Config, OpId};
use poe::sim::{explore, Step, Turns};

fn send(dest: i32) -> Step {
    Step::Call(Op::Send {
        mode: SendMode::Standard,
        dest,
        tag: 0,
        comm: COMM_WORLD,
        req: None,
    })
}

fn recv(src: i32, req: u32) -> Step {
    Step::Call(Op::Recv {
        src,
        tag: 0,
        comm: COMM_WORLD,
        req,
        blocking: true,
    })
}

fn barrier() -> Step {
    Step::Call(Op::Coll {
        kind: CollKind::Barrier,
        comm: COMM_WORLD,
        root: 0,
    })
}

fn fin() -> Step {
    Step::Call(Op::Finalize)
}

fn cfg(n: usize) -> Config {
    Config {
        nprocs: n,
        zero_buffer: false,
        exchange: false,
    }
}

#[test]
fn a_barrier_that_keeps_a_later_send_away_from_a_wildcard_is_relevant() {
    // Rank 0 takes one message from anyone before the barrier and one
    // after; rank 2 sends only after the barrier, so the first wildcard can
    // only get rank 1's message.
    let program = vec![
        vec![recv(ANY, 0), barrier(), recv(ANY, 1), fin()],
        vec![send(0), barrier(), fin()],
        vec![barrier(), send(0), fin()],
    ];
    let runs = explore(&program, cfg(3), Turns::Forward);
    // One interleaving: each wildcard has one candidate when it is decided.
    assert_eq!(runs.len(), 1);
    let r = &runs[0];
    let (all_ops, fired) = poe_trace(&program, r);
    let a = analyze(&all_ops, &fired);
    assert_eq!(a.barriers.len(), 1);
    assert_eq!(a.relevant.len(), 1);
    let w = &a.relevant[0];
    assert_eq!(w.recv, OpId { rank: 0, index: 0 });
    assert_eq!(w.send, OpId { rank: 2, index: 1 });
    assert!(w.path.contains(&Node::Collective(w.barrier)));
    assert_eq!(w.path.first(), Some(&Node::Op(w.recv)));
    assert_eq!(w.path.last(), Some(&Node::Op(w.send)));
}

#[test]
fn barriers_without_wildcards_are_irrelevant() {
    let program = vec![
        vec![recv(1, 0), barrier(), send(1), barrier(), fin()],
        vec![send(0), barrier(), recv(0, 0), barrier(), fin()],
    ];
    let runs = explore(&program, cfg(2), Turns::Forward);
    assert_eq!(runs.len(), 1);
    let (ops, fired) = poe_trace(&program, &runs[0]);
    let a = analyze(&ops, &fired);
    assert_eq!(a.barriers.len(), 2);
    assert!(a.relevant.is_empty());
}

#[test]
fn a_barrier_after_all_the_traffic_is_irrelevant() {
    // Both wildcards are decided among sends issued before the barrier;
    // nothing after it can reach rank 0.
    let program = vec![
        vec![recv(ANY, 0), recv(ANY, 1), barrier(), fin()],
        vec![send(0), barrier(), fin()],
        vec![send(0), barrier(), fin()],
    ];
    let runs = explore(&program, cfg(3), Turns::Forward);
    // The first wildcard chooses between ranks 1 and 2.
    assert_eq!(runs.len(), 2);
    for r in &runs {
        let (ops, fired) = poe_trace(&program, r);
        let a = analyze(&ops, &fired);
        assert_eq!(a.barriers.len(), 1);
        assert!(a.relevant.is_empty(), "{:?}", a.relevant);
    }
}

#[test]
fn a_send_an_earlier_receive_must_take_is_no_rival() {
    // Rank 0 receives from rank 1 by name, then from anyone after the
    // barrier: rank 1's message goes to the named receive whatever the
    // barrier does, and rank 2's send comes before the wildcard anyway.
    let program = vec![
        vec![recv(1, 0), barrier(), recv(ANY, 1), fin()],
        vec![send(0), barrier(), fin()],
        vec![barrier(), send(0), fin()],
    ];
    let runs = explore(&program, cfg(3), Turns::Forward);
    assert_eq!(runs.len(), 1);
    let (ops, fired) = poe_trace(&program, &runs[0]);
    let a = analyze(&ops, &fired);
    assert!(a.relevant.is_empty(), "{:?}", a.relevant);
}

fn ibarrier(req: u32) -> Step {
    Step::Call(Op::Icoll {
        kind: CollKind::Ibarrier,
        comm: COMM_WORLD,
        root: 0,
        req,
    })
}

fn wait(req: u32) -> Step {
    Step::Call(Op::Wait {
        kind: WaitKind::One,
        reqs: vec![req],
    })
}

fn test_until_done(req: u32) -> Step {
    Step::Poll(Op::Test {
        kind: WaitKind::One,
        reqs: vec![req],
    })
}

#[test]
fn an_ibarrier_orders_through_the_call_that_completes_it() {
    // The first program with MPI_Ibarrier: rank 2 sends after its wait (or
    // a test loop) returned, so the receive rank 0 made before its
    // Ibarrier cannot get that send; the witness path passes the match set
    // and the completing call.
    for done in [wait as fn(u32) -> Step, test_until_done] {
        let program = vec![
            vec![recv(ANY, 0), ibarrier(7), done(7), recv(ANY, 1), fin()],
            vec![send(0), ibarrier(7), done(7), fin()],
            vec![ibarrier(7), done(7), send(0), fin()],
        ];
        let runs = explore(&program, cfg(3), Turns::Forward);
        assert_eq!(runs.len(), 1);
        let (all_ops, fired) = poe_trace(&program, &runs[0]);
        let a = analyze(&all_ops, &fired);
        assert_eq!(a.barriers.len(), 1);
        assert_eq!(a.relevant.len(), 1, "{a:?}");
        let w = &a.relevant[0];
        assert_eq!(w.recv, OpId { rank: 0, index: 0 });
        assert_eq!(w.send.rank, 2);
        assert!(w.path.contains(&Node::Collective(w.barrier)));
        // The send follows the completing call (the wait, or the test that
        // returned the request), which follows the match set.
        let n = w.path.len();
        let Node::Op(completing) = w.path[n - 2] else {
            panic!("{:?}", w.path)
        };
        assert_eq!(completing.rank, 2);
        assert!(matches!(
            all_ops[2][completing.index].kind,
            poe::engine::Kind::Wait { .. }
        ));
        assert_eq!(w.path[n - 3], Node::Collective(w.barrier));
    }
}

#[test]
fn an_ibarrier_whose_wait_comes_after_the_send_orders_nothing() {
    // Rank 2 sends before it waits for its Ibarrier: nothing keeps the
    // send away from rank 0's first wildcard receive.
    let program = vec![
        vec![recv(ANY, 0), ibarrier(7), wait(7), recv(ANY, 1), fin()],
        vec![send(0), ibarrier(7), wait(7), fin()],
        vec![ibarrier(7), send(0), wait(7), fin()],
    ];
    let runs = explore(&program, cfg(3), Turns::Forward);
    assert_eq!(runs.len(), 2);
    for r in &runs {
        let (all_ops, fired) = poe_trace(&program, r);
        let a = analyze(&all_ops, &fired);
        assert_eq!(a.barriers.len(), 1);
        assert!(a.relevant.is_empty(), "{a:?}");
    }
}

/// Replays one explored run and returns its operations and fired match sets.
fn poe_trace(
    program: &poe::sim::Program,
    run: &poe::sim::RunResult,
) -> (Vec<poe::engine::Ops>, poe::engine::FiredList) {
    let n = program.len();
    let replay = poe::sim::run_once(program, cfg(n), run.token.plan(), Turns::Forward);
    assert_eq!(replay.fired, run.fired);
    (replay.ops.clone(), replay.fired.clone())
}
