//! The parse cache as a user meets it: a parse libclang reports errors in
//! is kept like any other and its errors are told once, when it runs; a
//! check from a subfolder of a project whose compile database is in the
//! parent shows paths from where it runs, and shares its kept parses with
//! a check of a sibling folder, whatever the files' times.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, SystemTime};

use super::{copy_tree, fixture, json, parse_entries};

/// `fib ARGS` run in `dir`, with its cache in `cache`.
fn fib_in(dir: &Path, cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fib"))
        .args(args)
        .current_dir(dir)
        .env("FIB_CACHE_DIR", cache)
        .output()
        .expect("running fib")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The note fib gives on `tests/cli/parse_errors/counter.cpp`, checked
/// from its directory.
const LIBCLANG_NOTE: &str = "fib: counter.cpp: libclang reported an error the compiler does not \
     raise (compat.h:3:12: cannot redeclare builtin function '__sync_fetch_and_add'); fib's \
     static facts may miss what the code around it holds (told when the sources are parsed, not \
     at every check)";

#[test]
fn a_parse_libclang_rejects_is_kept_and_its_errors_are_told_once() {
    let cache = tempfile::tempdir().unwrap();
    let dir = fixture("parse_errors");
    let check = || {
        fib_in(
            &dir,
            cache.path(),
            &["check", "counter.cpp", "--format", "json"],
        )
    };
    let first = check();
    let v = json(&first);
    let p = &v["programs"][0];
    // GCC builds what libclang rejects, and the sites after the error are
    // found.
    assert_eq!(p["outcome"], "ok", "{v}");
    assert_eq!(p["build"], "built", "{v}");
    assert_eq!(p["static"]["barriers"][0]["line"], 12, "{v}");
    let err = stderr(&first);
    let notes: Vec<&str> = err.lines().filter(|l| l.contains("libclang")).collect();
    assert_eq!(notes, [LIBCLANG_NOTE], "{err}");
    // The symbols and the analysis were kept despite the error.
    let kept = parse_entries(cache.path());
    assert_eq!(kept.len(), 2, "{kept:?}");

    // The second check takes both, writes nothing, and says nothing more.
    let second = check();
    let v = json(&second);
    assert_eq!(v["programs"][0]["outcome"], "ok", "{v}");
    assert_eq!(v["programs"][0]["static"]["barriers"][0]["line"], 12);
    assert_eq!(parse_entries(cache.path()), kept);
    assert!(!stderr(&second).contains("libclang"), "{}", stderr(&second));
}

/// Moves the modification time of every file under `dir` an hour on.
fn touch_all(dir: &Path) {
    let later = SystemTime::now() + Duration::from_secs(3600);
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.file_type().unwrap().is_dir() {
            touch_all(&e.path());
        } else {
            let f = std::fs::File::options().write(true).open(e.path()).unwrap();
            f.set_modified(later).unwrap();
        }
    }
}

#[test]
fn a_check_from_a_subfolder_shows_paths_from_there_and_a_sibling_takes_its_kept_parses() {
    let cache = tempfile::tempdir().unwrap();
    let top = tempfile::tempdir().unwrap();
    let top = top.path().join("project");
    // one/put.c and two/get.c both call common/util.c's barrier; the
    // compile database is in the project's top directory.
    copy_tree(&fixture("subfolders"), &top);

    let out = fib_in(
        &top.join("one"),
        cache.path(),
        &["check", ".", "--format", "json"],
    );
    let v = json(&out);
    let p = &v["programs"][0];
    assert_eq!(p["program"], "put.c", "{v}");
    assert_eq!(p["outcome"], "ok", "{v}");
    let f = &p["findings"][0];
    assert_eq!(
        (f["code"].as_str(), f["file"].as_str(), f["line"].as_u64()),
        (Some("FIB014"), Some("../common/util.c"), Some(7)),
        "{v}"
    );
    // Every source of the database had its symbols kept (the archive a
    // linker would read), and put.c's program its analysis.
    let kept = parse_entries(cache.path());
    assert_eq!(kept.len(), 4, "{kept:?}");

    // Only the times change; the sibling's check parses its own program
    // and nothing else.
    touch_all(&top);
    let out = fib_in(&top.join("two"), cache.path(), &["check", "."]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("get.c (2 ranks, buffered): ok"),
        "{text}{}",
        stderr(&out)
    );
    assert!(text.contains("  --> ../common/util.c:7:5\n"), "{text}");
    assert!(text.contains("delete line 7 of ../common/util.c"), "{text}");
    let now = parse_entries(cache.path());
    assert_eq!(now.len(), 5, "{now:?}");
    assert!(kept.iter().all(|k| now.contains(k)), "{kept:?}\n{now:?}");

    // From the top, one/ is named as it is; the kept parses serve it.
    let out = fib_in(&top, cache.path(), &["check", "one", "--format", "json"]);
    let v = json(&out);
    assert_eq!(v["programs"][0]["program"], "one/put.c", "{v}");
    assert_eq!(v["programs"][0]["findings"][0]["file"], "common/util.c");
    assert_eq!(parse_entries(cache.path()), now);
}
