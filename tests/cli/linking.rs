//! How fib builds programs: C++ linked with the C++ MPI compiler, link
//! flags (libm by default, `link` in `fib.toml`, `fib:` directives), which
//! sources make a program (a `main` as libclang sees it under the real
//! flags; a helper linked only when the program uses what it defines), and
//! whose failure a failed build is (the user's own errors on the user's
//! file and line; a bug in fib only when the sources build as they are).
//! The programs are in `tests/cli/linking/`.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use super::{fixture, json, program};

/// `fib check ARGS --format json` with a build cache of the test's own,
/// and the environment `env` added.
fn check(cache: &Path, args: &[&str], env: &[(&str, &str)]) -> (Output, Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_fib"))
        .arg("check")
        .args(args)
        .args(["--format", "json"])
        .env("FIB_CACHE_DIR", cache)
        .envs(env.iter().copied())
        .output()
        .expect("running fib");
    let v = json(&out);
    (out, v)
}

fn path(rel: &str) -> String {
    fixture(rel).to_str().unwrap().to_string()
}

/// Whether a report names a build directory of fib's cache anywhere.
fn names_the_cache(v: &Value, cache: &Path) -> bool {
    let text = v.to_string();
    text.contains(cache.to_str().unwrap()) || text.contains("tmp-") || text.contains(".o:")
}

#[test]
fn a_cxx_program_using_cmath_links_with_the_cxx_mpi_compiler_and_runs() {
    let cache = tempfile::tempdir().unwrap();
    let (out, v) = check(cache.path(), &[&path("linking/cxx/ring_norm.cpp")], &[]);
    assert_eq!(out.status.code(), Some(0), "{v}");
    let p = &v["programs"][0];
    assert_eq!(p["outcome"], "ok", "{p}");
    assert_eq!(p["nprocs"], 3);
    assert_eq!(p["interleavings"], 1);
    assert_eq!(
        p["static"]["sites"], 6,
        "Init, Comm_rank, Comm_size, Recv, Send, Finalize"
    );
}

#[test]
fn a_c_program_calling_sqrt_links_libm() {
    let cache = tempfile::tempdir().unwrap();
    let (out, v) = check(cache.path(), &[&path("linking/needs_libm.c")], &[]);
    assert_eq!(out.status.code(), Some(0), "{v}");
    assert_eq!(v["programs"][0]["outcome"], "ok");
    assert_eq!(v["programs"][0]["nprocs"], 2);
}

#[test]
fn link_flags_come_from_fib_toml_and_the_directive() {
    let cache = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    // libscale.a, outside the checked tree.
    let lib = work.path().join("lib");
    std::fs::create_dir(&lib).unwrap();
    let obj = lib.join("scale.o");
    let cc = Command::new("gcc")
        .args(["-c", &path("linking/extlib/scale/scale.c"), "-o"])
        .arg(&obj)
        .status()
        .unwrap();
    assert!(cc.success());
    let ar = Command::new("ar")
        .arg("rcs")
        .arg(lib.join("libscale.a"))
        .arg(&obj)
        .status()
        .unwrap();
    assert!(ar.success());
    let prog = work.path().join("prog");
    std::fs::create_dir(&prog).unwrap();
    std::fs::copy(fixture("linking/extlib/prog/main.c"), prog.join("main.c")).unwrap();
    let tree = prog.to_str().unwrap();

    // The directive's -lscale alone: the linker cannot find the library,
    // and says so on the user's program.
    let (out, v) = check(cache.path(), &[tree], &[]);
    assert_eq!(out.status.code(), Some(2), "{v}");
    let f = &v["programs"][0]["findings"][0];
    assert_eq!(f["code"], "FIB007");
    assert!(
        f["message"].as_str().unwrap().contains("does not link"),
        "{f}"
    );
    assert!(f["notes"].to_string().contains("-lscale"), "{f}");
    assert!(f["file"].as_str().unwrap().ends_with("prog/main.c"), "{f}");

    // fib.toml says where it is: the program links and runs.
    let toml = format!("link = [\"-L{}\"]\n", lib.display());
    std::fs::write(prog.join("fib.toml"), toml).unwrap();
    let (out, v) = check(cache.path(), &[tree], &[]);
    assert_eq!(out.status.code(), Some(0), "{v}");
    assert_eq!(v["programs"][0]["outcome"], "ok");

    // A bad flag is an error naming the file, the key and the line.
    std::fs::write(prog.join("fib.toml"), "nprocs = 2\nlink = [\"scale\"]\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_fib"))
        .args(["check", tree])
        .env("FIB_CACHE_DIR", cache.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("fib.toml:2: `link`: `scale` is not a link flag"),
        "{err}"
    );
}

