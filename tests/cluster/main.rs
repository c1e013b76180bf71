//! fib on the cluster's own launcher (`--launcher`): through a real Slurm
//! (Debian's slurmctld, slurmd and munge, which `scripts/slurm.sh` starts as
//! a one-node cluster before the tests), with `srun` and with `mpiexec`
//! inside `salloc`; and through two emulated hosts that share with fib only
//! the network and the paths a cluster's nodes share: hydra starts each
//! host's proxy through `tests/cluster/host.sh`, in a mount and UTS
//! namespace of its own, with fib's temporary directory hidden, a private
//! `/dev/shm` and its own host name, so that MPICH talks between them over
//! TCP and no rank sees fib's sockets or scratch directories. Both in
//! scheduled runs and in recorded ones (`--mode recorded`), whose ranks
//! never wait for fib.

#[path = "../common/fs_proc.rs"]
mod fs_proc;
use fs_proc::processes_with;
#[path = "../common/witness.rs"]
mod witness;
use witness::sendrecv_witness;

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// A program of the command-line tests.
fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cli")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// `srun` with Slurm's PMI-2, which MPICH speaks.
const SRUN: &str = "srun --mpi=pmi2 -n {n}";

/// Hydra's `mpiexec` starting one proxy on each of two emulated hosts.
fn two_hosts() -> String {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/cluster/host.sh");
    format!(
        "mpiexec.mpich -launcher ssh -launcher-exec {} -hosts hosta,hostb -n {{n}}",
        script.display()
    )
}

/// `fib` with `args`, its temporary directory one of the test's own, which
/// the emulated hosts do not see ([`hidden_tmp`]).
fn fib(args: &[&str]) -> Output {
    let tmp = hidden_tmp();
    Command::new(env!("CARGO_BIN_EXE_fib"))
        .args(args)
        .env("TMPDIR", tmp.path())
        .env("FIB_TEST_HIDE", tmp.path())
        .output()
        .expect("running fib")
}

/// A temporary directory for fib (its run directories, sockets and scratch
/// directories), which `host.sh` replaces with an empty one on the emulated
/// hosts: the rest of the machine's paths stay shared, as a cluster's
/// nodes share the program and fib's library and cache.
fn hidden_tmp() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary directory")
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

fn marker(test: &str) -> String {
    format!("fib-test-marker-{test}-{}", std::process::id())
}

/// The Slurm jobs named `name` still known to the controller once those
/// ending have ended: a job whose step was cancelled is COMPLETING for a
/// moment; one left behind stays RUNNING.
fn jobs_named(name: &str) -> Vec<String> {
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let out = Command::new("squeue")
            .args(["-h", "-n", name, "-o", "%i %T"])
            .output()
            .expect("running squeue");
        assert!(out.status.success(), "squeue failed");
        let jobs: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .collect();
        let ending = !jobs.is_empty() && jobs.iter().all(|j| j.ends_with("COMPLETING"));
        if ending && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(100));
            continue;
        }
        return jobs;
    }
}

