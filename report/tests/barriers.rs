//! Snapshot tests of the barrier verdicts in the output formats: one program
//! with three barrier groups (an irrelevant one with two sites in one file, a
//! relevant one with its witness, and one that never ran, with a site in a
//! second file), drawn with their source spans from the fixtures
//! `tests/fixtures/barriers.c` and `tests/fixtures/barriers_io.c`. The
//! expected texts are the `barriers__*.snap` files in `tests/snapshots/`;
//! after an intended change, review the new texts with `cargo insta review`.

mod common;

use std::collections::BTreeSet;

use common::{read_source, strip_ansi};
use fib_report::codes::{BarrierNotCovered, Inputs, IrrelevantBarrier, RelevantBarrier, Rule};
use fib_report::emit::{human, json};
use fib_report::{
    BarrierReport, Buffering, BuildKind, Outcome, ProgramReport, Report, SiteFact, SiteRef,
    StaticFacts, Verdict, Witness, WitnessOp,
};

const MAIN: &str = "tests/fixtures/barriers.c";
const IO: &str = "tests/fixtures/barriers_io.c";

/// The call at `line`:`column` of the fixture `file`, its span running from
/// the column to the `;` that ends the call.
fn site(file: &str, line: u32, column: u32) -> SiteRef {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let text = std::fs::read_to_string(path).unwrap();
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line as usize - 1)
        .map(str::len)
        .sum();
    let start = line_start + column as usize - 1;
    let end = start + text[start..].find(';').unwrap();
    SiteRef {
        file: file.into(),
        line,
        column,
        span: Some((start, end)),
    }
}

fn op(site: &SiteRef, rank: usize, call: &str) -> WitnessOp {
    WitnessOp {
        file: Some(site.file.clone()),
        line: Some(site.line),
        column: Some(site.column),
        rank,
        call: call.into(),
        span: site.span,
    }
}

fn fact(file: &str, line: u32, column: u32, callee: &str, reasons: &[&str]) -> SiteFact {
    SiteFact {
        file: file.into(),
        line,
        column,
        callee: callee.into(),
        all_inputs: reasons.is_empty(),
        reasons: reasons.iter().map(|r| r.to_string()).collect(),
        dead: false,
    }
}

const ARGC: &str = "`if (argc > 1)` at tests/fixtures/barriers.c:32 reads `argc`";

