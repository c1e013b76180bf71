//! Every runtime finding as fib really prints it: the real `fib` binary on
//! small C programs under MPICH, one snapshot each of its standard output,
//! standard error and exit code together.
//!
//! What varies from one run to the next is redacted: elapsed times, the
//! build cache (its directory, and whether a program was built or found
//! there), process ids and the launcher's lines of the program's standard
//! error. Where the run ends with a rank dying (a crash or `MPI_Abort`), the
//! other ranks may or may not have reported their next call before the run
//! is stopped, so the call count of the summary is redacted too. Everything
//! else is exact.

use std::path::Path;
use std::process::Command;

use insta_cmd::assert_cmd_snapshot;

/// `fib check ARGS`, run from the workspace root so that the report names
/// each program by its path in the repository, with its build cache in
/// `cache`.
pub(crate) fn check(cache: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fib"));
    cmd.arg("check")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("FIB_CACHE_DIR", cache);
    cmd
}

/// `text` as a regular expression that matches it literally.
fn literal(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Snapshot settings that redact what varies between runs of a check whose
/// build cache is `cache`.
pub(crate) fn redacted(cache: &Path) -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    // The cache directory, wherever it shows (the command's environment in
    // the snapshot's header included).
    s.add_filter(&literal(cache.to_str().unwrap()), "[CACHE]");
    s.add_redaction(".env.FIB_CACHE_DIR", "[CACHE]");
    // Human: the elapsed time that ends a program's summary line, and the
    // build cache.
    s.add_filter(r"(?m), \d+\.\d+ s$", ", [ELAPSED] s");
    s.add_filter("; build cached", "");
    // JSON: times (`elapsed_ms`, `timing`'s `*_ms` and `fib_us`) and the
    // build cache.
    s.add_filter(r#""(\w+_(?:ms|us))": \d+"#, r#""$1": "[TIME]""#);
    s.add_filter(r#""build": "(?:built|cached)""#, r#""build": "[BUILD]""#);
    // Process ids, and the notes that quote MPICH's launcher rather than the
    // program.
    s.add_filter(r"\bPID \d+", "PID [PID]");
    s.add_filter(r"(?m)^ *= note: \[(?:mpiexec|proxy)[^\]]*\].*\n", "");
    s
}

/// As [`redacted`], and the call count of the summary line too: when a rank
/// dies, the others may or may not have reported one more call before the
/// run is stopped. So is the note that quotes MPICH's own report of an
/// `MPI_Abort`: the launcher passes it on only when it reads it before it
/// ends the job, about 64 runs in 65 here.
fn redacted_calls(cache: &Path) -> insta::Settings {
    let mut s = redacted(cache);
    s.add_filter(
        r"(?m)( — \d+ interleavings?), \d+ calls?,",
        "$1, [CALLS] calls,",
    );
    s.add_filter(r"(?m)^ *= note: Abort\(\d+\) on node .*\n", "");
    s
}

#[test]
fn deadlock_fib001() {
    // The wildcard receive takes rank 2's message in the second
    // interleaving; rank 0's receive from rank 2 then never matches.
    let cache = tempfile::tempdir().unwrap();
    redacted(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "deadlock_fib001",
            check(
                cache.path(),
                &["tests/cli/wildcard_race.c", "-n", "3", "--color", "never"]
            )
        );
    });
}

#[test]
fn deadlock_fib001_json() {
    let cache = tempfile::tempdir().unwrap();
    redacted(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "deadlock_fib001_json",
            check(
                cache.path(),
                &["tests/cli/wildcard_race.c", "-n", "3", "--format", "json"]
            )
        );
    });
}

#[test]
fn crash_fib002() {
    // A failed assert: SIGABRT on rank 1, with the assert's message.
    let cache = tempfile::tempdir().unwrap();
    redacted_calls(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "crash_fib002",
            check(
                cache.path(),
                &["tests/umpire/assert_fails.c", "-n", "2", "--color", "never"]
            )
        );
    });
}

#[test]
fn abort_fib003() {
    let cache = tempfile::tempdir().unwrap();
    redacted_calls(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "abort_fib003",
            check(
                cache.path(),
                &[
                    "tests/umpire/abort_one_rank.c",
                    "-n",
                    "2",
                    "--color",
                    "never"
                ]
            )
        );
    });
}

#[test]
fn timeout_fib005() {
    // Rank 0 computes forever after a barrier; rank 1 waits in
    // MPI_Finalize.
    let cache = tempfile::tempdir().unwrap();
    redacted(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "timeout_fib005",
            check(
                cache.path(),
                &[
                    "tests/cli/spin_forever.c",
                    "-n",
                    "2",
                    "--timeout",
                    "2",
                    "--color",
                    "never"
                ]
            )
        );
    });
}