#[test]
fn a_main_under_an_undefined_ifdef_is_no_program_and_its_file_is_linked() {
    let cache = tempfile::tempdir().unwrap();
    let (out, v) = check(cache.path(), &[&path("linking/unit_test")], &[]);
    assert_eq!(out.status.code(), Some(0), "{v}");
    let programs = v["programs"].as_array().unwrap();
    assert_eq!(programs.len(), 1, "halo.c is no program: {v}");
    let p = &programs[0];
    assert!(p["program"]
        .as_str()
        .unwrap()
        .ends_with("unit_test/solver.c"));
    // It links: halo.c, which defines halo_sum, is linked.
    assert_eq!(p["outcome"], "ok", "{p}");

    // Naming the helper checks the program that links it.
    let (out, v) = check(cache.path(), &[&path("linking/unit_test/halo.c")], &[]);
    assert_eq!(out.status.code(), Some(0), "{v}");
    assert!(v["programs"][0]["program"]
        .as_str()
        .unwrap()
        .ends_with("unit_test/solver.c"));
}

#[test]
fn a_helper_no_program_uses_is_not_linked() {
    let cache = tempfile::tempdir().unwrap();
    let (out, v) = check(cache.path(), &[&path("linking/collide")], &[]);
    assert_eq!(out.status.code(), Some(0), "{v}");
    let p = program(&v, "collide/main.c");
    // It links: exchange.c is linked, legacy.c (a second log_step) is not.
    assert_eq!(p["outcome"], "ok", "{p}");

    // Named, it is mentioned and skipped: no program uses it.
    let out = Command::new(env!("CARGO_BIN_EXE_fib"))
        .args(["check", &path("linking/collide/legacy.c")])
        .env("FIB_CACHE_DIR", cache.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("legacy.c: no program in its directory uses it"),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(0), "{err}");
}

#[test]
fn a_compile_error_in_a_helper_is_reported_on_the_helpers_line() {
    let cache = tempfile::tempdir().unwrap();
    let (out, v) = check(cache.path(), &[&path("linking/helper_error")], &[]);
    assert_eq!(out.status.code(), Some(2), "{v}");
    let p = &v["programs"][0];
    assert_eq!(p["outcome"], "build-failed");
    let f = &p["findings"][0];
    assert_eq!(f["code"], "FIB007");
    assert!(
        f["message"].as_str().unwrap().ends_with("does not compile"),
        "{f}"
    );
    assert!(
        f["file"]
            .as_str()
            .unwrap()
            .ends_with("helper_error/helper.c"),
        "{f}"
    );
    assert_eq!(f["line"], 6);
    assert!(
        f["notes"].to_string().contains("invalid initializer"),
        "{f}"
    );
    assert!(!names_the_cache(&v, cache.path()), "{v}");
}

#[test]
fn an_undefined_function_is_the_users_link_error_on_the_call() {
    let cache = tempfile::tempdir().unwrap();
    let (out, v) = check(cache.path(), &[&path("linking/undefined.c")], &[]);
    assert_eq!(out.status.code(), Some(2), "{v}");
    let p = &v["programs"][0];
    assert_eq!(p["outcome"], "build-failed");
    let f = &p["findings"][0];
    assert_eq!(f["code"], "FIB007");
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .ends_with("undefined.c does not link: undefined reference to `exchange_halo`"),
        "{f}"
    );
    assert!(
        f["file"].as_str().unwrap().ends_with("linking/undefined.c"),
        "{f}"
    );
    assert_eq!(f["line"], 12, "the call");
    let notes = f["notes"].to_string();
    assert!(
        notes.contains("undefined.c:12: undefined reference"),
        "{notes}"
    );
    assert!(!notes.contains("bug in fib"), "{notes}");
    assert!(!names_the_cache(&v, cache.path()), "{v}");
}

#[test]
fn a_build_only_the_instrumentation_breaks_is_a_bug_in_fib_with_both_command_lines() {
    let cache = tempfile::tempdir().unwrap();
    let tools = tempfile::tempdir().unwrap();
    // A compiler that refuses fib's instrumented copies (those compiled
    // with its site header), and builds the sources as they are.
    let wrapper = tools.path().join("mpicc");
    std::fs::write(
        &wrapper,
        "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in *fib_sites.h) \
         echo 'refused: instrumented' >&2; exit 1;; esac; done\nexec mpicc.mpich \"$@\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (out, v) = check(
        cache.path(),
        &[&path("linking/needs_libm.c")],
        &[("FIB_MPICC", wrapper.to_str().unwrap())],
    );
    assert_eq!(out.status.code(), Some(2), "{v}");
    let f = &v["programs"][0]["findings"][0];
    assert_eq!(f["code"], "FIB007");
    assert!(
        f["message"].as_str().unwrap().contains("a bug in fib"),
        "{f}"
    );
    let notes: Vec<&str> = f["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    let instrumented = notes.iter().find(|n| n.starts_with("instrumented: cd "));
    let plain = notes.iter().find(|n| n.starts_with("as it is: cd "));
    assert!(
        instrumented.is_some_and(|c| c.contains("fib_sites.h") && c.contains("needs_libm.c")),
        "{notes:?}"
    );
    assert!(
        plain.is_some_and(|c| !c.contains("fib_sites.h") && c.contains("needs_libm.c")),
        "{notes:?}"
    );
    assert!(notes.contains(&"refused: instrumented"), "{notes:?}");
}
