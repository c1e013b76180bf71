//! `--mode recorded`: the ranks never wait for fib's scheduler; every call
//! goes to MPI at once, each run is read back by the engine afterwards,
//! and only the receives of a run's plan are forced. It must give what the
//! scheduled mode gives: the same deadlocks with their tokens, the same
//! verdicts with their witnesses; a program with a call it cannot follow
//! yet is checked with the scheduler instead; and a run that times out or
//! is interrupted leaves no process behind.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{ctrl_c, fib, fixture, json, marker, processes_with};

/// `fib check` of the fixture `name` in `mode`, with `more` arguments.
fn check(name: &str, mode: &str, more: &[&str]) -> (Option<i32>, Value, String) {
    let f = fixture(name);
    let mut args = vec![
        "check",
        f.to_str().unwrap(),
        "--format",
        "json",
        "--mode",
        mode,
    ];
    args.extend(more);
    let out = fib(&args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code(), json(&out), err)
}

/// What a check found, without what may differ between modes (the number
/// of interleavings, the tokens and the timings): the outcome, each
/// finding's code, line and rank, and each barrier's line and verdict.
type Found = (String, Vec<(String, u64, u64)>, Vec<(u64, String)>);

/// [`Found`] of a check's JSON report.
fn found(v: &Value) -> Found {
    let p = &v["programs"][0];
    let mut findings: Vec<(String, u64, u64)> = p["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap_or(0),
                f["rank"].as_u64().unwrap_or(u64::MAX),
            )
        })
        .collect();
    findings.sort();
    let verdicts = p["barriers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["group"][0]["line"].as_u64().unwrap(),
                b["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (
        p["outcome"].as_str().unwrap().to_string(),
        findings,
        verdicts,
    )
}

#[test]
fn a_recorded_check_finds_the_deadlock_and_its_token_replays() {
    // wildcard_race.c: rank 0's wildcard receive may take rank 2's message,
    // after which its receive from rank 2 never completes.
    let (code, v, _) = check("wildcard_race.c", "recorded", &["-n", "3"]);
    assert_eq!(code, Some(1));
    let p = &v["programs"][0];
    assert_eq!(p["outcome"], "deadlock");
    assert_eq!(p["interleavings"], 2);
    let d = &p["findings"][0];
    assert_eq!(d["code"], "FIB001");
    assert_eq!(
        (d["rank"].as_u64(), d["line"].as_u64()),
        (Some(0), Some(12))
    );
    let (_, scheduled, _) = check("wildcard_race.c", "scheduled", &["-n", "3"]);
    assert_eq!(found(&v), found(&scheduled));

    // The token names the same interleaving in both modes.
    let token = d["replay"].as_str().unwrap().to_string();
    for mode in ["recorded", "scheduled"] {
        let (code, v, _) = check("wildcard_race.c", mode, &["-n", "3", "--replay", &token]);
        assert_eq!(code, Some(1), "{mode}");
        let p = &v["programs"][0];
        assert_eq!(p["interleavings"], 1, "{mode}");
        assert_eq!(p["outcome"], "deadlock", "{mode}");
        assert_eq!(p["findings"][0]["line"], 12, "{mode}");
    }
}

#[test]
fn a_recorded_check_gives_the_relevant_barrier_its_witness() {
    let (_, v, _) = check("sendrecv_witness.c", "recorded", &[]);
    let b = &v["programs"][0]["barriers"][0];
    assert_eq!(b["verdict"], "relevant");
    let path: Vec<&str> = b["witness"]["path"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert_eq!(path.len(), 5, "{path:?}");
    assert!(
        path[0].starts_with("rank 0 MPI_Recv at") && path[0].ends_with("sendrecv_witness.c:13")
    );
    assert_eq!(path[2], "all ranks meet in the barrier");
    assert!(
        path[4].starts_with("rank 2 MPI_Send at") && path[4].ends_with("sendrecv_witness.c:24")
    );
    let (_, scheduled, _) = check("sendrecv_witness.c", "scheduled", &[]);
    assert_eq!(found(&v), found(&scheduled));
}

#[test]
fn a_call_a_recorded_run_cannot_follow_is_checked_with_the_scheduler() {
    // iprobe_poll.c polls with MPI_Iprobe, whose answer only the scheduler
    // gives: fib says so and checks it scheduled.
    let (code, v, err) = check("../umpire/iprobe_poll.c", "recorded", &["-n", "2"]);
    let (scode, scheduled, _) = check("../umpire/iprobe_poll.c", "scheduled", &["-n", "2"]);
    assert_eq!(code, scode);
    assert_eq!(found(&v), found(&scheduled));
    assert!(
        err.contains(
            "a recorded run cannot follow MPI_Iprobe (rank 0) yet: checked with the scheduler"
        ),
        "{err}"
    );
}

#[test]
fn a_recorded_run_past_the_time_limit_leaves_no_process() {
    let m = marker("recorded-timeout");
    let (code, v, _) = check(
        "spin_forever.c",
        "recorded",
        &["-n", "2", "--timeout", "2", "--", &m],
    );
    assert_eq!(code, Some(1));
    let p = &v["programs"][0];
    assert_eq!(p["outcome"], "timeout");
    assert_eq!(p["findings"][0]["code"], "FIB005");
    assert_eq!(processes_with(&m), Vec::<String>::new());
}

#[test]
fn ctrl_c_stops_a_recorded_run_and_leaves_no_process() {
    let m = marker("recorded-interrupt");
    let f = fixture("spin_forever.c");
    let child = Command::new(env!("CARGO_BIN_EXE_fib"))
        .args([
            "check",
            f.to_str().unwrap(),
            "-n",
            "2",
            "--mode",
            "recorded",
            "--timeout",
            "120",
            "--",
            &m,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let until = Instant::now() + Duration::from_secs(60);
    while processes_with(&m).len() < 3 {
        assert!(Instant::now() < until, "the ranks never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    ctrl_c(child, &m);
}
