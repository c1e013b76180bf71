//! `fib check --build CMD [DIR]`: the programs are what the user's own
//! build makes. fib runs `CMD` (with `sh -c`) in `DIR` with its compiler
//! wrappers ([`super::wrap`]) first on `PATH` and in `CC`, `CXX`, `MPICC`
//! and `MPICXX`; each runs the real tool and records its command line.
//! From the record ([`super::recipes`], pure): every executable the build
//! linked, made of the sources of its objects, each compiled with its
//! recorded flags, linked with the recorded libraries and link flags. Each
//! becomes a [`Program`] in a [`Tree`] of its own, which the caller checks
//! as it checks the programs of a directory: instrumented, built by fib
//! with those flags, run, reported.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use instrument::CompileCommand;

use super::discover::{self, Program, Tree};
use super::recipes::{recipes, Recipe};
use super::wrap::{self, Invocation};
use crate::processes;
use crate::settings;
use crate::DriverError;

/// The tools a build may call by name that fib wraps on `PATH` (when they
/// are installed).
const PATH_TOOLS: &[&str] = &[
    "mpicc",
    "mpicxx",
    "mpic++",
    "mpiCC",
    "cc",
    "gcc",
    "c++",
    "g++",
    "clang",
    "clang++",
    "mpicc.mpich",
    "mpicxx.mpich",
    "mpic++.mpich",
    "mpicc.openmpi",
    "mpicxx.openmpi",
    "mpic++.openmpi",
    "ar",
];

/// How many lines of a failing build's output fib shows.
const TAIL_LINES: usize = 30;

/// `'text'` for `sh`.
fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

fn io(what: String) -> impl FnOnce(std::io::Error) -> DriverError {
    move |e| DriverError::Io(what, e)
}

/// Writes the wrapper `bin/NAME` that runs `REAL` through `fib __wrap`.
fn wrapper(bin: &Path, fib: &Path, name: &str, real: &str) -> Result<PathBuf, DriverError> {
    use std::os::unix::fs::PermissionsExt;
    let path = bin.join(name);
    let script = format!(
        "#!/bin/sh\nexec {} {} {} {} \"$@\"\n",
        quote(&fib.display().to_string()),
        wrap::SUBCOMMAND,
        quote(name),
        quote(real)
    );
    std::fs::write(&path, script).map_err(io(format!("writing {}", path.display())))?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
        .map_err(io(format!("making {} executable", path.display())))?;
    Ok(path)
}

/// The environment of the build: `PATH` with the wrappers first, and the
/// wrappers standing for the compilers `CC`, `CXX`, `MPICC` and `MPICXX`
/// name (the user's, else the MPI implementation's compilers `mpicc`).
fn environment(bin: &Path, mpicc: &str) -> Result<Vec<(String, OsString)>, DriverError> {
    let fib = std::env::current_exe().map_err(io("finding fib's own executable".into()))?;
    let path = settings::path().unwrap_or_default();
    for tool in PATH_TOOLS {
        if std::env::split_paths(&path).any(|d| crate::toolchain::is_executable(&d.join(tool))) {
            wrapper(bin, &fib, tool, tool)?;
        }
    }
    let mpicxx = mpicc.replace("mpicc", "mpicxx");
    let mut env = Vec::new();
    for (var, default) in [
        ("CC", mpicc),
        ("CXX", &mpicxx),
        ("MPICC", mpicc),
        ("MPICXX", &mpicxx),
    ] {
        let real = settings::compiler(var).unwrap_or_else(|| default.to_string());
        let w = wrapper(bin, &fib, var, &real)?;
        env.push((var.to_string(), w.into_os_string()));
    }
    let mut dirs = vec![bin.to_path_buf()];
    dirs.extend(std::env::split_paths(&path));
    let joined = std::env::join_paths(dirs)
        .map_err(|e| DriverError::Input(format!("PATH cannot hold {}: {e}", bin.display())))?;
    env.push(("PATH".into(), joined));
    env.push((
        settings::var::WRAP_DIR.into(),
        bin.as_os_str().to_os_string(),
    ));
    Ok(env)
}

/// Runs the build command `command` in `dir` with fib's wrappers and
/// returns what they recorded. A failing build is the user's error: its
/// exit status and the end of its output. No process of the build and no
/// wrapper survives this.
pub(crate) fn run_build(
    dir: &Path,
    command: &str,
    mpicc: &str,
) -> Result<Vec<Invocation>, DriverError> {
    use std::os::unix::process::CommandExt;
    let tmp = tempfile::Builder::new()
        .prefix("fib-build-")
        .tempdir()
        .map_err(io("creating a directory for the compiler wrappers".into()))?;
    let _temp = processes::Temp::register(tmp.path());
    let bin = tmp.path().join("bin");
    std::fs::create_dir(&bin).map_err(io(format!("creating {}", bin.display())))?;
    let env = environment(&bin, mpicc)?;
    let log = tmp.path().join("record.jsonl");
    let output = tmp.path().join("output");
    std::fs::write(&log, "").map_err(io(format!("writing {}", log.display())))?;
    let out =
        std::fs::File::create(&output).map_err(io(format!("creating {}", output.display())))?;
    let err = out
        .try_clone()
        .map_err(io(format!("opening {}", output.display())))?;
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .envs(env)
        .env(settings::var::WRAP_LOG, &log)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .process_group(0)
        .spawn()
        .map_err(|e| DriverError::Tool("sh".into(), e))?;
    let Some(group) = processes::Group::track(child.id() as i32) else {
        let _ = child.wait();
        return Err(DriverError::Interrupted);
    };
    let status = child.wait().map_err(io(format!("waiting for `{command}`")));
    drop(group);
    let status = status?;
    if processes::interrupted() {
        return Err(DriverError::Interrupted);
    }
    if !status.success() {
        let text = std::fs::read(&output).unwrap_or_default();
        return Err(DriverError::Input(failed(
            command,
            dir,
            status,
            &String::from_utf8_lossy(&text),
        )));
    }
    wrap::read(&log).map_err(io(format!("reading the build's record {}", log.display())))
}

