//! `fib run` on programs fib did not build: each test builds its program
//! with plain `mpicc.mpich` (with or without `-g`) in a temporary directory
//! and checks the binary there, so that the report names the sources as
//! the debug information does, relative to that directory. The snapshots
//! redact the directory and the offsets within functions (they depend on
//! the compiler).

use std::path::Path;
use std::process::Command;

use insta_cmd::assert_cmd_snapshot;
use serde_json::Value;

use super::{fixture, json, marker, processes_with};

/// Compiles the fixtures `sources` (from `tests/cli/prebuilt/`) in `dir`
/// into `out` with `mpicc.mpich` and `flags`.
fn build(dir: &Path, sources: &[&str], out: &str, flags: &[&str]) {
    build_with("mpicc.mpich", dir, sources, out, flags);
}

/// As [`build`], with the compiler wrapper `mpicc`.
fn build_with(mpicc: &str, dir: &Path, sources: &[&str], out: &str, flags: &[&str]) {
    for s in sources {
        std::fs::copy(fixture(&format!("prebuilt/{s}")), dir.join(s)).unwrap();
    }
    let status = Command::new(mpicc)
        .args(sources)
        .args(flags)
        .args(["-o", out])
        .current_dir(dir)
        .status()
        .expect("running mpicc.mpich");
    assert!(status.success(), "mpicc.mpich {flags:?} {sources:?}");
}

/// `fib run ARGS` in `dir`.
fn run(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fib"));
    cmd.arg("run").args(args).current_dir(dir);
    cmd
}

/// Snapshot settings for runs in `dir`: the directory, elapsed times and
/// offsets within functions redacted.
fn redacted(dir: &Path) -> insta::Settings {
    let mut s = super::findings::redacted(dir);
    s.add_filter(r"\+0x[0-9a-f]+\)", "+0x[OFFSET])");
    s
}

fn run_json(dir: &Path, args: &[&str]) -> (Option<i32>, Value) {
    let mut all = args.to_vec();
    all.splice(0..0, ["--format", "json"]);
    let out = run(dir, &all).output().unwrap();
    (out.status.code(), json(&out))
}

#[test]
fn run_places_a_deadlock_by_debug_information() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    build(d, &["head_to_head.c"], "prog", &["-g"]);
    build(d, &["head_to_head.c"], "prog-no-pie", &["-g", "-no-pie"]);
    for prog in ["./prog", "./prog-no-pie"] {
        let (code, v) = run_json(d, &["-n", "2", "--", prog]);
        assert_eq!(code, Some(1), "{v}");
        let p = &v["programs"][0];
        assert_eq!(
            (&p["program"], &p["outcome"]),
            (&prog.into(), &"deadlock".into())
        );
        let f = &p["findings"][0];
        assert_eq!(f["code"], "FIB001");
        assert_eq!(
            (&f["file"], &f["line"], &f["column"]),
            (&"head_to_head.c".into(), &11.into(), &5.into()),
            "{prog}"
        );
        for r in f["ranks"].as_array().unwrap() {
            assert_eq!((&r["call"], &r["line"]), (&"MPI_Recv".into(), &11.into()));
        }
    }
    redacted(d).bind(|| {
        assert_cmd_snapshot!(
            "run_deadlock_debug_info",
            run(d, &["-n", "2", "--color", "never", "--", "./prog"])
        );
    });
}

/// A program built with Open MPI's wrapper runs under Open MPI, which fib
/// tells from the library it is linked with; asking for MPICH is an error.
#[test]
fn run_uses_the_mpi_the_program_is_linked_with() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    build_with("mpicc.openmpi", d, &["head_to_head.c"], "prog", &["-g"]);
    let (code, v) = run_json(d, &["-n", "2", "--", "./prog"]);
    assert_eq!(code, Some(1), "{v}");
    let f = &v["programs"][0]["findings"][0];
    assert_eq!(
        (&f["code"], &f["file"], &f["line"]),
        (&"FIB001".into(), &"head_to_head.c".into(), &11.into())
    );
    let out = run(d, &["-n", "2", "--mpi", "mpich", "--", "./prog"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("./prog is linked with Open MPI: it cannot run under MPICH (--mpi mpich)"),
        "{err}"
    );
}