#[test]
fn no_finalize_fib004() {
    // Rank 0 may or may not report its barrier before the launcher ends the
    // run that rank 1 left: the call count is redacted.
    let cache = tempfile::tempdir().unwrap();
    redacted_calls(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "no_finalize_fib004",
            check(
                cache.path(),
                &["tests/cli/exit_early.c", "-n", "2", "--color", "never"]
            )
        );
    });
}

#[test]
fn replay_divergence_fib008() {
    // The program counts its runs in a file: from the second run on it makes
    // one more call before its wildcard receives, so replaying the first
    // run's choice for its second alternative finds it elsewhere.
    let cache = tempfile::tempdir().unwrap();
    let counter = cache.path().join("runs");
    redacted(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "replay_divergence_fib008",
            check(
                cache.path(),
                &[
                    "tests/cli/changes_between_runs.c",
                    "-n",
                    "3",
                    "--color",
                    "never",
                    "--",
                    counter.to_str().unwrap(),
                ]
            )
        );
    });
}

#[test]
fn leaked_request_fib018() {
    let cache = tempfile::tempdir().unwrap();
    redacted(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "leaked_request_fib018",
            check(
                cache.path(),
                &[
                    "tests/umpire/leak_isend_never_waited.c",
                    "-n",
                    "2",
                    "--color",
                    "never"
                ]
            )
        );
    });
}

#[test]
fn collective_mismatch_nonblocking_fib009() {
    // A blocking collective against a nonblocking one: the rank that made
    // the nonblocking call is shown as having called it, not as blocked in
    // it.
    let cache = tempfile::tempdir().unwrap();
    redacted(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "collective_mismatch_nonblocking_fib009",
            check(
                cache.path(),
                &[
                    "tests/umpire/barrier_vs_ibarrier.c",
                    "-n",
                    "2",
                    "--color",
                    "never"
                ]
            )
        );
    });
}

#[test]
fn leaked_nonblocking_collective_fib018() {
    let cache = tempfile::tempdir().unwrap();
    redacted(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "leaked_nonblocking_collective_fib018",
            check(
                cache.path(),
                &[
                    "tests/umpire/leak_ibcast_never_waited.c",
                    "-n",
                    "2",
                    "--color",
                    "never"
                ]
            )
        );
    });
}

#[test]
fn leaked_communicator_fib019() {
    let cache = tempfile::tempdir().unwrap();
    redacted(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "leaked_communicator_fib019",
            check(
                cache.path(),
                &[
                    "tests/umpire/leak_comm_split_in_loop.c",
                    "-n",
                    "4",
                    "--color",
                    "never"
                ]
            )
        );
    });
}

#[test]
fn reused_request_fib012() {
    // A request variable that still holds an active request, found by the
    // rank before the second MPI_Isend reaches MPI: the first one is
    // labelled. Rank 1 may or may not have reported its receive by the
    // time the run stops.
    let cache = tempfile::tempdir().unwrap();
    redacted_calls(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "reused_request_fib012",
            check(
                cache.path(),
                &[
                    "tests/umpire/request_reuse_active.c",
                    "-n",
                    "2",
                    "--color",
                    "never"
                ]
            )
        );
    });
}

#[test]
fn invalid_call_fib012() {
    // Found by the rank before the call reaches MPI; rank 0 may or may
    // not have reported its send by the time the run stops.
    let cache = tempfile::tempdir().unwrap();
    redacted_calls(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "invalid_call_fib012",
            check(
                cache.path(),
                &[
                    "tests/umpire/invalid_recv_tag.c",
                    "-n",
                    "2",
                    "--color",
                    "never"
                ]
            )
        );
    });
}

#[test]
fn type_mismatch_fib030() {
    // Whether rank 0's MPI_Finalize is read before the run stops depends on
    // timing.
    let cache = tempfile::tempdir().unwrap();
    redacted_calls(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "type_mismatch_fib030",
            check(
                cache.path(),
                &[
                    "tests/umpire/type_mismatch_int_float.c",
                    "-n",
                    "2",
                    "--color",
                    "never"
                ]
            )
        );
    });
}

#[test]
fn buffer_type_mismatch_fib032() {
    // Found before running: the buffer argument underlined, the datatype
    // argument labelled; the run itself is ok.
    let cache = tempfile::tempdir().unwrap();
    redacted(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "buffer_type_mismatch_fib032",
            check(
                cache.path(),
                &[
                    "tests/umpire/buffer_type_member_sent_as_long.c",
                    "-n",
                    "2",
                    "--color",
                    "never"
                ]
            )
        );
    });
}

