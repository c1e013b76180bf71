//! Where a check's runs write: each interleaving in a scratch directory
//! of its own, in which the program finds the files of its directory; the
//! first run's files kept in fib's cache and named in the report; nothing
//! left in the program's directory or the temporary directory, however
//! the runs end; `run_in = "source"` in `fib.toml` for a program whose
//! writes must reach its directory. `scratch/outputs.c` reads `input.txt`
//! (it aborts without it) and writes `out.rankR.txt` on every rank.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use super::{copy_tree, fixture, json, marker, processes_with};

/// Every file under `dir` with its contents (directories as their paths
/// only, symbolic links as their targets, FIFOs and sockets as such).
fn listing(dir: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let rel = p.strip_prefix(dir).unwrap().to_path_buf();
            let ft = e.file_type().unwrap();
            if ft.is_dir() {
                out.insert(rel, "<dir>".into());
                stack.push(p);
            } else if ft.is_symlink() {
                out.insert(
                    rel,
                    format!("-> {}", std::fs::read_link(&p).unwrap().display()),
                );
            } else if ft.is_file() {
                out.insert(rel, std::fs::read_to_string(&p).unwrap_or_default());
            } else {
                // A FIFO or a socket: opening one could block.
                out.insert(rel, "<special>".into());
            }
        }
    }
    out
}

/// A project of its own: a copy of `tests/cli/scratch` (with the output a
/// native run of rank 0 left there), a cache and a temporary directory.
struct Project {
    _root: tempfile::TempDir,
    src: PathBuf,
    cache: PathBuf,
    tmp: PathBuf,
}

impl Project {
    fn new() -> Project {
        let root = tempfile::tempdir().unwrap();
        let src = root.path().join("src");
        copy_tree(&fixture("scratch"), &src);
        std::fs::write(src.join("out.rank0.txt"), "a native run's output\n").unwrap();
        let (cache, tmp) = (root.path().join("cache"), root.path().join("tmp"));
        std::fs::create_dir_all(&cache).unwrap();
        std::fs::create_dir_all(&tmp).unwrap();
        Project {
            _root: root,
            src,
            cache,
            tmp,
        }
    }

    /// `fib ARGS` with the project's cache and temporary directory.
    fn fib(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_fib"))
            .args(args)
            .env("FIB_CACHE_DIR", &self.cache)
            .env("TMPDIR", &self.tmp)
            .output()
            .expect("running fib")
    }

    fn outputs(&self) -> String {
        self.src.join("outputs.c").display().to_string()
    }

    /// Asserts that the temporary directory is empty: no run's directory
    /// was left behind.
    fn no_litter(&self) {
        let left: Vec<PathBuf> = listing(&self.tmp).into_keys().collect();
        assert_eq!(left, Vec::<PathBuf>::new(), "left in TMPDIR");
    }
}

