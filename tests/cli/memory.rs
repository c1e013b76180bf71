//! Memory checking: which programs fib builds with the compiler's pass
//! (only those that hand MPI memory past a call, unless `FIB_MEMORY` says
//! otherwise), that a C++ program with atomics builds and runs with it, and
//! what `fib run` says of a binary fib did not build.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::findings::check;
use super::json;

/// The programs in the build cache `cache`.
fn built(cache: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(cache.join("builds")).unwrap().flatten() {
        let p = e.path().join("program");
        if p.is_file() {
            out.push(p);
        }
    }
    out
}

/// Whether the program at `exe` calls the pass's hooks.
fn instrumented(exe: &Path) -> bool {
    let out = Command::new("nm").arg("-u").arg(exe).output().unwrap();
    String::from_utf8_lossy(&out.stdout).contains("__tsan_init")
}

/// The codes of the findings of a JSON report.
fn codes(v: &serde_json::Value) -> Vec<String> {
    let mut out: Vec<String> = v["programs"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["findings"].as_array().unwrap().iter())
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect();
    out.sort();
    out
}

#[test]
fn a_program_with_no_nonblocking_call_is_built_without_the_pass() {
    let cache = tempfile::tempdir().unwrap();
    let out = check(
        cache.path(),
        &[
            "tests/umpire/any_src_two_senders_ok.c",
            "-n",
            "3",
            "--format",
            "json",
        ],
    )
    .output()
    .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let programs = built(cache.path());
    assert_eq!(programs.len(), 1);
    assert!(!instrumented(&programs[0]));
}

#[test]
fn a_program_with_a_nonblocking_call_is_built_with_the_pass_unless_memory_is_off() {
    let cache = tempfile::tempdir().unwrap();
    let out = check(
        cache.path(),
        &["tests/umpire/mem_isend_write.c", "--format", "json"],
    )
    .output()
    .unwrap();
    assert_eq!(codes(&json(&out)), ["FIB034"]);
    let programs = built(cache.path());
    assert_eq!(programs.len(), 1);
    assert!(instrumented(&programs[0]));

    // Off: another build (the key says so), without the pass, no finding.
    let out = check(
        cache.path(),
        &["tests/umpire/mem_isend_write.c", "--format", "json"],
    )
    .env("FIB_MEMORY", "off")
    .output()
    .unwrap();
    assert_eq!(codes(&json(&out)), Vec::<String>::new());
    let programs = built(cache.path());
    assert_eq!(programs.len(), 2);
    assert_eq!(programs.iter().filter(|p| instrumented(p)).count(), 1);

    // On: even a program with blocking calls only.
    let other = tempfile::tempdir().unwrap();
    let out = check(
        other.path(),
        &["tests/umpire/any_src_two_senders_ok.c", "-n", "3"],
    )
    .env("FIB_MEMORY", "on")
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(instrumented(&built(other.path())[0]));
}

#[test]
fn a_bad_memory_setting_is_named() {
    let cache = tempfile::tempdir().unwrap();
    let out = check(cache.path(), &["tests/umpire/mem_isend_write.c"])
        .env("FIB_MEMORY", "sometimes")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("FIB_MEMORY=sometimes: memory checking is `auto`, `on` or `off`"),
        "{err}"
    );
}

#[test]
fn a_cxx_program_with_atomics_builds_and_passes_with_memory_checking() {
    let cache = tempfile::tempdir().unwrap();
    let out = check(
        cache.path(),
        &["tests/cli/memory/atomics.cc", "--format", "json"],
    )
    .output()
    .unwrap();
    let v = json(&out);
    assert_eq!(codes(&v), Vec::<String>::new(), "{v}");
    assert_eq!(v["programs"][0]["outcome"], "ok", "{v}");
    let programs = built(cache.path());
    assert!(instrumented(&programs[0]));
}

#[test]
fn fib_run_says_it_cannot_see_the_loads_and_stores_of_a_prebuilt_binary() {
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/umpire/mem_isend_write.c");
    let status = Command::new("mpicc.mpich")
        .arg(&src)
        .args(["-g", "-o"])
        .arg(dir.path().join("prog"))
        .status()
        .unwrap();
    assert!(status.success());
    let out = Command::new(env!("CARGO_BIN_EXE_fib"))
        .args(["run", "-n", "2", "--format", "json", "./prog"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("fib: note: ./prog calls MPI_Isend, whose buffers MPI owns until they complete; fib did not build it, so it does not see its loads and stores"),
        "{err}"
    );
    assert_eq!(codes(&json(&out)), Vec::<String>::new());
}