/// The message of a failing build: the command, where, how it ended, and
/// the last lines of its output.
fn failed(command: &str, dir: &Path, status: std::process::ExitStatus, output: &str) -> String {
    use std::os::unix::process::ExitStatusExt;
    let how = match (status.code(), status.signal()) {
        (Some(c), _) => format!("exit status {c}"),
        (None, Some(s)) => format!("killed by signal {s}"),
        _ => "failed".to_string(),
    };
    let lines: Vec<&str> = output.lines().collect();
    let tail = &lines[lines.len().saturating_sub(TAIL_LINES)..];
    let mut msg = format!(
        "the build command `{command}` failed in {} ({how}); fib checks what the build makes, so the build must succeed first",
        dir.display()
    );
    if tail.is_empty() {
        msg.push_str("; it printed nothing");
    } else {
        msg.push_str(if tail.len() < lines.len() {
            "; the end of its output:"
        } else {
            "; its output:"
        });
        for l in tail {
            msg.push_str("\n  | ");
            msg.push_str(l);
        }
    }
    msg
}

/// The headers under `root`, relative to it (its `.gitignore` honoured):
/// copied, instrumented, beside the sources.
fn headers(root: &Path) -> Vec<PathBuf> {
    let walk = ignore::WalkBuilder::new(root)
        .hidden(true)
        .git_ignore(true)
        .require_git(false)
        .build();
    let mut out: Vec<PathBuf> = walk
        .flatten()
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .filter_map(|e| e.path().strip_prefix(root).ok().map(Path::to_path_buf))
        .filter(|p| discover::is_header(p))
        .collect();
    out.sort();
    out
}

/// The units a program is linked from, `main` first: every direct one,
/// then each archive member (in link order) that defines a symbol the
/// units already taken use and none defines.
fn pull(syms: &[instrument::Symbols], direct: &[bool], main: usize) -> Vec<usize> {
    let mut start = vec![main];
    start.extend((0..syms.len()).filter(|&i| direct[i] && i != main));
    // The first member on the link line that defines a symbol wins.
    super::database::pull_members(start, syms, |_| true, |i| i)
}

/// A recipe's program, in a tree of its own (the build may compile one
/// source with other flags for another program): `Ok(None)` when it has
/// no `main` fib can see, `Err` with a note when it cannot be checked.
fn assemble(
    root: &Path,
    r: &Recipe,
    base: &[String],
    cflags: &[String],
    headers: &[PathBuf],
) -> Result<Result<Option<(Tree, Program)>, String>, DriverError> {
    let root_abs =
        std::fs::canonicalize(root).map_err(io(format!("reading {}", root.display())))?;
    let exe = r.exe.display();
    let mut units: Vec<(PathBuf, Vec<String>, bool)> = Vec::new();
    let all = r.direct.iter().map(|u| (u, true));
    for (u, direct) in all.chain(r.members.iter().map(|u| (u, false))) {
        let Ok(abs) = std::fs::canonicalize(&u.source) else {
            return Ok(Err(format!(
                "{exe}: not checked: its source {} no longer exists",
                u.source.display()
            )));
        };
        let Ok(rel) = abs.strip_prefix(&root_abs).map(Path::to_path_buf) else {
            return Ok(Err(format!(
                "{exe}: not checked: its source {} is outside {}",
                abs.display(),
                root.display()
            )));
        };
        if units.iter().any(|(r, _, _)| *r == rel) {
            continue;
        }
        let cmd = CompileCommand {
            file: abs,
            directory: u.cwd.clone(),
            args: u.args.clone(),
        };
        let mut flags = base.to_vec();
        flags.extend(cmd.parser_flags());
        flags.extend_from_slice(cflags);
        units.push((rel, flags, direct));
    }
    let parse = |idx: &[usize]| -> Vec<(PathBuf, Vec<String>)> {
        idx.iter()
            .map(|&i| (root.join(&units[i].0), units[i].1.clone()))
            .collect()
    };
    let every: Vec<usize> = (0..units.len()).collect();
    let syms = super::parses::symbols(&parse(&every))?;
    let Some(main) = (0..units.len()).find(|&i| units[i].2 && syms[i].has_main) else {
        return Ok(Ok(None));
    };
    let direct: Vec<bool> = units.iter().map(|u| u.2).collect();
    let linked = pull(&syms, &direct, main);
    let (analysis, parse_errors) = super::parses::analyze(root, &parse(&linked))?;
    let sources: Vec<PathBuf> = linked.iter().map(|&i| units[i].0.clone()).collect();
    let mut link_flags = r.link_flags.clone();
    if r.cxx && !sources.iter().any(|s| discover::is_cxx(s)) {
        link_flags.push("-lstdc++".into());
    }
    let main_rel = sources[0].clone();
    let text = instrument::read_source(&root.join(&main_rel)).unwrap_or_default();
    let tree = Tree {
        root: root.to_path_buf(),
        shown_root: if root == Path::new(".") {
            PathBuf::new()
        } else {
            root.to_path_buf()
        },
        cwd: discover::current_dir(),
        flags: linked
            .iter()
            .map(|&i| (units[i].0.clone(), units[i].1.clone()))
            .collect(),
        sources: sources.clone(),
        headers: headers.to_vec(),
        named: None,
        database: None,
    };
    let program = Program {
        main: main_rel,
        sources,
        directive_nprocs: discover::directive_nprocs(&text),
        link: link_flags,
        analysis,
        parse_errors,
    };
    Ok(Ok(Some((tree, program))))
}

