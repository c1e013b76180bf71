//! Command-line behaviour of the real `fib` binary under MPICH: exit codes,
//! bad input, replay tokens, the time limit, Ctrl-C, and that no process of a
//! run survives it; `findings.rs` holds a snapshot of every runtime finding
//! as fib prints it, `prebuilt.rs` checks binaries fib did not build
//! (`fib run`), and `linking.rs` how programs are made of sources and
//! linked, and whose failure a failed build is.
//!
//! The expected texts are the `*.snap` files in `tests/cli/snapshots/`; after
//! an intended change, review the new texts with `cargo insta review`.

mod findings;
mod formats;
mod linking;
mod memory;
mod parses;
mod prebuilt;
mod recorded;
mod scratch;
mod unsupported;
mod workflow;

#[path = "../common/fs_proc.rs"]
mod fs_proc;
use fs_proc::{copy_tree, processes_with};
#[path = "../common/witness.rs"]
mod witness;
use witness::sendrecv_witness;

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cli")
        .join(name)
}

fn fib(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fib"))
        .args(args)
        .output()
        .expect("running fib")
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "fib did not print JSON ({e}):\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// Interrupts `child` (fib) as Ctrl-C does and waits for it: it exits with
/// 130 and leaves no process whose command line carries `marker`.
fn ctrl_c(child: std::process::Child, marker: &str) -> Output {
    // SAFETY: signalling our own child.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    assert_eq!(processes_with(marker), Vec::<String>::new());
    out
}

/// Waits (at most a minute) until both ranks of a 2-rank run whose
/// command lines carry `marker` run (so does `mpiexec`'s).
fn wait_for_ranks(marker: &str) {
    let until = Instant::now() + Duration::from_secs(60);
    while processes_with(marker).len() < 3 {
        assert!(Instant::now() < until, "the ranks never started");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn marker(test: &str) -> String {
    format!("fib-test-marker-{test}-{}", std::process::id())
}

#[test]
fn wildcard_race_deadlocks_in_one_of_two_interleavings_and_replays() {
    let f = fixture("wildcard_race.c");
    let f = f.to_str().unwrap();
    let out = fib(&["check", f, "-n", "3", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    let p = &v["programs"][0];
    assert_eq!(p["outcome"], "deadlock");
    // Two interleavings: the wildcard takes rank 1's or rank 2's message.
    assert_eq!(p["interleavings"], 2);
    let d = &p["findings"][0];
    assert_eq!(d["code"], "FIB001");
    assert_eq!(d["rank"], 0);
    assert_eq!(d["line"], 12, "the specific receive from rank 2");
    assert_eq!(d["replay"], "1");

    // Replaying the token runs just the deadlocking interleaving.
    let out = fib(&["check", f, "-n", "3", "--format", "json", "--replay", "1"]);
    assert_eq!(out.status.code(), Some(1));
    let p = &json(&out)["programs"][0];
    assert_eq!(p["interleavings"], 1);
    assert_eq!(p["outcome"], "deadlock");
    assert_eq!(p["findings"][0]["line"], 12);

    // The other alternative completes.
    let out = fib(&["check", f, "-n", "3", "--format", "json", "--replay", "0"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(json(&out)["programs"][0]["outcome"], "ok");
}

#[test]
fn a_replay_token_the_program_cannot_follow_is_a_usage_error_naming_it() {
    let f = fixture("wildcard_race.c");
    // The run has one choice point with two alternatives: 5 is not one, and
    // 0.0 names a second choice the program never makes.
    for (token, why) in [
        ("5", "offers alternatives 0 to 1, and the token names 5"),
        (
            "0.0",
            "the token names 2 choices, and the program makes only 1",
        ),
    ] {
        let out = fib(&["check", f.to_str().unwrap(), "-n", "3", "--replay", token]);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("--replay {token}: not an interleaving of")) && err.contains(why),
            "{err}"
        );
        assert!(out.stdout.is_empty(), "no report for a bad token");
    }
}

#[test]
fn a_witness_names_the_calls_the_program_makes_once_each() {
    let f = fixture("sendrecv_witness.c");
    let out = fib(&["check", f.to_str().unwrap(), "--format", "json"]);
    let p = &json(&out)["programs"][0];
    let path = sendrecv_witness(&p["barriers"][0]);
    assert!(
        path[3].starts_with("rank 2 MPI_Sendrecv at") && path[3].ends_with("sendrecv_witness.c:23")
    );
}

#[test]
fn an_early_exit_points_at_the_last_call_and_the_barrier_it_kept_from_completing() {
    let f = fixture("exit_early.c");
    let out = fib(&["check", f.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let p = &json(&out)["programs"][0];
    assert_eq!(p["outcome"], "crash");
    let exit = &p["findings"][0];
    assert_eq!(exit["code"], "FIB004");
    assert_eq!(
        (exit["line"].as_u64(), exit["rank"].as_u64()),
        (Some(12), Some(1))
    );
    let barrier = &p["findings"][1];
    assert_eq!(barrier["code"], "FIB016");
    assert_eq!(
        barrier["message"],
        "barrier never completed: every interleaving failed (a rank crashed, aborted or exited early) before all ranks reached it"
    );
    assert!(!barrier.to_string().contains("--confirm"), "{barrier}");
}

#[test]
fn compile_errors_point_at_the_users_file_and_line() {
    let f = fixture("does_not_compile.c");
    let out = fib(&["check", f.to_str().unwrap(), "-n", "2", "--format", "json"]);
    assert_eq!(out.status.code(), Some(2));
    let p = &json(&out)["programs"][0];
    assert_eq!(p["outcome"], "build-failed");
    let d = &p["findings"][0];
    assert_eq!(d["code"], "FIB007");
    assert!(d["file"].as_str().unwrap().ends_with("does_not_compile.c"));
    // gcc blames the line after the missing semicolon's statement.
    assert_eq!(d["line"], 8);
    assert!(d["notes"].to_string().contains("expected"));
}

#[test]
fn a_missing_file_is_an_error_naming_it() {
    let out = fib(&["check", "no/such/program.c", "-n", "2"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no/such/program.c"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn a_bad_replay_token_is_an_error() {
    let f = fixture("wildcard_race.c");
    let out = fib(&["check", f.to_str().unwrap(), "--replay", "1..x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("replay token"));
}

#[test]
fn explain_prints_a_codes_documentation() {
    let out = fib(&["explain", "fib001"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("FIB001"), "{text}");
    assert!(text.to_lowercase().contains("deadlock"), "{text}");
    let out = fib(&["explain", "FIB999"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_run_past_the_time_limit_is_a_timeout_and_leaves_no_process() {
    let m = marker("timeout");
    let f = fixture("spin_forever.c");
    let out = fib(&[
        "check",
        f.to_str().unwrap(),
        "-n",
        "2",
        "--timeout",
        "2",
        "--format",
        "json",
        "--",
        &m,
    ]);
    assert_eq!(out.status.code(), Some(1));
    let p = &json(&out)["programs"][0];
    assert_eq!(p["outcome"], "timeout");
    let d = &p["findings"][0];
    assert_eq!(d["code"], "FIB005");
    assert_eq!(d["rank"], 0);
    assert_eq!(processes_with(&m), Vec::<String>::new());
}

#[test]
fn ctrl_c_stops_the_run_and_leaves_no_process() {
    let m = marker("interrupt");
    let f = fixture("spin_forever.c");
    let child = Command::new(env!("CARGO_BIN_EXE_fib"))
        .args([
            "check",
            f.to_str().unwrap(),
            "-n",
            "2",
            "--timeout",
            "120",
            "--color",
            "never",
            "--",
            &m,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_ranks(&m);
    let out = ctrl_c(child, &m);
    // The run the interrupt killed is no finding: not one interleaving
    // finished, so the program is listed as not checked.
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.trim_end().lines().last(),
        Some(
            format!(
                "0 programs checked; no findings; interrupted; not checked: {} (2 ranks)",
                f.display()
            )
            .as_str()
        ),
        "{text}"
    );
    assert!(!text.contains("FIB0"), "{text}");
}

#[test]
fn a_rank_waiting_in_mpi_init_leaves_when_fib_is_killed() {
    // Killed outright, fib ends nothing: the rank waiting in MPI_Init for
    // its late peer learns from its connection that fib is gone, and
    // mpiexec ends the job once one of its ranks has failed.
    let m = marker("killed");
    let f = fixture("late_peer.c");
    let mut child = Command::new(env!("CARGO_BIN_EXE_fib"))
        .args([
            "check",
            f.to_str().unwrap(),
            "-n",
            "2",
            "--timeout",
            "120",
            "--",
            &m,
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for_ranks(&m);
    child.kill().unwrap();
    child.wait().unwrap();
    let until = Instant::now() + Duration::from_secs(30);
    while !processes_with(&m).is_empty() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(processes_with(&m), Vec::<String>::new());
}

#[test]
fn ctrl_c_reports_what_the_interleavings_before_it_showed() {
    // interrupt_me.c finishes its first interleaving, then in the probe run
    // of the other order creates the file named by its argument and
    // computes forever: the interrupted probe run is thrown away, the
    // finished interleaving is reported.
    let m = marker("partial");
    let dir = tempfile::tempdir().unwrap();
    let flag = dir.path().join(&m);
    let first = fixture("interrupt_me.c");
    let second = fixture("wildcard_race.c");
    let mut child = Command::new(env!("CARGO_BIN_EXE_fib"))
        .args([
            "check",
            first.to_str().unwrap(),
            second.to_str().unwrap(),
            "--timeout",
            "120",
            "--format",
            "json",
            "--",
            flag.to_str().unwrap(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let until = Instant::now() + Duration::from_secs(120);
    while !flag.exists() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "fib ended before the second interleaving"
        );
        assert!(
            Instant::now() < until,
            "the second interleaving never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = ctrl_c(child, &m);
    let v = json(&out);
    assert_eq!(v["interrupted"], true);
    let programs = v["programs"].as_array().unwrap();
    assert_eq!(programs.len(), 1, "{v}");
    let p = &programs[0];
    assert!(p["program"].as_str().unwrap().ends_with("interrupt_me.c"));
    assert_eq!(p["interrupted"], true);
    assert_eq!(p["interleavings"], 1);
    // The killed run is no timeout or crash; the one that finished found
    // nothing wrong.
    assert_eq!(p["outcome"], "ok");
    // The barrier looked irrelevant in the one interleaving that ran: that
    // is no verdict.
    let verdicts: Vec<&str> = p["barriers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(verdicts, ["undecided"]);
    let findings: Vec<(&str, &str)> = p["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["code"].as_str().unwrap(), f["message"].as_str().unwrap()))
        .collect();
    assert_eq!(
        findings,
        [(
            "FIB016",
            "barrier not decided: interrupted after 1 interleaving"
        )]
    );
    let not_checked = v["not_checked"].as_array().unwrap();
    assert_eq!(not_checked.len(), 1, "{v}");
    assert!(not_checked[0]["program"]
        .as_str()
        .unwrap()
        .ends_with("wildcard_race.c"));
    assert_eq!(not_checked[0]["nprocs"], 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("fib: interrupted; stopping (Ctrl-C again to quit at once)"),
        "{err}"
    );
}

#[test]
fn ctrl_c_stops_every_run_in_progress_with_two_jobs() {
    let m = marker("two-runs");
    let dir = tempfile::tempdir().unwrap();
    let flag = dir.path().join(&m);
    let prog = fixture("interrupt_two_runs.c");
    // `--exhaustive`: the orders of rank 0's row are interleavings, run two
    // at a time, not probe runs of the first, which one worker makes.
    let mut child = Command::new(env!("CARGO_BIN_EXE_fib"))
        .args(["check", prog.to_str().unwrap(), "-j", "2", "--exhaustive"])
        .args(["--timeout", "120", "--format", "json", "--"])
        .arg(&flag)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let spinning = |k: u32| flag.with_extension(format!("{}", k)).exists();
    let until = Instant::now() + Duration::from_secs(120);
    while !(spinning(2) && spinning(3)) {
        assert!(child.try_wait().unwrap().is_none(), "fib ended early");
        assert!(Instant::now() < until, "the two runs never ran together");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Both runs in progress are killed, every rank of each.
    let out = ctrl_c(child, &m);
    let v = json(&out);
    let p = &v["programs"][0];
    assert_eq!(p["interrupted"], true);
    // The interleavings before the first that spins, in the sequential
    // order: rank 1's message first, then ranks 2 and 3 in both orders.
    assert_eq!(p["interleavings"], 2, "{v}");
    assert_eq!(p["outcome"], "ok");
}

#[test]
fn two_jobs_give_the_report_of_one() {
    let prog = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/barriers/monte_carlo_pi.c");
    let report = |jobs: &str| {
        let out = fib(&[
            "check",
            prog.to_str().unwrap(),
            "-n",
            "4",
            "-j",
            jobs,
            "--confirm",
            "--format",
            "json",
        ]);
        let mut v = json(&out);
        drop_timings(&mut v);
        v
    };
    let one = report("1");
    assert_eq!(one["programs"][0]["interleavings"], 6);
    assert_eq!(report("2"), one);
}

/// Removes what measures time (`*_ms`, `*_us`) from a JSON report.
fn drop_timings(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|k, _| !k.ends_with("_ms") && !k.ends_with("_us"));
            m.values_mut().for_each(drop_timings);
        }
        Value::Array(a) => a.iter_mut().for_each(drop_timings),
        _ => {}
    }
}

/// `fib` with its build cache in a directory of the test's own.
fn fib_cached(cache: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fib"))
        .args(args)
        .env("FIB_CACHE_DIR", cache)
        .output()
        .expect("running fib")
}

fn program<'a>(v: &'a Value, suffix: &str) -> &'a Value {
    v["programs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["program"].as_str().unwrap().ends_with(suffix))
        .unwrap_or_else(|| panic!("no program {suffix} in {v}"))
}

#[test]
fn a_directory_with_a_broken_program_still_checks_the_others() {
    let cache = tempfile::tempdir().unwrap();
    let tree = fixture("tree");
    let out = fib_cached(
        cache.path(),
        &["check", tree.to_str().unwrap(), "--format", "json"],
    );
    // One program could not be built: exit code 2, after reporting all.
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    let names: Vec<&str> = v["programs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["program"].as_str().unwrap())
        .collect();
    // Three programs (util.c has no main; ignored/ is in .gitignore).
    assert_eq!(names.len(), 3, "{names:?}");

    let ring = program(&v, "a_ring.c");
    assert_eq!(ring["outcome"], "ok");
    assert_eq!(ring["nprocs"], 3, "from the fib: directive");
    assert_eq!(ring["interleavings"], 1);
    assert_eq!(
        ring["static"]["barriers"][0]["line"], 16,
        "SYNC() on line 16"
    );
    assert_eq!(ring["static"]["barriers"][0]["all_inputs"], true);

    let race = program(&v, "b_race.c");
    assert_eq!(race["outcome"], "deadlock");
    assert_eq!(race["interleavings"], 2);
    let d = &race["findings"][0];
    assert_eq!(d["code"], "FIB001");
    assert!(d["file"].as_str().unwrap().ends_with("tree/b_race.c"));
    assert_eq!(d["line"], 12);
    assert_eq!(d["column"], 5);
    assert_eq!(race["static"]["wildcards"][0]["line"], 11);

    let broken = program(&v, "c_broken.c");
    assert_eq!(broken["outcome"], "build-failed");
    let b = &broken["findings"][0];
    assert_eq!(b["code"], "FIB007");
    assert!(
        b["file"].as_str().unwrap().ends_with("tree/c_broken.c"),
        "{b}"
    );
    assert_eq!(
        b["line"], 8,
        "gcc blames the statement after the missing semicolon"
    );
    assert!(b["notes"].to_string().contains("c_broken.c:8"), "{b}");
}

#[test]
fn an_unchanged_tree_is_not_compiled_again() {
    let cache = tempfile::tempdir().unwrap();
    let tree = fixture("tree");
    let first = json(&fib_cached(
        cache.path(),
        &["check", tree.to_str().unwrap(), "--format", "json"],
    ));
    let second = json(&fib_cached(
        cache.path(),
        &["check", tree.to_str().unwrap(), "--format", "json"],
    ));
    for name in ["a_ring.c", "b_race.c"] {
        assert_eq!(program(&first, name)["build"], "built", "{name}");
        assert_eq!(program(&second, name)["build"], "cached", "{name}");
        assert_eq!(
            program(&first, name)["outcome"],
            program(&second, name)["outcome"]
        );
    }
    // A program that does not build is not cached; it fails again.
    assert_eq!(program(&second, "c_broken.c")["outcome"], "build-failed");
}

/// The entries of the parse cache under `cache`, with when each was
/// written.
fn parse_entries(cache: &std::path::Path) -> Vec<(PathBuf, std::time::SystemTime)> {
    let mut out: Vec<_> = std::fs::read_dir(cache.join("parses"))
        .map(|d| {
            d.flatten()
                .map(|e| (e.path(), e.metadata().unwrap().modified().unwrap()))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// The JSON report of `fib check FILE -n 2` with its cache in `cache`.
fn check_two_ranks(cache: &std::path::Path, file: &std::path::Path) -> Value {
    json(&fib_cached(
        cache,
        &[
            "check",
            file.to_str().unwrap(),
            "-n",
            "2",
            "--format",
            "json",
        ],
    ))
}

#[test]
fn a_check_of_unchanged_sources_takes_the_kept_parse_and_a_changed_header_is_parsed_again() {
    let cache = tempfile::tempdir().unwrap();
    let tree = tempfile::tempdir().unwrap();
    let main = tree.path().join("main.c");
    let header = tree.path().join("steps.h");
    std::fs::write(
        &main,
        "#include <mpi.h>\n#include \"steps.h\"\nint main(int argc, char **argv)\n{\n    \
         MPI_Init(&argc, &argv);\n#if BARRIERS\n    MPI_Barrier(MPI_COMM_WORLD);\n#endif\n    \
         MPI_Finalize();\n    return 0;\n}\n",
    )
    .unwrap();
    std::fs::write(&header, "#define BARRIERS 1\n").unwrap();
    let check = || check_two_ranks(cache.path(), &main);
    // The first check names the file relative to its directory, the others
    // by its full path: the kept parse serves both.
    let first = Command::new(env!("CARGO_BIN_EXE_fib"))
        .args(["check", "main.c", "-n", "2", "--format", "json"])
        .current_dir(tree.path())
        .env("FIB_CACHE_DIR", cache.path())
        .output()
        .unwrap();
    let first = json(&first);
    let barriers = |v: &Value| -> Vec<u64> {
        program(v, "main.c")["static"]["barriers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["line"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(barriers(&first), [7], "{first}");
    // The symbols and the analysis were kept; a check of the same files
    // takes them and writes nothing.
    let kept = parse_entries(cache.path());
    assert_eq!(kept.len(), 2, "{kept:?}");
    let second = check();
    assert_eq!(barriers(&second), [7]);
    assert_eq!(parse_entries(cache.path()), kept);
    // The header alone changes, to a text of the same length.
    std::fs::write(&header, "#define BARRIERS 0\n").unwrap();
    let third = check();
    assert_eq!(barriers(&third), [0u64; 0], "{third}");
    assert_eq!(program(&third, "main.c")["outcome"], "ok", "{third}");
}

#[test]
fn a_header_missing_at_one_check_is_found_once_it_exists() {
    let cache = tempfile::tempdir().unwrap();
    let tree = tempfile::tempdir().unwrap();
    let main = tree.path().join("main.c");
    std::fs::write(
        &main,
        "#include <mpi.h>\n#include \"generated.h\"\nint main(int argc, char **argv)\n{\n    \
         MPI_Init(&argc, &argv);\n    MPI_Barrier(MPI_COMM_WORLD);\n    MPI_Finalize();\n    \
         return STATUS;\n}\n",
    )
    .unwrap();
    let check = || check_two_ranks(cache.path(), &main);
    let first = check();
    assert_eq!(
        program(&first, "main.c")["outcome"],
        "build-failed",
        "{first}"
    );
    // A parse that did not find a header is not kept.
    assert_eq!(parse_entries(cache.path()), vec![]);
    std::fs::write(tree.path().join("generated.h"), "#define STATUS 0\n").unwrap();
    let second = check();
    assert_eq!(program(&second, "main.c")["outcome"], "ok", "{second}");
    assert_eq!(
        program(&second, "main.c")["static"]["barriers"][0]["line"],
        6,
        "{second}"
    );
}

#[test]
fn the_process_count_on_the_command_line_wins_over_the_directive() {
    let cache = tempfile::tempdir().unwrap();
    let f = fixture("tree/a_ring.c");
    // Its one barrier is irrelevant: a warning, hence exit code 1.
    let out = fib_cached(
        cache.path(),
        &["check", f.to_str().unwrap(), "-n", "4", "--format", "json"],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let v = json(&out);
    assert_eq!(v["programs"].as_array().unwrap().len(), 1);
    assert_eq!(v["programs"][0]["nprocs"], 4);
}

#[test]
fn a_compile_database_supplies_include_paths_definitions_and_the_optimisation_level() {
    let cache = tempfile::tempdir().unwrap();
    let tree = fixture("dbtree");
    let out = fib_cached(
        cache.path(),
        &[
            "check",
            tree.to_str().unwrap(),
            "-n",
            "2",
            "--format",
            "json",
        ],
    );
    let v = json(&out);
    assert_eq!(out.status.code(), Some(0), "{v}");
    assert_eq!(v["programs"][0]["outcome"], "ok");
    assert_eq!(
        v["programs"][0]["static"]["sites"], 5,
        "Init, Comm_rank, Send, Recv, Finalize"
    );
}

#[test]
fn fib_toml_cflags_supply_include_paths_definitions_and_the_optimisation_level() {
    let cache = tempfile::tempdir().unwrap();
    // The compile database's program, its flags from fib.toml instead.
    let top = tempfile::tempdir().unwrap();
    let tree = top.path().join("cflagstree");
    copy_tree(&fixture("dbtree"), &tree);
    std::fs::remove_file(tree.join("compile_commands.json")).unwrap();
    std::fs::write(
        tree.join("fib.toml"),
        "nprocs = 2\ncflags = [\"-Iinclude\", \"-DEXPECTED_RANKS=2\", \"-O2\"]\n",
    )
    .unwrap();
    // Checked from the tree itself and from above it: the include path is
    // the tree's either way.
    for (cwd, path) in [
        (tree.clone(), "."),
        (tree.parent().unwrap().to_path_buf(), "cflagstree"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_fib"))
            .args(["check", path, "--format", "json"])
            .current_dir(&cwd)
            .env("FIB_CACHE_DIR", cache.path())
            .output()
            .unwrap();
        let v = json(&out);
        assert_eq!(out.status.code(), Some(0), "{v}");
        assert_eq!(v["programs"][0]["outcome"], "ok", "{v}");
        assert_eq!(v["programs"][0]["nprocs"], 2);
        assert_eq!(v["programs"][0]["interleavings"], 1);
    }
}

/// The human report with what varies between runs (times, the cache)
/// taken out.
fn stable_human(text: &str) -> String {
    text.lines()
        .map(|l| {
            let l = l.replace("; build cached", "");
            match l.rsplit_once(", ") {
                Some((head, tail)) if tail.ends_with(" s") && l.contains(" — ") => {
                    format!("{head}, T s")
                }
                _ => l,
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// The JSON report with times and the build kind zeroed.
fn stable_json(mut v: Value) -> String {
    for p in v["programs"].as_array_mut().unwrap() {
        p["elapsed_ms"] = 0.into();
        p["build"] = "built".into();
        for t in p["timing"].as_object_mut().unwrap().values_mut() {
            *t = 0.into();
        }
    }
    serde_json::to_string_pretty(&v).unwrap() + "\n"
}

#[test]
fn barrier_verdicts_render_on_the_source() {
    let cache = tempfile::tempdir().unwrap();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let run = |file: &str, n: &str, json_out: bool| {
        let mut args = vec!["check", file, "-n", n, "--confirm"];
        if json_out {
            args.extend(["--format", "json"]);
        } else {
            args.extend(["--color", "never"]);
        }
        Command::new(env!("CARGO_BIN_EXE_fib"))
            .args(&args)
            .current_dir(&root)
            .env("FIB_CACHE_DIR", cache.path())
            .output()
            .unwrap()
    };
    // Relevant (three sites, witness labelled) and not covered plus
    // irrelevant; relevant through memory (a put and a load, two lock
    // epochs), and irrelevant with what already orders the accesses.
    for (file, n, name) in [
        ("tests/barriers/paper_example4a.c", "3", "paper_example4a"),
        ("tests/barriers/never_executed.c", "2", "never_executed"),
        (
            "tests/barriers/mem_lock_put_read.c",
            "2",
            "mem_lock_put_read",
        ),
        ("tests/barriers/mem_lock_order.c", "3", "mem_lock_order"),
        (
            "tests/barriers/mem_lock_order_race.c",
            "2",
            "mem_lock_order_race",
        ),
        ("tests/barriers/mem_fence_orders.c", "2", "mem_fence_orders"),
    ] {
        let human = run(file, n, false);
        let warns = matches!(name, "never_executed" | "mem_fence_orders");
        assert_eq!(
            human.status.code(),
            Some(if warns { 1 } else { 0 }),
            "{name}"
        );
        insta::assert_snapshot!(
            format!("{name}_human"),
            stable_human(&String::from_utf8_lossy(&human.stdout))
        );
        let j = run(file, n, true);
        insta::assert_snapshot!(format!("{name}_json"), stable_json(json(&j)));
    }
}

#[test]
fn an_irrelevant_verdict_from_a_cut_exploration_says_so() {
    // Monte-Carlo pi at 4 ranks has more than two interleavings and one
    // irrelevant barrier; exploring two of them cannot prove it irrelevant.
    let f = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/barriers/monte_carlo_pi.c");
    let out = fib(&[
        "check",
        f.to_str().unwrap(),
        "-n",
        "4",
        "--max-interleavings",
        "2",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let p = &json(&out)["programs"][0];
    assert_eq!(p["interleavings"], 2);
    let codes: Vec<&str> = p["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["FIB011", "FIB014"]);
    let irrelevant = &p["findings"][1];
    assert!(
        irrelevant["message"]
            .as_str()
            .unwrap()
            .contains("which are not all of them"),
        "{irrelevant}"
    );
    assert!(irrelevant["help"]
        .as_str()
        .unwrap()
        .starts_with("explore every interleaving"));
}

#[test]
fn a_barrier_before_a_clock_or_output_is_irrelevant_with_advice_to_keep_it_for_that() {
    let path = fixture("timing_barrier.c");
    let out = fib(&["check", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    let program = &v["programs"][0];
    let help: Vec<(u64, String)> = program["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "FIB014")
        .map(|f| {
            (
                f["line"].as_u64().unwrap(),
                f["help"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let file = path.display().to_string();
    assert_eq!(
        help,
        vec![
            (13, format!("it synchronises the timing at line 14 of {file} (MPI_Wtime): keep it if that measurement needs every rank to start together; otherwise delete line 13 of {file}")),
            (19, format!("it orders the output at line 21 of {file} (printf) after every rank got here: keep it if that output needs it; otherwise delete line 19 of {file}")),
            (23, format!("delete line 23 of {file}")),
        ]
    );
    let purposes: Vec<&Value> = program["barriers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| &b["purposes"])
        .collect();
    assert_eq!(purposes[0][0]["kind"], "timing");
    assert_eq!(purposes[0][0]["call"], "MPI_Wtime");
    assert_eq!(purposes[1][0]["kind"], "output");
    assert_eq!(purposes[1][0]["line"], 21);
    assert!(purposes[2].is_null());
}

/// The `help:` line of each finding with `code`, by line, from a JSON check
/// of `name` (a program of this directory) at 2 ranks.
fn helps(name: &str, code: &str) -> (String, Vec<(u64, String)>) {
    let path = fixture(name);
    let out = fib(&[
        "check",
        path.to_str().unwrap(),
        "-n",
        "2",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1), "{name}");
    let v = json(&out);
    let help = v["programs"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == code)
        .map(|f| {
            (
                f["line"].as_u64().unwrap(),
                f["help"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (path.display().to_string(), help)
}

#[test]
fn a_barrier_wrapper_is_kept_for_the_output_its_callers_print_after_it() {
    let (file, help) = helps("barrier_wrapper.c", "FIB014");
    assert_eq!(
        help,
        vec![
            (11, format!("it orders the output at line 18 of {file} (printf, which follows the call of sync_all at line 16 of {file}) after every rank got here: keep it if that output needs it; otherwise delete line 11 of {file}")),
            (23, format!("it orders the output at line 25 of {file} (printf) after every rank got here: keep it if that output needs it; otherwise delete line 23 of {file}")),
            (26, format!("it orders the output at line 42 of {file} (show, which follows the call of separator at line 41 of {file}) after every rank got here: keep it if that output needs it; otherwise delete line 26 of {file}")),
        ]
    );
}

#[test]
fn a_callee_whose_barrier_precedes_its_clock_or_whose_output_is_dead_gives_no_purpose() {
    let (file, help) = helps("callee_purposes.c", "FIB014");
    assert_eq!(
        help,
        vec![
            (16, format!("it synchronises the timing at line 17 of {file} (MPI_Wtime): keep it if that measurement needs every rank to start together; otherwise delete line 16 of {file}")),
            (37, format!("delete line 37 of {file}")),
            (39, format!("delete line 39 of {file}")),
        ]
    );
}

#[test]
fn a_barrier_not_covered_names_its_condition_and_what_can_change_it() {
    let (_, help) = helps("not_covered_gates.c", "FIB016");
    assert_eq!(
        help,
        vec![
            (22, "no process count or program argument runs it: build with `-DDEBUG` (in the compile database or the build's flags) and check again".to_string()),
            (24, "no process count or program argument runs it: only a build with another definition of `TRACE` does".to_string()),
            (26, "check again with program arguments (after `--`) or input that make that condition hold".to_string()),
            (28, "check again with a process count (`-n`) that makes that condition hold".to_string()),
        ]
    );
    // The human diagnostic, with the condition and the definition the
    // preprocessor left out.
    let out = Command::new(env!("CARGO_BIN_EXE_fib"))
        .args(["check", "tests/cli/not_covered_gates.c", "-n", "2"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!(
        "not_covered_gates_human",
        stable_human(&String::from_utf8_lossy(&out.stdout))
    );
}

/// A window of 64 synchronous sends completes: a rank fib holds keeps MPI
/// progressing for its peer. Before, most runs stalled until the time limit;
/// five runs in a row that all complete make that near impossible.
#[test]
fn a_window_of_synchronous_sends_completes_while_the_receiver_is_held() {
    let path = fixture("zero_buffer_window.c");
    for _ in 0..5 {
        let out = fib(&[
            "check",
            path.to_str().unwrap(),
            "--zero-buffer",
            "--timeout",
            "20",
            "--format",
            "json",
        ]);
        let v = json(&out);
        assert_eq!(v["programs"][0]["outcome"], "ok", "{v}");
        assert_eq!(v["programs"][0]["calls"], 132);
        assert_eq!(out.status.code(), Some(0));
    }
}

/// Two threads of a rank inside MPI at once under `MPI_THREAD_MULTIPLE`
/// are checked (the rank's gate orders their calls), also when the second
/// thread comes while every rank waits; threads fib was not told of
/// (started before `MPI_Init`) are refused with FIB006 at the call, not
/// taken for a deadlock; threads that take turns are checked.
#[test]
fn a_replay_idles_a_thread_where_its_run_did_whatever_its_timing() {
    let path = fixture("slow_in_first_run.c");
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("first-run-done");
    let out = fib(&[
        "check",
        path.to_str().unwrap(),
        "-n",
        "3",
        "--format",
        "json",
        "--",
        marker.to_str().unwrap(),
    ]);
    let v = json(&out);
    let p = &v["programs"][0];
    assert!(marker.exists(), "the first run computed");
    // No divergence: 2 orders of the wildcard receive, each with 2 orders
    // of the two threads' sends once the replay is past its plan.
    assert_eq!(p["outcome"], "ok", "{v}");
    assert_eq!(p["interleavings"], 4, "{v}");
    assert_eq!(p["findings"].as_array().unwrap().len(), 0, "{v}");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn mpi_from_two_threads_at_once_is_checked_and_unknown_threads_are_refused() {
    let path = fixture("two_thread_receiver.c");
    let out = fib(&[
        "check",
        path.to_str().unwrap(),
        "--format",
        "json",
        "--timeout",
        "30",
    ]);
    let v = json(&out);
    let p = &v["programs"][0];
    assert_eq!(p["outcome"], "ok", "{v}");
    assert_eq!(p["interleavings"], 1, "{v}");
    let codes: Vec<&str> = (p["findings"].as_array().unwrap().iter())
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["FIB044"], "{v}");
    assert_eq!(out.status.code(), Some(1));

    // A thread on its way to a call while every rank waits in MPI: not a
    // deadlock (the gate waits for the rank's running thread).
    let path = fixture("sender_behind_receiver.c");
    let out = fib(&["check", path.to_str().unwrap(), "--format", "json"]);
    let v = json(&out);
    let p = &v["programs"][0];
    assert_eq!(p["outcome"], "ok", "{v}");
    assert_eq!(p["interleavings"], 1, "{v}");

    let path = fixture("threads_before_init.c");
    let out = fib(&[
        "check",
        path.to_str().unwrap(),
        "--format",
        "json",
        "--timeout",
        "30",
    ]);
    let v = json(&out);
    let p = &v["programs"][0];
    assert_eq!(p["outcome"], "unsupported", "{v}");
    let f = &p["findings"][0];
    assert_eq!(f["code"], "FIB006");
    assert_eq!(f["rank"], 0);
    assert_eq!(f["line"], 19);
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .starts_with("MPI_THREAD_MULTIPLE is not supported by fib yet: a thread of this rank called MPI while another of its threads was inside an MPI call, and fib was not told when they started"),
        "{f}"
    );
    assert_eq!(out.status.code(), Some(2));

    let path = fixture("serialized_threads.c");
    let out = fib(&["check", path.to_str().unwrap(), "--format", "json"]);
    let v = json(&out);
    assert_eq!(v["programs"][0]["outcome"], "ok", "{v}");
    assert_eq!(out.status.code(), Some(0));

    // A deadlock names the thread that waits in MPI when its rank had
    // several, and only then.
    let path = fixture("worker_blocked.c");
    let out = fib(&["check", path.to_str().unwrap(), "--format", "json"]);
    let v = json(&out);
    let f = &v["programs"][0]["findings"][0];
    assert_eq!(f["code"], "FIB001", "{v}");
    assert_eq!(
        f["message"], "deadlock: rank 0 (thread 1) in MPI_Recv",
        "{v}"
    );
    assert_eq!(f["ranks"][0]["thread"], 1, "{v}");
    assert_eq!(f["ranks"][0]["line"], 12, "{v}");
    assert!(f["ranks"][1].get("thread").is_none(), "{v}");
    let out = fib(&["check", path.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("= rank 0: thread 1 blocked in MPI_Recv at ")
            && text.contains("worker_blocked.c:12:5")
            && !text.contains("FIB044"),
        "{text}"
    );
}

/// With no MPI on `PATH`, a check and `fib doctor` name the Debian
/// packages to install.
#[test]
fn without_an_mpi_fib_names_the_packages_to_install() {
    let path = fixture("wildcard_race.c");
    let fib_without_mpi = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_fib"))
            .args(args)
            .env("PATH", "/nonexistent")
            .output()
            .unwrap()
    };
    let out = fib_without_mpi(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no MPI implementation found: neither mpicc.mpich nor mpicc.openmpi is on PATH; install MPICH (apt-get install mpich libmpich-dev) or Open MPI (apt-get install openmpi-bin libopenmpi-dev)"),
        "{err}"
    );
    let out = fib_without_mpi(&["check", path.to_str().unwrap(), "--mpi", "openmpi"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("Open MPI is not installed (mpicc.openmpi or mpiexec.openmpi is not on PATH); install it with apt-get install openmpi-bin libopenmpi-dev"),
        "{err}"
    );
    let out = fib_without_mpi(&["doctor"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("  MPICH: apt-get install mpich libmpich-dev"),
        "{text}"
    );
    assert!(
        text.contains("  Open MPI: apt-get install openmpi-bin libopenmpi-dev"),
        "{text}"
    );
    assert!(text.contains("fib cannot check programs here"), "{text}");
}

/// `fib doctor` on this machine: both implementations, their libraries
/// beside fib (the workspace's build), libclang.
#[test]
fn doctor_lists_both_implementations_and_libclang() {
    let out = fib(&["doctor"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("MPICH") && text.contains("(default)"),
        "{text}"
    );
    assert!(text.contains("Open MPI"), "{text}");
    assert!(text.contains("libclang: "), "{text}");
    assert!(text.contains("interposition library:"), "{text}");
    assert!(text.contains("fib can check programs here."), "{text}");
}

/// A source in Latin-1 (not valid UTF-8) is checked like any other: the
/// deadlock is found at its line.
#[test]
fn a_source_that_is_not_utf8_is_checked() {
    let path = fixture("latin1.c");
    let out = fib(&["check", path.to_str().unwrap(), "--format", "json"]);
    let v = json(&out);
    let p = &v["programs"][0];
    assert_eq!(p["outcome"], "deadlock", "{v}");
    let f = &p["findings"][0];
    assert_eq!((&f["code"], &f["line"]), (&"FIB001".into(), &12.into()));
    assert_eq!(out.status.code(), Some(1));
}

/// The launcher's placeholder survives the help: clap makes a line break
/// of a plain `{n}` in a help text.
#[test]
fn the_launcher_help_shows_its_placeholder() {
    for flag in ["-h", "--help"] {
        let out = fib(&["check", flag]);
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("`srun -n {n}`, `mpiexec.mpich -f hosts -n {n}`"),
            "{flag}:\n{text}"
        );
        assert!(!text.contains('\x1b'), "{flag}: escapes in plain output");
    }
}
