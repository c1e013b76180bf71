//! The analysis layer on runs of the simulated engine (no MPI, no
//! processes): the records a driver would hand over, turned into findings
//! and barrier verdicts. The simulated ranks report the site of their
//! call number `pc` as line `pc + 1` of file 1, `p.c`, whose site table
//! below has one entry per line and MPI function.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use fib_analysis::barriers::{self, GroupVerdict};
use fib_analysis::timeline::CALLS_PER_RANK;
use fib_analysis::{confirm, Ending, Exploration, Explored, FileNames, Keep, Resolver, RunRecord};
use fib_report::codes::{FIB001, FIB014, FIB015, FIB017, FIB018, FIB023};
use fib_report::timeline::{At, LinkKind, Role, Timeline};
use fib_report::{Outcome, Verdict, Witness};
use fib_sites::{Analysis, CallSite, Dependence, Facts, SiteTable};
use fib_wire::{CollKind, Op, SendMode, ANY, COMM_WORLD};
use poe::engine::{Config, RunEnd};
use poe::sim::{explore, RunResult, Step, Turns};

fn send(dest: i32) -> Step {
    Step::Call(Op::Send {
        mode: SendMode::Standard,
        dest,
        tag: 0,
        comm: COMM_WORLD,
        req: None,
    })
}

fn isend(dest: i32, req: u32) -> Step {
    Step::Call(Op::Send {
        mode: SendMode::Standard,
        dest,
        tag: 0,
        comm: COMM_WORLD,
        req: Some(req),
    })
}

