//! One test per MPI rule the engine must get right (the rules ARCHITECTURE.md
//! lists under "Semantics the engine relies on"): fences, non-overtaking of
//! sends and receives, completions, the match-set kinds, communicator
//! constructors, polling, independence from arrival order and replay. Each
//! test runs a small straight-line program through the simulator and checks
//! the exact outcome: how the run ends, how many runs there are, which send
//! each wildcard receive got and which match sets fired.

use fib_wire::{
    CollKind, FlushKind, Op, RmaKind, SendMode, Site, SplitKind, WaitKind, WinFlavor, ANY,
    COMM_SELF, COMM_WORLD, PROC_NULL, UNDEFINED,
};
use poe::engine::{Alternative, ChoicePoint, Differs, Fired, Planned};
use poe::sim::{explore, run_once, Program, RunResult, Step, Turns};
use poe::{Config, Leak, OpId, RunEnd};

fn cfg(nprocs: usize) -> Config {
    Config {
        nprocs,
        zero_buffer: false,
        exchange: false,
    }
}

fn zero(nprocs: usize) -> Config {
    Config {
        nprocs,
        zero_buffer: true,
        exchange: false,
    }
}

fn id(rank: usize, index: usize) -> OpId {
    OpId { rank, index }
}

fn send_on(mode: SendMode, dest: i32, tag: i32, comm: u32, req: Option<u32>) -> Step {
    Step::Call(Op::Send {
        mode,
        dest,
        tag,
        comm,
        req,
    })
}

fn send(dest: i32, tag: i32) -> Step {
    send_on(SendMode::Standard, dest, tag, COMM_WORLD, None)
}

fn ssend(dest: i32, tag: i32) -> Step {
    send_on(SendMode::Sync, dest, tag, COMM_WORLD, None)
}

fn isend(dest: i32, tag: i32, req: u32) -> Step {
    send_on(SendMode::Standard, dest, tag, COMM_WORLD, Some(req))
}

fn recv_op(src: i32, tag: i32, comm: u32, req: u32, blocking: bool) -> Op {
    Op::Recv {
        src,
        tag,
        comm,
        req,
        blocking,
    }
}

fn recv(src: i32, tag: i32) -> Step {
    Step::Call(recv_op(src, tag, COMM_WORLD, 1000, true))
}

fn irecv(src: i32, tag: i32, req: u32) -> Step {
    Step::Call(recv_op(src, tag, COMM_WORLD, req, false))
}

fn wait(kind: WaitKind, reqs: &[u32]) -> Step {
    Step::Call(Op::Wait {
        kind,
        reqs: reqs.to_vec(),
    })
}

fn coll(kind: CollKind, comm: u32) -> Step {
    Step::Call(Op::Coll {
        kind,
        comm,
        root: 0,
    })
}

fn barrier() -> Step {
    coll(CollKind::Barrier, COMM_WORLD)
}

fn fin() -> Step {
    Step::Call(Op::Finalize)
}

/// The (receive, send) pairs of the wildcard receives of a run, in firing
/// order.
fn wild(run: &RunResult) -> Vec<(OpId, OpId)> {
    run.fired
        .iter()
        .filter_map(|f| match f {
            Fired::SendRecv {
                send,
                recv,
                wildcard: true,
            } => Some((*recv, *send)),
            _ => None,
        })
        .collect()
}

/// The send that `recv` got in a run.
fn got(run: &RunResult, recv: OpId) -> Option<OpId> {
    run.fired.iter().find_map(|f| match f {
        Fired::SendRecv { send, recv: r, .. } if *r == recv => Some(*send),
        _ => None,
    })
}

/// Where in the fired list the match set satisfying `pred` is.
fn position(run: &RunResult, pred: impl Fn(&Fired) -> bool) -> usize {
    run.fired.iter().position(pred).expect("match set fired")
}

fn deadlocked_in(end: &RunEnd) -> Vec<Option<&'static str>> {
    match end {
        RunEnd::Deadlock { ranks } => ranks.iter().map(|r| r.call).collect(),
        other => panic!("expected a deadlock, got {other:?}"),
    }
}

/// Exploring with the ranks' calls arriving in the other order gives the same
/// runs, and each run's token replays it, match set for match set.
fn assert_replays_in_any_order(p: &Program, config: Config, runs: &[RunResult]) {
    let bwd = explore(p, config, Turns::Backward);
    assert_eq!(bwd.len(), runs.len());
    for (run, other) in runs.iter().zip(&bwd) {
        assert_eq!(other.token, run.token);
        let again = run_once(p, config, run.token.plan(), Turns::Backward);
        assert_eq!(again.fired, run.fired, "token {}", run.token);
    }
}

fn only_run(program: &Program, config: Config) -> RunResult {
    let runs = explore(program, config, Turns::Forward);
    // One run: the program has no choice.
    assert_eq!(runs.len(), 1, "{runs:?}");
    runs.into_iter().next().unwrap()
}

// IntraCB and fences.

