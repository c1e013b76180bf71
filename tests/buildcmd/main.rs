//! `fib check --build CMD`: the user's own build (real Make and CMake,
//! MPICH) runs with fib's compiler wrappers, and the programs checked are
//! those it links, from the sources, flags and libraries it used. Both
//! projects (`make/`, `cmake/`) hold two programs and a static library
//! that needs `-lm`, a definition given to one program only, and a stale
//! helper in the programs' directory that the build never compiles (linked
//! with them, it would define `tag_of` twice). Each test copies its
//! project to a temporary directory, and gives fib a private `TMPDIR` to
//! show that the wrappers' directory is gone afterwards.

#[path = "../common/fs_proc.rs"]
mod fs_proc;
use fs_proc::{copy_tree, processes_with};

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn project(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/buildcmd")
        .join(name)
}

/// A copy of a project, and an empty directory for fib's `TMPDIR`.
struct Copy {
    dir: tempfile::TempDir,
}

impl Copy {
    fn new(name: &str) -> Copy {
        let dir = tempfile::tempdir().unwrap();
        copy_tree(&project(name), &dir.path().join("project"));
        std::fs::create_dir(dir.path().join("tmp")).unwrap();
        Copy { dir }
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("project")
    }

    fn tmp(&self) -> PathBuf {
        self.dir.path().join("tmp")
    }

    /// `fib ARGS` in the project, with the private `TMPDIR`; the build
    /// cache is shared by the tests (the interposition library is built
    /// once).
    fn fib(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_fib"))
            .args(args)
            .current_dir(self.root())
            .env("TMPDIR", self.tmp())
            .env(
                "FIB_CACHE_DIR",
                Path::new(env!("CARGO_TARGET_TMPDIR")).join("buildcmd-cache"),
            )
            .env("HWLOC_COMPONENTS", "-linuxio,-pci")
            .output()
            .expect("running fib")
    }

    /// fib left nothing in its `TMPDIR`.
    fn assert_clean(&self) {
        let left: Vec<_> = std::fs::read_dir(self.tmp())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(left.is_empty(), "fib left {left:?} in its TMPDIR");
        let tmp = self.tmp().display().to_string();
        assert_eq!(processes_with(&tmp), Vec::<String>::new());
    }
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

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The program of the report whose main source is `main`.
fn program<'a>(v: &'a Value, main: &str) -> &'a Value {
    v["programs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["program"] == main)
        .unwrap_or_else(|| panic!("no program {main} in {v:#}"))
}

