//! `--mode recorded`: the ranks never wait for fib's scheduler; every call
//! goes to MPI at once, each run is read back by the engine afterwards,
//! and only the receives of a run's plan are forced. It must give what the
//! scheduled mode gives: the same deadlocks with their tokens, the same
//! verdicts with their witnesses; a program with a call it cannot follow
//! yet is checked with the scheduler instead; a run that crashes is read
//! back whole; and a run that times out or is interrupted leaves no
//! process behind.

use std::process::{Command, Stdio};

use serde_json::Value;

use super::{ctrl_c, fib, fixture, json, marker, processes_with, sendrecv_witness, wait_for_ranks};

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

/// A run that ends in a crash is still read back whole: the barrier every
/// rank passed before it gets its verdict, the other wildcard order is
/// explored, and the crash's token replays in both modes.
#[test]
fn a_recorded_run_that_crashes_is_read_back_whole() {
    let (code, v, _) = check("crash_after_barrier.c", "recorded", &["-n", "3"]);
    assert_eq!(code, Some(1));
    let (_, scheduled, _) = check("crash_after_barrier.c", "scheduled", &["-n", "3"]);
    assert_eq!(found(&v), found(&scheduled));
    let p = &v["programs"][0];
    assert_eq!(p["outcome"], "crash");
    assert_eq!(p["interleavings"], 2);
    assert_eq!(
        p["interleavings"],
        scheduled["programs"][0]["interleavings"]
    );
    assert_eq!(p["barriers"][0]["verdict"], "irrelevant");
    let crash = &p["findings"][0];
    assert_eq!(
        (
            crash["code"].as_str(),
            crash["rank"].as_u64(),
            crash["line"].as_u64()
        ),
        (Some("FIB002"), Some(2), Some(17))
    );
    let token = crash["replay"].as_str().unwrap().to_string();
    // The first run takes what MPI gives: either sender may come first.
    assert!(token == "0.0" || token == "1.0", "{token}");
    for mode in ["recorded", "scheduled"] {
        let (_, v, _) = check(
            "crash_after_barrier.c",
            mode,
            &["-n", "3", "--replay", &token],
        );
        let p = &v["programs"][0];
        assert_eq!(p["interleavings"], 1, "{mode}");
        assert_eq!(p["outcome"], "crash", "{mode}");
        assert_eq!(p["findings"][0]["rank"], 2, "{mode}");
    }
}

#[test]
fn a_recorded_check_gives_the_relevant_barrier_its_witness() {
    let (_, v, _) = check("sendrecv_witness.c", "recorded", &[]);
    sendrecv_witness(&v["programs"][0]["barriers"][0]);
    let (_, scheduled, _) = check("sendrecv_witness.c", "scheduled", &[]);
    assert_eq!(found(&v), found(&scheduled));
}

#[test]
fn a_recorded_check_follows_and_forces_waitany_and_waitsome() {
    // waitany_race_with_wildcard.c: rank 0's MPI_Waitany returns rank 2's
    // message only when rank 2's wildcard receive was decided first, and
    // rank 0 then waits for a message nobody sends.
    let name = "../umpire/waitany_race_with_wildcard.c";
    let (code, v, err) = check(name, "recorded", &["-n", "4"]);
    assert!(!err.contains("cannot follow"), "{err}");
    assert_eq!(code, Some(1));
    let p = &v["programs"][0];
    assert_eq!(p["outcome"], "deadlock");
    let d = &p["findings"][0];
    assert_eq!(d["code"], "FIB001");
    assert_eq!(
        (d["rank"].as_u64(), d["line"].as_u64()),
        (Some(0), Some(24))
    );
    let (_, scheduled, _) = check(name, "scheduled", &["-n", "4"]);
    assert_eq!(found(&v), found(&scheduled));
    // The deadlock's token names the same interleaving in the scheduled
    // mode, which is what a replay uses (a token lists the alternatives
    // taken, not what they are: a recorded run cannot force them).
    let token = d["replay"].as_str().unwrap().to_string();
    let (code, v, err) = check(name, "recorded", &["-n", "4", "--replay", &token]);
    assert!(
        err.contains(
            "a recorded run cannot follow the choices of a replay token yet: checked with the scheduler"
        ),
        "{err}"
    );
    assert_eq!(code, Some(1));
    let p = &v["programs"][0];
    assert_eq!(p["interleavings"], 1);
    assert_eq!(p["outcome"], "deadlock");
    assert_eq!(p["findings"][0]["line"], 24);

    // waitsome_loop.c: a server completing its workers' messages with
    // MPI_Waitsome, every subset an interleaving.
    let name = "../umpire/waitsome_loop.c";
    let (code, v, err) = check(name, "recorded", &["-n", "4"]);
    assert!(!err.contains("cannot follow"), "{err}");
    let (scode, scheduled, _) = check(name, "scheduled", &["-n", "4"]);
    assert_eq!((code, scode), (Some(0), Some(0)));
    assert_eq!(found(&v), found(&scheduled));
    assert_eq!(
        v["programs"][0]["interleavings"],
        scheduled["programs"][0]["interleavings"]
    );
}

