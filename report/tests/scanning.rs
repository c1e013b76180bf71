//! The formats for code-scanning services and CI logs, SARIF and GitHub
//! Actions workflow commands, on one hand-built report with every kind of
//! finding: a deadlock with its ranks and a label, a crash in a file that
//! cannot be read, a leak, a build failure without a location, and the three
//! barrier verdicts, drawn from the fixtures `tests/fixtures/race.c`,
//! `tests/fixtures/barriers.c` and `tests/fixtures/barriers_io.c`. The SARIF
//! logs are validated against the OASIS SARIF 2.1.0 schema,
//! `tests/fixtures/sarif-schema-2.1.0.json` (`tests/fixtures/README.md` says
//! where it comes from). The expected texts are the `scanning__*.snap` files
//! in `tests/snapshots/`; after an intended change, review the new texts
//! with `cargo insta review`.

use fib_report::codes::{
    BarrierNotCovered, BuildFailed, BuildStage, Crash, Deadlock, Inputs, IrrelevantBarrier,
    LeakedRequest, RelevantBarrier, Rule,
};
use fib_report::emit::{github, sarif};
use fib_report::{
    Buffering, BuildKind, Finding, Outcome, Place, ProgramReport, RankState, Report, SiteRef,
    WitnessOp,
};
use serde_json::{json, Value};

const RACE: &str = "tests/fixtures/race.c";
const MAIN: &str = "tests/fixtures/barriers.c";
const IO: &str = "tests/fixtures/barriers_io.c";

/// The fixture `file`'s text.
fn fixture(file: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    std::fs::read_to_string(path).unwrap()
}

/// Reads the fixtures by their paths relative to the crate, whatever the
/// directory the tests run in.
fn load(path: &str) -> Option<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(path).ok()
}

