//! Calls to MPI functions fib does not model, found before running: each
//! named at its line whether or not a run would reach it, the program not
//! run unless `--run-unsupported` asks, and then still reported, by the run
//! itself when a run reaches the call.

use serde_json::Value;

use crate::{fib, fixture, json};

/// The findings of the only program checked, as (code, line, message,
/// rank).
fn findings(p: &Value) -> Vec<(String, u64, String, Option<u64>)> {
    p["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                f["message"].as_str().unwrap().to_string(),
                f["rank"].as_u64(),
            )
        })
        .collect()
}

fn fib006(line: u64, message: &str, rank: Option<u64>) -> (String, u64, String, Option<u64>) {
    ("FIB006".to_string(), line, message.to_string(), rank)
}

const ISCAN: &str = "MPI_Iscan_c is not supported by fib yet";
const IBCAST: &str = "MPI_Ibcast_c is not supported by fib yet";

#[test]
fn calls_on_a_path_no_run_takes_are_named_before_running_and_nothing_runs() {
    let f = fixture("unsupported_paths.c");
    let out = fib(&["check", f.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(2), "fib could not check it");
    let v = json(&out);
    let p = &v["programs"][0];
    assert_eq!(p["outcome"], "unsupported");
    assert_eq!(p["interleavings"], 0, "the program is not run");
    assert_eq!(p["calls"], 0);
    assert!(p.get("build").is_none(), "nor built: {p}");
    assert_eq!(
        findings(p),
        [fib006(14, ISCAN, None), fib006(16, IBCAST, None)]
    );
    let note = p["findings"][0]["notes"][0].as_str().unwrap();
    assert!(note.starts_with("found before running"), "{note}");
    assert!(p["findings"][0]["replay"].is_null());
}

#[test]
fn one_sided_calls_are_named_as_out_of_scope() {
    let f = fixture("one_sided.c");
    let out = fib(&["check", f.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(2));
    let p = &json(&out)["programs"][0];
    assert_eq!(p["outcome"], "unsupported");
    assert_eq!(p["interleavings"], 0);
    let scope = ": the large-count forms of one-sided communication are out of scope for now";
    let expected: Vec<_> = [(11, "MPI_Win_create_c"), (13, "MPI_Put_c")]
        .iter()
        .map(|(line, call)| {
            fib006(
                *line,
                &format!("{call} is not supported by fib yet{scope}"),
                None,
            )
        })
        .collect();
    assert_eq!(findings(p), expected);
}

#[test]
fn calls_in_functions_nothing_calls_do_not_stop_the_check() {
    let f = fixture("unused_helpers.c");
    let out = fib(&["check", f.to_str().unwrap(), "--format", "json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let p = &json(&out)["programs"][0];
    assert_eq!(p["outcome"], "ok");
    assert_eq!(p["interleavings"], 1);
    assert_eq!(p["calls"], 4, "each rank's MPI_Allreduce and MPI_Finalize");
    assert_eq!(
        findings(p),
        [(
            "FIB016".to_string(),
            15,
            "barrier not covered: it is in a function the program never calls".to_string(),
            None
        )]
    );
    // Code that never runs steers nothing (the report leaves an empty list
    // out): a run stands for the other orders of the program's exchangeable
    // receives.
    assert_eq!(p["static"]["sites"], 7, "{p}");
    assert!(p["static"]["steering"].is_null(), "{p}");
    // The barrier is listed as in code never called, and the summary line
    // says so rather than counting it among those input decides.
    assert_eq!(p["static"]["barriers"][0]["dead"], true, "{p}");
    let out = fib(&["check", f.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("7 MPI call sites, 1 barrier (1 in code never called), 0 wildcard receives"),
        "{text}"
    );
}

#[test]
fn run_unsupported_runs_the_program_and_still_reports_the_calls() {
    let f = fixture("unsupported_paths.c");
    let out = fib(&[
        "check",
        f.to_str().unwrap(),
        "--format",
        "json",
        "--run-unsupported",
    ]);
    // The run completes without reaching the calls: its outcome is ok, and
    // the calls' findings are still errors.
    assert_eq!(out.status.code(), Some(1));
    let p = &json(&out)["programs"][0];
    assert_eq!(p["outcome"], "ok");
    assert!(p["interleavings"].as_u64().unwrap() >= 1, "{p}");
    assert_eq!(p["calls"], 4, "each rank's MPI_Allreduce and MPI_Finalize");
    assert_eq!(
        findings(p),
        [fib006(14, ISCAN, None), fib006(16, IBCAST, None)]
    );
    let note = p["findings"][0]["notes"][0].as_str().unwrap();
    assert!(note.contains("no run reached this call"), "{note}");
}

#[test]
fn a_run_that_reaches_an_unmodelled_call_stops_there_and_names_it() {
    // Five arguments take the branch: the interposition library reports
    // MPI_Iscan_c, which it wraps for this, by name with its rank.
    let f = fixture("unsupported_paths.c");
    let out = fib(&[
        "check",
        f.to_str().unwrap(),
        "--format",
        "json",
        "--run-unsupported",
        "--",
        "1",
        "2",
        "3",
        "4",
        "5",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let p = &json(&out)["programs"][0];
    assert_eq!(p["outcome"], "unsupported");
    assert_eq!(p["interleavings"], 1);
    let found = findings(p);
    assert_eq!(found.len(), 2, "{found:?}");
    // The call no run reached, from the check before running, then the
    // run's own finding: once per site.
    assert_eq!(found[0], fib006(16, IBCAST, None));
    let (code, line, message, rank) = &found[1];
    assert_eq!(
        (code.as_str(), *line, message.as_str()),
        ("FIB006", 14, ISCAN)
    );
    assert!(rank.is_some(), "reported by a rank");
    assert!(p["findings"][1]["replay"].is_string());
}

#[test]
fn a_waiver_keeps_a_call_no_run_reaches_out_of_the_exit_code_only_when_the_program_runs() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(fixture("unsupported_paths.c")).unwrap();
    let waived: String = text
        .lines()
        .map(|l| {
            if l.contains("MPI_Iscan_c(") || l.contains("MPI_Ibcast_c(") {
                format!("{l} /* fib: allow FIB006 -- debug path */\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let f = dir.path().join("waived.c");
    std::fs::write(&f, waived).unwrap();
    let f = f.to_str().unwrap();
    // Not run: fib still could not check it.
    let out = fib(&["check", f, "--format", "json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(json(&out)["programs"][0]["outcome"], "unsupported");
    // Run anyway: nothing else is found, and the waived calls do not count.
    let out = fib(&["check", f, "--format", "json", "--run-unsupported"]);
    assert_eq!(out.status.code(), Some(0));
    let p = &json(&out)["programs"][0];
    assert_eq!(p["outcome"], "ok");
    assert_eq!(p["waived"], 2);
    assert_eq!(p["findings"].as_array().unwrap().len(), 0);
}