/// Checks `wildcard_race.c` (3 ranks; a wildcard receive that can take
/// rank 2's message, after which rank 0's receive from rank 2 never
/// completes) through `launcher`: the deadlock is found in one of two
/// interleavings, and its token replays that interleaving alone.
fn deadlock_found_and_replayed(launcher: &str, extra: &[&str]) {
    let f = fixture("wildcard_race.c");
    let fib = |more: &[&str]| {
        let mut args = vec![
            "check",
            &f,
            "-n",
            "3",
            "--format",
            "json",
            "--launcher",
            launcher,
        ];
        args.extend(extra);
        args.extend(more);
        fib(&args)
    };
    let out = fib(&[]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    let p = &v["programs"][0];
    assert_eq!(p["outcome"], "deadlock");
    assert_eq!(p["interleavings"], 2);
    let d = &p["findings"][0];
    assert_eq!(d["code"], "FIB001");
    assert_eq!(
        (d["rank"].as_u64(), d["line"].as_u64()),
        (Some(0), Some(12))
    );
    assert_eq!(d["replay"], "1");

    let out = fib(&["--replay", "1"]);
    assert_eq!(out.status.code(), Some(1));
    let p = &json(&out)["programs"][0];
    assert_eq!(p["interleavings"], 1);
    assert_eq!(p["outcome"], "deadlock");
    assert_eq!(p["findings"][0]["line"], 12);
}

/// Checks `sendrecv_witness.c` through `launcher`: its barrier is relevant,
/// and the witness runs from rank 0's first wildcard receive through the
/// barrier to the send it keeps away.
fn relevant_barrier_with_witness(launcher: &str) {
    let f = fixture("sendrecv_witness.c");
    let out = fib(&["check", &f, "--format", "json", "--launcher", launcher]);
    sendrecv_witness(&json(&out)["programs"][0]["barriers"][0]);
}

#[test]
fn srun_finds_the_deadlock_and_its_token_replays() {
    deadlock_found_and_replayed(SRUN, &[]);
}

#[test]
fn recorded_runs_through_srun_find_the_deadlock_and_its_token_replays() {
    // The ranks never wait for fib: only the receives of each run's plan
    // are forced, and the deadlock is found once every rank waits in MPI.
    deadlock_found_and_replayed(SRUN, &["--mode", "recorded"]);
}

#[test]
fn recorded_runs_on_two_hosts_find_the_deadlock_and_its_token_replays() {
    deadlock_found_and_replayed(&two_hosts(), &["--mode", "recorded"]);
}

#[test]
fn srun_with_open_mpi_finds_the_deadlock_and_its_token_replays() {
    // Open MPI speaks PMIx to `srun`.
    deadlock_found_and_replayed("srun --mpi=pmix -n {n}", &["--mpi", "openmpi"]);
}

/// `srun` without the process management interface MPICH speaks starts
/// every rank as an MPI job of its own: fib says so, and what to give
/// `srun`, and leaves no process of the program behind.
#[test]
fn srun_without_mpichs_pmi_is_named_as_the_cause() {
    let m = marker("srun-no-pmi");
    let launcher = format!("srun -J {m} -n {{n}}");
    let out = fib(&[
        "check",
        &fixture("wildcard_race.c"),
        "-n",
        "3",
        "--format",
        "json",
        "--launcher",
        &launcher,
        "--",
        &m,
    ]);
    let v = json(&out);
    let finding = &v["programs"][0]["findings"][0];
    assert_eq!(finding["code"], "FIB013", "{finding}");
    let message = finding["message"].as_str().unwrap();
    assert!(
        message.contains("said hello to a run of 3 processes: the launcher started each rank as a job of its own")
            && message.contains("`--mpi=pmi2` for MPICH"),
        "{message}"
    );
    assert_eq!(processes_with(&m), Vec::<String>::new());
    assert_eq!(jobs_named(&m), Vec::<String>::new());
}

#[test]
fn srun_gives_a_relevant_barrier_its_witness() {
    relevant_barrier_with_witness(SRUN);
}

#[test]
fn mpiexec_inside_an_allocation_finds_the_deadlock() {
    // `salloc` runs fib inside a job of 3 tasks; hydra's `mpiexec` finds
    // the allocation and starts its proxies with Slurm.
    let f = fixture("wildcard_race.c");
    let out = Command::new("salloc")
        .args(["-n", "3", "-J", &marker("salloc")])
        .arg(env!("CARGO_BIN_EXE_fib"))
        .args(["check", &f, "-n", "3", "--format", "json", "--launcher"])
        .arg("mpiexec.mpich -n {n}")
        .output()
        .expect("running salloc");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let p = &json(&out)["programs"][0];
    assert_eq!(p["outcome"], "deadlock");
    assert_eq!(p["findings"][0]["line"], 12);
}

#[test]
fn two_hosts_sharing_no_path_with_fib_find_the_deadlock_and_replay_it() {
    deadlock_found_and_replayed(&two_hosts(), &[]);
}

#[test]
fn two_hosts_sharing_no_path_with_fib_give_the_witness() {
    relevant_barrier_with_witness(&two_hosts());
}

#[test]
fn the_two_hosts_do_not_see_the_directory_fib_runs_ranks_in_by_default() {
    // Without `--launcher`, fib runs the ranks in a scratch directory of
    // its temporary directory and listens on a socket there: the emulated
    // hosts, with a /tmp of their own, cannot even start in it. This is
    // what makes the tests above prove that a launcher's ranks need no
    // path of fib's. The second host starts its proxy a second late: the
    // first one's failure ends `mpiexec` before that proxy connects, and
    // it is left in a session of its own below init. fib still kills it
    // (the script's path, in the proxy's arguments, names this test's
    // processes).
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("slow-host.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nfor a; do [ \"$a\" = hostb ] && sleep 1; done\nexec {} \"$@\"\n",
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("tests/cluster/host.sh")
                .display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mpiexec = dir.path().join("mpiexec-two-hosts");
    std::fs::write(
        &mpiexec,
        format!(
            "#!/bin/sh\nexec mpiexec.mpich -launcher ssh -launcher-exec {} -hosts hosta,hostb \"$@\"\n",
            script.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(
        &mpiexec,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let tmp = hidden_tmp();
    let out = Command::new(env!("CARGO_BIN_EXE_fib"))
        .args([
            "check",
            &fixture("wildcard_race.c"),
            "-n",
            "3",
            "--format",
            "json",
        ])
        .env("FIB_MPIEXEC", &mpiexec)
        .env("TMPDIR", tmp.path())
        .env("FIB_TEST_HIDE", tmp.path())
        .output()
        .unwrap();
    let p = &json(&out)["programs"][0];
    assert_eq!(p["outcome"], "crash");
    let notes = p["findings"][0]["notes"].to_string();
    let wdir = format!("unable to change wdir to {}/fib-run-", tmp.path().display());
    assert!(notes.contains(&wdir), "{notes}");
    assert_eq!(
        processes_with(&script.to_string_lossy()),
        Vec::<String>::new()
    );
}

/// Waits until `marker` shows in the command lines of at least `n`
/// processes other than srun's: the ranks.
fn wait_for_ranks(marker: &str, n: usize) {
    let until = Instant::now() + Duration::from_secs(60);
    let ranks = || {
        processes_with(marker)
            .iter()
            .filter(|p| !p.contains("srun "))
            .count()
    };
    while ranks() < n {
        assert!(Instant::now() < until, "the ranks never started");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_timeout_under_srun_ends_the_job_and_leaves_no_process() {
    // Rank 0 computes forever: the run's time limit kills it, and `srun`
    // is asked to end its job first, so no allocation outlives the run.
    let m = marker("srun-timeout");
    let launcher = format!("srun --mpi=pmi2 -J {m} -n {{n}}");
    let out = fib(&[
        "check",
        &fixture("spin_forever.c"),
        "-n",
        "2",
        "--timeout",
        "3",
        "--format",
        "json",
        "--launcher",
        &launcher,
        "--",
        &m,
    ]);
    let p = &json(&out)["programs"][0];
    assert_eq!(p["outcome"], "timeout");
    assert_eq!(processes_with(&m), Vec::<String>::new());
    assert_eq!(jobs_named(&m), Vec::<String>::new());
}

#[test]
fn ctrl_c_under_srun_ends_the_job_and_leaves_no_process() {
    let m = marker("srun-interrupt");
    let launcher = format!("srun --mpi=pmi2 -J {m} -n {{n}}");
    let child = Command::new(env!("CARGO_BIN_EXE_fib"))
        .args([
            "check",
            &fixture("spin_forever.c"),
            "-n",
            "2",
            "--timeout",
            "120",
            "--color",
            "never",
            "--launcher",
            &launcher,
            "--",
            &m,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Both ranks (srun's own processes carry the marker too, and srun
    // may be two of them: counting them could interrupt the step while it
    // is still being launched, a case this test does not cover).
    wait_for_ranks(&m, 2);
    // SAFETY: signalling our own child.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    assert_eq!(processes_with(&m), Vec::<String>::new());
    assert_eq!(jobs_named(&m), Vec::<String>::new());
}