/// The call at `line`:`column` of the fixture `file`, its span running from
/// the column to the `;` that ends the call.
fn site(file: &str, line: u32, column: u32) -> SiteRef {
    let text = fixture(file);
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

fn rank(rank: usize, call: &str, at: Option<&SiteRef>) -> RankState {
    RankState {
        rank,
        call: call.into(),
        file: at.map(|s| s.file.clone()),
        line: at.map(|s| s.line),
        column: at.map(|s| s.column),
        span: at.and_then(|s| s.span),
        thread: None,
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

fn program(name: &str, outcome: Outcome, findings: Vec<Finding>) -> ProgramReport {
    ProgramReport {
        program: name.into(),
        nprocs: 3,
        buffering: Buffering::Buffered,
        outcome,
        interleavings: 2,
        findings,
        calls: 40,
        build: Some(BuildKind::Built),
        static_facts: None,
        barriers: vec![],
        timing: Default::default(),
        elapsed_ms: 321,
        interrupted: false,
        sends_copied: false,
        files: None,
        workflow: Default::default(),
    }
}

/// The deadlock: rank 0 blocked at line 11, rank 1 at line 14 (indented by
/// a tab), rank 2 in `MPI_Finalize`. The rule places it at rank 0 and labels
/// rank 1's receive.
fn deadlock() -> Finding {
    let mut f = Deadlock {
        ranks: vec![
            rank(0, "MPI_Recv", Some(&site(RACE, 11, 9))),
            rank(1, "MPI_Recv", Some(&site(RACE, 14, 2))),
            rank(2, "MPI_Finalize", Some(&site(RACE, 16, 5))),
        ],
        replay: "1.0".into(),
    }
    .finding();
    // Worded by hand, so that the snapshots test the format, not the rule.
    f.message = "deadlock: rank 0 in MPI_Recv, rank 1 in MPI_Recv".into();
    f.help = Some("make every receive match a send: 100% of them".into());
    f
}

/// A crash in a file that is not there: its line and column stay as fib
/// gave them, and the region has no end.
fn crash() -> Finding {
    let mut f = Crash {
        rank: 1,
        signal: libc::SIGSEGV,
        place: Place {
            file: Some("missing/crash.c".into()),
            line: Some(7),
            column: Some(3),
            span: None,
        },
        after_call: true,
        stderr: String::new(),
        replay: "0".into(),
    }
    .finding();
    f.message = "rank 1 was killed by signal 11 (SIGSEGV)".into();
    f.notes = vec!["the program said: 50%\rdone, a: b\nand more".into()];
    f
}

fn leak() -> Finding {
    let mut f = LeakedRequest {
        ranks: vec![1],
        count: 1,
        call: "MPI_Send".into(),
        persistent: false,
        place: Place {
            file: Some(RACE.into()),
            line: Some(13),
            column: Some(2),
            span: site(RACE, 13, 2).span,
        },
        replay: "0.0".into(),
    }
    .finding();
    f.message = "rank 1: the request of this MPI_Send is never completed".into();
    f.help = None;
    f
}

/// A build failure whose compiler did not say where: no file, no line.
fn build_failure() -> Finding {
    let mut f = BuildFailed {
        program: "broken.c".into(),
        stage: BuildStage::Compile,
        file: None,
        line: None,
        output: "broken.c: error: expected ';'".into(),
    }
    .finding();
    f.message = "broken.c does not compile".into();
    f
}

fn barrier_findings() -> Vec<Finding> {
    let mut f14 = IrrelevantBarrier {
        purposes: vec![],
        group: vec![site(MAIN, 13, 9), site(MAIN, 17, 9)],
        inputs: Inputs::Every,
        interleavings: 4,
        ranks: 3,
        instances: 3,
        cut: false,
        note: None,
        ordered_by: None,
    }
    .finding();
    f14.message = "irrelevant barrier: its 2 sites can be deleted together".into();
    f14.notes = vec!["holds for every input".into()];
    f14.help = Some("delete lines 13 and 17 of tests/fixtures/barriers.c together".into());

    let mut f15 = RelevantBarrier {
        group: vec![site(MAIN, 22, 9), site(MAIN, 26, 9), site(MAIN, 28, 9)],
        inputs: Inputs::Every,
        recv: op(&site(MAIN, 21, 9), 0, "MPI_Recv"),
        send: op(&site(MAIN, 29, 9), 2, "MPI_Send"),
        path: vec!["MPI_Recv (rank 0, line 21)".into()],
        replay: "0.1".into(),
        note: None,
    }
    .finding();
    f15.message = "relevant barrier: it keeps a send away from a wildcard receive".into();
    f15.notes = vec![];
    f15.help = Some("keep these barrier sites".into());
    // The rule names the witness's interleaving in a note only; a finding
    // that carries the token shows it as its replay token.
    f15.replay = Some("0.1".into());

    let mut f16 = BarrierNotCovered {
        group: vec![site(MAIN, 36, 13), site(IO, 8, 5)],
        inputs: None,
        note: None,
        gates: Vec::new(),
    }
    .finding();
    f16.message = "barrier not covered: no site of this group ran".into();
    f16.notes = vec![];
    f16.help = Some("check again with program arguments that reach it".into());
    vec![f14, f15, f16]
}

fn sample() -> Report {
    Report {
        interrupted: false,
        not_checked: Vec::new(),
        programs: vec![
            program(RACE, Outcome::Deadlock, vec![deadlock(), leak()]),
            program("missing/crash.c", Outcome::Crash, vec![crash()]),
            program(MAIN, Outcome::Ok, barrier_findings()),
        ],
    }
}

/// The sample with a build failure: fib exits with 2.
fn sample_with_build_failure() -> Report {
    let mut report = sample();
    report.programs.push(ProgramReport {
        build: None,
        interleavings: 0,
        calls: 0,
        ..program("broken.c", Outcome::BuildFailed, vec![build_failure()])
    });
    report
}

fn render_sarif(report: &Report) -> Value {
    let text = sarif::render_with_sources(report, &mut load);
    serde_json::from_str(&text).unwrap()
}

/// The errors the OASIS SARIF 2.1.0 schema finds in `log`, formats checked.
fn schema_errors(log: &Value) -> Vec<String> {
    let schema: Value = serde_json::from_str(&fixture("tests/fixtures/sarif-schema-2.1.0.json"))
        .expect("the vendored schema is JSON");
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the vendored schema compiles");
    validator
        .iter_errors(log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

/// The log with each rule's texts checked against the code's documentation
/// and then replaced by a placeholder: the snapshot shows the format, and
/// the codes' wording lives in their own files.
fn rules_checked_and_elided(mut log: Value) -> Value {
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array_mut()
        .unwrap();
    for rule in rules {
        let id = rule["id"].as_str().unwrap().to_string();
        let code = fib_report::codes::lookup(&id).unwrap();
        let explained = fib_report::explain(&id).unwrap();
        assert_eq!(rule["shortDescription"]["text"], code.summary);
        assert_eq!(rule["fullDescription"]["text"], explained);
        assert_eq!(rule["help"]["text"], explained);
        assert_eq!(rule["help"]["markdown"], explained);
        rule["shortDescription"]["text"] = json!(format!("[summary of {id}]"));
        rule["fullDescription"]["text"] = json!(format!("[fib explain {id}]"));
        rule["help"] = json!({"text": format!("[fib explain {id}]"), "markdown": "[same]"});
    }
    log
}

#[test]
fn sarif_snapshot() {
    let log = render_sarif(&sample_with_build_failure());
    let text = serde_json::to_string_pretty(&rules_checked_and_elided(log)).unwrap();
    insta::assert_snapshot!("sarif", text);
}

#[test]
fn sarif_is_valid_against_the_schema() {
    for report in [sample(), sample_with_build_failure(), Report::default()] {
        let log = render_sarif(&report);
        assert_eq!(schema_errors(&log), Vec::<String>::new());
    }
    // Without any source: no region ends, still valid.
    let text = sarif::render_with_sources(&sample_with_build_failure(), &mut |_| None);
    let log: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(schema_errors(&log), Vec::<String>::new());
    assert!(!text.contains("endLine"));
}

#[test]
fn the_schema_rejects_a_broken_log() {
    // The validator does check: a result without a message, a level that
    // SARIF does not have and a region line of 0 are all refused.
    let mut log = render_sarif(&sample());
    let result = &mut log["runs"][0]["results"][0];
    result.as_object_mut().unwrap().remove("message");
    result["level"] = json!("fatal");
    result["locations"][0]["physicalLocation"]["region"]["startLine"] = json!(0);
    let errors = schema_errors(&log);
    assert_eq!(errors.len(), 3, "{errors:#?}");
}

#[test]
fn sarif_log_header_tool_and_invocation() {
    let log = render_sarif(&sample());
    assert_eq!(log["version"], "2.1.0");
    assert_eq!(log["$schema"], sarif::SCHEMA_URI);
    let run = &log["runs"][0];
    assert_eq!(log["runs"].as_array().unwrap().len(), 1);
    assert_eq!(run["tool"]["driver"]["name"], "fib");
    assert_eq!(run["tool"]["driver"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(run["columnKind"], "utf16CodeUnits");
    // Exit code 1: something found, the run itself succeeded.
    assert_eq!(
        run["invocations"],
        json!([{"executionSuccessful": true, "exitCode": 1}])
    );
    let failed = render_sarif(&sample_with_build_failure());
    assert_eq!(
        failed["runs"][0]["invocations"],
        json!([{"executionSuccessful": false, "exitCode": 2}])
    );
    assert_eq!(
        run["properties"]["programs"][0],
        json!({"program": RACE, "nprocs": 3, "buffering": "buffered", "outcome": "deadlock", "interleavings": 2})
    );
}

#[test]
fn sarif_has_one_rule_per_code_in_code_order() {
    let log = render_sarif(&Report::default());
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    assert_eq!(rules.len(), fib_report::codes::ALL.len());
    for (rule, code) in rules.iter().zip(fib_report::codes::ALL) {
        assert_eq!(rule["id"], code.code);
        assert_eq!(rule["name"], code.name);
    }
    let level = |id: &str| {
        rules.iter().find(|r| r["id"] == id).unwrap()["defaultConfiguration"]["level"].clone()
    };
    assert_eq!(level("FIB001"), "error");
    assert_eq!(level("FIB014"), "warning");
    assert_eq!(level("FIB018"), "warning");
    assert_eq!(level("FIB015"), "note");
    // The help is the `fib explain` text, whose sections are Markdown.
    assert!(rules[0]["help"]["markdown"]
        .as_str()
        .unwrap()
        .contains("## What it means"));
    assert_eq!(log["runs"][0]["results"], json!([]));
}

/// The results of the sample, by rule id (each occurs once).
fn result<'a>(log: &'a Value, id: &str) -> &'a Value {
    let results = log["runs"][0]["results"].as_array().unwrap();
    let mut found = results.iter().filter(|r| r["ruleId"] == id);
    let r = found.next().unwrap();
    assert!(found.next().is_none());
    r
}

fn region(location: &Value) -> &Value {
    &location["physicalLocation"]["region"]
}

#[test]
fn sarif_deadlock_result() {
    let log = render_sarif(&sample());
    let r = result(&log, "FIB001");
    assert_eq!(r["ruleIndex"], 0);
    assert_eq!(r["level"], "error");
    let locations = r["locations"].as_array().unwrap();
    assert_eq!(locations.len(), 1);
    assert_eq!(
        locations[0]["physicalLocation"]["artifactLocation"],
        json!({"uri": RACE, "uriBaseId": "%SRCROOT%"})
    );
    // `MPI_Recv(&value, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)`
    // is 69 characters from column 9: the end is just past it.
    assert_eq!(
        *region(&locations[0]),
        json!({"startLine": 11, "startColumn": 9, "endLine": 11, "endColumn": 78})
    );
    // Rank 1's receive, the deadlock's other blocked call, is related.
    let related = r["relatedLocations"].as_array().unwrap();
    assert_eq!(related.len(), 1);
    assert_eq!(related[0]["id"], 0);
    assert_eq!(related[0]["message"]["text"], "rank 1: MPI_Recv");
    assert_eq!(
        *region(&related[0]),
        json!({"startLine": 14, "startColumn": 2, "endLine": 14, "endColumn": 71})
    );
    assert_eq!(r["properties"]["replay"], "1.0");
    assert_eq!(r["properties"]["rank"], 0);
    assert_eq!(r["properties"]["program"], RACE);
    assert_eq!(r["properties"]["nprocs"], 3);
    assert_eq!(r["properties"]["buffering"], "buffered");
    assert_eq!(
        r["properties"]["ranks"][2],
        json!({"rank": 2, "call": "MPI_Finalize", "file": RACE, "line": 16, "column": 5})
    );
    assert_eq!(
        r["message"]["text"],
        "deadlock: rank 0 in MPI_Recv, rank 1 in MPI_Recv\n\
         rank 0: blocked in MPI_Recv at tests/fixtures/race.c:11:9\n\
         rank 1: blocked in MPI_Recv at tests/fixtures/race.c:14:2\n\
         rank 2: waiting in MPI_Finalize at tests/fixtures/race.c:16:5\n\
         help: make every receive match a send: 100% of them\n\
         replay: 1.0"
    );
    assert_eq!(
        r["properties"]["help"],
        "make every receive match a send: 100% of them"
    );
}

#[test]
fn sarif_findings_without_span_or_file() {
    let log = render_sarif(&sample_with_build_failure());
    // The crash's file cannot be read: fib's line and column, no end.
    let crash = result(&log, "FIB002");
    assert_eq!(crash["ruleIndex"], 1);
    assert_eq!(
        *region(&crash["locations"][0]),
        json!({"startLine": 7, "startColumn": 3})
    );
    assert!(crash["message"]["text"]
        .as_str()
        .unwrap()
        .ends_with("\nnote: the program said: 50%\rdone, a: b\n  and more\nreplay: 0"));
    assert!(crash.get("relatedLocations").is_none());
    // The build failure names no file: line 1 of the program's source.
    let build = result(&log, "FIB007");
    assert_eq!(
        build["locations"][0]["physicalLocation"],
        json!({"artifactLocation": {"uri": "broken.c", "uriBaseId": "%SRCROOT%"}, "region": {"startLine": 1}})
    );
    assert_eq!(
        build["message"]["text"],
        "broken.c does not compile\nnote: broken.c: error: expected ';'"
    );
    assert!(build["properties"].get("rank").is_none());
    assert!(build["properties"].get("replay").is_none());
    // The leak: a warning at its call.
    let leak = result(&log, "FIB018");
    assert_eq!(leak["level"], "warning");
    assert_eq!(leak["ruleIndex"], 17);
    assert_eq!(
        *region(&leak["locations"][0]),
        json!({"startLine": 13, "startColumn": 2, "endLine": 13, "endColumn": 51})
    );
}

#[test]
fn sarif_barrier_results() {
    let log = render_sarif(&sample());
    let irrelevant = result(&log, "FIB014");
    assert_eq!(irrelevant["level"], "warning");
    assert_eq!(irrelevant["ruleIndex"], 13);
    assert_eq!(
        *region(&irrelevant["locations"][0]),
        json!({"startLine": 13, "startColumn": 9, "endLine": 13, "endColumn": 36})
    );
    let related = irrelevant["relatedLocations"].as_array().unwrap();
    assert_eq!(related.len(), 1);
    assert_eq!(region(&related[0])["startLine"], 17);

    let relevant = result(&log, "FIB015");
    assert_eq!(relevant["level"], "note");
    assert_eq!(relevant["properties"]["replay"], "0.1");
    // The group's two other sites, then the witness's receive and send.
    let related: Vec<(Value, Value)> = relevant["relatedLocations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (region(l)["startLine"].clone(), l["id"].clone()))
        .collect();
    assert_eq!(
        related,
        [(26, 0), (28, 1), (21, 2), (29, 3)].map(|(line, id)| (json!(line), json!(id)))
    );
    assert_eq!(
        relevant["relatedLocations"][2]["message"]["text"],
        "wildcard receive (rank 0)"
    );

    // The group that never ran has a site in a second file.
    let not_covered = result(&log, "FIB016");
    assert_eq!(not_covered["level"], "note");
    assert_eq!(
        not_covered["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        IO
    );
}

#[test]
fn sarif_columns_count_utf16_code_units() {
    // `é` is two bytes and one UTF-16 unit; `😀` four bytes and two units.
    let text = "/* é */ MPI_Barrier(c);\n/* 😀 */ MPI_Send(x);\n";
    let start = text.find("MPI_Barrier").unwrap();
    let mut f = barrier_findings().remove(0);
    f.file = Some("u.c".into());
    f.line = Some(1);
    f.column = Some(start as u32 + 1);
    f.span = Some((start, start + "MPI_Barrier(c)".len()));
    f.labels.clear();
    let mut g = leak();
    g.file = Some("u.c".into());
    g.line = Some(2);
    // Byte column 12, after the emoji, without a span.
    g.column = Some(12);
    g.span = None;
    let report = Report {
        interrupted: false,
        not_checked: Vec::new(),
        programs: vec![program("u.c", Outcome::Ok, vec![f, g])],
    };
    let mut source = |_: &str| Some(text.to_string());
    let out = sarif::render_with_sources(&report, &mut source);
    let log: Value = serde_json::from_str(&out).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(
        *region(&results[0]["locations"][0]),
        json!({"startLine": 1, "startColumn": 9, "endLine": 1, "endColumn": 23})
    );
    assert_eq!(
        *region(&results[1]["locations"][0]),
        json!({"startLine": 2, "startColumn": 10})
    );
    // The annotation counts the same way; its end column is the last one.
    let mut source = |_: &str| Some(text.to_string());
    let lines = github::render_with_sources(&report, &mut source);
    assert!(lines.starts_with(
        "::warning file=u.c,line=1,col=9,endLine=1,endColumn=22,title=FIB014 irrelevant-barrier::"
    ));
    assert!(lines.contains("\n::warning file=u.c,line=2,col=10,title=FIB018 leaked-request::"));
}

#[test]
fn sarif_uris() {
    assert_eq!(sarif::uri_path("src/a b/ü.c"), "src/a%20b/%C3%BC.c");
    assert_eq!(sarif::uri_path("x%#?.c"), "x%25%23%3F.c");
    let mut f = build_failure();
    f.file = Some("./dir/my file.c".into());
    let mut g = build_failure();
    g.file = Some("/abs/dir/a.c".into());
    let report = Report {
        interrupted: false,
        not_checked: Vec::new(),
        programs: vec![program("a.c", Outcome::BuildFailed, vec![f, g])],
    };
    let log = render_sarif(&report);
    let artifact = |i: usize| {
        log["runs"][0]["results"][i]["locations"][0]["physicalLocation"]["artifactLocation"].clone()
    };
    assert_eq!(
        artifact(0),
        json!({"uri": "dir/my%20file.c", "uriBaseId": "%SRCROOT%"})
    );
    assert_eq!(artifact(1), json!({"uri": "file:///abs/dir/a.c"}));
    assert_eq!(schema_errors(&log), Vec::<String>::new());
}

#[test]
fn github_snapshot() {
    let text = github::render_with_sources(&sample_with_build_failure(), &mut load);
    insta::assert_snapshot!("github", text);
}

#[test]
fn github_escaping() {
    assert_eq!(
        github::escape_data("50% done\r\nnext"),
        "50%25 done%0D%0Anext"
    );
    assert_eq!(github::escape_data("a:b,c"), "a:b,c");
    assert_eq!(
        github::escape_property("dir:a,b%\nc.c"),
        "dir%3Aa%2Cb%25%0Ac.c"
    );
    // `%` first: an escape is never escaped twice.
    assert_eq!(github::escape_property("%3A"), "%253A");
}

#[test]
fn github_commands() {
    let text = github::render_with_sources(&sample_with_build_failure(), &mut load);
    let lines: Vec<&str> = text.lines().collect();
    // One line per finding, then the totals.
    assert_eq!(lines.len(), 8);
    assert_eq!(
        lines[0],
        "::error file=tests/fixtures/race.c,line=11,col=9,endLine=11,endColumn=77,title=FIB001 deadlock::\
         deadlock: rank 0 in MPI_Recv, rank 1 in MPI_Recv\
         %0Arank 0: blocked in MPI_Recv at tests/fixtures/race.c:11:9\
         %0Arank 1: blocked in MPI_Recv at tests/fixtures/race.c:14:2\
         %0Arank 2: waiting in MPI_Finalize at tests/fixtures/race.c:16:5\
         %0Atests/fixtures/race.c:14:2: rank 1: MPI_Recv\
         %0Ahelp: make every receive match a send: 100%25 of them\
         %0Areplay: 1.0"
    );
    assert!(lines[1].starts_with("::warning file=tests/fixtures/race.c,line=13,col=2,endLine=13,endColumn=50,title=FIB018 leaked-request::"));
    // The crash: its file cannot be read, so fib's line and column; the
    // note's carriage return and line feed are escaped.
    assert_eq!(
        lines[2],
        "::error file=missing/crash.c,line=7,col=3,title=FIB002 crash::\
         rank 1 was killed by signal 11 (SIGSEGV)\
         %0Anote: the program said: 50%25%0Ddone, a: b\
         %0A  and more\
         %0Areplay: 0"
    );
    assert!(lines[3].starts_with("::warning file=tests/fixtures/barriers.c,line=13,col=9,endLine=13,endColumn=35,title=FIB014 irrelevant-barrier::"));
    assert!(lines[4].starts_with("::notice file=tests/fixtures/barriers.c,line=22,"));
    assert!(lines[4].contains("%0Atests/fixtures/barriers.c:21:9: wildcard receive (rank 0)"));
    assert!(lines[4].ends_with("%0Areplay: 0.1"));
    assert!(lines[5].starts_with("::notice file=tests/fixtures/barriers.c,line=36,"));
    // No file: no file or line, and the program named in the message.
    assert_eq!(
        lines[6],
        "::error title=FIB007 build-failed::broken.c does not compile\
         %0Aprogram: broken.c\
         %0Anote: broken.c: error: expected ';'"
    );
    assert_eq!(
        lines[7],
        "4 programs checked: 1 ok, 1 deadlock, 1 crash, 1 build-failed; 3 errors, 2 warnings, 2 notes"
    );
}

#[test]
fn github_multi_line_call_has_lines_only() {
    // A call over two lines: annotations take columns only within a line.
    let text = "int x;\nMPI_Send(a,\n         b);\n";
    let start = text.find("MPI_Send").unwrap();
    let mut f = leak();
    f.file = Some("m.c".into());
    f.line = Some(2);
    f.column = Some(1);
    f.span = Some((start, text.rfind(')').unwrap() + 1));
    let report = Report {
        interrupted: false,
        not_checked: Vec::new(),
        programs: vec![program("m.c", Outcome::Ok, vec![f])],
    };
    let mut source = |_: &str| Some(text.to_string());
    let lines = github::render_with_sources(&report, &mut source);
    assert!(lines.starts_with("::warning file=m.c,line=2,endLine=3,title=FIB018 leaked-request::"));
    let mut source = |_: &str| Some(text.to_string());
    let log: Value =
        serde_json::from_str(&sarif::render_with_sources(&report, &mut source)).unwrap();
    assert_eq!(
        *region(&log["runs"][0]["results"][0]["locations"][0]),
        json!({"startLine": 2, "startColumn": 1, "endLine": 3, "endColumn": 12})
    );
}