#[test]
fn run_places_a_deadlock_without_debug_information_by_function_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    build(d, &["head_to_head.c"], "prog", &[]);
    let (code, v) = run_json(d, &["-n", "2", "--", "./prog"]);
    assert_eq!(code, Some(1), "{v}");
    let f = &v["programs"][0]["findings"][0];
    assert_eq!(f["code"], "FIB001");
    let file = f["file"].as_str().unwrap();
    let off = file
        .strip_prefix("prog(main+0x")
        .and_then(|x| x.strip_suffix(')'))
        .unwrap_or_else(|| panic!("{file}"));
    assert!(u64::from_str_radix(off, 16).is_ok_and(|o| o > 0), "{file}");
    assert_eq!(f["line"], Value::Null);
    redacted(d).bind(|| {
        assert_cmd_snapshot!(
            "run_deadlock_no_debug_info",
            run(d, &["-n", "2", "--color", "never", "--", "./prog"])
        );
    });
}

#[test]
fn run_places_calls_in_a_shared_library_of_the_program() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    build(
        d,
        &["exchange.c"],
        "libexchange.so",
        &["-g", "-fPIC", "-shared"],
    );
    build(
        d,
        &["uses_library.c"],
        "prog",
        &["-L.", "-lexchange", "-Wl,-rpath,$ORIGIN"],
    );
    let (code, v) = run_json(d, &["--", "./prog"]);
    assert_eq!(code, Some(1), "{v}");
    let f = &v["programs"][0]["findings"][0];
    assert_eq!(f["code"], "FIB001");
    assert_eq!((&f["file"], &f["line"]), (&"exchange.c".into(), &8.into()));
}

#[test]
fn run_gives_barrier_verdicts_on_a_prebuilt_binary() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    build(d, &["rounds.c"], "prog", &["-g"]);
    for confirm in [false, true] {
        let mut args = vec!["-n", "3", "--", "./prog"];
        if confirm {
            args.insert(0, "--confirm");
        }
        let (code, v) = run_json(d, &args);
        assert_eq!(code, Some(1), "an irrelevant barrier is a warning: {v}");
        let p = &v["programs"][0];
        assert_eq!(p["outcome"], "ok");
        let groups = p["barriers"].as_array().unwrap();
        let at = |g: &Value| (g["group"][0]["file"].clone(), g["group"][0]["line"].clone());
        assert_eq!(groups.len(), 2, "{groups:?}");
        let relevant = &groups[0];
        assert_eq!(at(relevant), ("rounds.c".into(), 25.into()));
        assert_eq!(relevant["verdict"], "relevant");
        assert_eq!(relevant["confirmed"], confirm);
        let w = &relevant["witness"];
        assert_eq!(
            (&w["recv"]["line"], &w["recv"]["rank"]),
            (&12.into(), &0.into())
        );
        assert_eq!(
            (&w["send"]["line"], &w["send"]["call"]),
            (&14.into(), &"MPI_Send".into())
        );
        let irrelevant = &groups[1];
        assert_eq!(at(irrelevant), ("rounds.c".into(), 27.into()));
        assert_eq!(irrelevant["verdict"], "irrelevant");
        assert_eq!(irrelevant["confirmed"], confirm);
    }
    redacted(d).bind(|| {
        assert_cmd_snapshot!(
            "run_barriers_confirmed",
            run(
                d,
                &["-n", "3", "--confirm", "--color", "never", "--", "./prog"]
            )
        );
    });
}

