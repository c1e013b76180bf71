//! The formats for code-scanning services and CI logs as the real `fib`
//! prints them, on the bundled examples under MPICH: the SARIF log
//! (validated against the OASIS SARIF 2.1.0 schema vendored in
//! `report/tests/fixtures/`, then snapshotted with the rules' documentation
//! elided) and the GitHub Actions workflow commands. Neither format holds a
//! time or the build cache, so nothing is redacted from their text.

use std::path::Path;

use insta_cmd::assert_cmd_snapshot;
use serde_json::{json, Value};

use crate::findings::{check, redacted};

/// The real `fib check ARGS` with its build cache in `cache`: its SARIF log
/// and exit code.
fn sarif_of(cache: &Path, args: &[&str]) -> (Value, i32) {
    let out = check(cache, args).output().expect("running fib");
    let log = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "fib did not print JSON ({e}):\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (log, out.status.code().unwrap())
}

/// The errors the OASIS SARIF 2.1.0 schema finds in `log`, formats checked.
fn schema_errors(log: &Value) -> Vec<String> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("report/tests/fixtures/sarif-schema-2.1.0.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the vendored schema compiles");
    validator
        .iter_errors(log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

/// The log without the rules' documentation, which `fib explain` and the
/// report crate's tests cover: each rule keeps its id, name and level.
fn rules_elided(mut log: Value) -> Value {
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array_mut()
        .unwrap();
    assert_eq!(rules.len(), fib_report::codes::ALL.len());
    for rule in rules {
        let id = rule["id"].as_str().unwrap().to_string();
        assert_eq!(
            rule["help"]["markdown"].as_str(),
            fib_report::explain(&id).as_deref()
        );
        for key in ["shortDescription", "fullDescription", "help"] {
            rule.as_object_mut().unwrap().remove(key);
        }
    }
    log
}

/// The result of `log` with rule `id` (exactly one).
fn result<'a>(log: &'a Value, id: &str) -> &'a Value {
    let results: Vec<&Value> = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["ruleId"] == id)
        .collect();
    assert_eq!(results.len(), 1, "one {id} result");
    results[0]
}

#[test]
fn sarif_examples_confirmed() {
    let cache = tempfile::tempdir().unwrap();
    let (log, code) = sarif_of(
        cache.path(),
        &["examples", "--confirm", "--format", "sarif"],
    );
    assert_eq!(code, 1);
    assert_eq!(schema_errors(&log), Vec::<String>::new());
    let run = &log["runs"][0];
    assert_eq!(
        run["invocations"],
        json!([{"executionSuccessful": true, "exitCode": 1}])
    );
    let ids: Vec<&str> = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["ruleId"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["FIB001", "FIB015", "FIB014"]);
    // The irrelevant barrier: a warning on line 34, the whole call.
    let irrelevant = result(&log, "FIB014");
    assert_eq!(irrelevant["level"], "warning");
    assert_eq!(
        irrelevant["locations"][0]["physicalLocation"],
        json!({
            "artifactLocation": {"uri": "examples/barriers.c", "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": 34, "startColumn": 5, "endLine": 34, "endColumn": 32}
        })
    );
    // The relevant one: a note whose related locations include the
    // witness's wildcard receive on rank 0.
    let relevant = result(&log, "FIB015");
    assert_eq!(relevant["level"], "note");
    assert!(relevant["relatedLocations"]
        .as_array()
        .unwrap()
        .iter()
        .any(|l| l["message"]["text"] == "wildcard receive (rank 0)"));
    insta::assert_snapshot!(
        "sarif_examples_confirmed",
        serde_json::to_string_pretty(&rules_elided(log)).unwrap()
    );
}

#[test]
fn sarif_deadlock() {
    let cache = tempfile::tempdir().unwrap();
    let (log, code) = sarif_of(
        cache.path(),
        &["examples/any_source_race.c", "--format", "sarif"],
    );
    assert_eq!(code, 1);
    assert_eq!(schema_errors(&log), Vec::<String>::new());
    let deadlock = result(&log, "FIB001");
    assert_eq!(deadlock["level"], "error");
    assert_eq!(deadlock["ruleIndex"], 0);
    assert_eq!(
        deadlock["locations"][0]["physicalLocation"]["region"],
        json!({"startLine": 45, "startColumn": 9, "endLine": 45, "endColumn": 82})
    );
    let properties = &deadlock["properties"];
    assert_eq!(properties["replay"], "1.0");
    assert_eq!(properties["rank"], 0);
    assert_eq!(properties["program"], "examples/any_source_race.c");
    assert_eq!(properties["nprocs"], 3);
    assert!(deadlock["message"]["text"]
        .as_str()
        .unwrap()
        .ends_with("\nreplay: 1.0"));
    insta::assert_snapshot!(
        "sarif_deadlock",
        serde_json::to_string_pretty(&rules_elided(log)).unwrap()
    );
}

#[test]
fn github_examples() {
    let cache = tempfile::tempdir().unwrap();
    redacted(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "github_examples",
            check(cache.path(), &["examples", "--format", "github"])
        );
    });
}

#[test]
fn sarif_memory_barrier() {
    // A barrier relevant through memory: a note on the barrier whose
    // related locations are the put (with the unlock that completes it)
    // and the load it keeps apart.
    let cache = tempfile::tempdir().unwrap();
    let (log, code) = sarif_of(
        cache.path(),
        &[
            "tests/barriers/mem_lock_put_read.c",
            "-n",
            "2",
            "--format",
            "sarif",
        ],
    );
    assert_eq!(code, 0);
    assert_eq!(schema_errors(&log), Vec::<String>::new());
    let relevant = result(&log, "FIB015");
    assert_eq!(relevant["level"], "note");
    let related: Vec<&str> = relevant["relatedLocations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["message"]["text"].as_str().unwrap())
        .collect();
    assert!(
        related.contains(
            &"rank 0's load of bytes 12..16 of its window, which would race without the barrier"
        ),
        "{related:?}"
    );
    insta::assert_snapshot!(
        "sarif_memory_barrier",
        serde_json::to_string_pretty(&rules_elided(log)).unwrap()
    );
}