#[test]
fn buffer_in_use_fib034() {
    // Found in the rank's program order: the store between the MPI_Isend
    // and its wait, placed by the debug information; the owner labelled.
    let cache = tempfile::tempdir().unwrap();
    redacted(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "buffer_in_use_fib034",
            check(
                cache.path(),
                &["tests/umpire/mem_isend_write.c", "--color", "never"]
            )
        );
    });
}

#[test]
fn window_race_fib038() {
    // Rank 0's load of its window and rank 1's MPI_Put under a shared lock,
    // with nothing between them: the load underlined, the put and the
    // unlock that completes it labelled.
    let cache = tempfile::tempdir().unwrap();
    redacted(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "window_race_fib038",
            check(
                cache.path(),
                &["tests/umpire/rma_race_lock_put_load.c", "--color", "never"]
            )
        );
    });
}

/// The HTML report of checking `file`, which has errors (exit code 1).
fn html_report_with_errors(file: &str) -> String {
    let cache = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_fib"))
        .args(["check", file, "--format", "html"])
        .env("FIB_CACHE_DIR", cache.path())
        .output()
        .expect("running fib");
    assert_eq!(out.status.code(), Some(1));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn window_race_picture_in_the_html_report() {
    // The race's picture: rank 0's load drawn as its own mark before the
    // call it preceded, rank 1's MPI_Put and the unlock that completes it
    // marked.
    let html = html_report_with_errors("tests/umpire/rma_race_lock_put_load.c");
    assert!(html.contains(
        "<g class=\"mark race\"><title>rank 0, before call 2: load at tests/umpire/rma_race_lock_put_load.c:17 (racing access)</title>"
    ), "{html}");
    assert!(html.contains(
        "<g class=\"mark race\"><title>rank 1, call 3: MPI_Put at tests/umpire/rma_race_lock_put_load.c:20 (racing access)</title>"
    ));
    assert!(html.contains(
        "<g class=\"mark completes\"><title>rank 1, call 4: MPI_Win_unlock at tests/umpire/rma_race_lock_put_load.c:21 (completes it)</title>"
    ));
}

#[test]
fn buffer_in_use_picture_in_the_html_report() {
    // The local race's picture: the MPI_Isend that owns the buffer, and the
    // store drawn as its own mark before the call it preceded.
    let html = html_report_with_errors("tests/umpire/mem_isend_write.c");
    assert!(html.contains(
        "<g class=\"mark race\"><title>rank 0, call 1: MPI_Isend to 1 at tests/umpire/mem_isend_write.c:14 (racing access)</title>"
    ), "{html}");
    assert!(html.contains(
        "<g class=\"mark race\"><title>rank 0, before call 2: store at tests/umpire/mem_isend_write.c:15 (racing access)</title>"
    ));
}

#[test]
fn null_status_fib033() {
    // Found before running: the call underlined; the run itself is ok.
    let cache = tempfile::tempdir().unwrap();
    redacted(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "null_status_fib033",
            check(
                cache.path(),
                &[
                    "tests/umpire/status_null_recv.c",
                    "-n",
                    "2",
                    "--color",
                    "never"
                ]
            )
        );
    });
}

#[test]
fn input_dependent_call_fib040() {
    // The run passes with an odd argument; the warning names the condition,
    // the command line and the ranks that always broadcast.
    let cache = tempfile::tempdir().unwrap();
    redacted(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "input_dependent_call_fib040",
            check(
                cache.path(),
                &[
                    "tests/umpire/input_bcast_odd.c",
                    "-n",
                    "3",
                    "--color",
                    "never",
                    "--",
                    "3"
                ]
            )
        );
    });
}

#[test]
fn collective_arguments_fib031() {
    let cache = tempfile::tempdir().unwrap();
    redacted(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "collective_arguments_fib031",
            check(
                cache.path(),
                &[
                    "tests/umpire/coll_op_mismatch.c",
                    "-n",
                    "3",
                    "--color",
                    "never"
                ]
            )
        );
    });
}

#[test]
fn collective_arguments_nonblocking_fib031() {
    // A nonblocking collective's members, and the root's receive against
    // a rank's send.
    let cache = tempfile::tempdir().unwrap();
    redacted(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "collective_arguments_nonblocking_fib031",
            check(
                cache.path(),
                &[
                    "tests/umpire/ibcast_type_mismatch.c",
                    "tests/umpire/igather_count_mismatch.c",
                    "-n",
                    "3",
                    "--color",
                    "never"
                ]
            )
        );
    });
}