/// The programs the build in `root` linked, read from its `record`, in
/// the order of their executables, each in a tree of its own, with the
/// executable it stands for; and a note on each (what fib checks it as),
/// and on each executable it cannot check. `base` and `cflags` are the
/// MPI compiler's and `fib.toml`'s flags, given to every parse. An input
/// error when there is nothing to check.
#[allow(clippy::type_complexity)]
pub(crate) fn programs(
    root: &Path,
    command: &str,
    record: &[Invocation],
    base: &[String],
    cflags: &[String],
) -> Result<(Vec<(PathBuf, Tree, Program)>, Vec<String>), DriverError> {
    let headers = headers(root);
    let mut notes = Vec::new();
    let mut programs = Vec::new();
    for r in recipes(record) {
        // What the build no longer has, and a configure step's probes
        // (CMake's under `CMakeFiles/`, autoconf's `conftest`), are not
        // its programs.
        let probe = r.exe.components().any(|c| c.as_os_str() == "CMakeFiles")
            || r.exe.file_stem().is_some_and(|s| s == "conftest");
        if probe || !r.exe.is_file() {
            continue;
        }
        match assemble(root, &r, base, cflags, &headers)? {
            Ok(Some((tree, program))) => {
                notes.push(linked_note(root, &r.exe, &tree, &program));
                programs.push((r.exe, tree, program));
            }
            Ok(None) => {}
            Err(note) => notes.push(note),
        }
    }
    if programs.is_empty() {
        return Err(DriverError::Input(nothing_built(
            command,
            root,
            record.len(),
            &notes,
        )));
    }
    programs.sort_by(|a, b| a.0.cmp(&b.0));
    Ok((programs, notes))
}

/// What fib checks as the executable `exe`: `the build linked app/x from
/// app/x.c, lib/y.c (-lm)`.
fn linked_note(root: &Path, exe: &Path, tree: &Tree, program: &Program) -> String {
    let exe = std::fs::canonicalize(root)
        .ok()
        .and_then(|r| exe.strip_prefix(r).ok().map(|e| tree.show(e)))
        .unwrap_or_else(|| exe.display().to_string());
    let sources: Vec<String> = program.sources.iter().map(|s| tree.show(s)).collect();
    let mut note = format!("the build linked {exe} from {}", sources.join(", "));
    if !program.link.is_empty() {
        note.push_str(&format!(" ({})", program.link.join(" ")));
    }
    note
}

/// Why a build that succeeded gave fib nothing to check: with the notes
/// on the executables it linked but fib cannot check (a source outside
/// `root`, one gone), since those name what to change.
fn nothing_built(command: &str, root: &Path, recorded: usize, notes: &[String]) -> String {
    if !notes.is_empty() {
        let outside = notes.iter().any(|n| n.contains(" is outside "));
        let mut msg = format!(
            "the build command `{command}` linked nothing fib can check (in {}): {}",
            root.display(),
            notes.join("; ")
        );
        if outside {
            msg.push_str(
                "; give as DIR a directory that holds every source the build compiles, and \
                 run the build from there (`fib check --build \"make -C sub/dir\" DIR`)",
            );
        }
        return msg;
    }
    let what = if recorded == 0 {
        "ran no compiler through fib's wrappers"
    } else {
        "linked no executable with `main` from sources in this directory"
    };
    format!(
        "the build command `{command}` {what} (in {}): fib sees only what the build compiles and \
         links while it runs. Make it build from scratch (`make clean all`, \
         `cmake --build build --clean-first`; `make -B` remakes every target, and loops \
         forever in a makefile whose rules remake its own included files); a CMake build \
         directory must be configured under --build too (`--build \"cmake -S . -B build-fib --fresh && cmake --build build-fib\"`), \
         since CMake keeps the compiler it found when it was configured",
        root.display()
    )
}
