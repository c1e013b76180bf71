//! fib installed with `cargo install --path .`, run as a new user would:
//! from another directory, with a clean environment and an empty cache, so
//! that the interposition library is neither beside the binary nor
//! prebuilt. The installed fib must build it on first use and check the
//! bundled examples.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `cargo install --path . --root ROOT --debug`, with a target directory of
/// its own (the test's own is locked by the running `cargo test`) that is
/// kept between runs.
fn install(root: &Path) {
    let target = workspace().join("target/install-test");
    let out = Command::new(env!("CARGO"))
        .args(["install", "--quiet", "--debug", "--locked", "--path"])
        .arg(workspace())
        .arg("--root")
        .arg(root)
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .expect("running cargo install");
    assert!(
        out.status.success(),
        "cargo install failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Where fib is installed: `FIB_INSTALLED_ROOT`, where `scripts/test.sh`
/// installed it with `cargo install --path . --debug` before the tests
/// (from the workspace's own build, so that a fresh clone does not build
/// everything twice), else a root of the test's own, installed now.
fn installed(tmp: &Path) -> PathBuf {
    if let Some(root) = std::env::var_os("FIB_INSTALLED_ROOT") {
        return PathBuf::from(root);
    }
    let root = tmp.join("root");
    install(&root);
    root
}

/// Runs the installed fib in `cwd` with nothing of this environment but
/// `HOME` (where rustup keeps cargo) and a plain `PATH` without cargo.
fn fib(root: &Path, cwd: &Path, cache: &Path, args: &[&str]) -> Output {
    Command::new(root.join("bin/fib"))
        .args(args)
        .current_dir(cwd)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", std::env::var_os("HOME").expect("HOME"))
        .env("FIB_CACHE_DIR", cache)
        .output()
        .expect("running the installed fib")
}

#[test]
fn an_installed_fib_builds_its_interposition_library_and_checks_the_examples() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path().join("elsewhere");
    let cache = tmp.path().join("cache");
    std::fs::create_dir_all(&cwd).unwrap();
    let root = installed(tmp.path());
    assert!(root.join("bin/fib").is_file());
    assert!(!root.join("bin/libfib_interpose.so").exists());

    let doctor = fib(&root, &cwd, &cache, &["doctor"]);
    let text = String::from_utf8_lossy(&doctor.stdout);
    assert!(doctor.status.success(), "{text}");
    assert!(
        text.contains("interposition library: not built yet"),
        "{text}"
    );

    let examples = workspace().join("examples");
    let out = fib(
        &root,
        &cwd,
        &cache,
        &["check", examples.to_str().unwrap(), "--format", "json"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("building the interposition library for MPICH"),
        "{stderr}"
    );
    // One example deadlocks in one of its interleavings, the other has a
    // barrier to delete: exit 1, with those findings.
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let codes: Vec<&str> = report["programs"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["findings"].as_array().unwrap())
        .filter_map(|f| f["code"].as_str())
        .collect();
    assert!(codes.contains(&"FIB001"), "{codes:?}");
    assert!(codes.contains(&"FIB014"), "{codes:?}");

    let libs: Vec<_> = std::fs::read_dir(cache.join("interpose"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("mpich-"))
        .collect();
    assert_eq!(libs.len(), 1, "{libs:?}");
    let doctor = fib(&root, &cwd, &cache, &["doctor"]);
    let text = String::from_utf8_lossy(&doctor.stdout);
    assert!(text.contains("(built in the cache)"), "{text}");
}