/// Each finding of a program as `CODE file:line`.
fn findings(p: &Value) -> Vec<String> {
    p["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| format!("{} {}:{}", f["code"], f["file"], f["line"]).replace('"', ""))
        .collect()
}

/// What both projects' programs must show: `race` (built with
/// -DLATE_BARRIER) an irrelevant barrier at the line only that definition
/// compiles, `stall` its deadlock; each linked from exactly the sources
/// the build used (no `common_old.c`; `stall` needs no `exchange.c` from
/// the archive), with `-lm`.
fn assert_programs(out: &Output, exe_dir: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let v = json(out);
    assert_eq!(v["programs"].as_array().unwrap().len(), 2, "{v:#}");
    let race = program(&v, "app/race.c");
    assert_eq!(race["outcome"], "ok", "{race:#}");
    assert_eq!(findings(race), ["FIB014 app/race.c:15"]);
    assert_eq!(race["barriers"][0]["verdict"], "irrelevant");
    let stall = program(&v, "app/stall.c");
    assert_eq!(stall["outcome"], "deadlock", "{stall:#}");
    assert_eq!(findings(stall), ["FIB001 app/stall.c:14"]);
    assert!(
        err.contains(&format!(
            "the build linked {exe_dir}race from app/race.c, app/common.c, lib/stats.c, lib/exchange.c ("
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "the build linked {exe_dir}stall from app/stall.c, app/common.c, lib/stats.c ("
        )),
        "{err}"
    );
    assert!(!err.contains("common_old.c"), "{err}");
    for line in err.lines().filter(|l| l.contains("the build linked")) {
        assert!(line.ends_with("-lm)"), "{line}");
    }
}

#[test]
fn make_programs_are_checked_as_the_makefile_builds_them() {
    let copy = Copy::new("make");
    let out = copy.fib(&["check", "--build", "make -j2", "--format", "json"]);
    assert_programs(&out, "app/");
    // The user's build ran for real and made its outputs.
    assert!(copy.root().join("app/race").is_file());
    assert!(copy.root().join("lib/libnum.a").is_file());
    copy.assert_clean();

    // Without the build, a program is its directory's sources: the stale
    // helper defines tag_of a second time, and nothing adds -lm.
    let out = copy.fib(&["check", ".", "--format", "json"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(program(&v, "app/race.c")["outcome"], "build-failed");
}

#[test]
fn fib_toml_cflags_come_after_the_flags_of_the_builds_commands() {
    let copy = Copy::new("make");
    // The Makefile compiles race.c with -DLATE_BARRIER; fib.toml takes the
    // definition back, so the program fib checks has no barrier.
    std::fs::write(
        copy.root().join("fib.toml"),
        "cflags = [\"-ULATE_BARRIER\"]\n",
    )
    .unwrap();
    let out = copy.fib(&["check", "--build", "make -j2", "--format", "json"]);
    let v = json(&out);
    let race = program(&v, "app/race.c");
    assert_eq!(race["outcome"], "ok", "{race:#}");
    assert_eq!(race["barriers"].as_array().unwrap().len(), 0, "{race:#}");
    assert_eq!(findings(race), Vec::<String>::new());
    assert_eq!(program(&v, "app/stall.c")["outcome"], "deadlock");
    copy.assert_clean();
}

#[test]
fn cmake_programs_are_checked_when_configured_under_build() {
    let copy = Copy::new("cmake");
    let build = "cmake -S . -B build-fib --fresh && cmake --build build-fib --clean-first";
    let out = copy.fib(&["check", "--build", build, "--format", "json"]);
    assert_programs(&out, "build-fib/");
    assert!(copy.root().join("build-fib/race").is_file());
    copy.assert_clean();
    // Again: `--fresh` forgets the wrappers of the first run, which are gone.
    let out = copy.fib(&["check", "--build", build, "--format", "json"]);
    assert_programs(&out, "build-fib/");
    copy.assert_clean();
}

#[test]
fn an_up_to_date_build_shows_fib_nothing() {
    let copy = Copy::new("make");
    let out = Command::new("make")
        .current_dir(copy.root())
        .output()
        .expect("running make");
    assert!(out.status.success(), "{}", stderr(&out));
    // Nothing left to compile or link: no wrapper sees a thing.
    let out = copy.fib(&["check", "--build", "make"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("the build command `make` ran no compiler through fib's wrappers"),
        "{err}"
    );
    assert!(
        err.contains("Make it build from scratch (`make clean all`"),
        "{err}"
    );
    copy.assert_clean();
}

#[test]
fn a_failing_build_is_reported_with_its_output_and_leaves_nothing_behind() {
    let copy = Copy::new("make");
    let stats = copy.root().join("lib/stats.c");
    let text = std::fs::read_to_string(&stats).unwrap();
    std::fs::write(&stats, text.replace("sqrt(scale", "sqrt(scale +")).unwrap();
    // A process the build leaves running must not survive fib either (the
    // odd duration names it).
    let marker = format!("sleep 300.{}", std::process::id());
    let build = format!("{marker} & make -j2");
    let out = copy.fib(&["check", "--build", &build]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(out.stdout.is_empty(), "no report: nothing was checked");
    assert!(
        err.contains(&format!(
            "the build command `{build}` failed in . (exit status 2)"
        )),
        "{err}"
    );
    // The end of the build's output: the compiler's error and make's.
    assert!(err.contains("  | lib/stats.c:7:"), "{err}");
    assert!(err.contains("  | make: *** [Makefile:"), "{err}");
    assert_eq!(processes_with(&marker), Vec::<String>::new());
    copy.assert_clean();
}

#[test]
fn a_build_whose_programs_use_sources_outside_dir_names_them() {
    let copy = Copy::new("make");
    // Checked from app/, the programs' library sources in lib/ are outside
    // the tree: fib says which, and what DIR to give instead.
    let out = copy.fib(&["check", "--build", "cd .. && make", "app"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("the build command `cd .. && make` linked nothing fib can check (in app)"),
        "{err}"
    );
    assert!(err.contains("app/race: not checked: its source "), "{err}");
    assert!(err.contains("lib/stats.c is outside app"), "{err}");
    assert!(
        err.contains("give as DIR a directory that holds every source the build compiles"),
        "{err}"
    );
    copy.assert_clean();
}

#[test]
fn a_build_that_compiles_the_preprocessors_output_is_checked() {
    let copy = Copy::new("expanded");
    let out = copy.fib(&["check", "--build", "make", "--format", "json"]);
    let v = json(&out);
    let ring = program(&v, "ring.2.cpp");
    assert_eq!(ring["outcome"], "ok", "{ring:#}\n{}", stderr(&out));
    // The barrier is the program's own call, at its line of the file the
    // build compiled; the calls of MPI's C++ bindings in the expanded
    // headers are not the program's (they would be FIB006 for the
    // functions fib does not model).
    let text = std::fs::read_to_string(copy.root().join("ring.2.cpp")).unwrap();
    let line = text
        .lines()
        .position(|l| l.contains("MPI_Barrier(("))
        .expect("the barrier in the expanded source")
        + 1;
    assert_eq!(findings(ring), [format!("FIB014 ring.2.cpp:{line}")]);
    assert_eq!(ring["barriers"][0]["verdict"], "irrelevant");
    // Its five calls are the sites, and nothing of the expanded headers
    // is taken for the program's own functions.
    assert_eq!(ring["static"]["sites"], 5, "{ring:#}");
    assert!(ring["static"].get("steering").is_none(), "{ring:#}");
    copy.assert_clean();
}

/// The ranks of a program a build made run in the directory the build ran
/// in, where the user runs it from, so that it finds its input files by
/// the names it was written with; `--cwd` still picks another.
#[test]
fn a_built_program_runs_where_the_build_ran() {
    let copy = Copy::new("input");
    let out = copy.fib(&["check", "--build", "make", "--format", "json"]);
    let v = json(&out);
    let reader = program(&v, "src/reader.c");
    assert_eq!(reader["outcome"], "ok", "{reader:#}");
    assert_eq!(reader["calls"], 8, "{reader:#}");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let out = copy.fib(&[
        "check", "--build", "make -B", "--cwd", "src", "--format", "json",
    ]);
    let v = json(&out);
    let reader = program(&v, "src/reader.c");
    assert_eq!(reader["outcome"], "crash", "{reader:#}");
    assert_eq!(findings(reader), ["FIB004 src/reader.c:12"]);
    copy.assert_clean();
}