fn recv(src: i32) -> Step {
    Step::Call(Op::Recv {
        src,
        tag: 0,
        comm: COMM_WORLD,
        req: 0,
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

/// The site table of `program`: one site per (line, MPI function), column
/// 5, every site reached whatever the input.
fn analysis(runs: &[RunResult]) -> Analysis {
    let mut seen = BTreeSet::new();
    for run in runs {
        for ops in &run.ops {
            for (pc, op) in ops.iter().enumerate() {
                seen.insert((pc as u32 + 1, op.name));
            }
        }
    }
    let sites: Vec<CallSite> = seen
        .into_iter()
        .enumerate()
        .map(|(id, (line, callee))| CallSite {
            id: id as u32,
            file: PathBuf::from("p.c"),
            line,
            column: 5,
            span: (100 * line as usize, 100 * line as usize + 20),
            callee: callee.to_string(),
            args: Vec::new(),
            function: Some("main".into()),
            macro_name: None,
            buffers: Vec::new(),
            bounds: Vec::new(),
            structs: Vec::new(),
            any_thread: None,
        })
        .collect();
    let barriers = sites
        .iter()
        .filter(|s| s.callee == "MPI_Barrier")
        .map(|s| s.id)
        .collect();
    let control = sites
        .iter()
        .map(|s| (s.id, Dependence::InputIndependent))
        .collect();
    Analysis {
        sites: SiteTable { sites },
        facts: Facts {
            purposes: Vec::new(),
            barriers,
            wildcards: Vec::new(),
            control,
            steering: Vec::new(),
            free_waits: Vec::new(),
            free_receives: Vec::new(),
            free_probes: Vec::new(),
            dead: Vec::new(),
            inputs: Vec::new(),
            gates: Vec::new(),
        },
        units: Vec::new(),
        files: Vec::new(),
        read: None,
    }
}

fn files() -> FileNames {
    [(1, "p.c".to_string())].into()
}

fn record(run: &RunResult) -> RunRecord {
    RunRecord {
        ending: Ending::Engine(run.end.clone()),
        choices: run.choices.clone(),
        fired: run.fired.clone(),
        ops: run.ops.clone(),
        ranks: Vec::new(),
        files: files(),
        calls: run.ops.iter().map(|o| o.len() as u64).sum(),
        stderr: String::new(),
        leaks: run.leaks.clone(),
        handles: Vec::new(),
        owned: Vec::new(),
        threads: Vec::new(),
        watched: Vec::new(),
        call_threads: Vec::new(),
        unbuffered: None,
        exchanges: run.exchanges.clone(),
        struct_types: Vec::new(),
        untried: Vec::new(),
        streams: None,
        probes: 0,
    }
}

fn explored(sites: &Resolver, runs: &[RunResult], keep: Keep) -> Explored {
    let mut e = Exploration::new(sites, keep);
    for r in runs {
        e.add(record(r), r.token.to_string(), r.choices.len());
    }
    e.finish()
}

fn cfg(n: usize) -> Config {
    Config {
        nprocs: n,
        zero_buffer: false,
        exchange: false,
    }
}

const EVERYTHING: Keep = Keep {
    traces: true,
    signature: true,
};

#[test]
fn a_barrier_between_a_wildcard_and_a_later_send_is_relevant_with_its_witness() {
    let program = vec![
        vec![recv(ANY), barrier(), recv(ANY), fin()],
        vec![send(0), barrier(), fin()],
        vec![barrier(), send(0), fin()],
    ];
    let runs = explore(&program, cfg(3), Turns::Forward);
    let a = analysis(&runs);
    let sites = Resolver::new(&a, Path::new("src"));
    let base = explored(&sites, &runs, EVERYTHING);
    assert_eq!((base.outcome, base.interleavings), (Outcome::Ok, 1));
    let groups = barriers::classify(&sites, &base.traces, base.interleavings);
    // The barriers on lines 1 and 2 match each other: one group.
    assert_eq!(groups.len(), 1);
    let g = &groups[0];
    let lines: Vec<u32> = g.report.group.iter().map(|s| s.line).collect();
    assert_eq!(lines, vec![1, 2]);
    assert_eq!(g.report.verdict, Verdict::Relevant);
    let Some(Witness::Relevant {
        recv, send, replay, ..
    }) = &g.report.witness
    else {
        panic!("no witness: {:?}", g.report.witness);
    };
    assert_eq!(
        (recv.rank, recv.call.as_str(), recv.line),
        (0, "MPI_Recv", Some(1))
    );
    assert_eq!(
        (send.rank, send.call.as_str(), send.line),
        (2, "MPI_Send", Some(2))
    );
    assert_eq!(recv.file.as_deref(), Some("src/p.c"));
    assert_eq!(replay, &runs[0].token.to_string());
    let found = barriers::findings(&groups, barriers::Context::default());
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].code, &FIB015);
    assert_eq!(
        found[0].message,
        "relevant barrier: it keeps rank 2's MPI_Send away from rank 0's wildcard MPI_Recv"
    );
}

#[test]
fn a_barrier_after_all_the_traffic_is_irrelevant_over_every_interleaving() {
    let program = vec![
        vec![recv(ANY), recv(ANY), barrier(), fin()],
        vec![send(0), barrier(), fin()],
        vec![send(0), barrier(), fin()],
    ];
    let runs = explore(&program, cfg(3), Turns::Forward);
    assert_eq!(runs.len(), 2);
    let a = analysis(&runs);
    let sites = Resolver::new(&a, Path::new(""));
    let base = explored(&sites, &runs, EVERYTHING);
    let groups = barriers::classify(&sites, &base.traces, base.interleavings);
    assert_eq!(groups.len(), 1);
    assert_eq!(groups[0].report.verdict, Verdict::Irrelevant);
    assert_eq!((groups[0].ranks, groups[0].instances), (3, 3));
    assert_eq!(
        groups[0].report.witness,
        Some(Witness::Irrelevant {
            interleavings: 2,
            ranks: 3,
            instances: 3,
            ordered_by: None,
        })
    );
    let found = barriers::findings(
        &groups,
        barriers::Context {
            cut: true,
            ..Default::default()
        },
    );
    assert_eq!(found[0].code, &FIB014);
    assert!(
        found[0].message.contains("not all of them"),
        "a cut exploration says so: {}",
        found[0].message
    );
    // Both wildcard receives' pairings over both runs.
    assert_eq!(base.signature.pairs.len(), 4);
}

#[test]
fn removal_that_changes_the_pairs_overrules_the_fast_method_and_says_so() {
    let program = vec![
        vec![recv(ANY), recv(ANY), barrier(), fin()],
        vec![send(0), barrier(), fin()],
        vec![send(0), barrier(), fin()],
    ];
    let runs = explore(&program, cfg(3), Turns::Forward);
    let a = analysis(&runs);
    let sites = Resolver::new(&a, Path::new(""));
    let base = explored(&sites, &runs, EVERYTHING);
    let mut groups: Vec<GroupVerdict> =
        barriers::classify(&sites, &base.traces, base.interleavings);
    // Pretend removal lost a pairing: the program without the group could
    // do less, so the group is relevant after all, and the fast method's
    // "irrelevant" is an internal error on a program that does not fail.
    let mut without = base.signature.clone();
    let first = *without.pairs.iter().next().unwrap();
    without.pairs.remove(&first);
    let f = confirm::settle(
        "p.c",
        &mut groups[0],
        false,
        base.interleavings,
        &base.signature,
        &without,
    );
    assert_eq!(groups[0].report.verdict, Verdict::Relevant);
    assert!(groups[0].report.confirmed);
    assert_eq!(f.map(|f| f.code), Some(&FIB017));
    // The same removal on a program that fails somewhere is no error.
    let mut groups = barriers::classify(&sites, &base.traces, base.interleavings);
    let f = confirm::settle("p.c", &mut groups[0], true, 2, &base.signature, &without);
    assert!(f.is_none());
    assert_eq!(groups[0].report.verdict, Verdict::Relevant);
}

#[test]
fn a_deadlock_is_placed_at_the_first_blocked_rank_and_reported_once() {
    // Both ranks receive first.
    let program = vec![vec![recv(1), send(1), fin()], vec![recv(0), send(0), fin()]];
    let runs = explore(&program, cfg(2), Turns::Forward);
    assert_eq!(runs.len(), 1);
    assert!(matches!(runs[0].end, RunEnd::Deadlock { .. }));
    let a = analysis(&runs);
    let sites = Resolver::new(&a, Path::new(""));
    // The same run twice: one finding, two interleavings.
    let twice = [runs[0].clone(), runs[0].clone()];
    let done = explored(&sites, &twice, Keep::default());
    assert_eq!((done.outcome, done.interleavings), (Outcome::Deadlock, 2));
    assert_eq!(done.findings.len(), 1);
    let f = &done.findings[0];
    assert_eq!(f.code, &FIB001);
    assert_eq!(
        f.message,
        "deadlock: rank 0 in MPI_Recv, rank 1 in MPI_Recv"
    );
    assert_eq!(
        (f.file.as_deref(), f.line, f.column),
        (Some("p.c"), Some(1), Some(5))
    );
    assert_eq!(f.span, Some((100, 120)));
    assert_eq!(f.rank, Some(0));
    assert_eq!(
        f.replay.as_deref(),
        Some(runs[0].token.to_string().as_str())
    );
    assert!(
        done.traces.is_empty(),
        "nothing kept that was not asked for"
    );
}

#[test]
fn a_request_never_completed_is_one_leak_per_site() {
    let program = vec![
        vec![isend(1, 7), isend(1, 8), recv(1), fin()],
        vec![recv(0), recv(0), send(0), fin()],
    ];
    let runs = explore(&program, cfg(2), Turns::Forward);
    let a = analysis(&runs);
    let sites = Resolver::new(&a, Path::new(""));
    let done = explored(&sites, &runs, Keep::default());
    assert_eq!(done.outcome, Outcome::Ok);
    let leaks: Vec<(u32, &str)> = done
        .findings
        .iter()
        .filter(|f| f.code == &FIB018)
        .map(|f| (f.line.unwrap(), f.message.as_str()))
        .collect();
    assert_eq!(
        leaks,
        vec![
            (
                1,
                "rank 0: the request of this MPI_Isend is never completed by a wait or test"
            ),
            (
                2,
                "rank 0: the request of this MPI_Isend is never completed by a wait or test"
            ),
        ]
    );
}

#[test]
fn a_run_the_engine_did_not_finish_is_judged_by_how_it_ended() {
    let program = vec![vec![fin()], vec![fin()]];
    let runs = explore(&program, cfg(2), Turns::Forward);
    let a = analysis(&runs);
    let sites = Resolver::new(&a, Path::new(""));
    let mut e = Exploration::new(&sites, Keep::default());
    let mut rec = record(&runs[0]);
    rec.ending = Ending::Unsupported {
        rank: 1,
        name: "MPI_Cancel".into(),
        site: fib_wire::Site::Line { file: 1, line: 1 },
    };
    assert!(e.add(rec, "-".into(), 0), "fib cannot follow the program");
    let done = e.finish();
    assert_eq!(done.outcome, Outcome::Unsupported);
    assert_eq!(
        done.findings[0].message,
        "MPI_Cancel is not supported by fib yet"
    );
    assert_eq!(done.findings[0].rank, Some(1));
}

/// The marks of a picture's lane `rank`: (index, call, line, role).
fn marks(t: &Timeline, rank: usize) -> Vec<(usize, &str, Option<u32>, Role)> {
    t.lanes[rank]
        .marks
        .iter()
        .map(|m| (m.index, m.call.as_str(), m.line, m.role))
        .collect()
}

fn at(rank: usize, index: usize) -> At {
    At { rank, index }
}

#[test]
fn a_relevant_barrier_carries_the_picture_of_its_witness_run() {
    let program = vec![
        vec![recv(ANY), barrier(), recv(ANY), fin()],
        vec![send(0), barrier(), fin()],
        vec![barrier(), send(0), fin()],
    ];
    let runs = explore(&program, cfg(3), Turns::Forward);
    let a = analysis(&runs);
    let sites = Resolver::new(&a, Path::new("src"));
    let base = explored(&sites, &runs, EVERYTHING);
    let groups = barriers::classify(&sites, &base.traces, base.interleavings);
    let t = groups[0]
        .report
        .timeline
        .as_ref()
        .expect("a relevant group has a picture");
    assert_eq!(t.lanes.len(), 3, "one lane per rank");
    assert_eq!(t.omitted(), 0);
    assert_eq!(
        marks(t, 0),
        vec![
            (0, "MPI_Recv", Some(1), Role::WitnessRecv),
            (1, "MPI_Barrier", Some(2), Role::WitnessBarrier),
            (2, "MPI_Recv", Some(3), Role::Plain),
            (3, "MPI_Finalize", Some(4), Role::Plain),
        ]
    );
    assert_eq!(t.lanes[0].marks[0].peer.as_deref(), Some("from any"));
    assert_eq!(t.lanes[0].marks[0].file.as_deref(), Some("src/p.c"));
    assert_eq!(
        marks(t, 2),
        vec![
            (0, "MPI_Barrier", Some(1), Role::WitnessBarrier),
            (1, "MPI_Send", Some(2), Role::WitnessSend),
            (2, "MPI_Finalize", Some(3), Role::Plain),
        ]
    );
    let link = |kind: LinkKind| -> Vec<(&[At], bool)> {
        t.links
            .iter()
            .filter(|l| l.kind == kind)
            .map(|l| (l.ends.as_slice(), l.highlight))
            .collect()
    };
    // Rank 1's send went to the first wildcard receive, rank 2's to the
    // second; the barrier is on the path, MPI_Finalize is not.
    assert_eq!(
        link(LinkKind::Message { wildcard: true }),
        vec![
            (&[at(1, 0), at(0, 0)][..], false),
            (&[at(2, 1), at(0, 2)][..], false)
        ]
    );
    assert_eq!(
        link(LinkKind::Collective),
        vec![
            (&[at(0, 1), at(1, 1), at(2, 0)][..], true),
            (&[at(0, 3), at(1, 2), at(2, 2)][..], false)
        ]
    );
    assert_eq!(
        link(LinkKind::Rival),
        vec![(&[at(2, 1), at(0, 0)][..], true)]
    );
    // Receive, its barrier call, across the barrier to rank 2, its send.
    assert_eq!(t.path, vec![at(0, 0), at(0, 1), at(2, 0), at(2, 1)]);
    // The finding that shows the verdict carries the same picture, and the
    // JSON of the report does not.
    let found = barriers::findings(&groups, barriers::Context::default());
    assert_eq!(found[0].timeline.as_ref(), Some(t));
    let json = serde_json::to_string(&groups[0].report).unwrap();
    assert!(
        !json.contains("timeline") && !json.contains("WitnessRecv"),
        "{json}"
    );
    let json = serde_json::to_string(&found[0]).unwrap();
    assert!(!json.contains("timeline"), "{json}");
}

#[test]
fn removal_that_overrules_a_relevant_verdict_drops_its_picture() {
    let program = vec![
        vec![recv(ANY), barrier(), recv(ANY), fin()],
        vec![send(0), barrier(), fin()],
        vec![barrier(), send(0), fin()],
    ];
    let runs = explore(&program, cfg(3), Turns::Forward);
    let a = analysis(&runs);
    let sites = Resolver::new(&a, Path::new(""));
    let base = explored(&sites, &runs, EVERYTHING);
    let mut groups = barriers::classify(&sites, &base.traces, base.interleavings);
    assert!(groups[0].report.timeline.is_some());
    // Removal finds nothing changed: the group is irrelevant after all.
    confirm::settle(
        "p.c",
        &mut groups[0],
        false,
        1,
        &base.signature,
        &base.signature,
    );
    assert_eq!(groups[0].report.verdict, Verdict::Irrelevant);
    assert_eq!(groups[0].report.timeline, None);
}

#[test]
fn a_deadlock_carries_the_picture_of_its_blocked_ranks() {
    // Rank 2 finishes; ranks 0 and 1 receive from each other first.
    let program = vec![
        vec![send(2), recv(1), send(1), fin()],
        vec![recv(0), send(0), fin()],
        vec![recv(0), fin()],
    ];
    let runs = explore(&program, cfg(3), Turns::Forward);
    assert!(matches!(runs[0].end, RunEnd::Deadlock { .. }));
    let a = analysis(&runs);
    let sites = Resolver::new(&a, Path::new(""));
    let done = explored(&sites, &runs, Keep::default());
    let f = &done.findings[0];
    assert_eq!(f.code, &FIB001);
    let t = f.timeline.as_ref().expect("a deadlock has a picture");
    assert_eq!(t.lanes.len(), 3);
    assert_eq!(
        marks(t, 0),
        vec![
            (0, "MPI_Send", Some(1), Role::Plain),
            (1, "MPI_Recv", Some(2), Role::Blocked),
        ]
    );
    assert_eq!(marks(t, 1), vec![(0, "MPI_Recv", Some(1), Role::Blocked)]);
    assert_eq!(
        marks(t, 2),
        vec![
            (0, "MPI_Recv", Some(1), Role::Plain),
            (1, "MPI_Finalize", Some(2), Role::Waiting),
        ]
    );
    assert_eq!(t.lanes[0].marks[0].peer.as_deref(), Some("to 2"));
    assert_eq!(t.lanes[1].marks[0].peer.as_deref(), Some("from 0"));
    assert_eq!(t.links.len(), 1);
    assert_eq!(t.links[0].kind, LinkKind::Message { wildcard: false });
    assert_eq!(t.links[0].ends, vec![at(0, 0), at(2, 0)]);
    assert!(t.path.is_empty());
}

#[test]
fn a_long_run_is_drawn_as_a_window_around_the_blocked_calls() {
    // 300 messages from rank 1 to rank 0, then both receive.
    let mut r0: Vec<Step> = (0..300).map(|_| recv(1)).collect();
    r0.push(recv(1));
    let mut r1: Vec<Step> = (0..300).map(|_| send(0)).collect();
    r1.push(recv(0));
    let program = vec![r0, r1];
    let runs = explore(&program, cfg(2), Turns::Forward);
    let a = analysis(&runs);
    let sites = Resolver::new(&a, Path::new(""));
    let done = explored(&sites, &runs, Keep::default());
    let t = done.findings[0].timeline.as_ref().unwrap();
    for (rank, lane) in t.lanes.iter().enumerate() {
        assert_eq!(lane.total, 301);
        assert_eq!(lane.marks.len(), CALLS_PER_RANK, "rank {rank}");
        let last = lane.marks.last().unwrap();
        assert_eq!((last.index, last.role), (300, Role::Blocked));
        assert_eq!(lane.marks[0].index, 301 - CALLS_PER_RANK);
    }
    assert_eq!(t.omitted(), 2 * (301 - CALLS_PER_RANK));
    // Only messages between drawn calls are linked: rank 1's last 39 sends
    // went to rank 0's last 39 receives.
    assert_eq!(t.links.len(), CALLS_PER_RANK - 1);
    assert!(t
        .links
        .iter()
        .all(|l| l.ends.iter().all(|&e| t.find(e).is_some())));
    // The columns keep every receive right of its send.
    let cols = t.columns();
    for l in &t.links {
        let (s, r) = (t.find(l.ends[0]).unwrap(), t.find(l.ends[1]).unwrap());
        assert!(cols[r.0][r.1] > cols[s.0][s.1]);
    }
}

#[test]
fn a_deadlock_hidden_by_buffering_carries_the_picture_of_the_rerun() {
    // Head to head: each rank sends to the other before receiving.
    let program = vec![vec![send(1), recv(1), fin()], vec![send(0), recv(0), fin()]];
    let runs = explore(&program, cfg(2), Turns::Forward);
    assert_eq!(runs[0].end, RunEnd::Completed);
    let a = analysis(&runs);
    let sites = Resolver::new(&a, Path::new(""));
    let mut rec = record(&runs[0]);
    let calls = poe::sim::calls_of(&program);
    let unbuffered = poe::Config {
        nprocs: 2,
        zero_buffer: true,
        exchange: false,
    };
    rec.unbuffered = Some(poe::sim::rerun_calls(&calls, unbuffered));
    let mut e = Exploration::new(&sites, Keep::default());
    e.add(rec, "0".into(), 0);
    let done = e.finish();
    let f = done
        .findings
        .iter()
        .find(|f| f.code == &FIB023)
        .expect("the rerun deadlocks");
    let t = f.timeline.as_ref().unwrap();
    assert_eq!(marks(t, 0), vec![(0, "MPI_Send", Some(1), Role::Blocked)]);
    assert_eq!(marks(t, 1), vec![(0, "MPI_Send", Some(1), Role::Blocked)]);
    assert!(t.links.is_empty());
}

#[test]
fn an_interrupted_exploration_decides_only_what_a_witness_proves() {
    // Two interleavings, and a barrier after all the traffic: after the
    // first one, nothing showed the barrier needed, but that is no verdict.
    let program = vec![
        vec![recv(ANY), recv(ANY), barrier(), fin()],
        vec![send(0), barrier(), fin()],
        vec![send(0), barrier(), fin()],
    ];
    let runs = explore(&program, cfg(3), Turns::Forward);
    assert_eq!(runs.len(), 2);
    let a = analysis(&runs);
    let sites = Resolver::new(&a, Path::new(""));
    let mut e = Exploration::new(&sites, EVERYTHING);
    e.add(record(&runs[0]), runs[0].token.to_string(), 0);
    e.interrupt();
    let base = e.finish();
    assert!(base.interrupted);
    assert_eq!(base.interleavings, 1);
    let mut groups = barriers::classify(&sites, &base.traces, base.interleavings);
    assert_eq!(groups[0].report.verdict, Verdict::Irrelevant);
    barriers::undecided(&mut groups);
    assert_eq!(groups[0].report.verdict, Verdict::Undecided);
    assert_eq!(groups[0].report.witness, None);
    let found = barriers::findings(
        &groups,
        barriers::Context {
            interrupted: Some(1),
            ..Default::default()
        },
    );
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].code.code, "FIB016");
    assert_eq!(
        found[0].message,
        "barrier not decided: interrupted after 1 interleaving"
    );

    // A relevant verdict's witness is a proof however few runs were made.
    let program = vec![
        vec![recv(ANY), barrier(), recv(ANY), fin()],
        vec![send(0), barrier(), fin()],
        vec![barrier(), send(0), fin()],
    ];
    let runs = explore(&program, cfg(3), Turns::Forward);
    let a = analysis(&runs);
    let sites = Resolver::new(&a, Path::new(""));
    let mut e = Exploration::new(&sites, EVERYTHING);
    e.add(record(&runs[0]), runs[0].token.to_string(), 0);
    e.interrupt();
    let base = e.finish();
    let mut groups = barriers::classify(&sites, &base.traces, base.interleavings);
    barriers::undecided(&mut groups);
    assert_eq!(groups[0].report.verdict, Verdict::Relevant);
    assert!(matches!(
        groups[0].report.witness,
        Some(Witness::Relevant { .. })
    ));
    let found = barriers::findings(
        &groups,
        barriers::Context {
            interrupted: Some(1),
            ..Default::default()
        },
    );
    assert_eq!(found[0].code, &FIB015);
}
