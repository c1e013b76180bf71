//! Projects built by CMake and by Make (recorded by Bear), checked through
//! their compile databases: each project is copied to a temporary
//! directory, configured and built there with the real tools and MPICH, and
//! `fib check` runs on the copy. The programs span several directories and
//! a static library, and compile only with their build's own flags.

#[path = "../common/fs_proc.rs"]
mod fs_proc;
use fs_proc::copy_tree;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn project(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/buildsys")
        .join(name)
}

/// Runs a build tool in `dir`; it must succeed.
fn run(dir: &Path, program: &str, args: &[&str]) {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("running {program} (scripts/setup.sh installs it): {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A copy of the project `name`, with the build cache beside it.
struct Copy {
    dir: tempfile::TempDir,
}

impl Copy {
    fn new(name: &str) -> Copy {
        let dir = tempfile::tempdir().unwrap();
        copy_tree(&project(name), &dir.path().join("project"));
        Copy { dir }
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("project")
    }

    /// Configures and builds the copy with CMake, in `build/`.
    fn cmake(&self, export: bool) -> &Copy {
        let export = format!(
            "-DCMAKE_EXPORT_COMPILE_COMMANDS={}",
            ["OFF", "ON"][export as usize]
        );
        let args = [
            "-S",
            ".",
            "-B",
            "build",
            "-DCMAKE_C_COMPILER=mpicc.mpich",
            &export,
        ];
        run(&self.root(), "cmake", &args);
        run(&self.root(), "cmake", &["--build", "build"]);
        self
    }

    /// Builds the copy with Make under Bear.
    fn bear_make(&self) -> &Copy {
        run(&self.root(), "bear", &["--", "make", "CC=mpicc.mpich"]);
        self
    }

    /// `fib check ARGS` run in `cwd`, a directory under the copy.
    fn fib(&self, cwd: &Path, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_fib"))
            .args(args)
            .current_dir(cwd)
            .env("FIB_CACHE_DIR", self.dir.path().join("cache"))
            .env("HWLOC_COMPONENTS", "-linuxio,-pci")
            .output()
            .expect("running fib")
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
        .map(|f| {
            format!(
                "{} {}:{}",
                f["code"].as_str().unwrap(),
                f["file"].as_str().unwrap(),
                f["line"]
            )
        })
        .collect()
}

/// The files of a program's barrier sites, as its static facts list them.
fn barrier_files(p: &Value) -> Vec<String> {
    p["static"]["barriers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| format!("{}:{}", b["file"].as_str().unwrap(), b["line"]))
        .collect()
}

#[test]
fn a_cmake_project_is_checked_as_its_build_links_it() {
    let copy = Copy::new("cmake");
    copy.cmake(true);
    let out = copy.fib(&copy.root(), &["check", ".", "--format", "json"]);
    let v = json(&out);
    // Irrelevant barriers are warnings.
    assert_eq!(out.status.code(), Some(1), "{v:#}");
    assert_eq!(v["programs"].as_array().unwrap().len(), 2, "{v:#}");

    // app/heat.c links the library's halo exchange (lib/halo.c, with its
    // own -DHALO_WIDTH=2 and the generated header) and lib/pack.c, and
    // its own report; lib/stats.c, which no program uses, is left out.
    let heat = program(&v, "app/heat.c");
    assert_eq!(heat["nprocs"], 2);
    assert_eq!(heat["outcome"], "ok");
    assert_eq!(findings(heat), vec!["FIB014 lib/halo.c:24"]);
    assert_eq!(barrier_files(heat), vec!["lib/halo.c:24"]);
    let verdicts: Vec<&Value> = heat["barriers"].as_array().unwrap().iter().collect();
    assert_eq!(verdicts.len(), 1);
    assert_eq!(verdicts[0]["verdict"], "irrelevant");

    // tools/census.c gets the report of its own directory, not app's of
    // the same name (whose MPI_Reduce would make 8 sites).
    let census = program(&v, "tools/census.c");
    assert_eq!(census["nprocs"], 3);
    assert_eq!(census["outcome"], "ok");
    // One run stands for both orders of rank 0's row of wildcard receives.
    assert_eq!(census["interleavings"], 1);
    assert_eq!(findings(census), vec!["FIB014 tools/report.c:7"]);
    assert_eq!(barrier_files(census), vec!["tools/report.c:7"]);
    assert_eq!(census["static"]["sites"], 7);

    // Part of the project, named from its top or from inside it, is
    // checked as the project builds it, files shown from where fib runs.
    let out = copy.fib(&copy.root(), &["check", "tools", "--format", "json"]);
    let v = json(&out);
    assert_eq!(v["programs"].as_array().unwrap().len(), 1, "{v:#}");
    let census = program(&v, "tools/census.c");
    assert_eq!(findings(census), vec!["FIB014 tools/report.c:7"]);
    let out = copy.fib(
        &copy.root().join("app"),
        &["check", ".", "--format", "json"],
    );
    let v = json(&out);
    assert_eq!(v["programs"].as_array().unwrap().len(), 1, "{v:#}");
    // From app/, its own file has no detour through app/ (`../app/`).
    let heat = program(&v, "heat.c");
    assert_eq!(findings(heat), vec!["FIB014 ../lib/halo.c:24"]);
    // A library source stands for the programs that link it.
    let out = copy.fib(&copy.root(), &["check", "lib/halo.c", "--format", "json"]);
    let v = json(&out);
    assert_eq!(v["programs"].as_array().unwrap().len(), 1, "{v:#}");
    assert_eq!(
        findings(program(&v, "app/heat.c")),
        vec!["FIB014 lib/halo.c:24"]
    );
}

#[test]
fn a_make_project_recorded_by_bear_finds_the_deadlock_in_its_library() {
    let copy = Copy::new("make");
    copy.bear_make();
    let out = copy.fib(&copy.root(), &["check", ".", "--format", "json"]);
    let v = json(&out);
    assert_eq!(out.status.code(), Some(1), "{v:#}");
    // app/scratch.c defines main but no Makefile builds it: not a program.
    assert_eq!(v["programs"].as_array().unwrap().len(), 1, "{v:#}");
    let solver = program(&v, "app/solver.c");
    assert_eq!(solver["nprocs"], 3);
    assert_eq!(solver["outcome"], "deadlock");
    assert_eq!(solver["interleavings"], 2);
    // The root's second receive, in the library, waits for rank 2 again.
    assert_eq!(findings(solver), vec!["FIB001 lib/reduce.c:19"]);
    let d = &solver["findings"][0];
    assert_eq!(d["rank"], 0);
    assert_eq!(
        d["message"],
        "deadlock: rank 0 in MPI_Recv, rank 1 in MPI_Bcast, rank 2 in MPI_Bcast"
    );
    assert_eq!(solver["static"]["wildcards"][0]["file"], "lib/reduce.c");
    assert_eq!(solver["static"]["wildcards"][0]["line"], 16);
}

#[test]
fn a_project_checked_from_elsewhere_shows_its_files_from_there() {
    let copy = Copy::new("make");
    copy.bear_make();
    // Relative paths in the report, the database and its entries all
    // resolve from where fib runs.
    let out = copy.fib(copy.dir.path(), &["check", "project", "--format", "json"]);
    let v = json(&out);
    assert_eq!(out.status.code(), Some(1), "{v:#}");
    let solver = program(&v, "project/app/solver.c");
    assert_eq!(findings(solver), vec!["FIB001 project/lib/reduce.c:19"]);
}

#[test]
fn a_cmake_build_directory_without_a_database_is_named() {
    let copy = Copy::new("cmake");
    copy.cmake(false);
    let out = copy.fib(&copy.root(), &["check", "."]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("build/compile_commands.json: no such file")
            && err.contains("-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"),
        "{err}"
    );
}

#[test]
fn a_database_entry_for_a_missing_file_is_named() {
    let copy = Copy::new("make");
    copy.bear_make();
    std::fs::remove_file(copy.root().join("lib/reduce.c")).unwrap();
    let out = copy.fib(&copy.root(), &["check", "."]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let missing = copy.root().join("lib/reduce.c");
    assert!(
        err.contains(&format!(
            "compile_commands.json: entry 0 compiles {}, which does not exist",
            missing.display()
        )),
        "{err}"
    );
}

/// A database written by hand: a relative `directory`, the `command`
/// form, a relative include path, and an entry for a file outside the
/// checked directory, which is neither checked nor linked.
#[test]
fn relative_directories_commands_and_files_outside_the_tree() {
    let copy = Copy::new("make");
    let root = copy.root();
    std::fs::write(
        copy.dir.path().join("outside.c"),
        "int main(void) { return 0; }\n",
    )
    .unwrap();
    std::fs::write(
        root.join("compile_commands.json"),
        r#"[
  {"directory": "lib", "file": "reduce.c",
   "command": "mpicc.mpich -Iinclude -DREDUCE_ROOT=0 -c reduce.c"},
  {"directory": "app", "file": "solver.c",
   "command": "mpicc.mpich -I ../lib/include -c solver.c -o 'solver.o'"},
  {"directory": "..", "file": "outside.c", "arguments": ["cc", "-c", "outside.c"]}
]"#,
    )
    .unwrap();
    let out = copy.fib(&root, &["check", ".", "--format", "json"]);
    let v = json(&out);
    assert_eq!(out.status.code(), Some(1), "{v:#}");
    assert_eq!(v["programs"].as_array().unwrap().len(), 1, "{v:#}");
    let solver = program(&v, "app/solver.c");
    assert_eq!(findings(solver), vec!["FIB001 lib/reduce.c:19"]);
}
