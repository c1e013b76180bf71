//! How a project uses fib's reports, with the real binary under MPICH:
//! waivers in the sources, baselines, `fib.toml`, several process counts,
//! several paths, and the pre-commit hook run by `pre-commit try-repo`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use super::json;

/// A scratch directory holding a copy of `examples/barriers.c` (one
/// relevant barrier on line 32, one irrelevant on line 34) and a build
/// cache of its own.
struct Scratch {
    dir: tempfile::TempDir,
    cache: tempfile::TempDir,
}

const EXAMPLE: &str = include_str!("../../examples/barriers.c");

impl Scratch {
    fn new() -> Scratch {
        let s = Scratch {
            dir: tempfile::tempdir().unwrap(),
            cache: tempfile::tempdir().unwrap(),
        };
        s.write("barriers.c", EXAMPLE);
        s
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn write(&self, name: &str, text: &str) {
        let path = self.path(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// `fib ARGS` run in the scratch directory.
    fn fib(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_fib"))
            .args(args)
            .current_dir(self.dir.path())
            .env("FIB_CACHE_DIR", self.cache.path())
            .output()
            .expect("running fib")
    }
}

/// `text` with `suffix` appended to line `line` (1-based).
fn on_line(text: &str, line: usize, suffix: &str) -> String {
    text.lines()
        .enumerate()
        .map(|(i, l)| {
            if i + 1 == line {
                format!("{l}{suffix}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect()
}

/// `text` with `new` inserted as line `line` (1-based).
fn insert_line(text: &str, line: usize, new: &str) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(line - 1, new);
    lines.join("\n") + "\n"
}

fn codes(p: &Value) -> Vec<(String, u64)> {
    p["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn a_waiver_on_an_irrelevant_barrier_suppresses_it() {
    let s = Scratch::new();
    s.write(
        "barriers.c",
        &on_line(
            EXAMPLE,
            34,
            " /* fib: allow FIB014 -- kept to time the phases */",
        ),
    );
    let out = s.fib(&["check", "barriers.c", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let v = json(&out);
    let p = &v["programs"][0];
    assert_eq!(codes(p), [("FIB015".to_string(), 32)], "FIB014 is gone");
    assert_eq!(p["waived"], 1);
    // The verdict itself is still there: only the finding is waived.
    assert_eq!(p["barriers"][1]["verdict"], "irrelevant");

    let out = s.fib(&["check", "barriers.c", "--color", "never"]);
    assert_eq!(out.status.code(), Some(0));
    let human = String::from_utf8_lossy(&out.stdout);
    assert!(
        human.contains("  waived: FIB014 at barriers.c:34 — kept to time the phases\n"),
        "{human}"
    );
    assert!(!human.contains("warning[FIB014]"), "{human}");
    assert!(
        human.ends_with("1 program checked: 1 ok; 1 note; 1 waived\n"),
        "{human}"
    );
}

#[test]
fn a_waiver_that_suppresses_nothing_is_reported() {
    let s = Scratch::new();
    // Alone on the line above the relevant barrier, which has no FIB014.
    s.write(
        "barriers.c",
        &insert_line(
            EXAMPLE,
            32,
            "    // fib: allow FIB014 -- was irrelevant once",
        ),
    );
    let out = s.fib(&["check", "barriers.c", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let v = json(&out);
    let p = &v["programs"][0];
    // The barriers moved down a line; the irrelevant one is still reported.
    assert_eq!(
        codes(p),
        [
            ("FIB015".to_string(), 33),
            ("FIB014".to_string(), 35),
            ("FIB024".to_string(), 32)
        ]
    );
    let unused = &p["findings"][2];
    assert_eq!(unused["severity"], "warning");
    assert_eq!(
        unused["message"],
        "unused waiver: nothing reported here has code FIB014"
    );
    assert_eq!(unused["column"], 5);
    assert_eq!(
        unused["notes"],
        serde_json::json!(["the waiver's reason: was irrelevant once"])
    );
    assert!(p.get("waived").is_none(), "no \"waived\" when none was");
}

#[test]
fn a_baseline_passes_moves_with_the_code_and_fails_on_a_new_finding() {
    let s = Scratch::new();
    // Written from another directory than the checks below run in: the
    // baseline names programs relative to itself.
    let out = Command::new(env!("CARGO_BIN_EXE_fib"))
        .args([
            "check",
            "barriers.c",
            "--write-baseline",
            "ci/fib-baseline.json",
        ])
        .current_dir(s.dir.path())
        .env("FIB_CACHE_DIR", s.cache.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "the baseline's directory does not exist: {}",
        text(&out)
    );
    assert!(
        text(&out).contains("ci/fib-baseline.json"),
        "{}",
        text(&out)
    );
    std::fs::create_dir(s.path("ci")).unwrap();
    let out = s.fib(&[
        "check",
        "barriers.c",
        "--write-baseline",
        "ci/fib-baseline.json",
    ]);
    assert_eq!(out.status.code(), Some(0), "writing it is not failing");
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("fib: wrote 2 findings to the baseline ci/fib-baseline.json"),
        "{}",
        text(&out)
    );
    let b: Value =
        serde_json::from_str(&std::fs::read_to_string(s.path("ci/fib-baseline.json")).unwrap())
            .unwrap();
    assert_eq!(b["fib_baseline"], 1);
    assert_eq!(
        b["findings"],
        serde_json::json!([
            { "program": "../barriers.c", "code": "FIB014", "text": "MPI_Barrier(MPI_COMM_WORLD);" },
            { "program": "../barriers.c", "code": "FIB015", "text": "MPI_Barrier(MPI_COMM_WORLD);" }
        ])
    );

    let check = |s: &Scratch| {
        s.fib(&[
            "check",
            "barriers.c",
            "--baseline",
            "ci/fib-baseline.json",
            "--format",
            "json",
        ])
    };
    let out = check(&s);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let p = &json(&out)["programs"][0];
    assert_eq!(p["findings"], serde_json::json!([]));
    assert_eq!(p["baselined"], 2);

    // Moving the code down three lines keeps every finding known.
    let moved = format!("\n\n\n{EXAMPLE}");
    s.write("barriers.c", &moved);
    let out = check(&s);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(json(&out)["programs"][0]["baselined"], 2);

    // A deadlock the baseline does not know fails, and is the one shown.
    let deadlock = moved.replace(
        "    MPI_Finalize();",
        "    if (rank == 1)\n        MPI_Recv(&sum, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n    MPI_Finalize();",
    );
    s.write("barriers.c", &deadlock);
    let out = check(&s);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let p = &json(&out)["programs"][0];
    assert_eq!(p["outcome"], "deadlock");
    let new: Vec<String> = codes(p).into_iter().map(|(c, _)| c).collect();
    assert!(new.contains(&"FIB001".to_string()), "{new:?}");
    assert!(!new.contains(&"FIB015".to_string()), "{new:?}");

    let out = s.fib(&[
        "check",
        "barriers.c",
        "--baseline",
        "ci/fib-baseline.json",
        "--color",
        "never",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let human = String::from_utf8_lossy(&out.stdout);
    assert!(
        human.contains("error[FIB001]: deadlock: rank 1 in MPI_Recv"),
        "{human}"
    );
    assert!(human.contains("known (baseline)"), "{human}");
}

#[test]
fn a_bad_baseline_file_is_an_error_naming_it() {
    let s = Scratch::new();
    s.write("old.json", "{\"findings\": []}");
    let out = s.fib(&["check", "barriers.c", "--baseline", "old.json"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("old.json: not a fib baseline: missing field `fib_baseline`"),
        "{err}"
    );
    assert!(out.stdout.is_empty());

    let out = s.fib(&["check", "barriers.c", "--baseline", "missing.json"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("reading the baseline missing.json"), "{err}");
}

#[test]
fn a_bad_key_in_fib_toml_names_the_file_and_the_key() {
    let s = Scratch::new();
    s.write("fib.toml", "timeout = 30\nnproc = 3\n");
    let out = s.fib(&["check", "."]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("./fib.toml:2: `nproc`: unknown field `nproc`"),
        "{err}"
    );

    s.write("fib.toml", "mpi = \"intel\"\n");
    let out = s.fib(&["check", "barriers.c"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("fib.toml:1: `mpi`: `intel` is not an MPI implementation fib knows: mpi = \"mpich\" or \"openmpi\""),
        "{err}"
    );
}

/// A program that aborts unless the MPI library it runs on is `Open MPI`.
const NEEDS_OPEN_MPI: &str = r#"#include <mpi.h>
#include <string.h>

int main(int argc, char **argv)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Init(&argc, &argv);
    MPI_Get_library_version(v, &len);
    if (strstr(v, "Open MPI") == NULL)
        MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn fib_toml_and_the_command_line_choose_the_mpi_implementation() {
    let s = Scratch::new();
    s.write("which.c", NEEDS_OPEN_MPI);
    s.write("fib.toml", "mpi = \"openmpi\"\n");
    let out = s.fib(&["check", "which.c", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(json(&out)["programs"][0]["outcome"], "ok");

    // The command line wins over the file: under MPICH the program aborts.
    let out = s.fib(&["check", "which.c", "--mpi", "mpich", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let v = json(&out);
    assert_eq!(v["programs"][0]["outcome"], "crash");
    assert_eq!(v["programs"][0]["findings"][0]["line"], 11);

    let out = s.fib(&["check", "which.c", "--mpi", "lam"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--mpi lam: fib knows mpich and openmpi"),
        "{err}"
    );
}

#[test]
fn fib_toml_sets_counts_ignores_files_and_overrides_a_severity() {
    let s = Scratch::new();
    s.write("by_count.c", include_str!("by_count.c"));
    // A program that does not build: left out by `ignore`.
    s.write("scratch_broken.c", "int main(void) { return 0 }\n");
    s.write(
        "fib.toml",
        "nprocs = 3\nignore = [\"scratch_*.c\"]\n\n[severity]\nFIB014 = \"note\"\n\n[programs.\"barriers.c\"]\nnprocs = 2\n",
    );
    let out = s.fib(&["check", ".", "--format", "json"]);
    // The irrelevant barriers are only notes now: nothing fails.
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let v = json(&out);
    let programs: Vec<(&str, u64)> = v["programs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["program"].as_str().unwrap(),
                p["nprocs"].as_u64().unwrap(),
            )
        })
        .collect();
    // barriers.c: its own table wins over its `fib: -n 3` comment;
    // by_count.c: the top level. scratch_broken.c is ignored.
    assert_eq!(programs, [("barriers.c", 2), ("by_count.c", 3)]);
    let severities: Vec<(&str, &str)> = v["programs"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["code"].as_str().unwrap(), f["severity"].as_str().unwrap()))
        .collect();
    assert_eq!(severities, [("FIB014", "note"), ("FIB014", "note")]);

    // The command line wins over the file; "error" fails again.
    s.write("fib.toml", "[severity]\nFIB014 = \"error\"\n");
    let out = s.fib(&["check", "barriers.c", "-n", "2", "--color", "never"]);
    assert_eq!(out.status.code(), Some(1));
    let human = String::from_utf8_lossy(&out.stdout);
    assert!(
        human.starts_with("barriers.c (2 ranks, buffered)"),
        "{human}"
    );
    assert!(
        human.contains("error[FIB014]: irrelevant barrier"),
        "{human}"
    );
    assert!(!human.contains("warning[FIB014]"), "{human}");
}

#[test]
fn a_leak_fails_the_check_only_when_fib_toml_raises_it() {
    // The leaked datatype is a note by default (exit 0); a project that
    // wants every leak fixed raises FIB028 to a warning or an error, and
    // the same program fails the check.
    let s = Scratch::new();
    s.write("leak.c", include_str!("../umpire/leak_datatype.c"));
    let codes = |out: &Output| -> Vec<(String, String)> {
        json(out)["programs"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["code"].as_str().unwrap().to_string(),
                    f["severity"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let out = s.fib(&["check", "leak.c", "-n", "2", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(codes(&out), [("FIB028".to_string(), "note".to_string())]);
    for level in ["warning", "error"] {
        s.write("fib.toml", &format!("[severity]\nFIB028 = \"{level}\"\n"));
        let out = s.fib(&["check", "leak.c", "-n", "2", "--format", "json"]);
        assert_eq!(out.status.code(), Some(1), "{level}: {}", text(&out));
        assert_eq!(codes(&out), [("FIB028".to_string(), level.to_string())]);
    }
}

#[test]
fn several_counts_say_which_findings_and_verdicts_hold_where() {
    let cache = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_fib"))
        .args([
            "check",
            "tests/cli/by_count.c",
            "-n",
            "2,3",
            "--format",
            "json",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("FIB_CACHE_DIR", cache.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let v = json(&out);
    let counts: Vec<u64> = v["programs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["nprocs"].as_u64().unwrap())
        .collect();
    assert_eq!(counts, [2, 3]);
    assert_eq!(codes(&v["programs"][0]), [("FIB014".to_string(), 22)]);
    assert_eq!(codes(&v["programs"][1]), [("FIB015".to_string(), 22)]);
    let c = &v["counts"][0];
    assert_eq!(c["program"], "tests/cli/by_count.c");
    assert_eq!(c["nprocs"], serde_json::json!([2, 3]));
    assert_eq!(
        c["findings"],
        serde_json::json!([
            { "code": "FIB014", "file": "tests/cli/by_count.c", "line": 22, "nprocs": [2] },
            { "code": "FIB015", "file": "tests/cli/by_count.c", "line": 22, "nprocs": [3] }
        ])
    );
    assert_eq!(
        c["barriers"][0]["verdicts"],
        serde_json::json!([
            { "verdict": "irrelevant", "nprocs": [2] },
            { "verdict": "relevant", "nprocs": [3] }
        ])
    );

    let out = Command::new(env!("CARGO_BIN_EXE_fib"))
        .args([
            "check",
            "tests/cli/by_count.c",
            "-n",
            "2,3",
            "--color",
            "never",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("FIB_CACHE_DIR", cache.path())
        .output()
        .unwrap();
    let human = String::from_utf8_lossy(&out.stdout);
    assert!(
        human.contains(
            "tests/cli/by_count.c by process count (2, 3 ranks):
  FIB014 irrelevant-barrier at tests/cli/by_count.c:22: 2 ranks
  FIB015 relevant-barrier at tests/cli/by_count.c:22: 3 ranks
  barrier group tests/cli/by_count.c:22: irrelevant at 2 ranks; relevant at 3 ranks
"
        ),
        "{human}"
    );

    // One count: no such view.
    let out = Command::new(env!("CARGO_BIN_EXE_fib"))
        .args([
            "check",
            "tests/cli/by_count.c",
            "-n",
            "3",
            "--format",
            "json",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("FIB_CACHE_DIR", cache.path())
        .output()
        .unwrap();
    assert!(json(&out).get("counts").is_none());
}

#[test]
fn several_paths_check_each_program_once() {
    let cache = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_fib"))
        .args([
            "check",
            "tests/cli/tree/a_ring.c",
            "tests/cli/tree/common.h",
            "tests/cli/wildcard_race.c",
            "tests/cli/tree/./a_ring.c",
            "-n",
            "3",
            "--format",
            "json",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("FIB_CACHE_DIR", cache.path())
        .output()
        .unwrap();
    let v = json(&out);
    let names: Vec<&str> = v["programs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["program"].as_str().unwrap())
        .collect();
    // The header stands for every program of its directory (the broken
    // one too); a_ring.c named twice is checked once.
    assert_eq!(
        names,
        [
            "tests/cli/tree/a_ring.c",
            "tests/cli/tree/b_race.c",
            "tests/cli/tree/c_broken.c",
            "tests/cli/wildcard_race.c"
        ]
    );
    assert_eq!(out.status.code(), Some(2), "c_broken.c does not build");
}

/// `git ARGS` in `dir`, which must succeed.
fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=fib",
            "-c",
            "user.email=fib@example.invalid",
        ])
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("running git");
    assert!(out.status.success(), "git {args:?}: {}", text(&out));
}

const CLEAN: &str = r#"#include <mpi.h>
int main(int argc, char **argv)
{
    int rank, v = 7;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    else if (rank == 1)
        MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn the_pre_commit_hook_runs_fib_on_the_changed_program() {
    let work = tempfile::tempdir().unwrap();
    // The hook definitions, committed in a repository of their own (what
    // `try-repo` clones), so that the test does not depend on this
    // working tree being committed.
    let hooks = work.path().join("hooks");
    std::fs::create_dir(&hooks).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(".pre-commit-hooks.yaml"),
        hooks.join(".pre-commit-hooks.yaml"),
    )
    .unwrap();
    git(&hooks, &["init", "-q"]);
    git(&hooks, &["add", ".pre-commit-hooks.yaml"]);
    git(&hooks, &["commit", "-q", "-m", "hooks"]);

    // A project with a committed clean program, then changed to deadlock.
    let project = work.path().join("project");
    std::fs::create_dir(&project).unwrap();
    std::fs::write(project.join("prog.c"), CLEAN).unwrap();
    git(&project, &["init", "-q"]);
    git(&project, &["add", "prog.c"]);
    git(&project, &["commit", "-q", "-m", "a program"]);

    let bin = Path::new(env!("CARGO_BIN_EXE_fib")).parent().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let cache = work.path().join("cache");
    let try_repo = |files: &[&str]| {
        let mut cmd = pre_commit();
        cmd.args(["try-repo", hooks.to_str().unwrap(), "fib", "--verbose"])
            .args(files)
            .current_dir(&project)
            .env("PATH", &path)
            .env("PRE_COMMIT_HOME", work.path().join("pre-commit"))
            .env("PRE_COMMIT_COLOR", "never")
            .env("FIB_CACHE_DIR", &cache);
        cmd.output().expect("running pre-commit")
    };

    // Both ranks receive first: a deadlock.
    let deadlock = CLEAN.replace(
        "    if (rank == 0)\n        MPI_Send",
        "    MPI_Recv(&v, 1, MPI_INT, 1 - rank, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n    if (rank == 0)\n        MPI_Send",
    );
    assert_ne!(deadlock, CLEAN);
    std::fs::write(project.join("prog.c"), &deadlock).unwrap();
    // The changed file, staged, as a commit would have it.
    git(&project, &["add", "prog.c"]);
    let out = try_repo(&[]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(all.contains("Failed"), "{all}");
    assert!(all.contains("error[FIB001]: deadlock"), "{all}");
    assert!(all.contains("--> prog.c:7:5\n"), "{all}");

    // Fixed again: the hook passes, and fib did check the program.
    std::fs::write(project.join("prog.c"), CLEAN).unwrap();
    let out = try_repo(&["--files", "prog.c"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(all.contains("Passed"), "{all}");
    assert!(all.contains("prog.c (2 ranks, buffered): ok"), "{all}");
}

/// The `pre-commit` command (`scripts/setup.sh` installs it), or
/// `python3 -m pre_commit` when only the module is there.
fn pre_commit() -> Command {
    let found = Command::new("pre-commit")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if found {
        Command::new("pre-commit")
    } else {
        let mut cmd = Command::new("python3");
        cmd.args(["-m", "pre_commit"]);
        cmd
    }
}

/// A program that reads `input.txt` from its working directory, and aborts
/// when there is none.
const READS_INPUT: &str = r#"#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int value = 0;
    MPI_Init(&argc, &argv);
    FILE *f = fopen("input.txt", "r");
    if (f == NULL || fscanf(f, "%d", &value) != 1)
        MPI_Abort(MPI_COMM_WORLD, 2);
    fclose(f);
    MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn a_program_runs_in_its_own_directory_or_in_cwd() {
    let s = Scratch::new();
    s.write("app/reader.c", READS_INPUT);
    s.write("app/input.txt", "42\n");
    let out = s.fib(&["check", "app/reader.c", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(json(&out)["programs"][0]["outcome"], "ok");

    // Run from the tree's top, where there is no input.txt: the program
    // aborts at line 10, and that is the program's doing.
    let out = s.fib(&["check", "app/reader.c", "--cwd", ".", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let v = json(&out);
    assert_eq!(v["programs"][0]["outcome"], "crash");
    assert_eq!(v["programs"][0]["findings"][0]["code"], "FIB003");
    assert_eq!(v["programs"][0]["findings"][0]["line"], 10);

    let out = s.fib(&["check", "app/reader.c", "--cwd", "nowhere"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--cwd nowhere: no such directory"), "{err}");
}