#[test]
fn a_recorded_check_follows_and_forces_wildcard_probes() {
    // probe_any_src_deadlock.c: rank 0 probes from MPI_ANY_SOURCE and
    // receives from whom the probe found; one of the two senders' second
    // message is then never received. The second run forces the probe.
    for (name, outcome, runs) in [
        ("../umpire/probe_any_src_deadlock.c", "deadlock", 2),
        ("../umpire/probe_any_src_then_recv.c", "ok", 2),
    ] {
        let (_, v, err) = check(name, "recorded", &["-n", "3"]);
        assert!(!err.contains("cannot follow"), "{name}: {err}");
        let p = &v["programs"][0];
        assert_eq!(
            (p["outcome"].as_str(), p["interleavings"].as_u64()),
            (Some(outcome), Some(runs)),
            "{name}"
        );
        let (_, scheduled, _) = check(name, "scheduled", &["-n", "3"]);
        assert_eq!(found(&v), found(&scheduled), "{name}");
    }
}

#[test]
fn a_recorded_check_follows_the_communicators_the_ranks_make() {
    // split_comm_mismatch.c: the ranks split the world and then call
    // collectives on communicators that do not match; intercomm_any_src_
    // two_senders.c: a wildcard receive on an intercommunicator, whose
    // sources are ranks of the remote group.
    for (name, outcome, code) in [
        ("../umpire/split_comm_mismatch.c", "deadlock", "FIB001"),
        ("../umpire/intercomm_any_src_two_senders.c", "ok", ""),
    ] {
        let (_, v, err) = check(name, "recorded", &["-n", "4"]);
        assert!(!err.contains("cannot follow"), "{name}: {err}");
        let p = &v["programs"][0];
        assert_eq!(p["outcome"], outcome, "{name}");
        let codes: Vec<&str> = p["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["code"].as_str().unwrap())
            .collect();
        assert_eq!(codes.first().copied().unwrap_or(""), code, "{name}");
        let (_, scheduled, _) = check(name, "scheduled", &["-n", "4"]);
        assert_eq!(found(&v), found(&scheduled), "{name}");
    }
}

/// A wildcard receive the program cancels once the message may be on its
/// way: MPI cancels it or gives it the message, and the next run forces
/// the other outcome (a receive the plan cancels is never posted). Both
/// are explored without the scheduler; only the cancelled one leaves
/// rank 1's message unreceived (FIB020).
#[test]
fn a_recorded_check_follows_and_forces_cancels() {
    let (v, _) = recorded_as_scheduled("../umpire/cancel_any_src_races_message.c", "2");
    let p = &v["programs"][0];
    assert_eq!(p["interleavings"], 2);
    assert_eq!(first_finding(p), (Some("FIB020"), Some(1), Some(31)));
}

/// A recorded check of the fixture `name` on `n` ranks that never falls
/// back to the scheduler and finds what a scheduled check finds ([`found`],
/// and the exit status): both reports.
fn recorded_as_scheduled(name: &str, n: &str) -> (Value, Value) {
    let (code, v, err) = check(name, "recorded", &["-n", n]);
    assert!(!err.contains("checked with the scheduler"), "{err}");
    let (scheduled_code, scheduled, _) = check(name, "scheduled", &["-n", n]);
    assert_eq!(code, scheduled_code);
    assert_eq!(found(&v), found(&scheduled));
    (v, scheduled)
}

/// The code, rank and line of a program's first finding.
fn first_finding(p: &Value) -> (Option<&str>, Option<u64>, Option<u64>) {
    let f = &p["findings"][0];
    (f["code"].as_str(), f["rank"].as_u64(), f["line"].as_u64())
}

/// A recorded run hands its plan to the ranks in their environment, where
/// Linux caps a string at 128 KiB: the second run's plan lists the
/// positions each of the first run's `MPI_Waitsome` calls returned, 30 000
/// of them, and is longer, so the program is checked with the scheduler
/// instead (it failed to start `mpiexec`: "Argument list too long").
#[test]
fn a_plan_too_long_for_the_ranks_environment_is_checked_with_the_scheduler() {
    let (code, v, err) = check(
        "long_plan.c",
        "recorded",
        &["-n", "2", "--max-interleavings", "2"],
    );
    // The barrier orders nothing (FIB014, a warning).
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("a recorded run cannot follow a plan of")
            && err.contains("checked with the scheduler"),
        "{err}"
    );
    let p = &v["programs"][0];
    assert_eq!(p["outcome"], "ok", "{err}");
    assert_eq!(p["interleavings"], 2, "{err}");
}