#[test]
fn leaked_handle_fib028() {
    let cache = tempfile::tempdir().unwrap();
    redacted(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "leaked_handle_fib028",
            check(
                cache.path(),
                &[
                    "tests/umpire/leak_datatype.c",
                    "-n",
                    "2",
                    "--color",
                    "never"
                ]
            )
        );
    });
}

#[test]
fn freed_active_receive_fib029() {
    let cache = tempfile::tempdir().unwrap();
    redacted(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "freed_active_receive_fib029",
            check(
                cache.path(),
                &[
                    "tests/umpire/request_free_irecv.c",
                    "-n",
                    "2",
                    "--color",
                    "never"
                ]
            )
        );
    });
}

#[test]
fn probed_message_never_received_fib020() {
    let cache = tempfile::tempdir().unwrap();
    redacted(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "probed_message_never_received_fib020",
            check(
                cache.path(),
                &[
                    "tests/umpire/mprobe_never_received.c",
                    "-n",
                    "3",
                    "--color",
                    "never"
                ]
            )
        );
    });
}

#[test]
fn ready_send_unposted_fib025() {
    // Rank 0's MPI_Rsend comes before anything orders rank 1's receive
    // first. The run stops at the send, while rank 1 may or may not have
    // reported its first receive yet.
    let cache = tempfile::tempdir().unwrap();
    redacted_calls(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "ready_send_unposted_fib025",
            check(
                cache.path(),
                &[
                    "tests/umpire/rsend_before_recv.c",
                    "-n",
                    "2",
                    "--color",
                    "never"
                ]
            )
        );
    });
}

#[test]
fn unreceived_message_fib020() {
    // The message with tag 2 is never received (FIB020), and its send
    // returns only because MPI buffers it (FIB023).
    let cache = tempfile::tempdir().unwrap();
    redacted(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "unreceived_message_fib020",
            check(
                cache.path(),
                &[
                    "tests/umpire/unreceived_message.c",
                    "-n",
                    "2",
                    "--color",
                    "never"
                ]
            )
        );
    });
}

#[test]
fn bundled_examples_human() {
    // One deadlock (FIB001), one relevant and one irrelevant barrier proven
    // by removal: what `scripts/example.sh` shows.
    let cache = tempfile::tempdir().unwrap();
    redacted(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "bundled_examples_human",
            check(cache.path(), &["examples", "--confirm", "--color", "never"])
        );
    });
}

#[test]
fn bundled_examples_json() {
    let cache = tempfile::tempdir().unwrap();
    redacted(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "bundled_examples_json",
            check(cache.path(), &["examples", "--confirm", "--format", "json"])
        );
    });
}

#[test]
fn unsupported_fib006() {
    // Calls fib does not model on a path no run takes: named before
    // running, and the program is not run.
    let cache = tempfile::tempdir().unwrap();
    redacted(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "unsupported_fib006",
            check(
                cache.path(),
                &["tests/cli/unsupported_paths.c", "--color", "never"]
            )
        );
    });
}

#[test]
fn rma_epoch_fib035() {
    // Found by rank 0 before MPI_Win_free reaches MPI: the lock it still
    // holds labelled at its MPI_Win_lock, the window at its creation. Rank
    // 1 may or may not have reported its MPI_Win_free by then.
    let cache = tempfile::tempdir().unwrap();
    redacted_calls(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "rma_epoch_fib035",
            check(
                cache.path(),
                &[
                    "tests/umpire/rma_free_with_lock_open.c",
                    "-n",
                    "2",
                    "--color",
                    "never"
                ]
            )
        );
    });
}

#[test]
fn rma_out_of_window_fib036() {
    // The bytes the put reaches against the size rank 1 gave its window.
    let cache = tempfile::tempdir().unwrap();
    redacted_calls(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "rma_out_of_window_fib036",
            check(
                cache.path(),
                &[
                    "tests/umpire/rma_put_out_of_window.c",
                    "-n",
                    "2",
                    "--color",
                    "never"
                ]
            )
        );
    });
}

#[test]
fn leaked_window_fib037() {
    // The run completes; the window's creation is the finding's place.
    let cache = tempfile::tempdir().unwrap();
    redacted(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "leaked_window_fib037",
            check(
                cache.path(),
                &[
                    "tests/umpire/rma_leaked_window.c",
                    "-n",
                    "2",
                    "--color",
                    "never"
                ]
            )
        );
    });
}