#[test]
fn run_gives_barrier_verdicts_without_debug_information() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    build(d, &["rounds.c"], "prog", &[]);
    let (code, v) = run_json(d, &["-n", "3", "--confirm", "--", "./prog"]);
    assert_eq!(code, Some(1), "{v}");
    let groups = v["programs"][0]["barriers"].as_array().unwrap().clone();
    let verdicts: Vec<(&str, bool)> = groups
        .iter()
        .map(|g| {
            let file = g["group"][0]["file"].as_str().unwrap();
            assert!(file.starts_with("prog(main+0x"), "{file}");
            (
                g["verdict"].as_str().unwrap(),
                g["confirmed"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(verdicts, [("relevant", true), ("irrelevant", true)]);
    let recv = groups[0]["witness"]["recv"]["file"].as_str().unwrap();
    assert!(recv.starts_with("prog(round_of+0x"), "{recv}");
}

#[test]
fn run_explores_wildcards_and_replays_a_token() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(fixture("wildcard_race.c"), d.join("wildcard_race.c")).unwrap();
    build(d, &[], "prog", &["-g", "wildcard_race.c"]);
    let (code, v) = run_json(d, &["-n", "3", "--", "./prog"]);
    assert_eq!(code, Some(1), "{v}");
    let p = &v["programs"][0];
    assert_eq!(
        (&p["outcome"], &p["interleavings"]),
        (&"deadlock".into(), &2.into())
    );
    let f = &p["findings"][0];
    assert_eq!(
        (&f["code"], &f["line"], &f["replay"]),
        (&"FIB001".into(), &12.into(), &"1".into())
    );
    // The token runs the deadlocking interleaving alone; the other one
    // completes.
    let (code, v) = run_json(d, &["-n", "3", "--replay", "1", "--", "./prog"]);
    assert_eq!(code, Some(1));
    let p = &v["programs"][0];
    assert_eq!(
        (&p["interleavings"], &p["findings"][0]["line"]),
        (&1.into(), &12.into())
    );
    let (code, v) = run_json(d, &["-n", "3", "--replay", "0", "--", "./prog"]);
    assert_eq!(
        (code, &v["programs"][0]["outcome"]),
        (Some(0), &"ok".into())
    );
}

#[test]
fn run_refuses_what_is_no_mpi_program_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let m = marker("run-bad-input");
    std::fs::write(d.join("source.c"), "int main(void) { return 0; }\n").unwrap();
    let script = d.join("launch.sh");
    std::fs::write(&script, "#!/bin/sh\nexec ./prog \"$@\"\n").unwrap();
    let exec = std::os::unix::fs::PermissionsExt::from_mode(0o755);
    std::fs::set_permissions(&script, exec).unwrap();
    let cc = Command::new("cc")
        .args(["source.c", "-o", "plain"])
        .current_dir(d)
        .status()
        .unwrap();
    assert!(cc.success());
    for (file, why) in [
        ("./missing", "./missing: no such file"),
        ("./source.c", "./source.c: is not executable"),
        ("./launch.sh", "./launch.sh: is a script, not a program"),
        ("./plain", "./plain: is not linked with an MPI library"),
        (".", ".: is a directory, not a program"),
    ] {
        let out = run(d, &["-n", "2", "--", file, &m]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{file}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with(&format!("fib: error: {why}")),
            "{file}: {err}"
        );
        assert!(out.stdout.is_empty(), "{file}: no report");
    }
    assert_eq!(processes_with(&m), Vec::<String>::new(), "no process left");
}

/// The help lines of a JSON report's FIB014 findings, in order.
fn irrelevant_helps(v: &Value) -> Vec<String> {
    v["programs"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "FIB014")
        .map(|f| f["help"].as_str().unwrap().to_string())
        .collect()
}

/// With its sources beside it, a binary is judged with the static facts
/// `fib check` has: the barrier before the clock read is kept for the
/// timing, as `fib check` says, and the caret starts at the call's name
/// (GCC's C++ debug information places a call at its parenthesis).
#[test]
fn run_gives_the_advice_of_fib_check_when_the_sources_are_there() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    build_with(
        "mpicxx.mpich",
        d,
        &["timed_phase.cc"],
        "prog",
        &["-g", "-O1"],
    );
    let (code, v) = run_json(d, &["-n", "2", "--", "./prog"]);
    assert_eq!(code, Some(1), "{v}");
    let p = &v["programs"][0];
    let groups = p["barriers"].as_array().unwrap();
    assert_eq!(groups.len(), 2, "{groups:?}");
    let timed = &groups[0];
    assert_eq!(
        (&timed["group"][0]["line"], &timed["group"][0]["column"]),
        (&12.into(), &5.into())
    );
    assert_eq!(timed["verdict"], "irrelevant");
    assert_eq!(timed["all_inputs"], true, "the facts of the parse");
    let purpose = &timed["purposes"][0];
    assert_eq!(
        (&purpose["kind"], &purpose["call"], &purpose["line"]),
        (&"timing".into(), &"MPI_Wtime".into(), &13.into())
    );
    assert_eq!(p["static"]["barriers"].as_array().unwrap().len(), 2);
    let run_helps = irrelevant_helps(&v);
    assert_eq!(
        run_helps[0],
        "it synchronises the timing at line 13 of timed_phase.cc (MPI_Wtime): keep it if that measurement needs every rank to start together; otherwise delete line 12 of timed_phase.cc"
    );
    // The same advice as `fib check` on the source.
    let out = Command::new(env!("CARGO_BIN_EXE_fib"))
        .args(["check", "--format", "json", "-n", "2", "timed_phase.cc"])
        .current_dir(d)
        .output()
        .unwrap();
    assert_eq!(irrelevant_helps(&json(&out)), run_helps);
    // The caret under the call, from its name.
    let out = run(d, &["-n", "2", "--color", "never", "--", "./prog"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let caret = format!(
        "   |     {}\n",
        "^".repeat("MPI_Barrier(MPI_COMM_WORLD)".len())
    );
    assert!(text.contains("--> timed_phase.cc:12:5\n"), "{text}");
    assert!(text.contains(&caret), "{text}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("note:"), "nothing is missing: {err}");
}

/// With its source moved away, the binary's advice says what fib does not
/// know, and a note on standard error says which source is missing.
#[test]
fn run_says_which_facts_are_missing_without_the_sources() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    build_with(
        "mpicxx.mpich",
        d,
        &["timed_phase.cc"],
        "prog",
        &["-g", "-O1"],
    );
    std::fs::create_dir(d.join("moved")).unwrap();
    std::fs::rename(d.join("timed_phase.cc"), d.join("moved/timed_phase.cc")).unwrap();
    let out = run(d, &["--format", "json", "-n", "2", "--", "./prog"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let source = d.join("timed_phase.cc");
    assert!(
        err.contains(&format!(
            "fib: note: no sources for {} (named by ./prog's debug information); for the calls there, barrier advice does not know the program's clock reads and output, nor whether input decides which calls run",
            source.display()
        )),
        "{err}"
    );
    let v = json(&out);
    assert_eq!(
        irrelevant_helps(&v)[0],
        "fib did not read the source of line 12 of timed_phase.cc, so it does not know whether a clock read or output after it needs every rank there: keep it if one does; otherwise delete line 12 of timed_phase.cc"
    );
    assert_eq!(v["programs"][0]["static"], Value::Null);
}

/// A barrier compiled in by a definition the debug information does not
/// record is a call the parse does not have: a note says so and how to
/// give the flag; with it in `fib.toml`, the call has its facts.
#[test]
fn run_notes_calls_its_parse_does_not_have_until_fib_toml_gives_the_flags() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    build_with(
        "mpicxx.mpich",
        d,
        &["timed_phase.cc"],
        "prog",
        &["-g", "-DCHECKPOINT"],
    );
    let out = run(d, &["--format", "json", "-n", "2", "--", "./prog"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("fib: note: ./prog calls MPI_Barrier at line 22 of timed_phase.cc where fib's parse of the sources has no such call"),
        "{err}"
    );
    let helps = irrelevant_helps(&json(&out));
    assert!(helps[0].starts_with("it synchronises the timing at line 13"));
    assert!(helps[2].starts_with("fib did not read the source of line 22"));
    std::fs::write(d.join("fib.toml"), "cflags = [\"-DCHECKPOINT\"]\n").unwrap();
    let out = run(d, &["--format", "json", "-n", "2", "--", "./prog"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("note:"), "{err}");
    let helps = irrelevant_helps(&json(&out));
    assert_eq!(helps[2], "delete line 22 of timed_phase.cc");
}