/// Every rank's call is invalid, each its own: whichever report arrives
/// first, the run's ending is rank 0's (the lowest rank's), in every run
/// and in both modes, so that a check's answer does not change from run to
/// run.
#[test]
fn invalid_calls_on_every_rank_end_the_run_with_rank_0s_in_every_run() {
    for mode in [
        "scheduled",
        "recorded",
        "scheduled",
        "recorded",
        "scheduled",
        "recorded",
    ] {
        let (code, v, err) = check("invalid_on_every_rank.c", mode, &["-n", "3"]);
        assert_eq!(code, Some(1), "{err}");
        let p = &v["programs"][0];
        assert_eq!(p["outcome"], "crash", "{mode}: {err}");
        assert_eq!(
            p["findings"].as_array().map(Vec::len),
            Some(1),
            "{mode}: {p}"
        );
        assert_eq!(
            first_finding(p),
            (Some("FIB012"), Some(0), Some(13)),
            "{mode}: {p}"
        );
    }
}

/// A blocking matched probe from `MPI_ANY_SOURCE` takes what MPI gives
/// it, and the next run forces the other sender's message; its
/// `MPI_Mrecv` completes in MPI. Both orders are explored without the
/// scheduler, and the message the probe never takes is reported in the
/// same interleaving as scheduled (FIB020).
#[test]
fn a_recorded_check_follows_and_forces_matched_probes() {
    let (v, _) = recorded_as_scheduled("../umpire/mprobe_never_received.c", "3");
    let p = &v["programs"][0];
    assert_eq!(p["interleavings"], 2);
    assert_eq!(first_finding(p), (Some("FIB020"), Some(2), Some(27)));
}

/// An `MPI_Comm_idup` completes in MPI, and its rank names the new
/// communicator at the wait, after the one an `MPI_Comm_dup` made in
/// between, as the engine gives them their ids: the wildcard receives on
/// the first and the barrier on the second are followed without the
/// scheduler, with the scheduled check's findings and verdict.
#[test]
fn a_recorded_check_follows_a_communicator_made_by_comm_idup() {
    let (v, scheduled) = recorded_as_scheduled("idup_then_dup.c", "3");
    let p = &v["programs"][0];
    assert_eq!(p["outcome"], "ok");
    // A recorded run stands for one order of the row of receives only.
    assert_eq!(p["interleavings"], 2);
    assert_eq!(scheduled["programs"][0]["interleavings"], 1);
    assert_eq!(p["barriers"][0]["verdict"], "irrelevant");
}