#[test]
fn blocking_receive_blocks_later_calls() {
    // Each rank's receive comes before the send the other waits for.
    let p = vec![
        vec![recv(1, 0), send(1, 1), fin()],
        vec![recv(0, 1), send(0, 0), fin()],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(
        deadlocked_in(&run.end),
        vec![Some("MPI_Recv"), Some("MPI_Recv")]
    );
}

#[test]
fn buffered_send_does_not_block_but_zero_buffer_send_does() {
    // Head-to-head sends: fine with buffering, a deadlock without.
    let p = vec![
        vec![send(1, 0), recv(1, 0), fin()],
        vec![send(0, 0), recv(0, 0), fin()],
    ];
    assert_eq!(only_run(&p, cfg(2)).end, RunEnd::Completed);
    let run = only_run(&p, zero(2));
    assert_eq!(
        deadlocked_in(&run.end),
        vec![Some("MPI_Send"), Some("MPI_Send")]
    );
}

#[test]
fn ssend_blocks_even_when_sends_are_buffered() {
    let p = vec![
        vec![ssend(1, 0), recv(1, 0), fin()],
        vec![ssend(0, 0), recv(0, 0), fin()],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(
        deadlocked_in(&run.end),
        vec![Some("MPI_Ssend"), Some("MPI_Ssend")]
    );
}

// Non-overtaking of sends.

#[test]
fn same_tag_sends_are_received_in_order() {
    let p = vec![
        vec![send(1, 0), send(1, 0), fin()],
        vec![recv(0, 0), recv(0, 0), fin()],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(run.end, RunEnd::Completed);
    assert_eq!(got(&run, id(1, 0)), Some(id(0, 0)));
    assert_eq!(got(&run, id(1, 1)), Some(id(0, 1)));
}

#[test]
fn different_tags_may_be_received_in_reverse_order() {
    let p = vec![
        vec![send(1, 0), send(1, 1), fin()],
        vec![recv(0, 1), recv(0, 0), fin()],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(run.end, RunEnd::Completed);
    assert_eq!(got(&run, id(1, 0)), Some(id(0, 1)));
    assert_eq!(got(&run, id(1, 1)), Some(id(0, 0)));
    // Without buffering the nonblocking form still completes.
    let p = vec![
        vec![
            isend(1, 0, 1),
            isend(1, 1, 2),
            wait(WaitKind::All, &[1, 2]),
            fin(),
        ],
        vec![recv(0, 1), recv(0, 0), fin()],
    ];
    assert_eq!(only_run(&p, zero(2)).end, RunEnd::Completed);
}

#[test]
fn any_tag_receive_gets_the_earliest_send() {
    let p = vec![
        vec![send(1, 1), send(1, 0), fin()],
        vec![recv(0, ANY), recv(0, ANY), fin()],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(got(&run, id(1, 0)), Some(id(0, 0)));
    assert_eq!(got(&run, id(1, 1)), Some(id(0, 1)));
}

// Non-overtaking of receives.

#[test]
fn specific_receive_waits_for_an_earlier_wildcard() {
    let p = vec![
        vec![
            irecv(ANY, 0, 1),
            irecv(1, 0, 2),
            wait(WaitKind::All, &[1, 2]),
            fin(),
        ],
        vec![send(0, 0), send(0, 0), fin()],
        vec![send(0, 0), fin()],
    ];
    let runs = explore(&p, cfg(3), Turns::Forward);
    // Two runs: the wildcard gets rank 1's first send or rank 2's.
    assert_eq!(runs.len(), 2);
    let (w, s) = (id(0, 0), id(0, 1));
    assert_eq!(got(&runs[0], w), Some(id(1, 0)));
    assert_eq!(got(&runs[0], s), Some(id(1, 1)));
    assert_eq!(got(&runs[1], w), Some(id(2, 0)));
    assert_eq!(got(&runs[1], s), Some(id(1, 0)));
    for run in &runs {
        assert_eq!(run.end, RunEnd::Completed);
        // The specific receive matched only after the wildcard was decided.
        let pw = position(
            run,
            |f| matches!(f, Fired::SendRecv { recv, .. } if *recv == w),
        );
        let ps = position(
            run,
            |f| matches!(f, Fired::SendRecv { recv, .. } if *recv == s),
        );
        assert!(pw < ps, "{:?}", run.fired);
    }
}

// Nonblocking operations and their completions.

#[test]
fn wait_completes_a_nonblocking_pair() {
    let p = vec![
        vec![isend(1, 0, 5), wait(WaitKind::One, &[5]), fin()],
        vec![irecv(0, 0, 7), wait(WaitKind::One, &[7]), fin()],
    ];
    let run = only_run(&p, zero(2));
    assert_eq!(run.end, RunEnd::Completed);
    assert!(run.fired.contains(&Fired::Completion {
        op: id(0, 1),
        completed: vec![id(0, 0)]
    }));
    assert!(run.fired.contains(&Fired::Completion {
        op: id(1, 1),
        completed: vec![id(1, 0)]
    }));
}

#[test]
fn test_polling_ends_when_the_request_completes() {
    let p = vec![
        vec![ssend(1, 0), fin()],
        vec![
            irecv(0, 0, 7),
            Step::Poll(Op::Test {
                kind: WaitKind::One,
                reqs: vec![7],
            }),
            fin(),
        ],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(run.end, RunEnd::Completed);
    assert!(run
        .fired
        .iter()
        .any(|f| matches!(f, Fired::Completion { completed, .. } if *completed == vec![id(1, 0)])));
}

/// A test a run made without the scheduler says returned something is
/// never failed: it waits for the send that completes it, even when the
/// engine fails its polls before taking a choice; and if nothing can
/// complete it, the engine cannot follow the run (a divergence, not the
/// program's deadlock).
#[test]
fn a_test_that_returned_in_the_followed_run_waits_for_what_it_returned() {
    let test = Op::Test {
        kind: WaitKind::One,
        reqs: vec![7],
    };
    // Rank 1's test returns once rank 0 has taken rank 2's message with
    // its wildcard receive (a choice) and sent.
    let p = vec![
        vec![recv(ANY, 0), send(1, 0), fin()],
        vec![irecv(0, 0, 7), Step::Sure(test.clone()), fin()],
        vec![send(0, 0), fin()],
    ];
    let run = only_run(&p, cfg(3));
    assert_eq!(run.end, RunEnd::Completed);
    assert!(run.leaks.is_empty(), "{:?}", run.leaks);
    assert!(run.fired.contains(&Fired::Completion {
        op: id(1, 1),
        completed: vec![id(1, 0)]
    }));
    let p = vec![vec![fin()], vec![irecv(0, 0, 7), Step::Sure(test), fin()]];
    let run = only_run(&p, cfg(2));
    assert!(
        matches!(run.end, RunEnd::Divergence { .. }),
        "{:?}",
        run.end
    );
}

#[test]
fn nonblocking_receive_matches_before_its_wait() {
    // Non-overtaking: the Irecv takes the first message, before its wait,
    // because the blocking receive after it must take the second.
    let p = vec![
        vec![send(1, 0), send(1, 0), fin()],
        vec![irecv(0, 0, 3), recv(0, 0), wait(WaitKind::One, &[3]), fin()],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(run.end, RunEnd::Completed);
    assert_eq!(got(&run, id(1, 0)), Some(id(0, 0)));
    assert_eq!(got(&run, id(1, 1)), Some(id(0, 1)));
    let m = position(
        &run,
        |f| matches!(f, Fired::SendRecv { recv, .. } if *recv == id(1, 0)),
    );
    let w = position(&run, |f| matches!(f, Fired::Completion { .. }));
    assert!(m < w, "{:?}", run.fired);
}

// Match-set kinds.

#[test]
fn collective_fires_only_when_every_member_arrives() {
    let p = vec![
        vec![barrier(), fin()],
        vec![recv(2, 0), barrier(), fin()],
        vec![send(1, 0), barrier(), fin()],
    ];
    let run = only_run(&p, cfg(3));
    assert_eq!(run.end, RunEnd::Completed);
    let m = position(&run, |f| matches!(f, Fired::SendRecv { .. }));
    let b = position(&run, |f| matches!(f, Fired::Collective { .. }));
    assert!(m < b);
    assert_eq!(
        run.fired[b],
        Fired::Collective {
            ops: vec![id(0, 0), id(1, 1), id(2, 1)]
        }
    );
}

#[test]
fn different_collectives_are_a_mismatch() {
    let p = vec![
        vec![barrier(), fin()],
        vec![coll(CollKind::Bcast, COMM_WORLD), fin()],
    ];
    let run = only_run(&p, cfg(2));
    match run.end {
        RunEnd::CollectiveMismatch { comm, calls } => {
            assert_eq!(comm, COMM_WORLD);
            let names: Vec<_> = calls.iter().map(|c| c.1).collect();
            assert_eq!(names, vec!["MPI_Barrier", "MPI_Bcast"]);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_scan_against_an_exscan_is_a_mismatch_and_the_v_collectives_complete() {
    let p = vec![
        vec![coll(CollKind::Scan, COMM_WORLD), fin()],
        vec![coll(CollKind::Exscan, COMM_WORLD), fin()],
    ];
    let run = only_run(&p, cfg(2));
    match run.end {
        RunEnd::CollectiveMismatch { calls, .. } => {
            let names: Vec<_> = calls.iter().map(|c| c.1).collect();
            assert_eq!(names, vec!["MPI_Scan", "MPI_Exscan"]);
        }
        other => panic!("{other:?}"),
    }
    let gatherv = |root| {
        Step::Call(Op::Coll {
            kind: CollKind::Gatherv,
            comm: COMM_WORLD,
            root,
        })
    };
    let all: Vec<Step> = CollKind::ALL
        .iter()
        .filter(|k| !k.is_nonblocking())
        .map(|&k| coll(k, COMM_WORLD))
        .chain([gatherv(1), fin()])
        .collect();
    let run = only_run(&vec![all.clone(), all], cfg(2));
    assert_eq!(run.end, RunEnd::Completed);
    // Roots must agree for the rooted v collectives.
    let p = vec![vec![gatherv(0), fin()], vec![gatherv(1), fin()]];
    assert!(matches!(
        only_run(&p, cfg(2)).end,
        RunEnd::CollectiveMismatch { .. }
    ));
}

// Nonblocking collectives.

fn icoll(kind: CollKind, comm: u32, req: u32) -> Step {
    Step::Call(Op::Icoll {
        kind,
        comm,
        root: 0,
        req,
    })
}

fn ibarrier(req: u32) -> Step {
    icoll(CollKind::Ibarrier, COMM_WORLD, req)
}

#[test]
fn a_nonblocking_collective_returns_at_once_and_its_wait_completes_once_all_matched() {
    // Rank 0 sends after its Ibarrier, before waiting: the call did not
    // block. Rank 1 receives first, then joins.
    let p = vec![
        vec![ibarrier(1), send(1, 0), wait(WaitKind::One, &[1]), fin()],
        vec![recv(0, 0), ibarrier(2), wait(WaitKind::One, &[2]), fin()],
    ];
    let run = only_run(&p, zero(2));
    assert_eq!(run.end, RunEnd::Completed);
    let c = position(
        &run,
        |f| matches!(f, Fired::Collective { ops } if ops.len() == 2),
    );
    assert_eq!(
        run.fired[c],
        Fired::Collective {
            ops: vec![id(0, 0), id(1, 1)]
        }
    );
    let w = position(
        &run,
        |f| matches!(f, Fired::Completion { op, .. } if *op == id(0, 2)),
    );
    assert!(c < w, "{:?}", run.fired);
    assert!(run.leaks.is_empty());
}

#[test]
fn a_wait_on_a_nonblocking_collective_a_rank_never_joins_deadlocks() {
    let p = vec![
        vec![ibarrier(1), wait(WaitKind::One, &[1]), fin()],
        vec![recv(0, 0), fin()],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(
        deadlocked_in(&run.end),
        vec![Some("MPI_Wait"), Some("MPI_Recv")]
    );
}

#[test]
fn every_completion_call_completes_a_nonblocking_collective() {
    let poll = |kind, reqs: &[u32]| {
        Step::Poll(Op::Test {
            kind,
            reqs: reqs.to_vec(),
        })
    };
    for (kind, test) in [
        (WaitKind::One, false),
        (WaitKind::All, false),
        (WaitKind::Any, false),
        (WaitKind::Some, false),
        (WaitKind::One, true),
        (WaitKind::All, true),
        (WaitKind::Any, true),
        (WaitKind::Some, true),
    ] {
        let done = |req| {
            if test {
                poll(kind, &[req])
            } else {
                wait(kind, &[req])
            }
        };
        let p = vec![
            vec![icoll(CollKind::Ibcast, COMM_WORLD, 4), done(4), fin()],
            vec![
                recv(2, 0),
                icoll(CollKind::Ibcast, COMM_WORLD, 4),
                done(4),
                fin(),
            ],
            vec![
                send(1, 0),
                icoll(CollKind::Ibcast, COMM_WORLD, 6),
                done(6),
                fin(),
            ],
        ];
        let runs = explore(&p, cfg(3), Turns::Forward);
        assert_eq!(runs.len(), 1, "{kind:?} test {test}");
        assert_eq!(runs[0].end, RunEnd::Completed, "{kind:?} test {test}");
        assert!(runs[0].leaks.is_empty(), "{kind:?} test {test}");
        for r in 0..3 {
            assert!(runs[0].fired.iter().any(|f| matches!(f,
                Fired::Completion { op, completed } if op.rank == r && completed.len() == 1)));
        }
    }
}

#[test]
fn an_iallreduce_in_a_waitall_with_point_to_point_requests_completes() {
    let p = vec![
        vec![
            irecv(ANY, 0, 1),
            icoll(CollKind::Iallreduce, COMM_WORLD, 2),
            wait(WaitKind::All, &[1, 2]),
            fin(),
        ],
        vec![
            isend(0, 0, 1),
            icoll(CollKind::Iallreduce, COMM_WORLD, 2),
            wait(WaitKind::All, &[1, 2]),
            fin(),
        ],
        vec![
            icoll(CollKind::Iallreduce, COMM_WORLD, 3),
            send(0, 0),
            wait(WaitKind::All, &[3]),
            fin(),
        ],
    ];
    let runs = explore(&p, cfg(3), Turns::Forward);
    // The wildcard receive can take either sender's message; the other
    // message is left behind.
    assert_eq!(runs.len(), 2);
    for run in &runs {
        assert_eq!(run.end, RunEnd::Completed);
        assert_eq!(run.leaks.len(), 1, "{:?}", run.leaks);
        assert!(matches!(run.leaks[0], Leak::Message { .. }));
    }
    assert_replays_in_any_order(&p, cfg(3), &runs);
}

#[test]
fn blocking_and_nonblocking_collectives_match_in_order_per_communicator() {
    // Two Ibcasts, then a blocking barrier: every rank in the same order
    // matches; the waits come in any order.
    let p = vec![
        vec![
            icoll(CollKind::Ibcast, COMM_WORLD, 1),
            icoll(CollKind::Ireduce, COMM_WORLD, 2),
            barrier(),
            wait(WaitKind::One, &[2]),
            wait(WaitKind::One, &[1]),
            fin(),
        ],
        vec![
            icoll(CollKind::Ibcast, COMM_WORLD, 1),
            icoll(CollKind::Ireduce, COMM_WORLD, 2),
            barrier(),
            wait(WaitKind::All, &[1, 2]),
            fin(),
        ],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(run.end, RunEnd::Completed);
    let sets: Vec<&Fired> = run
        .fired
        .iter()
        .filter(|f| matches!(f, Fired::Collective { ops } if ops.len() == 2 && ops[0].index < 3))
        .collect();
    assert_eq!(sets.len(), 3);
    // The blocking call against a nonblocking one is a mismatch, naming both.
    let p = vec![
        vec![barrier(), fin()],
        vec![ibarrier(1), wait(WaitKind::One, &[1]), fin()],
    ];
    match only_run(&p, cfg(2)).end {
        RunEnd::CollectiveMismatch { comm, calls } => {
            assert_eq!(comm, COMM_WORLD);
            let names: Vec<_> = calls.iter().map(|c| (c.0, c.1)).collect();
            assert_eq!(
                names,
                vec![(id(0, 0), "MPI_Barrier"), (id(1, 0), "MPI_Ibarrier")]
            );
        }
        other => panic!("{other:?}"),
    }
    // So is an order that differs between ranks.
    let p = vec![
        vec![
            icoll(CollKind::Ibcast, COMM_WORLD, 1),
            icoll(CollKind::Iallreduce, COMM_WORLD, 2),
            wait(WaitKind::All, &[1, 2]),
            fin(),
        ],
        vec![
            icoll(CollKind::Iallreduce, COMM_WORLD, 2),
            icoll(CollKind::Ibcast, COMM_WORLD, 1),
            wait(WaitKind::All, &[1, 2]),
            fin(),
        ],
    ];
    assert!(matches!(
        only_run(&p, cfg(2)).end,
        RunEnd::CollectiveMismatch { .. }
    ));
}

#[test]
fn a_nonblocking_collective_never_waited_for_is_a_leaked_request() {
    let p = vec![
        vec![icoll(CollKind::Ibcast, COMM_WORLD, 1), fin()],
        vec![
            icoll(CollKind::Ibcast, COMM_WORLD, 1),
            wait(WaitKind::One, &[1]),
            fin(),
        ],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(run.end, RunEnd::Completed);
    assert_eq!(run.leaks, vec![Leak::Request { op: id(0, 0) }]);
    // Never waited for on any rank, it still matches before MPI_Finalize,
    // whatever order the calls arrive in.
    let p = vec![vec![ibarrier(1), fin()], vec![ibarrier(1), fin()]];
    for turns in [Turns::Forward, Turns::Backward] {
        let runs = explore(&p, cfg(2), turns);
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].end, RunEnd::Completed);
        assert_eq!(
            runs[0].fired[0],
            Fired::Collective {
                ops: vec![id(0, 0), id(1, 0)]
            }
        );
        assert_eq!(
            runs[0].leaks,
            vec![
                Leak::Request { op: id(0, 0) },
                Leak::Request { op: id(1, 0) }
            ]
        );
    }
}

#[test]
fn freeing_a_nonblocking_collective_request_is_an_invalid_call() {
    let p = vec![
        vec![ibarrier(1), Step::Call(Op::RequestFree { req: 1 }), fin()],
        vec![ibarrier(1), wait(WaitKind::One, &[1]), fin()],
    ];
    match only_run(&p, cfg(2)).end {
        RunEnd::Invalid { op, message, .. } => {
            assert_eq!(op, id(0, 1));
            assert_eq!(
                message,
                "MPI_Request_free: the request of a nonblocking collective may not be freed \
                 (MPI 3.1 §5.12)"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_nonblocking_collective_on_self_and_on_a_split_communicator() {
    let split = |color| {
        Step::Call(Op::CommSplit {
            comm: COMM_WORLD,
            color,
            key: 0,
        })
    };
    let new = fib_wire::FIRST_USER_COMM;
    let p = vec![
        vec![
            split(0),
            icoll(CollKind::Iscan, new, 1),
            icoll(CollKind::Ibarrier, COMM_SELF, 2),
            wait(WaitKind::All, &[2, 1]),
            fin(),
        ],
        vec![split(1), fin()],
        vec![
            split(0),
            icoll(CollKind::Iscan, new, 1),
            wait(WaitKind::One, &[1]),
            fin(),
        ],
    ];
    let run = only_run(&p, cfg(3));
    assert_eq!(run.end, RunEnd::Completed);
    assert!(run.fired.contains(&Fired::Collective {
        ops: vec![id(0, 2)]
    }));
    assert!(run.fired.contains(&Fired::Collective {
        ops: vec![id(0, 1), id(2, 1)]
    }));
}

#[test]
fn a_waitany_on_a_nonblocking_collective_and_a_wildcard_receive_branches() {
    // Rank 0's Waitany may find its Ibarrier or its receive complete
    // first, whichever the other ranks' timing gives.
    let p = vec![
        vec![
            irecv(ANY, 0, 1),
            ibarrier(2),
            Step::Call(Op::Wait {
                kind: WaitKind::Any,
                reqs: vec![1, 2],
            }),
            wait(WaitKind::All, &[1, 2]),
            fin(),
        ],
        vec![send(0, 0), ibarrier(3), wait(WaitKind::One, &[3]), fin()],
    ];
    let runs = explore(&p, cfg(2), Turns::Forward);
    let firsts: Vec<Vec<OpId>> = runs.iter().map(|r| completions(r, 0)[0].clone()).collect();
    assert!(firsts.contains(&vec![id(0, 0)]), "{firsts:?}");
    assert!(firsts.contains(&vec![id(0, 1)]), "{firsts:?}");
    for run in &runs {
        assert_eq!(run.end, RunEnd::Completed);
    }
    assert_replays_in_any_order(&p, cfg(2), &runs);
}

#[test]
fn cartesian_constructors_split_their_parent() {
    let made = |how, comm, color: i32, key: i32| {
        Step::Call(Op::CommSplitAs {
            how,
            comm,
            color,
            key,
        })
    };
    // A 2x2 grid of ranks 0..3 (id 2) out of five ranks: rank 4 gets
    // MPI_COMM_NULL. Its rows (ids 3 and 4) by Cart_sub: row r is colour
    // r, each rank's key its column. World rank 3 (row 1, column 1) sends
    // to rank 0 of its row: world rank 2.
    let grid = |r: i32| {
        let color = if r < 4 { 0 } else { UNDEFINED };
        made(SplitKind::CartCreate, COMM_WORLD, color, r)
    };
    let row = |r: i32| made(SplitKind::CartSub, 2, r / 2, r % 2);
    let p = vec![
        vec![grid(0), row(0), fin()],
        vec![grid(1), row(1), fin()],
        vec![
            grid(2),
            row(2),
            Step::Call(recv_op(ANY, 0, 4, 1, true)),
            fin(),
        ],
        vec![
            grid(3),
            row(3),
            send_on(SendMode::Standard, 0, 0, 4, None),
            fin(),
        ],
        vec![grid(4), fin()],
    ];
    let run = only_run(&p, cfg(5));
    assert_eq!(run.end, RunEnd::Completed);
    assert_eq!(got(&run, id(2, 2)), Some(id(3, 2)));
    // A rank that calls MPI_Comm_split against another's MPI_Cart_create
    // makes a mismatch.
    let p = vec![
        vec![grid(0), fin()],
        vec![
            Step::Call(Op::CommSplit {
                comm: COMM_WORLD,
                color: 0,
                key: 1,
            }),
            fin(),
        ],
    ];
    match only_run(&p, cfg(2)).end {
        RunEnd::CollectiveMismatch { calls, .. } => {
            let names: Vec<_> = calls.iter().map(|c| c.1).collect();
            assert_eq!(names, vec!["MPI_Cart_create", "MPI_Comm_split"]);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn crossed_barriers_on_two_communicators_deadlock() {
    let dup = || Step::Call(Op::CommDup { comm: COMM_WORLD });
    // The duplicate of MPI_COMM_WORLD is the first user communicator, 2.
    let p = vec![
        vec![dup(), barrier(), coll(CollKind::Barrier, 2), fin()],
        vec![dup(), coll(CollKind::Barrier, 2), barrier(), fin()],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(
        deadlocked_in(&run.end),
        vec![Some("MPI_Barrier"), Some("MPI_Barrier")]
    );
}

#[test]
fn wildcard_receive_branches_once_per_sender() {
    for senders in [2usize, 3] {
        let mut p = vec![vec![recv(ANY, 0), fin()]];
        for _ in 0..senders {
            p.push(vec![send(0, 0), fin()]);
        }
        let runs = explore(&p, cfg(senders + 1), Turns::Forward);
        // One run per sender: 2 and 3 runs.
        assert_eq!(runs.len(), senders);
        for (k, run) in runs.iter().enumerate() {
            assert_eq!(run.end, RunEnd::Completed);
            assert_eq!(wild(run), vec![(id(0, 0), id(k + 1, 0))]);
        }
    }
}

#[test]
fn wildcard_waits_for_a_late_sender() {
    // Rank 2 sends only after its own blocking receive, which rank 1 feeds;
    // the wildcard is decided once every rank waits, so both are candidates.
    let p = vec![
        vec![recv(ANY, 0), fin()],
        vec![send(0, 0), send(2, 1), fin()],
        vec![recv(1, 1), send(0, 0), fin()],
    ];
    let runs = explore(&p, cfg(3), Turns::Forward);
    // Two runs: rank 1's send, then rank 2's.
    assert_eq!(runs.len(), 2);
    assert_eq!(wild(&runs[0]), vec![(id(0, 0), id(1, 0))]);
    assert_eq!(wild(&runs[1]), vec![(id(0, 0), id(2, 1))]);
}

#[test]
fn wildcard_gets_a_send_enabled_by_another_ranks_wildcard() {
    // Rank 1's wildcard must get rank 2's message before rank 1 can send to
    // rank 0, yet rank 0's wildcard may still get it first: MPI allows rank
    // 2's message to rank 0 to be slower than the path through rank 1.
    let p = vec![
        vec![recv(ANY, 1), fin()],
        vec![recv(ANY, ANY), send(0, 1), fin()],
        vec![send(0, 1), send(1, 0), fin()],
    ];
    let runs = explore(&p, cfg(3), Turns::Forward);
    // Two runs: rank 0's wildcard gets rank 2's send or rank 1's.
    assert_eq!(runs.len(), 2);
    let senders: Vec<_> = runs.iter().map(|r| got(r, id(0, 0))).collect();
    assert_eq!(senders, vec![Some(id(2, 0)), Some(id(1, 1))]);
}

// Communicator constructors.

#[test]
fn split_communicator_translates_ranks() {
    let split = |r: i32| {
        Step::Call(Op::CommSplit {
            comm: COMM_WORLD,
            color: r % 2,
            key: r,
        })
    };
    // Colour 0 gets id 2 ({0, 2}), colour 1 gets id 3 ({1, 3}). Rank 3 sends to
    // local rank 0 of its half, which is world rank 1.
    let p = vec![
        vec![split(0), fin()],
        vec![split(1), Step::Call(recv_op(1, 0, 3, 1, true)), fin()],
        vec![split(2), fin()],
        vec![split(3), send_on(SendMode::Standard, 0, 0, 3, None), fin()],
    ];
    let run = only_run(&p, cfg(4));
    assert_eq!(run.end, RunEnd::Completed);
    assert_eq!(got(&run, id(1, 1)), Some(id(3, 1)));
}

#[test]
fn message_on_a_duplicate_is_not_received_on_world() {
    let dup = || Step::Call(Op::CommDup { comm: COMM_WORLD });
    let p = vec![
        vec![dup(), send_on(SendMode::Standard, 1, 0, 2, None), fin()],
        vec![dup(), recv(0, 0), fin()],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(
        deadlocked_in(&run.end),
        vec![Some("MPI_Finalize"), Some("MPI_Recv")]
    );
}

// Waitany, probes and polling.

#[test]
fn waitany_with_two_complete_requests_branches() {
    let p = vec![
        vec![
            isend(1, 0, 1),
            isend(1, 1, 2),
            wait(WaitKind::Any, &[1, 2]),
            fin(),
        ],
        vec![fin()],
    ];
    let runs = explore(&p, cfg(2), Turns::Forward);
    // Two runs, one per request.
    assert_eq!(runs.len(), 2);
    for (k, run) in runs.iter().enumerate() {
        assert!(run.fired.contains(&Fired::Completion {
            op: id(0, 2),
            completed: vec![id(0, k)]
        }));
    }
}

/// The requests each completion call of `rank` returned, in firing order.
fn completions(run: &RunResult, rank: usize) -> Vec<Vec<OpId>> {
    run.fired
        .iter()
        .filter_map(|f| match f {
            Fired::Completion { op, completed } if op.rank == rank => Some(completed.clone()),
            _ => None,
        })
        .collect()
}

/// Rank 0 waits in `wait_any` on two receives: rank 1's message is there
/// when every rank waits, rank 2's comes only after rank 2's wildcard
/// receive took rank 1's second message (taking rank 3's instead leaves rank
/// 2 stuck in its receive from rank 3, and rank 0 in its Waitall).
fn waitany_race_program(wait_any: Step) -> Program {
    vec![
        vec![
            irecv(1, 0, 1),
            irecv(2, 0, 2),
            wait_any,
            wait(WaitKind::All, &[1, 2]),
            fin(),
        ],
        vec![send(0, 0), send(2, 1), fin()],
        vec![recv(ANY, 1), recv(3, 1), send(0, 0), fin()],
        vec![send(2, 1), fin()],
    ]
}

/// The three outcomes of [`waitany_race_program`], in exploration order.
fn assert_waitany_race_outcomes(runs: &[RunResult]) {
    // Three runs: the Waitany returns the first receive and rank 2's wildcard
    // gets rank 1's message, or rank 3's (a deadlock); then, with the
    // wildcard decided first, the Waitany returns the second receive.
    assert_eq!(runs.len(), 3, "{runs:?}");
    let (w, a, b) = (id(0, 0), id(0, 1), id(2, 0));
    let seen: Vec<_> = runs
        .iter()
        .map(|r| {
            let first = completions(r, 0).first().map(|c| c[0]);
            (first, got(r, b), matches!(r.end, RunEnd::Completed))
        })
        .collect();
    assert_eq!(
        seen,
        vec![
            (Some(w), Some(id(1, 1)), true),
            (Some(w), Some(id(3, 0)), false),
            (Some(a), Some(id(1, 1)), true),
        ]
    );
}

#[test]
fn waitany_can_return_a_request_that_a_later_choice_completes() {
    let p = waitany_race_program(wait(WaitKind::Any, &[1, 2]));
    let runs = explore(&p, cfg(4), Turns::Forward);
    assert_waitany_race_outcomes(&runs);
    // The Waitall takes what the Waitany left.
    assert_eq!(
        completions(&runs[0], 0),
        vec![vec![id(0, 0)], vec![id(0, 1)]]
    );
    assert_eq!(
        completions(&runs[2], 0),
        vec![vec![id(0, 1)], vec![id(0, 0)]]
    );
    assert!(matches!(runs[1].end, RunEnd::Deadlock { .. }));
    // The deferred Waitany replays from its token, in any arrival order.
    assert_eq!(runs[2].token.to_string(), "1.0");
    assert_replays_in_any_order(&p, cfg(4), &runs);
}

#[test]
fn testany_can_return_a_request_that_a_later_choice_completes() {
    let testany = Step::Poll(Op::Test {
        kind: WaitKind::Any,
        reqs: vec![1, 2],
    });
    let runs = explore(&waitany_race_program(testany), cfg(4), Turns::Forward);
    assert_waitany_race_outcomes(&runs);
}

#[test]
fn waitany_can_return_a_synchronous_send_that_a_later_wildcard_takes() {
    // Rank 0's buffered Isend is complete at once, its Issend only when rank
    // 2's first or second wildcard receive takes it.
    let p = vec![
        vec![
            isend(1, 0, 1),
            send_on(SendMode::Sync, 2, 0, COMM_WORLD, Some(2)),
            wait(WaitKind::Any, &[1, 2]),
            wait(WaitKind::All, &[1, 2]),
            fin(),
        ],
        vec![recv(0, 0), fin()],
        vec![recv(ANY, 0), recv(ANY, 0), fin()],
        vec![send(2, 0), fin()],
    ];
    let runs = explore(&p, cfg(4), Turns::Forward);
    // Four runs: which wildcard takes the Issend, times which request the
    // Waitany returns.
    assert_eq!(runs.len(), 4, "{runs:?}");
    let seen: Vec<_> = runs
        .iter()
        .map(|r| {
            assert_eq!(r.end, RunEnd::Completed);
            (completions(r, 0)[0][0], got(r, id(2, 0)))
        })
        .collect();
    assert_eq!(
        seen,
        vec![
            (id(0, 0), Some(id(0, 1))),
            (id(0, 0), Some(id(3, 0))),
            (id(0, 1), Some(id(0, 1))),
            (id(0, 1), Some(id(3, 0))),
        ]
    );
}

#[test]
fn waitany_loop_returns_the_workers_in_every_order() {
    // Rank 0 collects one message from each of three workers with a loop of
    // Waitanys; each worker sends once its wildcard receive has a message
    // from rank 4.
    let p = vec![
        vec![
            irecv(1, 0, 1),
            irecv(2, 0, 2),
            irecv(3, 0, 3),
            wait(WaitKind::Any, &[1, 2, 3]),
            wait(WaitKind::Any, &[1, 2, 3]),
            wait(WaitKind::Any, &[1, 2, 3]),
            fin(),
        ],
        vec![recv(ANY, 1), send(0, 0), fin()],
        vec![recv(ANY, 1), send(0, 0), fin()],
        vec![recv(ANY, 1), send(0, 0), fin()],
        vec![send(1, 1), send(2, 1), send(3, 1), fin()],
    ];
    let runs = explore(&p, cfg(5), Turns::Forward);
    let orders: std::collections::BTreeSet<Vec<usize>> = runs
        .iter()
        .map(|r| {
            assert_eq!(r.end, RunEnd::Completed);
            completions(r, 0).iter().map(|c| c[0].index).collect()
        })
        .collect();
    // All six orders, in seven runs: the branch that lets worker 3 go before
    // the first Waitany repeats order [2, 0, 1], which the branch that let
    // worker 2 go first reached by deferring the next Waitany to worker 3.
    // Without the explorer's sleeping of deferrals explored above, ten runs.
    assert_eq!(orders.len(), 6, "{orders:?}");
    assert_eq!(runs.len(), 7);
}

/// The alternatives of a Waitsome/Testsome choice point, as position lists.
fn subsets(point: &ChoicePoint) -> Vec<Vec<u32>> {
    point
        .alternatives
        .iter()
        .filter_map(|a| match a {
            Alternative::Subset(s) => Some(s.clone()),
            _ => None,
        })
        .collect()
}

/// Rank 0 sends `n` buffered messages with Isend (complete at once), waits
/// for some of them with `wait_some`, then for the rest.
fn isends_then(n: u32, wait_some: WaitKind) -> Program {
    let reqs: Vec<u32> = (1..=n).collect();
    let mut rank0: Vec<Step> = reqs.iter().map(|&q| isend(1, 0, q)).collect();
    rank0.push(wait(wait_some, &reqs));
    rank0.push(wait(WaitKind::All, &reqs));
    rank0.push(fin());
    vec![rank0, vec![fin()]]
}

#[test]
fn waitsome_with_two_complete_requests_branches() {
    let p = isends_then(2, WaitKind::Some);
    let runs = explore(&p, cfg(2), Turns::Forward);
    // Three runs: both requests, then the first alone, then the second alone;
    // the Waitall takes what the Waitsome left.
    assert_eq!(runs.len(), 3, "{runs:?}");
    let seen: Vec<_> = runs
        .iter()
        .map(|r| {
            assert_eq!(r.end, RunEnd::Completed);
            (r.token.to_string(), completions(r, 0))
        })
        .collect();
    assert_eq!(
        seen,
        vec![
            ("0".to_string(), vec![vec![id(0, 0), id(0, 1)]]),
            ("1".to_string(), vec![vec![id(0, 0)], vec![id(0, 1)]]),
            ("2".to_string(), vec![vec![id(0, 1)], vec![id(0, 0)]]),
        ]
    );
    assert_eq!(
        runs[0].choices[0].point.alternatives,
        vec![
            Alternative::Subset(vec![0, 1]),
            Alternative::Subset(vec![0]),
            Alternative::Subset(vec![1]),
        ]
    );
}

#[test]
fn waitsome_offers_every_subset_largest_first() {
    let runs = explore(&isends_then(3, WaitKind::Some), cfg(2), Turns::Forward);
    // Seven runs, one per non-empty subset of the three requests.
    assert_eq!(runs.len(), 7);
    assert_eq!(
        subsets(&runs[0].choices[0].point),
        vec![
            vec![0, 1, 2],
            vec![0, 1],
            vec![0, 2],
            vec![1, 2],
            vec![0],
            vec![1],
            vec![2],
        ]
    );
    let firsts: Vec<usize> = runs.iter().map(|r| completions(r, 0)[0].len()).collect();
    assert_eq!(firsts, vec![3, 2, 2, 2, 1, 1, 1]);
}

#[test]
fn waitsome_beyond_the_cap_offers_all_and_each_alone() {
    let n = poe::engine::SOME_SUBSETS_UP_TO as u32 + 1;
    let runs = explore(&isends_then(n, WaitKind::Some), cfg(2), Turns::Forward);
    // Eight runs for seven requests: all of them, then each one alone.
    assert_eq!(runs.len(), 8);
    let mut want = vec![(0..7).collect::<Vec<u32>>()];
    want.extend((0..7).map(|k| vec![k]));
    assert_eq!(subsets(&runs[0].choices[0].point), want);
}

#[test]
fn waitsome_on_one_request_is_no_choice() {
    let run = only_run(&isends_then(1, WaitKind::Some), cfg(2));
    assert_eq!(run.end, RunEnd::Completed);
    assert!(run.choices.is_empty(), "{:?}", run.choices);
    assert_eq!(completions(&run, 0), vec![vec![id(0, 0)]]);
}

/// The four outcomes of [`waitany_race_program`] with a Waitsome (or
/// Testsome) in place of the Waitany, in exploration order.
fn assert_waitsome_race_outcomes(runs: &[RunResult]) {
    // Four runs: only the first receive is complete when every rank first
    // waits, so the Waitsome returns it while rank 2's wildcard gets rank 1's
    // message or rank 3's (a deadlock); then, with the wildcard decided
    // first, both receives are complete and it returns both or the second
    // alone (the first alone ran already).
    assert_eq!(runs.len(), 4, "{runs:?}");
    let (w, a, b) = (id(0, 0), id(0, 1), id(2, 0));
    let seen: Vec<_> = runs
        .iter()
        .map(|r| {
            let first = completions(r, 0).first().cloned();
            (
                r.token.to_string(),
                first,
                got(r, b),
                matches!(r.end, RunEnd::Completed),
            )
        })
        .collect();
    assert_eq!(
        seen,
        vec![
            ("0.0".to_string(), Some(vec![w]), Some(id(1, 1)), true),
            ("0.1".to_string(), Some(vec![w]), Some(id(3, 0)), false),
            ("1.0".to_string(), Some(vec![w, a]), Some(id(1, 1)), true),
            ("1.1".to_string(), Some(vec![a]), Some(id(1, 1)), true),
        ]
    );
}

#[test]
fn waitsome_can_return_a_request_that_a_later_choice_completes() {
    let p = waitany_race_program(wait(WaitKind::Some, &[1, 2]));
    let runs = explore(&p, cfg(4), Turns::Forward);
    assert_waitsome_race_outcomes(&runs);
    // The first point is the Waitsome with its one complete request, and the
    // wildcard's choices to take first.
    assert_eq!(
        runs[0].choices[0].point.alternatives,
        vec![
            Alternative::Subset(vec![0]),
            Alternative::Defer {
                at: id(2, 0),
                alt: Box::new(Alternative::Send(id(1, 1)))
            },
            Alternative::Defer {
                at: id(2, 0),
                alt: Box::new(Alternative::Send(id(3, 0)))
            },
        ]
    );
    // Deferred, the Waitsome no longer offers the first request alone.
    assert_eq!(
        subsets(&runs[2].choices[1].point),
        vec![vec![0, 1], vec![1]]
    );
    // The Waitall takes what the Waitsome left, if anything.
    assert_eq!(completions(&runs[2], 0), vec![vec![id(0, 0), id(0, 1)]]);
    assert_eq!(
        completions(&runs[3], 0),
        vec![vec![id(0, 1)], vec![id(0, 0)]]
    );
    // Every run replays from its token, in any arrival order.
    assert_replays_in_any_order(&p, cfg(4), &runs);
}

#[test]
fn testsome_can_return_a_request_that_a_later_choice_completes() {
    let testsome = Step::Poll(Op::Test {
        kind: WaitKind::Some,
        reqs: vec![1, 2],
    });
    let runs = explore(&waitany_race_program(testsome), cfg(4), Turns::Forward);
    assert_waitsome_race_outcomes(&runs);
}

#[test]
fn testsome_poll_fails_until_a_wildcard_decides() {
    // Rank 0 polls for messages that ranks 1 and 2 send once their wildcard
    // receive has one of rank 3's.
    let p = vec![
        vec![
            irecv(1, 0, 1),
            irecv(2, 0, 2),
            Step::Poll(Op::Test {
                kind: WaitKind::Some,
                reqs: vec![1, 2],
            }),
            wait(WaitKind::All, &[1, 2]),
            fin(),
        ],
        vec![recv(ANY, 1), send(0, 0), fin()],
        vec![recv(ANY, 1), send(0, 0), fin()],
        vec![send(1, 1), send(2, 1), fin()],
    ];
    let runs = explore(&p, cfg(4), Turns::Forward);
    // Three runs: the poll fails once while both wildcards are open; then
    // rank 1's wildcard is decided first and the poll returns its message
    // alone, or, deferring to rank 2's wildcard, both messages or rank 2's
    // alone.
    assert_eq!(runs.len(), 3, "{runs:?}");
    let seen: Vec<_> = runs
        .iter()
        .map(|r| {
            assert_eq!(r.end, RunEnd::Completed);
            let polls = r.ops[0].iter().filter(|o| o.name == "MPI_Testsome").count();
            (r.token.to_string(), polls, completions(r, 0)[0].clone())
        })
        .collect();
    assert_eq!(
        seen,
        vec![
            ("0.0.0".to_string(), 2, vec![id(0, 0)]),
            ("0.1.0".to_string(), 2, vec![id(0, 0), id(0, 1)]),
            ("0.1.1".to_string(), 2, vec![id(0, 1)]),
        ]
    );
}

#[test]
fn wildcard_probe_branches() {
    let p = vec![
        vec![
            Step::Call(Op::Probe {
                src: ANY,
                tag: ANY,
                comm: COMM_WORLD,
                blocking: true,
            }),
            fin(),
        ],
        vec![send(0, 0), fin()],
        vec![send(0, 0), fin()],
    ];
    let runs = explore(&p, cfg(3), Turns::Forward);
    // Two runs, one per sender.
    assert_eq!(runs.len(), 2);
    for (k, run) in runs.iter().enumerate() {
        assert!(run.fired.contains(&Fired::Probe {
            probe: id(0, 0),
            send: id(k + 1, 0)
        }));
    }
}

#[test]
fn iprobe_polling_loop_terminates() {
    let iprobe = Step::Poll(Op::Probe {
        src: 1,
        tag: 0,
        comm: COMM_WORLD,
        blocking: false,
    });
    // Rank 1 sends only after a barrier on its own, so rank 0 polls at least
    // once in vain.
    let p = vec![
        vec![iprobe, recv(1, 0), fin()],
        vec![coll(CollKind::Barrier, COMM_SELF), send(0, 0), fin()],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(run.end, RunEnd::Completed);
    assert!(run
        .fired
        .iter()
        .any(|f| matches!(f, Fired::Probe { send, .. } if *send == id(1, 1))));
}

#[test]
fn a_probe_of_proc_null_finds_the_empty_message_at_once() {
    let probe = |blocking| Op::Probe {
        src: PROC_NULL,
        tag: 3,
        comm: COMM_WORLD,
        blocking,
    };
    // MPI answers both at once; a poll that never found anything would be a
    // livelock, a blocking probe waiting for a send a deadlock.
    let p = vec![
        vec![Step::Call(probe(true)), Step::Poll(probe(false)), fin()],
        vec![fin()],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(run.end, RunEnd::Completed);
    assert!(!run.fired.iter().any(|f| matches!(f, Fired::Probe { .. })));
}

#[test]
fn test_on_a_request_that_never_completes_is_a_livelock() {
    let p = vec![
        vec![
            irecv(1, 0, 4),
            Step::Poll(Op::Test {
                kind: WaitKind::One,
                reqs: vec![4],
            }),
            fin(),
        ],
        vec![fin()],
    ];
    let run = only_run(&p, cfg(2));
    // The engine answers the poll "not yet" a bounded number of times, then
    // calls it a livelock: rank 0 polls, rank 1 waits in MPI_Finalize.
    match &run.end {
        RunEnd::Livelock { ranks } => {
            assert_eq!(ranks[0].call, Some("MPI_Test"));
            assert_eq!(ranks[1].call, Some("MPI_Finalize"));
        }
        other => panic!("{other:?}"),
    }
}

// Arrival order and replay.

/// A program with several nested choices.
fn choices_program() -> Program {
    vec![
        vec![
            irecv(ANY, ANY, 1),
            recv(ANY, ANY),
            wait(WaitKind::One, &[1]),
            fin(),
        ],
        vec![send(0, 0), recv(ANY, 1), send(0, 1), fin()],
        vec![send(1, 1), send(0, 0), barrier(), fin()],
        vec![send(1, 1), barrier(), fin()],
    ]
}

#[test]
fn arrival_order_does_not_change_the_interleavings() {
    // The last ranks never reach their barrier together with rank 0, so some
    // runs deadlock; what matters is that both orders agree.
    let p = choices_program();
    let fwd = explore(&p, cfg(4), Turns::Forward);
    let bwd = explore(&p, cfg(4), Turns::Backward);
    let key = |rs: &[RunResult]| -> Vec<_> {
        rs.iter()
            .map(|r| (r.token.to_string(), r.end.clone(), wild(r)))
            .collect()
    };
    assert!(fwd.len() > 2, "{}", fwd.len());
    assert_eq!(key(&fwd), key(&bwd));
}

#[test]
fn token_replay_reproduces_the_run() {
    let p = choices_program();
    let runs = explore(&p, cfg(4), Turns::Forward);
    for run in &runs {
        let again = run_once(&p, cfg(4), run.token.plan(), Turns::Backward);
        assert_eq!(again.fired, run.fired, "token {}", run.token);
        assert_eq!(again.end, run.end);
        let parsed: poe::Token = run.token.to_string().parse().unwrap();
        assert_eq!(parsed, run.token);
    }
}

#[test]
fn replay_that_expects_another_choice_point_diverges() {
    let p = vec![
        vec![recv(ANY, 0), fin()],
        vec![send(0, 0), fin()],
        vec![send(0, 0), fin()],
    ];
    let expected = ChoicePoint {
        at: id(2, 0),
        site: Site::default(),
        alternatives: vec![Alternative::Send(id(1, 0))],
    };
    let plan = vec![Planned {
        expect: Some(expected.clone()),
        taken: 0,
        prefer: None,
        before: None,
    }];
    let run = run_once(&p, cfg(3), plan, Turns::Forward);
    match run.end {
        RunEnd::Divergence {
            index,
            expected: e,
            found,
        } => {
            assert_eq!(index, 0);
            assert_eq!(e, Some(expected));
            assert_eq!(found.map(|f| f.at), Some(id(0, 0)));
        }
        other => panic!("{other:?}"),
    }
}

// What a completed run leaves behind.

#[test]
fn a_request_never_waited_for_is_a_leak() {
    // Rank 0's Isend is received but never waited for; rank 1's Irecv is
    // waited for.
    let p = vec![
        vec![isend(1, 0, 7), fin()],
        vec![irecv(0, 0, 8), wait(WaitKind::One, &[8]), fin()],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(run.end, RunEnd::Completed);
    assert_eq!(run.leaks, vec![Leak::Request { op: id(0, 0) }]);
}

#[test]
fn a_message_nobody_receives_is_a_leak() {
    let p = vec![vec![send(1, 5), fin()], vec![fin()]];
    let run = only_run(&p, cfg(2));
    assert_eq!(run.end, RunEnd::Completed);
    assert_eq!(run.leaks, vec![Leak::Message { op: id(0, 0) }]);
}

#[test]
fn a_communicator_never_freed_is_a_leak_and_a_freed_one_is_not() {
    let dup = || Step::Call(Op::CommDup { comm: COMM_WORLD });
    let free = |comm: u32| Step::Call(Op::CommFree { comm });
    // Both ranks duplicate world twice (ids 2 and 3); rank 0 frees both, rank
    // 1 only the first.
    let p = vec![
        vec![dup(), dup(), free(2), free(3), fin()],
        vec![dup(), dup(), free(2), fin()],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(run.end, RunEnd::Completed);
    assert_eq!(
        run.leaks,
        vec![Leak::Comm {
            op: id(1, 1),
            comm: 3
        }]
    );
}

#[test]
fn a_deadlocked_run_reports_no_leaks() {
    let p = vec![vec![irecv(1, 0, 1), recv(1, 1), fin()], vec![fin()]];
    let run = only_run(&p, cfg(2));
    assert!(matches!(run.end, RunEnd::Deadlock { .. }));
    assert_eq!(run.leaks, Vec::new());
}

#[test]
fn leaks_do_not_depend_on_arrival_order() {
    // An Isend and the Irecv that takes it, neither waited for: both requests
    // leak, but the message was received, whichever rank's calls arrive
    // first.
    let p = vec![vec![isend(1, 0, 1), fin()], vec![irecv(0, 0, 2), fin()]];
    for turns in [Turns::Forward, Turns::Backward] {
        let runs = explore(&p, cfg(2), turns);
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].end, RunEnd::Completed);
        assert_eq!(
            runs[0].leaks,
            vec![
                Leak::Request { op: id(0, 0) },
                Leak::Request { op: id(1, 0) }
            ],
            "{turns:?}"
        );
    }
}

#[test]
fn recorded_calls_rerun_without_buffering_show_the_head_to_head_deadlock() {
    let at = |line: u32| Site::Line { file: 4, line };
    let send_to = |d: i32| Op::Send {
        mode: SendMode::Standard,
        dest: d,
        tag: 0,
        comm: COMM_WORLD,
        req: None,
    };
    let recv_from = |s: i32| recv_op(s, 0, COMM_WORLD, 1000, true);
    let calls = vec![
        vec![
            (at(10), send_to(1)),
            (at(11), recv_from(1)),
            (at(12), Op::Finalize),
        ],
        vec![
            (at(10), send_to(0)),
            (at(11), recv_from(0)),
            (at(12), Op::Finalize),
        ],
    ];
    // Buffered, the calls complete; without buffering both ranks wait in
    // their send, at its site.
    assert_eq!(poe::sim::rerun_calls(&calls, cfg(2)).end, RunEnd::Completed);
    match poe::sim::rerun_calls(&calls, zero(2)).end {
        RunEnd::Deadlock { ranks } => {
            let blocked: Vec<_> = ranks.iter().map(|v| (v.call, v.site)).collect();
            assert_eq!(
                blocked,
                vec![(Some("MPI_Send"), at(10)), (Some("MPI_Send"), at(10))]
            );
        }
        other => panic!("expected a deadlock, got {other:?}"),
    }
}

// Point-to-point modes.

fn bsend(dest: i32, tag: i32) -> Step {
    send_on(SendMode::Buffered, dest, tag, COMM_WORLD, None)
}

fn rsend(dest: i32, tag: i32) -> Step {
    send_on(SendMode::Ready, dest, tag, COMM_WORLD, None)
}

#[test]
fn buffered_mode_sends_stay_buffered_without_buffering() {
    // Head-to-head MPI_Bsend: the attached buffer holds both messages, so
    // even a zero-buffer run completes (a standard send deadlocks there).
    let p = vec![
        vec![bsend(1, 0), recv(1, 0), fin()],
        vec![
            send_on(SendMode::Buffered, 0, 0, COMM_WORLD, Some(7)),
            recv(0, 0),
            wait(WaitKind::One, &[7]),
            fin(),
        ],
    ];
    for config in [cfg(2), zero(2)] {
        let run = only_run(&p, config);
        assert_eq!(run.end, RunEnd::Completed);
        assert_eq!(run.leaks, vec![]);
    }
}

#[test]
fn a_ready_send_after_its_receive_is_posted_is_a_standard_send() {
    // Rank 1 posts its receive, then tells rank 0, which sends ready: in
    // either arrival order the receive is known first.
    let p = vec![
        vec![recv(1, 5), rsend(1, 0), fin()],
        vec![irecv(0, 0, 1), send(0, 5), wait(WaitKind::All, &[1]), fin()],
    ];
    for config in [cfg(2), zero(2)] {
        let run = only_run(&p, config);
        assert_eq!(run.end, RunEnd::Completed);
        assert_eq!(got(&run, id(1, 0)), Some(id(0, 1)));
        assert_replays_in_any_order(&p, config, &[run]);
    }
    // Standard under zero buffering: head-to-head ready sends deadlock.
    let p = vec![
        vec![irecv(1, 1, 1), rsend(1, 0), recv(1, 0), fin()],
        vec![irecv(0, 0, 1), rsend(0, 1), recv(0, 1), fin()],
    ];
    let runs = explore(&p, zero(2), Turns::Forward);
    assert!(runs.iter().all(|r| r.end != RunEnd::Completed), "{runs:?}");
}

#[test]
fn a_ready_send_before_its_receive_is_posted_ends_the_run() {
    // Rank 1 posts the receive only after rank 0's next message: the ready
    // send never finds it posted, whatever order the calls arrive in.
    let p = vec![
        vec![rsend(1, 0), send(1, 1), fin()],
        vec![recv(0, 1), recv(0, 0), fin()],
    ];
    for turns in [Turns::Forward, Turns::Backward] {
        let runs = explore(&p, cfg(2), turns);
        assert_eq!(runs.len(), 1);
        match &runs[0].end {
            RunEnd::ReadyUnposted { op, call, dst, .. } => {
                assert_eq!((*op, *call, *dst), (id(0, 0), "MPI_Rsend", 1));
            }
            other => panic!("expected ReadyUnposted, got {other:?}"),
        }
    }
    // A receive the same channel's earlier send takes does not count.
    let p = vec![
        vec![send(1, 0), rsend(1, 0), send(1, 1), fin()],
        vec![
            irecv(0, 0, 1),
            recv(0, 1),
            recv(0, 0),
            wait(WaitKind::One, &[1]),
            fin(),
        ],
    ];
    for turns in [Turns::Forward, Turns::Backward] {
        let runs = explore(&p, cfg(2), turns);
        assert_eq!(runs.len(), 1);
        assert!(
            matches!(runs[0].end, RunEnd::ReadyUnposted { op, .. } if op == id(0, 1)),
            "{:?}",
            runs[0].end
        );
    }
}

// MPI_Request_free.

fn free(req: u32) -> Step {
    Step::Call(Op::RequestFree { req })
}

#[test]
fn a_freed_request_still_matches_and_never_leaks() {
    // Rank 0 frees an active MPI_Isend, rank 1 an active MPI_Irecv: the
    // pair still matches, and no request is left behind; but the receive's
    // buffer was freed while in use.
    let p = vec![
        vec![isend(1, 0, 1), free(1), recv(1, 1), fin()],
        vec![irecv(0, 0, 1), free(1), send(0, 1), fin()],
    ];
    for config in [cfg(2), zero(2)] {
        let run = only_run(&p, config);
        assert_eq!(run.end, RunEnd::Completed);
        assert_eq!(got(&run, id(1, 0)), Some(id(0, 0)));
        assert_eq!(
            run.leaks,
            vec![Leak::FreedReceive {
                op: id(1, 1),
                recv: id(1, 0)
            }]
        );
        assert_replays_in_any_order(&p, config, &[run]);
    }
    // A freed send nobody receives is still an unreceived message.
    let p = vec![vec![isend(1, 0, 1), free(1), fin()], vec![fin()]];
    let run = only_run(&p, cfg(2));
    assert_eq!(run.end, RunEnd::Completed);
    assert_eq!(run.leaks, vec![Leak::Message { op: id(0, 0) }]);
}

#[test]
fn a_freed_wildcard_receive_is_still_a_choice() {
    let p = vec![
        vec![send(2, 0), fin()],
        vec![send(2, 0), fin()],
        vec![irecv(ANY, 0, 1), free(1), recv(ANY, 0), fin()],
    ];
    let runs = explore(&p, cfg(3), Turns::Forward);
    assert_eq!(runs.len(), 2);
    let firsts: Vec<_> = runs.iter().map(|r| got(r, id(2, 0))).collect();
    assert_eq!(firsts, vec![Some(id(0, 0)), Some(id(1, 0))]);
    let freed = Leak::FreedReceive {
        op: id(2, 1),
        recv: id(2, 0),
    };
    assert!(runs
        .iter()
        .all(|r| r.end == RunEnd::Completed && r.leaks == vec![freed.clone()]));
    assert_replays_in_any_order(&p, cfg(3), &runs);
    // Nothing waits for it, but MPI still completes it: it is matched
    // before the run ends, once every rank is in MPI_Finalize.
    let p = vec![
        vec![send(2, 0), fin()],
        vec![send(2, 0), fin()],
        vec![irecv(ANY, 0, 1), free(1), fin()],
    ];
    let runs = explore(&p, cfg(3), Turns::Forward);
    let firsts: Vec<_> = runs.iter().map(|r| got(r, id(2, 0))).collect();
    assert_eq!(firsts, vec![Some(id(0, 0)), Some(id(1, 0))]);
    let left: Vec<_> = runs.iter().map(|r| r.leaks.clone()).collect();
    assert_eq!(
        left,
        vec![
            vec![Leak::Message { op: id(1, 0) }, freed.clone()],
            vec![Leak::Message { op: id(0, 0) }, freed]
        ]
    );
    assert_replays_in_any_order(&p, cfg(3), &runs);
}

#[test]
fn freeing_an_active_receive_is_reported_but_not_a_send_or_an_inactive_one() {
    // A persistent receive freed while inactive, a send freed while
    // active, a receive from MPI_PROC_NULL: none of their buffers is in
    // use. The active receive's is.
    let p = vec![
        vec![
            Step::Call(Op::RequestInit {
                req: 5,
                recv: true,
                mode: SendMode::Standard,
            }),
            free(5),
            irecv(PROC_NULL, 0, 2),
            free(2),
            isend(1, 0, 3),
            free(3),
            fin(),
        ],
        vec![irecv(0, 0, 4), free(4), fin()],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(run.end, RunEnd::Completed);
    assert_eq!(
        run.leaks,
        vec![Leak::FreedReceive {
            op: id(1, 1),
            recv: id(1, 0)
        }]
    );
}

#[test]
fn freeing_a_request_that_is_not_active_is_invalid() {
    // The request was completed by its wait: its handle is null.
    let p = vec![
        vec![isend(1, 0, 1), wait(WaitKind::One, &[1]), free(1), fin()],
        vec![recv(0, 0), fin()],
    ];
    let run = only_run(&p, cfg(2));
    match run.end {
        RunEnd::Invalid { op, message, .. } => {
            assert_eq!(op, id(0, 2));
            assert_eq!(message, "MPI_Request_free: request 1 is not active");
        }
        other => panic!("expected an invalid call, got {other:?}"),
    }
}

// Persistent requests: each MPI_Start is reported as the nonblocking send
// or receive it starts, under the request's id.

fn init(req: u32, recv: bool) -> Step {
    Step::Call(Op::RequestInit {
        req,
        recv,
        mode: SendMode::Standard,
    })
}

#[test]
fn a_persistent_wildcard_receive_is_a_choice_at_each_start() {
    // Rank 2 starts one wildcard receive twice: the first start may take
    // either sender's message, the second takes the other.
    let p = vec![
        vec![send(2, 0), fin()],
        vec![send(2, 0), fin()],
        vec![
            init(5, true),
            irecv(ANY, 0, 5),
            wait(WaitKind::One, &[5]),
            irecv(ANY, 0, 5),
            wait(WaitKind::One, &[5]),
            free(5),
            fin(),
        ],
    ];
    let runs = explore(&p, cfg(3), Turns::Forward);
    let got_by: Vec<_> = runs
        .iter()
        .map(|r| (got(r, id(2, 1)), got(r, id(2, 3))))
        .collect();
    assert_eq!(
        got_by,
        vec![
            (Some(id(0, 0)), Some(id(1, 0))),
            (Some(id(1, 0)), Some(id(0, 0)))
        ]
    );
    assert!(runs
        .iter()
        .all(|r| r.end == RunEnd::Completed && r.leaks.is_empty()));
    assert_replays_in_any_order(&p, cfg(3), &runs);
}

#[test]
fn a_persistent_request_never_freed_leaks_where_it_was_made() {
    let p = vec![
        vec![
            init(1, false),
            isend(1, 0, 1),
            wait(WaitKind::One, &[1]),
            fin(),
        ],
        vec![
            init(2, true),
            irecv(0, 0, 2),
            wait(WaitKind::One, &[2]),
            free(2),
            fin(),
        ],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(run.end, RunEnd::Completed);
    assert_eq!(run.leaks, vec![Leak::Persistent { op: id(0, 0) }]);
    assert_eq!(run.ops[0][0].name, "MPI_Send_init");
    assert_eq!(run.ops[1][0].name, "MPI_Recv_init");
    assert_eq!(run.ops[1][1].name, "MPI_Start");
    // Freed while started: the send still completes, nothing leaks.
    let p = vec![
        vec![init(1, false), isend(1, 0, 1), free(1), fin()],
        vec![recv(0, 0), fin()],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(run.end, RunEnd::Completed);
    assert_eq!(run.leaks, vec![]);
}

#[test]
fn starting_an_active_request_is_invalid() {
    let p = vec![
        vec![init(1, false), isend(1, 0, 1), isend(1, 0, 1), fin()],
        vec![recv(0, 0), recv(0, 0), fin()],
    ];
    let run = only_run(&p, cfg(2));
    match run.end {
        RunEnd::Invalid { op, message, .. } => {
            assert_eq!(op, id(0, 2));
            assert_eq!(message, "MPI_Start: request 1 is already active");
        }
        other => panic!("expected an invalid call, got {other:?}"),
    }
}

// Arguments that matching calls must agree on (Op::Args).

fn args(dtype: &str, count: i64, op: &str) -> Step {
    Step::Call(Op::Args {
        dtype: dtype.into(),
        count,
        op: op.into(),
        counts: Vec::new(),
    })
}

/// The arguments of a `v` collective's root, or of every member of one
/// whose counts by rank all members give alike.
fn args_by_rank(dtype: &str, counts: &[i64], op: &str) -> Step {
    Step::Call(Op::Args {
        dtype: dtype.into(),
        count: 0,
        op: op.into(),
        counts: counts.to_vec(),
    })
}

fn rooted(kind: CollKind, root: i32) -> Step {
    Step::Call(Op::Coll {
        kind,
        comm: COMM_WORLD,
        root,
    })
}

/// The collective mismatch a run of `p` on `p.len()` ranks ends with, or
/// `None` when it completes.
fn coll_mismatch(p: &Program) -> Option<(Differs, Vec<(OpId, String)>)> {
    match only_run(p, cfg(p.len())).end {
        RunEnd::ArgsDiffer {
            collective: true,
            mismatch,
        } => Some((mismatch.differs, mismatch.values)),
        RunEnd::Completed => None,
        e => panic!("{e:?}"),
    }
}

#[test]
fn a_send_received_as_another_datatype_ends_the_run() {
    let p = vec![
        vec![args("MPI_INT", 1, ""), send(1, 0), fin()],
        vec![args("MPI_FLOAT", 1, ""), recv(0, 0), fin()],
    ];
    let run = only_run(&p, cfg(2));
    let RunEnd::ArgsDiffer {
        collective: false,
        mismatch,
    } = &run.end
    else {
        panic!("{:?}", run.end)
    };
    assert_eq!(mismatch.differs, Differs::Datatype);
    assert_eq!(
        mismatch.values,
        vec![
            (id(0, 0), "MPI_INT".to_string()),
            (id(1, 0), "MPI_FLOAT".to_string())
        ]
    );
    // The same message received as its own datatype, into a larger
    // buffer, or as MPI_BYTE, or with no arguments reported: no finding.
    for recv_args in [
        Some(args("MPI_INT", 4, "")),
        Some(args("MPI_BYTE", 4, "")),
        None,
    ] {
        let mut r1 = Vec::new();
        r1.extend(recv_args);
        r1.extend([recv(0, 0), fin()]);
        let p = vec![vec![args("MPI_INT", 1, ""), send(1, 0), fin()], r1];
        assert_eq!(only_run(&p, cfg(2)).end, RunEnd::Completed);
    }
}

#[test]
fn a_wildcard_receive_is_checked_against_the_send_it_gets() {
    // Rank 2 receives a float from any source, then an int: when rank 0's
    // float comes first both agree; when rank 1's int does, the first
    // receive takes an MPI_INT as MPI_FLOAT.
    let p = vec![
        vec![args("MPI_FLOAT", 1, ""), send(2, 0), fin()],
        vec![args("MPI_INT", 1, ""), send(2, 0), fin()],
        vec![
            args("MPI_FLOAT", 1, ""),
            recv(ANY, 0),
            args("MPI_INT", 1, ""),
            recv(ANY, 0),
            fin(),
        ],
    ];
    let runs = explore(&p, cfg(3), Turns::Forward);
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0].end, RunEnd::Completed);
    let RunEnd::ArgsDiffer {
        collective: false,
        mismatch,
    } = &runs[1].end
    else {
        panic!("{:?}", runs[1].end)
    };
    assert_eq!(
        mismatch.values,
        vec![
            (id(1, 0), "MPI_INT".to_string()),
            (id(2, 0), "MPI_FLOAT".to_string())
        ]
    );
}

#[test]
fn collective_members_must_agree_on_datatype_count_and_operation() {
    let allreduce = |dtype: &str, count: i64, op: &str| {
        vec![
            args(dtype, count, op),
            coll(CollKind::Allreduce, COMM_WORLD),
            fin(),
        ]
    };
    let differs = |p: &Program| match only_run(p, cfg(2)).end {
        RunEnd::ArgsDiffer {
            collective: true,
            mismatch,
        } => Some(mismatch.differs),
        RunEnd::Completed => None,
        e => panic!("{e:?}"),
    };
    let p = vec![
        allreduce("MPI_INT", 1, "MPI_SUM"),
        allreduce("MPI_INT", 1, "MPI_MAX"),
    ];
    assert_eq!(differs(&p), Some(Differs::Operation));
    let p = vec![
        allreduce("MPI_INT", 2, "MPI_SUM"),
        allreduce("MPI_INT", 1, "MPI_SUM"),
    ];
    assert_eq!(differs(&p), Some(Differs::Count));
    let p = vec![
        allreduce("MPI_DOUBLE", 1, "MPI_SUM"),
        allreduce("MPI_FLOAT", 1, "MPI_SUM"),
    ];
    assert_eq!(differs(&p), Some(Differs::Datatype));
    let p = vec![
        allreduce("MPI_INT", 1, "MPI_SUM"),
        allreduce("MPI_INT", 1, "MPI_SUM"),
    ];
    assert_eq!(differs(&p), None);
    // A user-defined operation ("") is not compared.
    let p = vec![
        allreduce("MPI_INT", 1, ""),
        allreduce("MPI_INT", 1, "MPI_MAX"),
    ];
    assert_eq!(differs(&p), None);
    // A gather's members give different counts by design: not compared.
    let gather = |count: i64| {
        vec![
            args("MPI_INT", count, ""),
            coll(CollKind::Gatherv, COMM_WORLD),
            fin(),
        ]
    };
    assert_eq!(differs(&vec![gather(1), gather(3)]), None);
}

#[test]
fn nonblocking_collective_members_must_agree_like_blocking_ones() {
    // Each member: its arguments, the nonblocking collective, its wait.
    let member = |a: Step, kind: CollKind| {
        vec![
            a,
            icoll(kind, COMM_WORLD, 7),
            wait(WaitKind::One, &[7]),
            fin(),
        ]
    };
    let p = vec![
        member(args("MPI_INT", 4, ""), CollKind::Ibcast),
        member(args("MPI_DOUBLE", 4, ""), CollKind::Ibcast),
    ];
    let (differs, values) = coll_mismatch(&p).unwrap();
    assert_eq!(differs, Differs::Datatype);
    assert_eq!(
        values,
        vec![
            (id(0, 0), "MPI_INT".into()),
            (id(1, 0), "MPI_DOUBLE".into())
        ]
    );
    let p = vec![
        member(args("MPI_INT", 1, ""), CollKind::Iallgather),
        member(args("MPI_INT", 2, ""), CollKind::Iallgather),
    ];
    assert_eq!(coll_mismatch(&p).unwrap().0, Differs::Count);
    let p = vec![
        member(args("MPI_INT", 1, "MPI_SUM"), CollKind::Iallreduce),
        member(args("MPI_INT", 1, "MPI_MAX"), CollKind::Iallreduce),
    ];
    assert_eq!(coll_mismatch(&p).unwrap().0, Differs::Operation);
    for kind in [CollKind::Ibcast, CollKind::Iallgather, CollKind::Iallreduce] {
        let p = vec![
            member(args("MPI_INT", 2, "MPI_SUM"), kind),
            member(args("MPI_INT", 2, "MPI_SUM"), kind),
        ];
        assert_eq!(coll_mismatch(&p), None, "{kind:?}");
    }
}

#[test]
fn each_member_of_a_gather_sends_what_the_root_receives_from_it() {
    // The root (rank 1) receives 2 ints from each rank; rank 2 sends 1.
    let member = |a: Step| vec![a, rooted(CollKind::Gather, 1), fin()];
    let p = vec![
        member(args("MPI_INT", 2, "")),
        member(args("MPI_INT", 2, "")),
        member(args("MPI_INT", 1, "")),
    ];
    let (differs, values) = coll_mismatch(&p).unwrap();
    assert_eq!(differs, Differs::Count);
    assert_eq!(
        values,
        vec![
            (id(1, 0), "recvcount 2".into()),
            (id(2, 0), "sendcount 1".into())
        ]
    );
    // A datatype the root does not receive.
    let p = vec![
        member(args("MPI_FLOAT", 2, "")),
        member(args("MPI_INT", 2, "")),
    ];
    let (differs, values) = coll_mismatch(&p).unwrap();
    assert_eq!(differs, Differs::Datatype);
    assert_eq!(
        values,
        vec![
            (id(0, 0), "sendtype MPI_FLOAT".into()),
            (id(1, 0), "recvtype MPI_INT".into())
        ]
    );
    // The same signature (a contiguous type of 2 ints arrives as 2
    // MPI_INT), a datatype fib cannot name, an empty block sent as
    // another datatype: no finding. The same for a scatter.
    for (a, b) in [
        (args("MPI_INT", 2, ""), args("MPI_INT", 2, "")),
        (args("", 1, ""), args("MPI_INT", 2, "")),
        (args("MPI_FLOAT", 0, ""), args("MPI_INT", 0, "")),
    ] {
        for kind in [CollKind::Gather, CollKind::Iscatter] {
            let step = |a: &Step| match kind {
                CollKind::Gather => vec![a.clone(), rooted(kind, 1), fin()],
                _ => vec![
                    a.clone(),
                    Step::Call(Op::Icoll {
                        kind,
                        comm: COMM_WORLD,
                        root: 1,
                        req: 3,
                    }),
                    wait(WaitKind::One, &[3]),
                    fin(),
                ],
            };
            assert_eq!(coll_mismatch(&vec![step(&a), step(&b)]), None);
        }
    }
    // A scatter's root sends 3 doubles to each rank; rank 0 receives 2.
    let p = vec![
        vec![
            args("MPI_DOUBLE", 2, ""),
            rooted(CollKind::Scatter, 1),
            fin(),
        ],
        vec![
            args("MPI_DOUBLE", 3, ""),
            rooted(CollKind::Scatter, 1),
            fin(),
        ],
    ];
    assert_eq!(
        coll_mismatch(&p).unwrap().1,
        vec![
            (id(0, 0), "recvcount 2".into()),
            (id(1, 0), "sendcount 3".into())
        ]
    );
}

#[test]
fn each_member_of_a_gatherv_sends_its_count_of_the_roots_counts() {
    let gatherv = |a: Step| vec![a, rooted(CollKind::Gatherv, 0), fin()];
    // The root receives 1, 2 and 3 ints: ranks sending those agree.
    let p = vec![
        gatherv(args_by_rank("MPI_INT", &[1, 2, 3], "")),
        gatherv(args("MPI_INT", 2, "")),
        gatherv(args("MPI_INT", 3, "")),
    ];
    assert_eq!(coll_mismatch(&p), None);
    // Rank 1 sends 3 where the root receives 2 from it.
    let p = vec![
        gatherv(args_by_rank("MPI_INT", &[1, 2, 3], "")),
        gatherv(args("MPI_INT", 3, "")),
        gatherv(args("MPI_INT", 3, "")),
    ];
    assert_eq!(
        coll_mismatch(&p),
        Some((
            Differs::Count,
            vec![
                (id(0, 0), "recvcounts [1, 2, 3]".into()),
                (id(1, 0), "sendcount 3".into())
            ]
        ))
    );
    // A scatterv's root sends counts by rank too.
    let scatterv = |a: Step| vec![a, rooted(CollKind::Scatterv, 1), fin()];
    let p = vec![
        scatterv(args("MPI_INT", 4, "")),
        scatterv(args_by_rank("MPI_INT", &[5, 0], "")),
    ];
    assert_eq!(coll_mismatch(&p).unwrap().0, Differs::Count);
    let p = vec![
        scatterv(args("MPI_INT", 5, "")),
        scatterv(args_by_rank("MPI_INT", &[5, 0], "")),
    ];
    assert_eq!(coll_mismatch(&p), None);
    // Every member of an allgatherv gives the same counts by rank.
    let allgatherv = |counts: &[i64]| {
        vec![
            args_by_rank("MPI_INT", counts, ""),
            coll(CollKind::Allgatherv, COMM_WORLD),
            fin(),
        ]
    };
    assert_eq!(
        coll_mismatch(&vec![allgatherv(&[1, 2]), allgatherv(&[1, 2])]),
        None
    );
    assert_eq!(
        coll_mismatch(&vec![allgatherv(&[1, 2]), allgatherv(&[2, 1])]),
        Some((
            Differs::Count,
            vec![(id(0, 0), "[1, 2]".into()), (id(1, 0), "[2, 1]".into())]
        ))
    );
}

#[test]
fn reported_arguments_hold_for_the_ranks_later_calls() {
    // Rank 1 reports MPI_FLOAT once, before a wait that takes no
    // arguments and two receives: both receives are of floats, and rank
    // 0's second message, of ints, is the one that disagrees.
    let p = vec![
        vec![
            args("MPI_FLOAT", 1, ""),
            send(1, 0),
            args("MPI_INT", 1, ""),
            send(1, 1),
            fin(),
        ],
        vec![
            args("MPI_FLOAT", 1, ""),
            irecv(0, 0, 1),
            wait(WaitKind::One, &[1]),
            recv(0, 1),
            fin(),
        ],
    ];
    let run = only_run(&p, cfg(2));
    let RunEnd::ArgsDiffer {
        collective: false,
        mismatch,
    } = &run.end
    else {
        panic!("{:?}", run.end)
    };
    assert_eq!(
        mismatch.values,
        vec![
            (id(0, 1), "MPI_INT".to_string()),
            (id(1, 2), "MPI_FLOAT".to_string())
        ]
    );
}

// Matched probes.

fn mprobe_op(src: i32, tag: i32, req: u32, blocking: bool) -> Op {
    Op::Mprobe {
        src,
        tag,
        comm: COMM_WORLD,
        req,
        blocking,
    }
}

fn mprobe(src: i32, tag: i32) -> Step {
    Step::Call(mprobe_op(src, tag, 2000, true))
}

fn mrecv() -> Step {
    Step::Call(Op::Mrecv {
        req: 2001,
        blocking: true,
        probe: 2000,
    })
}

#[test]
fn a_wildcard_matched_probe_branches_and_takes_the_message_from_later_receives() {
    // Rank 0 takes one message with a wildcard MPI_Mprobe and receives it
    // with MPI_Mrecv; its wildcard MPI_Recv can then only get the other.
    let p = vec![
        vec![mprobe(ANY, 0), mrecv(), recv(ANY, 0), fin()],
        vec![send(0, 0), fin()],
        vec![send(0, 0), fin()],
    ];
    let runs = explore(&p, cfg(3), Turns::Forward);
    // Two runs: the probe takes rank 1's message, then rank 2's.
    assert_eq!(runs.len(), 2);
    for (k, run) in runs.iter().enumerate() {
        assert_eq!(run.end, RunEnd::Completed);
        let (probed, other) = (id(k + 1, 0), id(2 - k, 0));
        assert_eq!(wild(run), vec![(id(0, 0), probed), (id(0, 2), other)]);
        assert_eq!(run.ops[0][0].name, "MPI_Mprobe");
        assert_eq!(run.ops[0][1].name, "MPI_Mrecv");
        assert!(run.ops[0][1].complete && run.ops[0][1].matched.is_none());
    }
    assert_replays_in_any_order(&p, cfg(3), &runs);
}

#[test]
fn a_named_matched_probe_takes_the_earliest_message_and_the_receive_the_next() {
    let p = vec![
        vec![mprobe(1, 0), recv(1, 0), mrecv(), fin()],
        vec![send(0, 0), send(0, 0), fin()],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(run.end, RunEnd::Completed);
    assert_eq!(got(&run, id(0, 0)), Some(id(1, 0)));
    assert_eq!(got(&run, id(0, 1)), Some(id(1, 1)));
}

#[test]
fn a_synchronous_send_completes_when_a_matched_probe_takes_it() {
    // Rank 1's MPI_Ssend returns once rank 0's probe has taken the message;
    // a second MPI_Mprobe finds nothing more and deadlocks.
    let p = vec![
        vec![mprobe(1, 0), mrecv(), mprobe(1, 0), fin()],
        vec![ssend(0, 0), fin()],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(
        deadlocked_in(&run.end),
        vec![Some("MPI_Mprobe"), Some("MPI_Finalize")]
    );
}

#[test]
fn an_improbe_poll_loop_ends_when_the_message_is_there_and_imrecv_completes() {
    // Rank 1 sends only after a wildcard receive of rank 0's message, a
    // choice taken with every rank waiting, so rank 0 polls at least once
    // in vain; the failed polls take nothing.
    let p = vec![
        vec![
            isend(1, 5, 8),
            Step::Poll(mprobe_op(1, 0, 2000, false)),
            Step::Call(Op::Mrecv {
                req: 7,
                blocking: false,
                probe: 2000,
            }),
            wait(WaitKind::One, &[7]),
            recv(1, 0),
            wait(WaitKind::One, &[8]),
            fin(),
        ],
        vec![recv(ANY, 5), send(0, 0), send(0, 0), fin()],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(run.end, RunEnd::Completed);
    let probes: Vec<&str> = run.ops[0]
        .iter()
        .filter(|o| o.name == "MPI_Improbe")
        .map(|o| o.name)
        .collect();
    assert!(probes.len() >= 2, "{probes:?}");
    // The successful poll took rank 1's first message, the receive the
    // second.
    let last = run.ops[0]
        .iter()
        .rposition(|o| o.name == "MPI_Improbe")
        .unwrap();
    assert_eq!(run.ops[0][last].matched, Some(id(1, 1)));
    assert!(run.ops[0]
        .range(0..last)
        .filter(|o| o.name == "MPI_Improbe")
        .all(|o| o.matched.is_none() && o.complete));
    let recv_at = run.ops[0]
        .iter()
        .position(|o| o.name == "MPI_Recv")
        .unwrap();
    assert_eq!(run.ops[0][recv_at].matched, Some(id(1, 2)));
    assert_eq!(run.ops[0][last + 1].name, "MPI_Imrecv");
    assert!(run.leaks.is_empty(), "{:?}", run.leaks);
}

#[test]
fn a_wildcard_improbe_branches_once_per_sender() {
    let p = vec![
        vec![
            Step::Poll(mprobe_op(ANY, 0, 2000, false)),
            mrecv(),
            recv(ANY, 0),
            fin(),
        ],
        vec![send(0, 0), fin()],
        vec![send(0, 0), fin()],
    ];
    let runs = explore(&p, cfg(3), Turns::Forward);
    let firsts: Vec<Option<OpId>> = runs
        .iter()
        .map(|r| {
            r.ops[0]
                .iter()
                .find(|o| o.name == "MPI_Improbe" && o.matched.is_some())
                .and_then(|o| o.matched)
        })
        .collect();
    assert_eq!(firsts, vec![Some(id(1, 0)), Some(id(2, 0))]);
    assert!(runs.iter().all(|r| r.end == RunEnd::Completed));
}

#[test]
fn an_imrecv_never_waited_for_is_a_leaked_request() {
    let p = vec![
        vec![
            mprobe(1, 0),
            Step::Call(Op::Mrecv {
                req: 7,
                blocking: false,
                probe: 2000,
            }),
            fin(),
        ],
        vec![send(0, 0), fin()],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(run.end, RunEnd::Completed);
    assert_eq!(run.leaks.len(), 1, "{:?}", run.leaks);
}

#[test]
fn a_probed_message_no_mrecv_takes_is_left_unreceived() {
    // Rank 0's two matched probes take rank 1's two messages; it receives
    // only the second with MPI_Mrecv. The first is the leak, named with
    // its send and the probe that took it; a message received from a probe
    // is not.
    let p = vec![
        vec![
            Step::Call(mprobe_op(1, 0, 10, true)),
            Step::Call(mprobe_op(1, 0, 11, true)),
            Step::Call(Op::Mrecv {
                req: 12,
                blocking: true,
                probe: 11,
            }),
            fin(),
        ],
        vec![send(0, 0), send(0, 0), fin()],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(run.end, RunEnd::Completed);
    assert_eq!(
        run.leaks,
        vec![Leak::ProbedMessage {
            op: id(1, 0),
            probe: id(0, 0)
        }]
    );
}

// MPI_Request_get_status.

#[test]
fn request_get_status_polls_without_freeing_and_the_wait_completes() {
    // Rank 1 polls its receive with MPI_Request_get_status until the
    // wildcard choice of rank 2 lets rank 0 send; the request stays active,
    // and only the MPI_Wait after it completes it.
    let p = vec![
        vec![recv(2, 1), ssend(1, 0), fin()],
        vec![
            irecv(0, 0, 7),
            Step::Poll(Op::RequestGetStatus { req: 7 }),
            wait(WaitKind::One, &[7]),
            fin(),
        ],
        vec![recv(ANY, 2), send(0, 1), fin()],
        vec![send(2, 2), fin()],
    ];
    let run = only_run(&p, cfg(4));
    assert_eq!(run.end, RunEnd::Completed);
    let names: Vec<&str> = run.ops[1].iter().map(|o| o.name).collect();
    // At least one vain poll, then the one that sees the message.
    let polls = names
        .iter()
        .filter(|n| **n == "MPI_Request_get_status")
        .count();
    assert!(polls >= 2, "{names:?}");
    // One completion of the receive: the wait's.
    let completions: Vec<_> = run
        .fired
        .iter()
        .filter(
            |f| matches!(f, Fired::Completion { completed, .. } if *completed == vec![id(1, 0)]),
        )
        .collect();
    assert_eq!(completions.len(), 1);
    assert!(matches!(
        completions[0],
        Fired::Completion { op, .. } if run.ops[1][op.index].name == "MPI_Wait"
    ));
    assert!(run.leaks.is_empty(), "{:?}", run.leaks);
}

#[test]
fn a_request_only_ever_inspected_is_a_leaked_request() {
    let p = vec![
        vec![send(1, 0), fin()],
        vec![
            irecv(0, 0, 7),
            Step::Poll(Op::RequestGetStatus { req: 7 }),
            fin(),
        ],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(run.end, RunEnd::Completed);
    assert_eq!(run.leaks.len(), 1, "{:?}", run.leaks);
}

// MPI_Cancel.

fn cancelled(run: &RunResult, rank: usize) -> Vec<bool> {
    // Whether each MPI_Cancel of `rank` cancelled: its operation is a
    // receive that matched nothing and is complete.
    run.ops[rank]
        .iter()
        .filter_map(|o| match o.kind {
            poe::engine::Kind::Cancel { op } => {
                let t = &run.ops[rank][op];
                let recv = matches!(t.kind, poe::engine::Kind::Recv { .. });
                Some(recv && t.complete && t.matched.is_none())
            }
            _ => None,
        })
        .collect()
}

#[test]
fn cancelling_an_unmatched_receive_cancels_it_and_its_wait_completes() {
    // Nothing is ever sent with tag 9: the cancel succeeds, the wait
    // completes, and the later send with tag 0 goes to the second receive.
    let p = vec![
        vec![
            irecv(1, 9, 7),
            Step::Call(Op::Cancel { req: 7 }),
            wait(WaitKind::One, &[7]),
            recv(1, 0),
            fin(),
        ],
        vec![send(0, 0), fin()],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(run.end, RunEnd::Completed);
    assert_eq!(cancelled(&run, 0), vec![true]);
    assert_eq!(got(&run, id(0, 3)), Some(id(1, 0)));
    assert!(run.leaks.is_empty(), "{:?}", run.leaks);
}

#[test]
fn a_cancelled_wildcard_receive_takes_no_message() {
    // The cancel is decided with every rank waiting and rank 1's message
    // not sent yet; it then goes to the wildcard MPI_Recv.
    let p = vec![
        vec![
            irecv(ANY, 0, 7),
            Step::Call(Op::Cancel { req: 7 }),
            wait(WaitKind::One, &[7]),
            send(1, 1),
            recv(ANY, 0),
            fin(),
        ],
        vec![recv(0, 1), send(0, 0), fin()],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(run.end, RunEnd::Completed);
    assert_eq!(cancelled(&run, 0), vec![true]);
    assert_eq!(got(&run, id(0, 4)), Some(id(1, 1)));
}

#[test]
fn a_cancelled_wildcard_receive_races_the_send_it_could_take() {
    // Rank 1's message is there when every rank waits: MPI may give it to
    // the receive (the cancel fails) or cancel the receive first (the
    // message is left unreceived). Two runs.
    let p = vec![
        vec![
            irecv(ANY, 0, 7),
            Step::Call(Op::Cancel { req: 7 }),
            wait(WaitKind::One, &[7]),
            fin(),
        ],
        vec![send(0, 0), fin()],
    ];
    let runs = explore(&p, cfg(2), Turns::Forward);
    let seen: Vec<(Vec<bool>, usize)> = runs
        .iter()
        .map(|r| (cancelled(r, 0), r.leaks.len()))
        .collect();
    assert_eq!(seen, vec![(vec![false], 0), (vec![true], 1)]);
    assert!(runs.iter().all(|r| r.end == RunEnd::Completed));
}

#[test]
fn a_receive_cancelled_first_is_matched_in_the_run_that_defers_the_cancel() {
    // Rank 0's named receive has no send when every rank first waits, so
    // it is cancelled then; but rank 2's wildcard choice of rank 3's
    // message lets rank 1 send to it. The run that takes that choice
    // first gives the receive the message.
    let p = vec![
        vec![
            irecv(1, 0, 7),
            Step::Call(Op::Cancel { req: 7 }),
            wait(WaitKind::One, &[7]),
            fin(),
        ],
        vec![recv(2, 1), send(0, 0), fin()],
        vec![recv(ANY, 0), send(1, 1), fin()],
        vec![send(2, 0), fin()],
    ];
    let runs = explore(&p, cfg(4), Turns::Forward);
    let seen: Vec<Vec<bool>> = runs.iter().map(|r| cancelled(r, 0)).collect();
    assert_eq!(seen, vec![vec![true], vec![false]]);
}

#[test]
fn cancelling_a_receive_that_got_its_message_or_a_send_fails() {
    let p = vec![
        vec![
            irecv(1, 0, 7),
            recv(1, 1),
            Step::Call(Op::Cancel { req: 7 }),
            wait(WaitKind::One, &[7]),
            fin(),
        ],
        vec![
            send(0, 0),
            send(0, 1),
            isend(0, 2, 3),
            Step::Call(Op::Cancel { req: 3 }),
            wait(WaitKind::One, &[3]),
            fin(),
        ],
    ];
    let run = explore(&p, cfg(2), Turns::Forward);
    assert_eq!(run.len(), 1);
    let run = &run[0];
    assert_eq!(run.end, RunEnd::Completed);
    assert_eq!(cancelled(run, 0), vec![false]);
    assert_eq!(got(run, id(0, 0)), Some(id(1, 0)));
    // The send's cancel fails; its message is left unreceived.
    assert_eq!(cancelled(run, 1), vec![false]);
    assert_eq!(run.leaks.len(), 1, "{:?}", run.leaks);
}

#[test]
fn cancelling_the_request_of_a_nonblocking_collective_is_an_invalid_call() {
    let p = vec![vec![
        ibarrier(4),
        Step::Call(Op::Cancel { req: 4 }),
        wait(WaitKind::One, &[4]),
        fin(),
    ]];
    let run = only_run(&p, cfg(1));
    assert!(
        matches!(&run.end, RunEnd::Invalid { message, .. } if message.starts_with("MPI_Cancel")),
        "{:?}",
        run.end
    );
}

// One-sided communication. The window every test makes over
// `MPI_COMM_WORLD` is the first object with a new id: 2.

const WIN: u32 = 2;

fn win_create() -> Step {
    Step::Call(Op::WinCreate {
        comm: COMM_WORLD,
        flavor: WinFlavor::Allocate,
    })
}

fn win_free() -> Step {
    Step::Call(Op::WinFree { win: WIN })
}

fn fence() -> Step {
    Step::Call(Op::WinFence { win: WIN })
}

fn put(target: i32) -> Step {
    Step::Call(Op::Rma {
        win: WIN,
        kind: RmaKind::Put,
        target,
        disp: 0,
        bytes: 8,
        req: None,
        op: String::new(),
        dtype: String::new(),
    })
}

fn post(group: &[u32]) -> Step {
    Step::Call(Op::WinPost {
        win: WIN,
        group: group.to_vec(),
    })
}

fn start(group: &[u32]) -> Step {
    Step::Call(Op::WinStart {
        win: WIN,
        group: group.to_vec(),
    })
}

fn complete() -> Step {
    Step::Call(Op::WinComplete { win: WIN })
}

fn win_wait() -> Step {
    Step::Call(Op::WinWait {
        win: WIN,
        test: false,
    })
}

fn win_test() -> Step {
    Step::Poll(Op::WinWait {
        win: WIN,
        test: true,
    })
}

fn lock(target: i32, exclusive: bool) -> Step {
    Step::Call(Op::WinLock {
        win: WIN,
        target,
        exclusive,
    })
}

fn unlock(target: i32) -> Step {
    Step::Call(Op::WinUnlock { win: WIN, target })
}

fn lock_all() -> Step {
    Step::Call(Op::WinLockAll { win: WIN })
}

fn unlock_all() -> Step {
    Step::Call(Op::WinUnlockAll { win: WIN })
}

fn flush(how: FlushKind, target: i32) -> Step {
    Step::Call(Op::WinFlush {
        win: WIN,
        how,
        target,
    })
}

/// The call of its rank that completes the communication call `op`.
fn done(run: &RunResult, op: OpId) -> Option<usize> {
    match &run.ops[op.rank][op.index].kind {
        poe::engine::Kind::Rma(a) => a.done,
        other => panic!("not a communication call: {other:?}"),
    }
}

/// The synchronisations of a run: which calls each call returned after.
fn syncs(run: &RunResult) -> Vec<(Vec<OpId>, OpId)> {
    run.fired
        .iter()
        .filter_map(|f| match f {
            Fired::Sync { from, to } => Some((from.clone(), *to)),
            _ => None,
        })
        .collect()
}

/// The lock requests each run granted after an unlock, in firing order:
/// (the unlock's rank, the granted request's rank).
fn grant_order(run: &RunResult) -> Vec<(usize, usize)> {
    syncs(run)
        .into_iter()
        .filter(|(_, to)| {
            matches!(
                run.ops[to.rank][to.index].kind,
                poe::engine::Kind::Win {
                    sync: poe::engine::WinSync::Lock { .. } | poe::engine::WinSync::LockAll,
                    ..
                }
            )
        })
        .flat_map(|(from, to)| from.into_iter().map(move |f| (f.rank, to.rank)))
        .collect()
}

#[test]
fn window_creation_fence_and_free_are_collectives_in_the_communicators_order() {
    let p = vec![
        vec![win_create(), fence(), win_free(), fin()],
        vec![win_create(), fence(), win_free(), fin()],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(run.end, RunEnd::Completed);
    let colls: Vec<Vec<OpId>> = run
        .fired
        .iter()
        .filter_map(|f| match f {
            Fired::Collective { ops } => Some(ops.clone()),
            _ => None,
        })
        .collect();
    let both = |i| vec![id(0, i), id(1, i)];
    assert_eq!(colls, vec![both(0), both(1), both(2), both(3)]);
    assert_eq!(run.leaks, Vec::new());

    // A fence against a free on the window ends the run.
    let p = vec![
        vec![win_create(), fence(), win_free(), fin()],
        vec![win_create(), win_free(), fence(), fin()],
    ];
    match only_run(&p, cfg(2)).end {
        RunEnd::CollectiveMismatch { comm, calls } => {
            assert_eq!(comm, WIN);
            let names: Vec<_> = calls.iter().map(|c| c.1).collect();
            assert_eq!(names, vec!["MPI_Win_fence", "MPI_Win_free"]);
        }
        other => panic!("{other:?}"),
    }
    // Creation takes its place in the communicator's collective order.
    let p = vec![vec![win_create(), fin()], vec![barrier(), fin()]];
    match only_run(&p, cfg(2)).end {
        RunEnd::CollectiveMismatch { comm, calls } => {
            assert_eq!(comm, COMM_WORLD);
            let names: Vec<_> = calls.iter().map(|c| c.1).collect();
            assert_eq!(names, vec!["MPI_Win_allocate", "MPI_Barrier"]);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_window_never_freed_is_a_leak() {
    let p = vec![vec![win_create(), fin()], vec![win_create(), fin()]];
    let run = only_run(&p, cfg(2));
    assert_eq!(run.end, RunEnd::Completed);
    assert_eq!(
        run.leaks,
        vec![
            Leak::Window {
                op: id(0, 0),
                win: WIN
            },
            Leak::Window {
                op: id(1, 0),
                win: WIN
            }
        ]
    );
}

#[test]
fn a_start_waits_for_the_post_and_a_wait_for_the_complete() {
    // Rank 1 sends before its start: the post comes, the start takes it,
    // and the wait takes the complete.
    let p = vec![
        vec![
            win_create(),
            recv(1, 0),
            post(&[1]),
            win_wait(),
            win_free(),
            fin(),
        ],
        vec![
            win_create(),
            send(0, 0),
            start(&[0]),
            put(0),
            complete(),
            win_free(),
            fin(),
        ],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(run.end, RunEnd::Completed);
    assert_eq!(
        syncs(&run),
        vec![(vec![id(0, 2)], id(1, 2)), (vec![id(1, 4)], id(0, 3))]
    );
    assert_eq!(
        done(&run, id(1, 3)),
        Some(4),
        "the complete completes the put"
    );
    // Sending after the start deadlocks: the start waits for a post that
    // comes after the receive of that send.
    let p = vec![
        vec![
            win_create(),
            recv(1, 0),
            post(&[1]),
            win_wait(),
            win_free(),
            fin(),
        ],
        vec![
            win_create(),
            start(&[0]),
            send(0, 0),
            put(0),
            complete(),
            win_free(),
            fin(),
        ],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(
        deadlocked_in(&run.end),
        vec![Some("MPI_Recv"), Some("MPI_Win_start")]
    );
}

#[test]
fn a_wait_whose_complete_never_comes_deadlocks() {
    let p = vec![
        vec![win_create(), post(&[1]), win_wait(), win_free(), fin()],
        vec![win_create(), start(&[0]), put(0), win_free(), fin()],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(
        deadlocked_in(&run.end),
        vec![Some("MPI_Win_wait"), Some("MPI_Win_free")]
    );
}

#[test]
fn a_win_test_fails_until_the_complete_comes_and_forever_without_it() {
    // Rank 0 tests once before it sends what rank 1 waits for before its
    // start: that test fails; the wait then takes the complete.
    let once = Step::Call(Op::WinWait {
        win: WIN,
        test: true,
    });
    let p = vec![
        vec![
            win_create(),
            post(&[1]),
            once,
            send(1, 0),
            win_wait(),
            win_free(),
            fin(),
        ],
        vec![
            win_create(),
            recv(0, 0),
            start(&[0]),
            complete(),
            win_free(),
            fin(),
        ],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(run.end, RunEnd::Completed);
    assert_eq!(syncs(&run).last(), Some(&(vec![id(1, 3)], id(0, 4))));
}

#[test]
fn a_win_test_loop_ends_once_the_complete_comes() {
    let p = vec![
        vec![win_create(), post(&[1]), win_test(), win_free(), fin()],
        vec![win_create(), start(&[0]), complete(), win_free(), fin()],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(run.end, RunEnd::Completed);
    assert_eq!(syncs(&run).last(), Some(&(vec![id(1, 2)], id(0, 2))));
}

#[test]
fn a_win_test_loop_without_its_complete_is_a_livelock() {
    let p = vec![
        vec![win_create(), post(&[1]), win_test(), win_free(), fin()],
        vec![win_create(), start(&[0]), win_free(), fin()],
    ];
    let run = only_run(&p, cfg(2));
    assert!(matches!(run.end, RunEnd::Livelock { .. }), "{:?}", run.end);
}

#[test]
fn shared_locks_on_one_target_are_granted_together_and_exclusive_ones_in_either_order() {
    let prog = |exclusive: bool| -> Program {
        let epoch = || {
            vec![
                win_create(),
                lock(2, exclusive),
                put(2),
                unlock(2),
                win_free(),
                fin(),
            ]
        };
        vec![epoch(), epoch(), vec![win_create(), win_free(), fin()]]
    };
    let runs = explore(&prog(false), cfg(3), Turns::Forward);
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].end, RunEnd::Completed);
    assert_eq!(grant_order(&runs[0]), Vec::new());
    assert_eq!(
        done(&runs[0], id(0, 2)),
        Some(3),
        "the unlock completes the put"
    );

    let runs = explore(&prog(true), cfg(3), Turns::Forward);
    let orders: Vec<_> = runs.iter().map(grant_order).collect();
    assert_eq!(orders, vec![vec![(0, 1)], vec![(1, 0)]]);
    assert!(runs.iter().all(|r| r.end == RunEnd::Completed));
    assert_replays_in_any_order(&prog(true), cfg(3), &runs);
}

#[test]
fn three_exclusive_requests_on_one_target_are_granted_in_all_six_orders() {
    let epoch = || vec![win_create(), lock(3, true), unlock(3), win_free(), fin()];
    let p = vec![
        epoch(),
        epoch(),
        epoch(),
        vec![win_create(), win_free(), fin()],
    ];
    let runs = explore(&p, cfg(4), Turns::Forward);
    let mut orders: Vec<Vec<(usize, usize)>> = runs.iter().map(grant_order).collect();
    orders.sort();
    let mut all = Vec::new();
    for a in 0..3 {
        for b in 0..3 {
            for c in 0..3 {
                if a != b && b != c && a != c {
                    all.push(vec![(a, b), (b, c)]);
                }
            }
        }
    }
    all.sort();
    assert_eq!(orders, all, "MPI grants the three epochs in any order");
}

/// The (unlock, grant) pairs of a run's lock grants, sorted.
fn grants(run: &RunResult) -> Vec<(OpId, OpId)> {
    let mut out: Vec<(OpId, OpId)> = syncs(run)
        .into_iter()
        .filter(|(_, to)| {
            matches!(
                run.ops[to.rank][to.index].kind,
                poe::engine::Kind::Win {
                    sync: poe::engine::WinSync::Lock { .. } | poe::engine::WinSync::LockAll,
                    ..
                }
            )
        })
        .flat_map(|(from, to)| from.into_iter().map(move |f| (f, to)))
        .collect();
    out.sort();
    out
}

#[test]
fn a_shared_lock_and_lock_all_conflict_with_an_exclusive_lock() {
    // Rank 0 holds the exclusive lock of rank 2 until rank 1's message
    // comes, which rank 1 sends after its shared epoch and before its
    // lock_all epoch.
    let p = vec![
        vec![
            win_create(),
            lock(2, true),
            recv(1, 0),
            unlock(2),
            win_free(),
            fin(),
        ],
        vec![
            win_create(),
            lock(2, false),
            unlock(2),
            send(0, 0),
            lock_all(),
            put(2),
            unlock_all(),
            win_free(),
            fin(),
        ],
        vec![win_create(), win_free(), fin()],
    ];
    let runs = explore(&p, cfg(3), Turns::Forward);
    assert_eq!(runs.len(), 3);
    // The exclusive lock first: rank 1's shared request waits for an unlock
    // that waits for rank 1's message.
    assert_eq!(
        deadlocked_in(&runs[0].end),
        vec![Some("MPI_Recv"), Some("MPI_Win_lock"), Some("MPI_Win_free")]
    );
    assert_eq!(grants(&runs[0]), vec![]);
    // The shared lock first, then the exclusive one, then lock_all.
    assert_eq!(runs[1].end, RunEnd::Completed);
    assert_eq!(
        grants(&runs[1]),
        vec![(id(0, 3), id(1, 4)), (id(1, 2), id(0, 1))]
    );
    // The shared lock and lock_all first, then the exclusive one, after
    // both shared epochs.
    assert_eq!(runs[2].end, RunEnd::Completed);
    assert_eq!(
        grants(&runs[2]),
        vec![(id(1, 2), id(0, 1)), (id(1, 6), id(0, 1))]
    );
    for r in &runs[1..] {
        assert_eq!(done(r, id(1, 5)), Some(6), "unlock_all completes the put");
    }
}

#[test]
fn nested_locks_taken_in_opposite_orders_deadlock_in_some_interleaving() {
    let p = vec![
        vec![
            win_create(),
            lock(0, true),
            lock(1, true),
            unlock(1),
            unlock(0),
            win_free(),
            fin(),
        ],
        vec![
            win_create(),
            lock(1, true),
            lock(0, true),
            unlock(0),
            unlock(1),
            win_free(),
            fin(),
        ],
    ];
    let runs = explore(&p, cfg(2), Turns::Forward);
    let ends: Vec<bool> = runs
        .iter()
        .map(|r| matches!(r.end, RunEnd::Deadlock { .. }))
        .collect();
    assert!(ends.contains(&true), "{ends:?}");
    assert!(
        ends.contains(&false),
        "MPI may grant one rank both locks first: {ends:?}"
    );
    let dead = runs.iter().find(|r| r.end != RunEnd::Completed).unwrap();
    assert_eq!(
        deadlocked_in(&dead.end),
        vec![Some("MPI_Win_lock"), Some("MPI_Win_lock")]
    );
}

#[test]
fn flushes_and_win_sync_never_block_and_complete_what_they_flush() {
    use FlushKind::*;
    let p = vec![
        vec![
            win_create(),
            lock_all(),
            put(1), // 2: flushed by the flush of 1
            put(2), // 3: a local flush does not complete it; flush_all does
            flush(FlushLocal, 2),
            flush(Sync, 0),
            flush(Flush, 1), // 6
            flush(FlushLocalAll, 0),
            flush(FlushAll, 0), // 8
            put(2),             // 9: unlock_all
            unlock_all(),       // 10
            win_free(),
            fin(),
        ],
        vec![win_create(), win_free(), fin()],
        vec![win_create(), win_free(), fin()],
    ];
    let run = only_run(&p, cfg(3));
    assert_eq!(run.end, RunEnd::Completed);
    assert_eq!(done(&run, id(0, 2)), Some(6));
    assert_eq!(done(&run, id(0, 3)), Some(8));
    assert_eq!(done(&run, id(0, 9)), Some(10));
}

#[test]
fn a_fence_completes_the_calls_of_the_epoch_it_ends() {
    let p = vec![
        vec![
            win_create(),
            fence(),
            put(1),
            put(1),
            fence(),
            put(1),
            win_free(),
            fin(),
        ],
        vec![win_create(), fence(), fence(), win_free(), fin()],
    ];
    let run = only_run(&p, cfg(2));
    assert_eq!(run.end, RunEnd::Completed);
    assert_eq!(done(&run, id(0, 2)), Some(4));
    assert_eq!(done(&run, id(0, 3)), Some(4));
    assert_eq!(done(&run, id(0, 5)), Some(6), "the free completes the last");
}

/// A program with lock grant, PSCW and wildcard choices.
fn window_choices_program() -> Program {
    vec![
        vec![
            win_create(),
            lock(1, true),
            lock(2, true),
            unlock(2),
            unlock(1),
            send(2, 0),
            win_free(),
            fin(),
        ],
        vec![
            win_create(),
            post(&[2]),
            win_wait(),
            lock(2, true),
            lock(1, true),
            unlock(1),
            unlock(2),
            send(2, 0),
            win_free(),
            fin(),
        ],
        vec![
            win_create(),
            start(&[1]),
            put(1),
            complete(),
            recv(ANY, 0),
            lock_all(),
            unlock_all(),
            recv(ANY, 0),
            win_free(),
            fin(),
        ],
    ]
}

#[test]
fn arrival_order_does_not_change_the_interleavings_with_windows() {
    let p = window_choices_program();
    let fwd = explore(&p, cfg(3), Turns::Forward);
    let bwd = explore(&p, cfg(3), Turns::Backward);
    let key = |rs: &[RunResult]| -> Vec<_> {
        rs.iter()
            .map(|r| (r.token.to_string(), r.end.clone(), wild(r), syncs(r)))
            .collect()
    };
    // Both orders of the nested locks (one deadlocks), each wildcard
    // order, and lock_all before or after each.
    assert!(fwd.len() > 4, "{}", fwd.len());
    assert!(fwd.iter().any(|r| matches!(r.end, RunEnd::Deadlock { .. })));
    assert!(fwd.iter().any(|r| r.end == RunEnd::Completed));
    assert_eq!(key(&fwd), key(&bwd));
    assert_replays_in_any_order(&p, cfg(3), &fwd);
}

#[test]
fn leaks_do_not_depend_on_arrival_order_with_windows() {
    // Two exclusive epochs in either order, the window never freed: each
    // rank's creation leaks it in both runs, whichever rank's calls come
    // first.
    let epoch = || vec![win_create(), lock(0, true), put(0), unlock(0), fin()];
    let p = vec![epoch(), epoch()];
    for turns in [Turns::Forward, Turns::Backward] {
        let runs = explore(&p, cfg(2), turns);
        assert_eq!(runs.len(), 2, "{turns:?}");
        for run in &runs {
            assert_eq!(run.end, RunEnd::Completed);
            assert_eq!(
                run.leaks,
                vec![
                    Leak::Window {
                        op: id(0, 0),
                        win: WIN
                    },
                    Leak::Window {
                        op: id(1, 0),
                        win: WIN
                    }
                ],
                "{turns:?}"
            );
        }
    }
}
