//! Snapshot tests of the output formats on one hand-built report: a
//! deadlocked program, a crashed one and a correct one. The expected texts
//! are the `emit__*.snap` files in `tests/snapshots/`; after an intended
//! change, review the new texts with `cargo insta review`.

mod common;

use common::{read_source, strip_ansi};
use fib_report::codes::{Crash, Deadlock, Rule};
use fib_report::emit::{human, json};
use fib_report::{
    Buffering, BuildKind, Finding, Outcome, Place, ProgramReport, RankState, Report, Severity,
    SiteFact, StaticFacts,
};

/// A deadlock of three ranks, at rank 0's receive, worded by hand.
fn deadlock_finding() -> Finding {
    let mut f = Deadlock {
        ranks: vec![
            RankState {
                rank: 0,
                call: "MPI_Recv".into(),
                file: Some("tests/fixtures/race.c".into()),
                line: Some(11),
                column: Some(9),
                span: None,
                thread: None,
            },
            RankState {
                rank: 1,
                call: "MPI_Recv".into(),
                file: Some("tests/fixtures/race.c".into()),
                line: Some(14),
                column: None,
                span: None,
                thread: None,
            },
            RankState {
                rank: 2,
                call: "MPI_Finalize".into(),
                file: None,
                line: None,
                column: None,
                span: None,
                thread: None,
            },
        ],
        replay: "1".into(),
    }
    .finding();
    // The snapshot's wording predates the rule's.
    f.message = "deadlock: no rank can make progress".into();
    f
}

/// A crash of rank 1 at line 7, worded by hand, with the rank's state and a
/// note of two lines.
fn crash_finding() -> Finding {
    let mut f = Crash {
        rank: 1,
        signal: libc::SIGABRT,
        place: Place {
            file: Some("missing/crash.c".into()),
            line: Some(7),
            column: None,
            span: None,
        },
        after_call: true,
        stderr: String::new(),
        replay: "0".into(),
    }
    .finding();
    // The snapshot's wording predates the rule's.
    f.message = "rank 1 was killed by signal 6 (SIGABRT)".into();
    f.ranks = vec![RankState {
        rank: 1,
        call: "killed by SIGABRT".into(),
        file: None,
        line: None,
        column: None,
        span: None,
        thread: None,
    }];
    f.notes = vec![
        "crash: crash.c:7: main: Assertion `from == 1' failed.\n(the program's standard error)"
            .into(),
    ];
    f
}

fn sample() -> Report {
    let deadlock = ProgramReport {
        program: "tests/fixtures/race.c".into(),
        nprocs: 3,
        buffering: Buffering::Buffered,
        outcome: Outcome::Deadlock,
        interleavings: 2,
        findings: vec![deadlock_finding()],
        calls: 123,
        build: Some(BuildKind::Built),
        barriers: vec![],
        timing: Default::default(),
        static_facts: Some(StaticFacts {
            steering: Vec::new(),
            sites: 7,
            barriers: vec![SiteFact {
                file: "tests/fixtures/race.c".into(),
                line: 16,
                column: 3,
                callee: "MPI_Barrier".into(),
                all_inputs: true,
                reasons: vec![],
                dead: false,
            }],
            wildcards: vec![SiteFact {
                file: "tests/fixtures/race.c".into(),
                line: 10,
                column: 5,
                callee: "MPI_Recv".into(),
                all_inputs: false,
                reasons: vec!["`if (argc > 1)` at tests/fixtures/race.c:9 reads `argc`".into()],
                dead: false,
            }],
        }),
        elapsed_ms: 410,
        interrupted: false,
        sends_copied: false,
        files: None,
        workflow: Default::default(),
    };
    let crash = ProgramReport {
        program: "missing/crash.c".into(),
        nprocs: 2,
        buffering: Buffering::Zero,
        outcome: Outcome::Crash,
        interleavings: 1,
        findings: vec![crash_finding()],
        calls: 9,
        build: Some(BuildKind::Cached),
        static_facts: None,
        barriers: vec![],
        timing: Default::default(),
        elapsed_ms: 1234,
        interrupted: false,
        sends_copied: false,
        files: None,
        workflow: Default::default(),
    };
    let ok = ProgramReport {
        program: "ring.c".into(),
        nprocs: 1,
        buffering: Buffering::Buffered,
        outcome: Outcome::Ok,
        interleavings: 1,
        findings: vec![],
        calls: 1,
        build: None,
        static_facts: None,
        barriers: vec![],
        timing: Default::default(),
        elapsed_ms: 52,
        interrupted: false,
        sends_copied: false,
        files: None,
        workflow: Default::default(),
    };
    Report {
        interrupted: false,
        not_checked: Vec::new(),
        programs: vec![deadlock, crash, ok],
    }
}

#[test]
fn human_plain() {
    insta::assert_snapshot!(
        "human",
        human::render_with_sources(&sample(), false, &mut read_source)
    );
}

#[test]
fn human_color_has_escapes_and_same_text() {
    let colored = human::render_with_sources(&sample(), true, &mut read_source);
    assert!(colored.contains("\x1b[1;31merror[FIB001]\x1b[0m"));
    // Removing the escapes gives back the plain text.
    assert_eq!(
        strip_ansi(&colored),
        human::render_with_sources(&sample(), false, &mut read_source)
    );
}

#[test]
fn human_without_source_leaves_out_the_snippet() {
    let text = human::render_with_sources(&sample(), false, &mut |_| None);
    assert!(text.contains("  --> tests/fixtures/race.c:11:9 (rank 0)\n   = rank 0:"));
    assert!(!text.contains(" | "));
}

#[test]
fn json_output() {
    let text = json::render(&sample());
    insta::assert_snapshot!("json", &text);
    // The fields the issue promises are there, with the right values.
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let p = &v["programs"][0];
    assert_eq!(p["program"], "tests/fixtures/race.c");
    assert_eq!(p["nprocs"], 3);
    assert_eq!(p["buffering"], "buffered");
    assert_eq!(p["outcome"], "deadlock");
    assert_eq!(p["interleavings"], 2);
    let f = &p["findings"][0];
    assert_eq!(f["code"], "FIB001");
    assert_eq!(f["severity"], "error");
    assert_eq!(f["file"], "tests/fixtures/race.c");
    assert_eq!(f["line"], 11);
    assert_eq!(f["rank"], 0);
    assert_eq!(f["replay"], "1");
    assert_eq!(v["programs"][1]["buffering"], "zero");
    assert_eq!(v["programs"][2]["findings"], serde_json::json!([]));
}

#[test]
fn exit_code_of_sample_is_one() {
    assert_eq!(sample().exit_code(), 1);
    assert_eq!(sample().programs[1].findings[0].severity(), Severity::Error);
}