/// Tests return what MPI has completed: `MPI_Testsome`'s choice between
/// two senders is followed and forced like a `Waitsome`'s (the same three
/// interleavings as scheduled); the other test forms, polling loops and
/// `MPI_Request_get_status` need no scheduler, and a request only ever
/// polled with `MPI_Request_get_status` is still a leak (FIB018), a
/// buffer written after a failed test still a race (FIB034).
#[test]
fn a_recorded_check_follows_and_forces_tests() {
    let (v, _) = recorded_as_scheduled("../umpire/testsome_poll.c", "3");
    assert_eq!(v["programs"][0]["interleavings"], 3);
    for (name, n) in [
        ("../umpire/test_poll_loop.c", "2"),
        ("../umpire/testany_poll.c", "2"),
        ("../umpire/testall_poll.c", "3"),
        ("../umpire/request_get_status_loop.c", "2"),
    ] {
        let (v, _) = recorded_as_scheduled(name, n);
        assert_eq!(v["programs"][0]["outcome"], "ok", "{name}");
    }
    let (v, _) = recorded_as_scheduled("../umpire/leak_request_get_status_only.c", "2");
    assert_eq!(first_finding(&v["programs"][0]).0, Some("FIB018"));
    let (v, _) = recorded_as_scheduled("../umpire/mem_failed_test_write.c", "2");
    let codes: Vec<&str> = v["programs"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["code"].as_str())
        .collect();
    assert!(codes.contains(&"FIB034"), "{codes:?}");
}

/// A nonblocking probe from `MPI_ANY_SOURCE` (`MPI_Iprobe`, and the
/// matched `MPI_Improbe`) polled until it finds a message takes what MPI
/// shows it, and the next run forces the other sender's: the order in
/// which rank 0 then waits for a message never sent is found without the
/// scheduler (FIB001, as scheduled); polls naming their source need none
/// either.
#[test]
fn a_recorded_check_follows_and_forces_nonblocking_probes() {
    for (name, line) in [
        ("iprobe_any_src_deadlock.c", 17),
        ("improbe_any_src_deadlock.c", 19),
    ] {
        let (v, _) = recorded_as_scheduled(name, "3");
        let p = &v["programs"][0];
        assert_eq!(p["interleavings"], 2, "{name}");
        assert_eq!(first_finding(p), (Some("FIB001"), Some(0), Some(line)));
    }
    for name in ["../umpire/iprobe_poll.c", "../umpire/improbe_poll_imrecv.c"] {
        let (v, _) = recorded_as_scheduled(name, "2");
        assert_eq!(v["programs"][0]["outcome"], "ok", "{name}");
    }
}

/// Ranks that only ever fail their tests while every rank waits: a
/// recorded run cannot tell a livelock from slow progress, so fib says so
/// and checks the program with the scheduler, which finds it (FIB010).
#[test]
fn a_recorded_run_whose_ranks_keep_failing_tests_is_checked_with_the_scheduler() {
    let (code, v, err) = check("test_livelock.c", "recorded", &["-n", "2"]);
    let (scode, scheduled, _) = check("test_livelock.c", "scheduled", &["-n", "2"]);
    assert_eq!(code, scode);
    assert_eq!(found(&v), found(&scheduled));
    assert_eq!(first_finding(&v["programs"][0]).0, Some("FIB010"));
    assert!(
        err.contains("cannot follow tests that keep returning nothing while every rank waits"),
        "{err}"
    );
}

/// Windows synchronised by fences and by post/start/complete/wait are
/// followed without the scheduler: a fence a rank never reaches and a
/// wait for a complete that never comes are deadlocks found from the
/// ranks' own word that they wait, a put racing a store in one fence epoch
/// is FIB038, a window never freed FIB037, an `MPI_Win_test` that returned
/// true is followed, and the barrier behind a fence that already orders
/// the put and the load is irrelevant, all as scheduled checks find.
#[test]
fn a_recorded_check_follows_fences_and_post_start_complete_wait() {
    for (name, code, line) in [
        ("../umpire/rma_fence_missing_deadlock.c", Some("FIB001"), 18),
        (
            "../umpire/rma_wait_without_complete_deadlock.c",
            Some("FIB001"),
            19,
        ),
        ("../umpire/rma_race_fence_same_epoch.c", Some("FIB038"), 19),
        ("../umpire/rma_leaked_window.c", Some("FIB037"), 8),
        ("../umpire/rma_pscw_test_ok.c", None, 0),
        ("../barriers/mem_fence_orders.c", Some("FIB014"), 25),
    ] {
        let (v, _) = recorded_as_scheduled(name, "2");
        let f = first_finding(&v["programs"][0]);
        assert_eq!((f.0, f.2.unwrap_or(0)), (code, line), "{name}");
    }
}