#[test]
fn a_check_writes_nothing_into_the_programs_directory_and_keeps_the_first_runs_files() {
    let p = Project::new();
    let before = listing(&p.src);
    let out = p.fib(&["check", &p.outputs(), "-n", "3", "--format", "json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    let prog = &v["programs"][0];
    assert_eq!(prog["outcome"], "ok");
    // Rank 0 answers its senders in the order their messages came.
    assert_eq!(prog["interleavings"], 2, "{v}");
    assert_eq!(
        listing(&p.src),
        before,
        "the program's directory is unchanged"
    );
    p.no_litter();

    let kept = &prog["files"];
    let dir = PathBuf::from(kept["dir"].as_str().unwrap());
    assert!(dir.starts_with(p.cache.join("out")), "{kept}");
    assert_eq!(
        kept["files"],
        serde_json::json!(["out.rank0.txt", "out.rank1.txt", "out.rank2.txt"])
    );
    // The input was read in the scratch directory, and the output written
    // over the native run's landed in the copy.
    let mut want = BTreeMap::new();
    for r in 0..3 {
        want.insert(
            PathBuf::from(format!("out.rank{r}.txt")),
            format!("rank {r} of 3: input 7\n"),
        );
    }
    assert_eq!(listing(&dir), want);

    // The human report says where they are; a second check replaces them.
    std::fs::write(dir.join("stale.txt"), "from an earlier check").unwrap();
    let out = p.fib(&["check", &p.outputs(), "-n", "3", "--color", "never"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!(
            "  the first run's files are in {}: out.rank0.txt, out.rank1.txt, out.rank2.txt\n",
            dir.display()
        )),
        "{text}"
    );
    assert_eq!(listing(&dir), want);
    assert_eq!(listing(&p.src), before);
    p.no_litter();
}

#[test]
fn run_in_source_in_fib_toml_writes_into_the_programs_directory() {
    let p = Project::new();
    std::fs::write(p.src.join("fib.toml"), "run_in = \"source\"\n").unwrap();
    let out = p.fib(&["check", &p.outputs(), "-n", "3", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let v = json(&out);
    let prog = &v["programs"][0];
    assert_eq!(prog["interleavings"], 2);
    assert_eq!(prog["files"], Value::Null, "nothing kept: {v}");
    for r in 0..3 {
        assert_eq!(
            std::fs::read_to_string(p.src.join(format!("out.rank{r}.txt"))).unwrap(),
            format!("rank {r} of 3: input 7\n")
        );
    }
    p.no_litter();
    // The command line wins over the file. Ranks 1 and 2 write what the
    // source run left: only rank 0's file, changed, is kept.
    std::fs::write(p.src.join("out.rank0.txt"), "again native\n").unwrap();
    let args = [
        &p.outputs(),
        "-n",
        "3",
        "--format",
        "json",
        "--run-in",
        "scratch",
    ];
    let v = json(&p.fib(&[&["check"], &args[..]].concat()));
    assert_eq!(
        v["programs"][0]["files"]["files"],
        serde_json::json!(["out.rank0.txt"]),
        "{v}"
    );
    assert_eq!(
        std::fs::read_to_string(p.src.join("out.rank0.txt")).unwrap(),
        "again native\n"
    );
    p.no_litter();
}

#[test]
fn a_run_that_cannot_read_its_input_aborts_and_leaves_nothing() {
    let p = Project::new();
    std::fs::remove_file(p.src.join("input.txt")).unwrap();
    let before = listing(&p.src);
    let out = p.fib(&["check", &p.outputs(), "-n", "3", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    let prog = &v["programs"][0];
    assert_eq!(prog["outcome"], "crash", "{v}");
    assert_eq!(prog["files"], Value::Null, "{v}");
    assert_eq!(listing(&p.src), before);
    p.no_litter();
}

#[test]
fn a_run_past_the_time_limit_leaves_no_scratch_directory() {
    let p = Project::new();
    let m = marker("scratch-timeout");
    let spin = fixture("spin_forever.c");
    let out = p.fib(&[
        "check",
        spin.to_str().unwrap(),
        "-n",
        "2",
        "--timeout",
        "2",
        "--format",
        "json",
        "--",
        &m,
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json(&out)["programs"][0]["outcome"], "timeout");
    assert_eq!(processes_with(&m), Vec::<String>::new());
    p.no_litter();
}

/// Open MPI's launcher keeps a session directory per job under `TMPDIR`,
/// which a killed job leaves behind unless it is in the run's directory.
#[test]
fn an_open_mpi_run_past_the_time_limit_leaves_no_session_directory() {
    let p = Project::new();
    let m = marker("scratch-timeout-openmpi");
    let spin = fixture("spin_forever.c");
    let out = p.fib(&[
        "check",
        spin.to_str().unwrap(),
        "--mpi",
        "openmpi",
        "-n",
        "2",
        "--timeout",
        "2",
        "--format",
        "json",
        "--",
        &m,
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(json(&out)["programs"][0]["outcome"], "timeout");
    assert_eq!(processes_with(&m), Vec::<String>::new());
    p.no_litter();
}

#[test]
fn fib_run_runs_a_prebuilt_program_in_a_scratch_directory_of_the_current_one() {
    let p = Project::new();
    let status = Command::new("mpicc.mpich")
        .args(["outputs.c", "-o", "prog"])
        .current_dir(&p.src)
        .status()
        .unwrap();
    assert!(status.success());
    let before = listing(&p.src);
    let out = Command::new(env!("CARGO_BIN_EXE_fib"))
        .args(["run", "-n", "3", "--format", "json", "--", "./prog"])
        .current_dir(&p.src)
        .env("FIB_CACHE_DIR", &p.cache)
        .env("TMPDIR", &p.tmp)
        .output()
        .unwrap();
    let v = json(&out);
    let prog = &v["programs"][0];
    assert_eq!(prog["outcome"], "ok", "{v}");
    assert_eq!(prog["interleavings"], 2);
    assert_eq!(listing(&p.src), before);
    let dir = PathBuf::from(prog["files"]["dir"].as_str().unwrap());
    assert_eq!(
        std::fs::read_to_string(dir.join("out.rank2.txt")).unwrap(),
        "rank 2 of 3: input 7\n"
    );
    p.no_litter();
}

#[test]
fn ctrl_c_leaves_no_scratch_directory() {
    let p = Project::new();
    let m = marker("scratch-interrupt");
    let spin = fixture("spin_forever.c");
    let child = Command::new(env!("CARGO_BIN_EXE_fib"))
        .args([
            "check",
            spin.to_str().unwrap(),
            "-n",
            "2",
            "--timeout",
            "120",
        ])
        .args(["--color", "never", "--", &m])
        .env("FIB_CACHE_DIR", &p.cache)
        .env("TMPDIR", &p.tmp)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    super::wait_for_ranks(&m);
    // The run's scratch directory exists while it runs.
    assert!(std::fs::read_dir(&p.tmp).unwrap().next().is_some());
    super::ctrl_c(child, &m);
    p.no_litter();
}