#[test]
fn memory_barrier_picture_in_the_html_report() {
    // A barrier relevant through memory: rank 1's MPI_Put and rank 0's
    // load marked as the two accesses, the unlock that completes the put,
    // both ranks' barrier calls, and the ordering path from the unlock
    // through the barrier; the table says what the barrier keeps apart.
    let cache = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_fib"))
        .args([
            "check",
            "tests/barriers/mem_lock_put_read.c",
            "-n",
            "2",
            "--format",
            "html",
        ])
        .env("FIB_CACHE_DIR", cache.path())
        .output()
        .expect("running fib");
    assert_eq!(out.status.code(), Some(0));
    let html = String::from_utf8(out.stdout).unwrap();
    for mark in [
        "<g class=\"mark race\"><title>rank 1, call 3: MPI_Put at tests/barriers/mem_lock_put_read.c:24 (racing access)</title>",
        "<g class=\"mark race\"><title>rank 0, before call 3: load at tests/barriers/mem_lock_put_read.c:29 (racing access)</title>",
        "<g class=\"mark completes\"><title>rank 1, call 4: MPI_Win_unlock at tests/barriers/mem_lock_put_read.c:25 (completes it)</title>",
        "<g class=\"mark w-barrier\"><title>rank 0, call 2: MPI_Barrier at tests/barriers/mem_lock_put_read.c:27 (the barrier)</title>",
        "<g class=\"mark w-barrier\"><title>rank 1, call 5: MPI_Barrier at tests/barriers/mem_lock_put_read.c:27 (the barrier)</title>",
        "keeps from racing rank 1's <code>MPI_Put</code> (line 24) and rank 0's <code>load</code> (line 29) on rank 0's window",
    ] {
        assert!(html.contains(mark), "{mark}\n{html}");
    }
    assert!(
        html.contains("<polyline class=\"path\""),
        "the ordering path is drawn"
    );
}

/// The human report of a FIB039 program of the corpus at `n` processes.
fn overflow_snapshot(name: &str, program: &str, n: &str) {
    let cache = tempfile::tempdir().unwrap();
    redacted_calls(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            name,
            check(cache.path(), &[program, "-n", n, "--color", "never"])
        );
    });
}

#[test]
fn type_signature_mismatch_fib030() {
    // Two struct datatypes of the same size whose signatures differ: both
    // shown run-length encoded.
    let cache = tempfile::tempdir().unwrap();
    redacted_calls(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "type_signature_mismatch_fib030",
            check(
                cache.path(),
                &[
                    "tests/umpire/type_signature_struct_order.c",
                    "-n",
                    "2",
                    "--color",
                    "never"
                ]
            )
        );
    });
}

#[test]
fn buffer_overflow_fib039() {
    // A receive into a malloc'd block: the bytes, the block's size and its
    // allocation, labelled through the debug information.
    overflow_snapshot(
        "buffer_overflow_fib039",
        "tests/umpire/extent_malloc_recv.c",
        "2",
    );
}

#[test]
fn buffer_overflow_root_and_block_fib039() {
    // A root's buffer of size × count against its array, declared at line
    // 8; a Gatherv block at its displacement.
    overflow_snapshot(
        "buffer_overflow_gather_root_fib039",
        "tests/umpire/extent_gather_root_small.c",
        "4",
    );
    overflow_snapshot(
        "buffer_overflow_gatherv_block_fib039",
        "tests/umpire/extent_gatherv_displacement.c",
        "3",
    );
}

#[test]
fn buffer_overflow_variables_fib039() {
    // `&x` of one int with a count of two; `&a[8]` of an array of ten.
    overflow_snapshot(
        "buffer_overflow_scalar_fib039",
        "tests/umpire/extent_scalar_address.c",
        "2",
    );
    overflow_snapshot(
        "buffer_overflow_element_fib039",
        "tests/umpire/extent_element_near_end.c",
        "2",
    );
}

#[test]
fn alltoallv_counts_fib031() {
    // The first pair of blocks that differ: a rank's count for a peer and
    // the peer's count from it.
    let cache = tempfile::tempdir().unwrap();
    redacted_calls(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "alltoallv_counts_fib031",
            check(
                cache.path(),
                &[
                    "tests/umpire/alltoallv_count_mismatch.c",
                    "-n",
                    "3",
                    "--color",
                    "never"
                ]
            )
        );
    });
}

#[test]
fn struct_layout_fib041() {
    // A hand-written displacement inside the struct's padding, at the send
    // and at the receive.
    let cache = tempfile::tempdir().unwrap();
    redacted(cache.path()).bind(|| {
        assert_cmd_snapshot!(
            "struct_layout_fib041",
            check(
                cache.path(),
                &[
                    "tests/umpire/struct_layout_hand_displacements.c",
                    "-n",
                    "2",
                    "--color",
                    "never"
                ]
            )
        );
    });
}