fn sample() -> Report {
    // The irrelevant group: rank 0's barrier after its send, the others'
    // after their receive.
    let irrelevant = vec![site(MAIN, 13, 9), site(MAIN, 17, 9)];
    // The relevant group: without it rank 2's send (line 29) could match
    // rank 0's first wildcard receive (line 21).
    let relevant = vec![site(MAIN, 22, 9), site(MAIN, 26, 9), site(MAIN, 28, 9)];
    let recv = site(MAIN, 21, 9);
    let send = site(MAIN, 29, 9);
    let path = vec![
        "MPI_Recv (rank 0, line 21)".to_string(),
        "MPI_Barrier (rank 0, line 22)".to_string(),
        "MPI_Barrier (rank 2, line 28)".to_string(),
        "MPI_Send (rank 2, line 29)".to_string(),
    ];
    // The group that never ran: it needs a program argument.
    let not_covered = vec![site(MAIN, 36, 13), site(IO, 8, 5)];

    // The rules place each finding at its group's first site and label the
    // other sites, the receive and the send; the snapshots' wording predates
    // the rules', so message, notes and help are set by hand.
    let mut f14 = IrrelevantBarrier {
        purposes: vec![],
        group: irrelevant.clone(),
        inputs: Inputs::Every,
        interleavings: 1,
        ranks: 3,
        instances: 3,
        cut: false,
        note: None,
        ordered_by: None,
    }
    .finding();
    f14.message = "irrelevant barrier: its 2 sites can be deleted together".into();
    f14.help = Some("delete lines 13 and 17 of tests/fixtures/barriers.c together".into());
    f14.notes = vec![
        "holds for every input".into(),
        "covered 1 interleaving, 3 ranks, 3 instances".into(),
    ];

    let mut f15 = RelevantBarrier {
        group: relevant.clone(),
        inputs: Inputs::Every,
        recv: op(&recv, 0, "MPI_Recv"),
        send: op(&send, 2, "MPI_Send"),
        path: path.clone(),
        replay: "0".into(),
        note: None,
    }
    .finding();
    f15.message = "relevant barrier: it keeps a send away from a wildcard receive".into();
    f15.help = Some("keep these barrier sites".into());
    f15.notes = vec![
        "holds for every input".into(),
        format!("ordering path: {}", path.join(" → ")),
    ];
    f15.replay = Some("0".into());

    let mut f16 = BarrierNotCovered {
        group: not_covered.clone(),
        inputs: None,
        note: None,
        gates: Vec::new(),
    }
    .finding();
    f16.message = "barrier not covered: no site of this group ran".into();
    f16.help = Some("check again with program arguments (after `--`) that reach it".into());
    f16.notes = vec![format!("reached only depending on input: {ARGC}")];

    let barriers = vec![
        BarrierReport {
            purposes: vec![],
            group: irrelevant,
            verdict: Verdict::Irrelevant,
            confirmed: false,
            all_inputs: true,
            witness: Some(Witness::Irrelevant {
                interleavings: 1,
                ranks: 3,
                instances: 3,
                ordered_by: None,
            }),
            timeline: None,
        },
        BarrierReport {
            purposes: vec![],
            group: relevant,
            verdict: Verdict::Relevant,
            confirmed: false,
            all_inputs: true,
            witness: Some(Witness::Relevant {
                recv: op(&recv, 0, "MPI_Recv"),
                send: op(&send, 2, "MPI_Send"),
                path,
                replay: "0".into(),
            }),
            timeline: None,
        },
        BarrierReport {
            purposes: vec![],
            group: not_covered,
            verdict: Verdict::NotCovered,
            confirmed: false,
            all_inputs: false,
            witness: None,
            timeline: None,
        },
    ];

    let barrier =
        |file, line, column, reasons: &[&str]| fact(file, line, column, "MPI_Barrier", reasons);
    let program = ProgramReport {
        program: MAIN.into(),
        nprocs: 3,
        buffering: Buffering::Buffered,
        outcome: Outcome::Ok,
        interleavings: 1,
        findings: vec![f14, f15, f16],
        calls: 33,
        build: Some(BuildKind::Built),
        static_facts: Some(StaticFacts {
            steering: Vec::new(),
            sites: 16,
            barriers: vec![
                barrier(MAIN, 13, 9, &[]),
                barrier(MAIN, 17, 9, &[]),
                barrier(MAIN, 22, 9, &[]),
                barrier(MAIN, 26, 9, &[]),
                barrier(MAIN, 28, 9, &[]),
                barrier(MAIN, 36, 13, &[ARGC]),
                barrier(IO, 8, 5, &[ARGC]),
            ],
            wildcards: vec![
                fact(MAIN, 21, 9, "MPI_Recv", &[]),
                fact(MAIN, 23, 9, "MPI_Recv", &[]),
            ],
        }),
        barriers,
        timing: Default::default(),
        elapsed_ms: 180,
        interrupted: false,
        sends_copied: false,
        files: None,
        workflow: Default::default(),
    };
    Report {
        interrupted: false,
        not_checked: Vec::new(),
        programs: vec![program],
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
    // codespan's headers: bold yellow for the warning, bold cyan for notes.
    assert!(colored.contains("\x1b[0m\x1b[1m\x1b[33mwarning[FIB014]"));
    assert!(colored.contains("\x1b[0m\x1b[1m\x1b[36mnote[FIB015]"));
    assert_eq!(
        strip_ansi(&colored),
        human::render_with_sources(&sample(), false, &mut read_source)
    );
}

#[test]
fn human_without_source_draws_labels_as_lines() {
    let text = human::render_with_sources(&sample(), false, &mut |_| None);
    assert!(text.contains(
        "warning[FIB014]: irrelevant barrier: its 2 sites can be deleted together\n\
         \x20 --> tests/fixtures/barriers.c:13:9\n\
         \x20  = note: holds for every input\n\
         \x20  = note: covered 1 interleaving, 3 ranks, 3 instances\n\
         \x20  = tests/fixtures/barriers.c:17:9: also part of this barrier group\n\
         \x20  = help: delete lines 13 and 17 of tests/fixtures/barriers.c together\n"
    ));
    assert!(!text.contains(" | "));
}

#[test]
fn a_label_in_an_unreadable_file_becomes_a_line() {
    // Only the main file can be read: the second site of the group that
    // never ran is named, not drawn.
    let text = human::render_with_sources(&sample(), false, &mut |path| {
        (path == MAIN).then(|| include_str!("fixtures/barriers.c").to_string())
    });
    assert!(
        text.contains("   = tests/fixtures/barriers_io.c:8:5: also part of this barrier group\n")
    );
    assert!(text.contains("36 |             MPI_Barrier(MPI_COMM_WORLD);\n"));
}

#[test]
fn a_span_past_the_end_of_the_file_falls_back_to_the_line() {
    let mut report = sample();
    report.programs[0].findings[0].span = Some((100_000, 100_010));
    let text = human::render_with_sources(&report, false, &mut read_source);
    assert!(text.contains(
        "  --> tests/fixtures/barriers.c:13:9\n\
         \x20  |\n\
         13 |         MPI_Barrier(MPI_COMM_WORLD);\n\
         \x20  |         ^\n"
    ));
}

#[test]
fn summary_says_when_every_verdict_was_confirmed() {
    let mut report = sample();
    let plain = human::render_with_sources(&report, false, &mut read_source);
    assert!(plain.contains("\n  barriers: 3 groups — 1 relevant, 1 irrelevant, 1 not covered\n"));
    for b in &mut report.programs[0].barriers {
        b.confirmed = true;
    }
    let confirmed = human::render_with_sources(&report, false, &mut read_source);
    assert!(confirmed.contains(
        "\n  barriers: 3 groups — 1 relevant, 1 irrelevant, 1 not covered, confirmed by removal\n"
    ));
}

/// The keys of a JSON object, sorted.
fn keys(v: &serde_json::Value) -> BTreeSet<&str> {
    v.as_object().unwrap().keys().map(String::as_str).collect()
}

#[test]
fn json_output() {
    let text = json::render(&sample());
    insta::assert_snapshot!("json", &text);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let barriers = v["programs"][0]["barriers"].as_array().unwrap();
    assert_eq!(barriers.len(), 3);
    // Exactly the fields the issue names, and `witness` only when there is one.
    let with_witness = BTreeSet::from(["group", "verdict", "confirmed", "all_inputs", "witness"]);
    assert_eq!(keys(&barriers[0]), with_witness);
    assert_eq!(keys(&barriers[1]), with_witness);
    let mut without = with_witness.clone();
    without.remove("witness");
    assert_eq!(keys(&barriers[2]), without);
    for b in barriers {
        for site in b["group"].as_array().unwrap() {
            assert_eq!(keys(site), BTreeSet::from(["file", "line", "column"]));
        }
    }
    assert_eq!(
        barriers[0]["group"],
        serde_json::json!([
            {"file": MAIN, "line": 13, "column": 9},
            {"file": MAIN, "line": 17, "column": 9},
        ])
    );
    assert_eq!(barriers[0]["verdict"], "irrelevant");
    assert_eq!(barriers[1]["verdict"], "relevant");
    assert_eq!(barriers[2]["verdict"], "not-covered");
    assert_eq!(barriers[0]["confirmed"], false);
    assert_eq!(barriers[2]["all_inputs"], false);
    assert_eq!(
        barriers[0]["witness"],
        serde_json::json!({"interleavings": 1, "ranks": 3, "instances": 3})
    );
    let w = &barriers[1]["witness"];
    assert_eq!(keys(w), BTreeSet::from(["recv", "send", "path", "replay"]));
    assert_eq!(
        w["recv"],
        serde_json::json!({"file": MAIN, "line": 21, "column": 9, "rank": 0, "call": "MPI_Recv"})
    );
    assert_eq!(w["send"]["line"], 29);
    assert_eq!(w["send"]["rank"], 2);
    assert_eq!(w["path"].as_array().unwrap().len(), 4);
    assert_eq!(w["replay"], "0");
    // The findings carry their labels and help, but no byte spans.
    let f = &v["programs"][0]["findings"][1];
    assert_eq!(f["code"], "FIB015");
    assert_eq!(f["severity"], "note");
    assert_eq!(f["line"], 22);
    assert!(f.get("span").is_none());
    assert_eq!(
        f["labels"][2],
        serde_json::json!({"file": MAIN, "line": 21, "column": 9, "message": "wildcard receive (rank 0)"})
    );
    assert_eq!(f["help"], "keep these barrier sites");
}

#[test]
fn exit_code_is_one_for_an_irrelevant_barrier() {
    assert_eq!(sample().exit_code(), 1);
}
