//! `fib check --build CMD [DIR]`: the programs are what the user's own
//! build makes. fib runs `CMD` (with `sh -c`) in `DIR` with its compiler
//! wrappers ([`crate::wrap`]) first on `PATH` and in `CC`, `CXX`, `MPICC`
//! and `MPICXX`; each runs the real tool and records its command line.
//! From the record ([`recipes`], pure): every executable the build linked,
//! made of the sources of its objects (archives made by `ar` followed, a
//! member taken when the program needs a symbol it defines, as a linker
//! does), each compiled with its recorded flags, linked with the recorded
//! libraries and link flags. Those programs then go through the normal
//! pipeline: instrumented, built by fib with those flags, run, reported.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};

use fib_report::{overrides, waivers, NotChecked, Report};
use instrument::CompileCommand;

use crate::check::verify;
use crate::config::{self, Settings};
use crate::discover::{self, Program, Tree};
use crate::explore::launch;
use crate::progress::Progress;
use crate::workflow::{self, Checked, Request};
use crate::wrap::{self, Invocation};
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

/// One source as the build compiled it.
#[derive(Clone, Debug, PartialEq)]
pub struct Unit {
    /// The source, absolute.
    pub source: PathBuf,
    /// The directory the compiler ran in.
    pub cwd: PathBuf,
    /// The compiler's command line, the compiler first.
    pub args: Vec<String>,
}

/// An executable as the build linked it.
#[derive(Clone, Debug, PartialEq)]
pub struct Recipe {
    /// The executable, absolute.
    pub exe: PathBuf,
    /// The sources of the objects (and the sources) the link names: all
    /// linked.
    pub direct: Vec<Unit>,
    /// The sources of the members of the archives it names, in link
    /// order: each linked when the program needs a symbol it defines.
    pub members: Vec<Unit>,
    /// Libraries, library directories, link flags and inputs fib did not
    /// see built (a shared library, a system archive), in order.
    pub link_flags: Vec<String>,
    /// Whether the link was made by a C++ compiler driver.
    pub cxx: bool,
}

/// Flags whose value may be the next word.
const VALUED: &[&str] = &[
    "-o",
    "-MF",
    "-MT",
    "-MQ",
    "-I",
    "-D",
    "-U",
    "-include",
    "-imacros",
    "-isystem",
    "-iquote",
    "-idirafter",
    "-x",
    "-Xlinker",
    "-Xpreprocessor",
    "-Xassembler",
    "-L",
    "-l",
    "-u",
    "-T",
    "-e",
    "-z",
    "--param",
    "-aux-info",
];

/// A compiler's command line, word by word: a flag with its separate value,
/// or an input file.
#[derive(Debug, PartialEq)]
enum Word {
    Flag(String, Option<String>),
    Input(String),
}

fn words(args: &[String]) -> Vec<Word> {
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a.starts_with('-') && a.len() > 1 {
            let value = VALUED.contains(&a.as_str()).then(|| it.next().cloned());
            out.push(Word::Flag(a.clone(), value.flatten()));
        } else {
            out.push(Word::Input(a.clone()));
        }
    }
    out
}