/// Lock grants are followed and forced without the scheduler: each
/// rank takes a lock of fib's own before MPI's and says which grant it
/// was, and a later run holds a lock back until the plan's first was
/// granted. Two ranks taking two windows' locks in opposite orders give
/// the scheduled check's three grant orders (and may meet one twice), one
/// a deadlock; a put in a
/// lock epoch racing the target's load is FIB038; and a barrier that
/// orders nothing beside shared lock epochs is irrelevant.
#[test]
fn a_recorded_check_follows_and_forces_lock_grants() {
    let (v, scheduled) = recorded_as_scheduled("../umpire/rma_lock_order_deadlock.c", "2");
    let p = &v["programs"][0];
    // A recorded run past its plan takes what MPI grants, which may be an
    // order an earlier run explored: never fewer runs than scheduled.
    assert_eq!(scheduled["programs"][0]["interleavings"], 3);
    assert!(
        p["interleavings"].as_u64() >= Some(3),
        "{}",
        p["interleavings"]
    );
    assert_eq!(first_finding(p), (Some("FIB001"), Some(0), Some(17)));
    let (v, _) = recorded_as_scheduled("../umpire/rma_race_lock_put_load.c", "2");
    assert_eq!(
        first_finding(&v["programs"][0]).0,
        Some("FIB038"),
        "rma_race_lock_put_load.c"
    );
    let (v, _) = recorded_as_scheduled("../umpire/rma_lock_all_request_shared_ok.c", "2");
    assert_eq!(
        first_finding(&v["programs"][0]).0,
        Some("FIB014"),
        "rma_lock_all_request_shared_ok.c"
    );
}

#[test]
fn a_call_a_recorded_run_cannot_follow_is_checked_with_the_scheduler() {
    // free_wildcard_receive.c frees a wildcard receive still pending,
    // whose message only the scheduler chooses: fib says so and checks it
    // scheduled.
    let name = "free_wildcard_receive.c";
    let (code, v, err) = check(name, "recorded", &["-n", "2"]);
    let (scode, scheduled, _) = check(name, "scheduled", &["-n", "2"]);
    assert_eq!(code, scode);
    assert_eq!(found(&v), found(&scheduled));
    assert!(
        err.contains("a recorded run cannot follow MPI_Request_free (rank 0")
            && err.contains(") yet: checked with the scheduler"),
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
    wait_for_ranks(&m);
    ctrl_c(child, &m);
}

#[test]
fn a_recorded_run_sends_from_the_programs_buffers_until_mpi_holds_a_send_it_needs_buffered() {
    // Ranks 0 and 1 send 1 MiB to each other before receiving (blocking,
    // and waited for): MPI holds both sends, the two ranks say they are
    // stuck and rank 2, in its wildcard receive, that it waits; the run is
    // held by its sends and runs again from copies.
    for name in [
        "../umpire/large_send_head_to_head_wildcard_copied.c",
        "../umpire/large_isend_wait_head_to_head_wildcard_copied.c",
    ] {
        let (code, v, err) = check(name, "recorded", &["-n", "3", "--timeout", "60"]);
        let p = &v["programs"][0];
        assert_eq!(
            (code, p["outcome"].as_str(), p["sends_copied"].as_bool()),
            (Some(0), Some("ok"), Some(true)),
            "{name}: {err}"
        );
    }
    // Large sends whose receives are posted need no copy.
    let (code, v, err) = check(
        "../umpire/large_sends_reuse_buffer.c",
        "recorded",
        &["-n", "2", "--timeout", "60"],
    );
    let p = &v["programs"][0];
    assert_eq!(
        (code, p["outcome"].as_str(), p["sends_copied"].as_bool()),
        (Some(0), Some("ok"), None),
        "{err}"
    );
}