/// `path` against `cwd`, with `.` and `name/..` taken out.
fn absolute(cwd: &Path, path: &str) -> PathBuf {
    let mut out = PathBuf::new();
    for c in cwd.join(path).components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

fn ext(p: &Path) -> &str {
    p.extension().and_then(|e| e.to_str()).unwrap_or("")
}

/// The member names of a (GNU or BSD-style short-name) `ar` archive;
/// `None` for anything else, a thin archive included.
fn archive_members(data: &[u8]) -> Option<Vec<String>> {
    let mut at = 8;
    if data.get(..at)? != b"!<arch>\n" {
        return None;
    }
    let mut long: &[u8] = &[];
    let mut out = Vec::new();
    while at + 60 <= data.len() {
        let header = &data[at..at + 60];
        let name = String::from_utf8_lossy(&header[..16])
            .trim_end()
            .to_string();
        let size: usize = String::from_utf8_lossy(&header[48..58])
            .trim()
            .parse()
            .ok()?;
        let body = data.get(at + 60..at + 60 + size)?;
        if name == "//" {
            long = body;
        } else if let Some(off) = name.strip_prefix('/').and_then(|o| o.parse::<usize>().ok()) {
            let rest = long.get(off..)?;
            let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
            out.push(
                String::from_utf8_lossy(&rest[..end])
                    .trim_end_matches('/')
                    .to_string(),
            );
        } else if name != "/" && name != "/SYM64/" {
            out.push(name.trim_end_matches('/').to_string());
        }
        at += 60 + size + size % 2;
    }
    Some(out)
}

/// What the record says the build made, as it goes.
#[derive(Default)]
struct Made {
    /// Each object and the source it was compiled from.
    objects: BTreeMap<PathBuf, Unit>,
    /// Each archive and its members (objects), in order.
    archives: BTreeMap<PathBuf, Vec<PathBuf>>,
    /// Each executable, as last linked.
    links: Vec<Recipe>,
}

/// The executables of a build's record, each with its sources, in the
/// order the build first linked them (a relink replaces the recipe).
pub fn recipes(record: &[Invocation]) -> Vec<Recipe> {
    let mut made = Made::default();
    for inv in record {
        if inv.name == "ar" {
            made.archive(inv);
            continue;
        }
        let w = words(&inv.args);
        let has = |f: &str| w.iter().any(|x| matches!(x, Word::Flag(n, _) if n == f));
        if has("-c") {
            made.compile(inv, &w);
        } else if ["-E", "-S", "-M", "-MM", "-fsyntax-only", "-shared"]
            .iter()
            .all(|f| !has(f))
            && w.iter().any(|x| matches!(x, Word::Input(_)))
        {
            let r = made.link(inv, &w);
            match made.links.iter().position(|l| l.exe == r.exe) {
                Some(i) => made.links[i] = r,
                None => made.links.push(r),
            }
        }
    }
    made.links
}

impl Made {
    fn compile(&mut self, inv: &Invocation, w: &[Word]) {
        let output = w.iter().find_map(|x| match x {
            Word::Flag(f, Some(v)) if f == "-o" => Some(v.clone()),
            _ => None,
        });
        let sources: Vec<&String> = w
            .iter()
            .filter_map(|x| match x {
                Word::Input(p) if discover::is_source(Path::new(p)) => Some(p),
                _ => None,
            })
            .collect();
        for s in &sources {
            let obj = match (&output, sources.len()) {
                (Some(o), 1) => absolute(&inv.cwd, o),
                _ => inv.cwd.join(
                    Path::new(s.as_str())
                        .with_extension("o")
                        .file_name()
                        .unwrap_or_default(),
                ),
            };
            self.objects.insert(obj, self.unit(inv, s));
        }
    }

    fn unit(&self, inv: &Invocation, source: &str) -> Unit {
        Unit {
            source: absolute(&inv.cwd, source),
            cwd: inv.cwd.clone(),
            args: std::iter::once(inv.name.clone())
                .chain(inv.args.iter().cloned())
                .collect(),
        }
    }

    /// `ar`: members added (`r`, `q`: a member of the same path replaced)
    /// or deleted (`d`).
    fn archive(&mut self, inv: &Invocation) {
        let mut it = inv.args.iter().filter(|a| !a.starts_with("--"));
        let Some(ops) = it.next() else { return };
        let ops = ops.trim_start_matches('-');
        let Some(archive) = it.next() else { return };
        let archive = absolute(&inv.cwd, archive);
        let files: Vec<PathBuf> = it.map(|m| absolute(&inv.cwd, m)).collect();
        let members = self.archives.entry(archive).or_default();
        if ops.contains('d') {
            members.retain(|m| !files.iter().any(|f| f.file_name() == m.file_name()));
        } else if ops.contains('r') || ops.contains('q') {
            for f in files {
                match members.iter().position(|m| *m == f) {
                    Some(i) => members[i] = f,
                    None => members.push(f),
                }
            }
        }
    }

    /// The members of an archive no recorded `ar` made (the build called
    /// `ar` by a full path), read from the file: each the object of that
    /// name the build compiled, when there is exactly one. `None` when it
    /// is not an archive or a member is no such object (it is then linked
    /// as it is).
    fn read_archive(&self, path: &Path) -> Option<Vec<Unit>> {
        if ext(path) != "a" {
            return None;
        }
        let names = archive_members(&std::fs::read(path).ok()?)?;
        names
            .iter()
            .map(|n| {
                let mut found = self
                    .objects
                    .iter()
                    .filter(|(o, _)| o.file_name() == Some(n.as_ref()));
                match (found.next(), found.next()) {
                    (Some((_, u)), None) => Some(u.clone()),
                    _ => None,
                }
            })
            .collect()
    }

    /// The archive `-lNAME` names, if the build made it.
    fn library(&self, name: &str, dirs: &[PathBuf]) -> Option<PathBuf> {
        dirs.iter()
            .map(|d| d.join(format!("lib{name}.a")))
            .find(|a| self.archives.contains_key(a))
    }

    /// Adds the members of the archive `a` (made by the build) to `r`;
    /// the archive itself stays a link input when some member was not
    /// compiled by the build.
    fn take_archive(&self, a: &Path, r: &mut Recipe) {
        let mut unknown = false;
        for m in &self.archives[a] {
            match self.objects.get(m) {
                Some(u) => r.members.push(u.clone()),
                None => unknown = true,
            }
        }
        if unknown {
            r.link_flags.push(a.display().to_string());
        }
    }

    fn link(&self, inv: &Invocation, w: &[Word]) -> Recipe {
        let n = inv.name.to_ascii_lowercase();
        let mut r = Recipe {
            exe: inv.cwd.join("a.out"),
            direct: Vec::new(),
            members: Vec::new(),
            link_flags: Vec::new(),
            cxx: n.contains("++") || n.contains("cxx") || inv.name == "mpiCC",
        };
        let mut dirs = Vec::new();
        for x in w {
            if let Word::Flag(f, v) = x {
                if let Some(d) = f
                    .strip_prefix("-L")
                    .filter(|d| !d.is_empty())
                    .or(v.as_deref().filter(|_| f == "-L"))
                {
                    dirs.push(absolute(&inv.cwd, d));
                }
            }
        }
        for x in w {
            match x {
                Word::Input(p) => {
                    let abs = absolute(&inv.cwd, p);
                    if discover::is_source(Path::new(p)) {
                        r.direct.push(self.unit(inv, p));
                    } else if let Some(u) = self.objects.get(&abs) {
                        r.direct.push(u.clone());
                    } else if self.archives.contains_key(&abs) {
                        self.take_archive(&abs, &mut r);
                    } else if let Some(members) = self.read_archive(&abs) {
                        r.members.extend(members);
                    } else {
                        r.link_flags.push(abs.display().to_string());
                    }
                }
                Word::Flag(f, v) => self.link_flag(inv, f, v.as_deref(), &dirs, &mut r),
            }
        }
        r
    }

    fn link_flag(
        &self,
        inv: &Invocation,
        f: &str,
        v: Option<&str>,
        dirs: &[PathBuf],
        r: &mut Recipe,
    ) {
        if f == "-o" {
            if let Some(v) = v {
                r.exe = absolute(&inv.cwd, v);
            }
            return;
        }
        if let Some(lib) = f
            .strip_prefix("-l")
            .filter(|l| !l.is_empty())
            .or(v.filter(|_| f == "-l"))
        {
            match self.library(lib, dirs) {
                Some(a) => self.take_archive(&a, r),
                None => r.link_flags.push(format!("-l{lib}")),
            }
            return;
        }
        if let Some(d) = f
            .strip_prefix("-L")
            .filter(|d| !d.is_empty())
            .or(v.filter(|_| f == "-L"))
        {
            r.link_flags
                .push(format!("-L{}", absolute(&inv.cwd, d).display()));
            return;
        }
        let kept = f.starts_with("-Wl,")
            || f.starts_with("-fopenmp")
            || f.starts_with("-fsanitize")
            || f.starts_with("-static")
            || f.starts_with("-fuse-ld=")
            || ["-pthread", "-rdynamic", "-pie", "-no-pie"].contains(&f);
        if kept {
            r.link_flags.push(f.to_string());
        } else if ["-Xlinker", "-u", "-T", "-z"].contains(&f) {
            r.link_flags.push(f.to_string());
            r.link_flags.extend(v.map(str::to_string));
        }
    }
}

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
    let path = std::env::var_os("PATH").unwrap_or_default();
    for tool in PATH_TOOLS {
        if std::env::split_paths(&path).any(|d| crate::mpi::is_executable(&d.join(tool))) {
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
        let real = std::env::var(var)
            .ok()
            .filter(|v| !v.trim().is_empty())
            .unwrap_or_else(|| default.to_string());
        let w = wrapper(bin, &fib, var, &real)?;
        env.push((var.to_string(), w.into_os_string()));
    }
    let mut dirs = vec![bin.to_path_buf()];
    dirs.extend(std::env::split_paths(&path));
    let joined = std::env::join_paths(dirs)
        .map_err(|e| DriverError::Input(format!("PATH cannot hold {}: {e}", bin.display())))?;
    env.push(("PATH".into(), joined));
    env.push((wrap::DIR_ENV.into(), bin.as_os_str().to_os_string()));
    Ok(env)
}

/// Runs the build command `command` in `dir` with fib's wrappers and
/// returns what they recorded. A failing build is the user's error: its
/// exit status and the end of its output. No process of the build and no
/// wrapper survives this.
fn run_build(dir: &Path, command: &str, mpicc: &str) -> Result<Vec<Invocation>, DriverError> {
    use std::os::unix::process::CommandExt;
    let tmp = tempfile::Builder::new()
        .prefix("fib-build-")
        .tempdir()
        .map_err(io("creating a directory for the compiler wrappers".into()))?;
    launch::register_temp(tmp.path());
    let _forget = launch::Forget(tmp.path().to_path_buf());
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
        .env(wrap::LOG_ENV, &log)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .process_group(0)
        .spawn()
        .map_err(|e| DriverError::Tool("sh".into(), e))?;
    let Some(group) = launch::Group::track(child.id() as i32) else {
        let _ = child.wait();
        return Err(DriverError::Interrupted);
    };
    let status = child.wait().map_err(io(format!("waiting for `{command}`")));
    drop(group);
    let status = status?;
    if launch::interrupted() {
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
    crate::database::pull_members(start, syms, |_| true, |i| i)
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
    let syms = crate::parses::symbols(&parse(&every))?;
    let Some(main) = (0..units.len()).find(|&i| units[i].2 && syms[i].has_main) else {
        return Ok(Ok(None));
    };
    let direct: Vec<bool> = units.iter().map(|u| u.2).collect();
    let linked = pull(&syms, &direct, main);
    let analysis = crate::parses::analyze(root, &parse(&linked))?;
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
    };
    Ok(Ok(Some((tree, program))))
}

/// The MPI compiler the check will use (the wrappers in `CC`... stand
/// for it when the user set none): `FIB_MPICC`, else that of the
/// implementation the command line, else `fib.toml`, asks for, else the
/// one installed.
fn compiler(req: &Request, s: &Settings) -> Result<String, DriverError> {
    if let Some(c) = &req.mpicc {
        return Ok(c.clone());
    }
    let mpi = crate::mpi::Mpi::choose(req.mpi.or(s.mpi)).map_err(DriverError::Input)?;
    Ok(mpi.mpicc().to_string())
}

/// The directory `fib check --build` runs the build in: the one path
/// given, else `.`.
fn build_dir(req: &Request) -> Result<PathBuf, DriverError> {
    match req.paths.as_slice() {
        [] => Ok(PathBuf::from(".")),
        [p] if p.is_dir() => Ok(p.clone()),
        [p] => Err(DriverError::Input(format!(
            "{}: --build runs the build in a directory; this is not one",
            p.display()
        ))),
        _ => Err(DriverError::Input(
            "--build takes one directory (where the build command runs)".into(),
        )),
    }
}

/// `fib check --build COMMAND [DIR]`: runs the build, then checks each
/// program it linked (at each process count), then applies the waivers of
/// their sources and `fib.toml`'s severity overrides.
pub(crate) fn check_build(
    req: &Request,
    command: &str,
    progress: &dyn Progress,
) -> Result<Checked, DriverError> {
    let root = build_dir(req)?;
    let settings = config::load(&root)?.unwrap_or_default();
    // The build first: when it fails, nothing else matters.
    let record = run_build(&root, command, &compiler(req, &settings)?)?;
    let toolchain = workflow::toolchain(req, &settings, progress)?;
    let base = instrument::mpi_flags(&toolchain.mpicc).map_err(DriverError::Instrument)?;
    let headers = headers(&root);
    let top = std::fs::canonicalize(&root).unwrap_or_else(|_| root.clone());
    let cflags = settings.cflags_in(&top);
    let mut checked = Checked::default();
    let mut programs = Vec::new();
    for r in recipes(&record) {
        // What the build no longer has, and a configure step's probes
        // (CMake's under `CMakeFiles/`, autoconf's `conftest`), are not
        // its programs.
        let probe = r.exe.components().any(|c| c.as_os_str() == "CMakeFiles")
            || r.exe.file_stem().is_some_and(|s| s == "conftest");
        if probe || !r.exe.is_file() {
            continue;
        }
        match assemble(&root, &r, &base, &cflags, &headers)? {
            Ok(Some(p)) => {
                checked.notes.push(linked_note(&root, &r.exe, &p.0, &p.1));
                programs.push((r.exe, p));
            }
            Ok(None) => {}
            Err(note) => checked.notes.push(note),
        }
    }
    if programs.is_empty() {
        return Err(DriverError::Input(nothing_built(
            command,
            &root,
            record.len(),
        )));
    }
    programs.sort_by(|a, b| a.0.cmp(&b.0));
    let mut report = Report::default();
    for (exe, (tree, program)) in &programs {
        let shared = programs
            .iter()
            .filter(|(_, (_, p))| p.main == program.main)
            .count()
            > 1;
        check_one(
            req,
            progress,
            &settings,
            &toolchain,
            (tree, program),
            &mut report,
            &mut checked,
        )?;
        if shared {
            let name = exe
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            for p in report
                .programs
                .iter_mut()
                .filter(|p| p.program == tree.show(&program.main))
            {
                p.program = format!("{} ({name})", p.program);
            }
        }
    }
    let complete = req.replay.is_none() && !launch::interrupted();
    waivers::apply(
        &mut report,
        &mut |p: &str| instrument::read_source(std::path::Path::new(p)).ok(),
        complete,
    );
    for p in &mut report.programs {
        overrides::apply(p, &settings.severity);
    }
    checked.report.programs.extend(report.programs);
    checked.report.interrupted = launch::interrupted();
    Ok(checked)
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

/// Checks one program at each of its process counts.
fn check_one(
    req: &Request,
    progress: &dyn Progress,
    settings: &Settings,
    toolchain: &crate::mpi::Toolchain,
    (tree, program): (&Tree, &Program),
    report: &mut Report,
    checked: &mut Checked,
) -> Result<(), DriverError> {
    let sources: Vec<String> = program.sources.iter().map(|s| tree.show(s)).collect();
    for opts in workflow::options(req, settings, program, toolchain) {
        let not_checked = || NotChecked {
            program: tree.show(&program.main),
            nprocs: opts.nprocs,
        };
        if launch::interrupted() {
            checked.report.not_checked.push(not_checked());
            continue;
        }
        match verify(tree, program, &opts, progress) {
            Ok(mut r) => {
                r.workflow.sources = sources.clone();
                report.programs.push(r);
            }
            Err(DriverError::Interrupted) => checked.report.not_checked.push(not_checked()),
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Why a build that succeeded gave fib nothing to check.
fn nothing_built(command: &str, root: &Path, recorded: usize) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn inv(name: &str, cwd: &str, args: &str) -> Invocation {
        Invocation {
            name: name.into(),
            cwd: cwd.into(),
            args: args.split_whitespace().map(String::from).collect(),
        }
    }

    #[test]
    fn a_link_follows_its_objects_and_archives_to_their_sources() {
        let record = [
            inv("mpicc", "/p", "-Ilib -DX -c app/main.c -o app/main.o"),
            inv("mpicc", "/p/lib", "-O2 -c a.c b.c"),
            inv("ar", "/p/lib", "rcs libx.a a.o b.o"),
            inv(
                "mpicc",
                "/p",
                "-o app/prog app/main.o -Llib -lx -lm -Wl,--as-needed",
            ),
            // A configure probe's query and a shared library: no programs.
            inv("mpicc", "/p", "--version"),
            inv("mpicc", "/p", "-shared -o libs.so lib/a.o"),
        ];
        let r = recipes(&record);
        assert_eq!(r.len(), 1);
        let r = &r[0];
        assert_eq!(r.exe, Path::new("/p/app/prog"));
        let src = |us: &[Unit]| us.iter().map(|u| u.source.clone()).collect::<Vec<_>>();
        assert_eq!(src(&r.direct), [PathBuf::from("/p/app/main.c")]);
        assert_eq!(
            src(&r.members),
            [PathBuf::from("/p/lib/a.c"), PathBuf::from("/p/lib/b.c")]
        );
        assert_eq!(r.direct[0].args[0], "mpicc");
        assert!(r.direct[0].args.contains(&"-DX".to_string()));
        assert_eq!(r.link_flags, ["-L/p/lib", "-lm", "-Wl,--as-needed"]);
        assert!(!r.cxx);
    }

    #[test]
    fn a_one_step_build_and_a_cxx_driver() {
        let record = [inv(
            "mpicxx",
            "/p",
            "-std=c++17 main.cpp util.c -o ../bin/tool -lstdc++fs",
        )];
        let r = &recipes(&record)[0];
        assert_eq!(r.exe, Path::new("/bin/tool"));
        assert_eq!(r.direct.len(), 2);
        assert!(r.cxx);
        assert_eq!(r.link_flags, ["-lstdc++fs"]);
    }

    #[test]
    fn archive_members_are_read_with_long_names() {
        let member = |name: &str, body: &[u8]| {
            let mut h = format!(
                "{name:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
                0,
                0,
                0,
                644,
                body.len()
            )
            .into_bytes();
            h.extend(body);
            if body.len() % 2 == 1 {
                h.push(b'\n');
            }
            h
        };
        let mut a = b"!<arch>\n".to_vec();
        a.extend(member("/", b"symtab"));
        a.extend(member("//", b"a_very_long_member_name.c.o/\n"));
        a.extend(member("short.o/", b"x"));
        a.extend(member("/0", b"yy"));
        assert_eq!(
            archive_members(&a).unwrap(),
            ["short.o", "a_very_long_member_name.c.o"]
        );
        assert_eq!(archive_members(b"!<thin>\n"), None);
    }
}
