//! One `fib check PATH...` as a project runs it: several paths (each
//! file's program checked once), each tree's `fib.toml`, several process
//! counts, then the waivers in the sources and the configuration's severity
//! overrides; and the baseline file, read and written here. The decisions
//! are the pure modules' of `fib_report` (`waivers`, `overrides`,
//! `baseline`); this module reads the files they need.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use fib_report::baseline::Baseline;
use fib_report::{overrides, waivers, NotChecked, Report};
use poe::Token;

use crate::check::{verify, Options, DEFAULT_NPROCS};
use crate::config::{self, Settings};
use crate::database;
use crate::discover::{self, Program};
use crate::explore::launch;
use crate::interpose::Libraries;
use crate::mpi::{Mpi, Toolchain};
use crate::progress::Progress;
use crate::DriverError;

/// The default time limit of one interleaving.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// The default limit on interleavings.
pub const DEFAULT_MAX_INTERLEAVINGS: usize = 10_000;

/// How many interleavings run at once when neither `--jobs` nor `fib.toml`
/// says: one per core.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// What the command line asks for. `None` (or empty) where the command line
/// says nothing, so that `fib.toml` can.
#[derive(Clone, Debug)]
pub struct Request {
    /// Files and directories to check: at least one.
    pub paths: Vec<PathBuf>,
    /// Process counts (`-n 2,4`); empty when not given.
    pub nprocs: Vec<usize>,
    pub zero_buffer: bool,
    pub timeout: Option<Duration>,
    pub replay: Option<Token>,
    pub max_interleavings: Option<usize>,
    /// How many interleavings run at once (`--jobs`).
    pub jobs: Option<usize>,
    /// Explore every order of exchangeable wildcard receives and of free
    /// rows of `MPI_Waitany` (`--exhaustive`).
    pub exhaustive: bool,
    pub confirm: bool,
    /// Run programs that call MPI functions fib does not model anyway.
    pub run_unsupported: bool,
    /// Arguments for the programs (after `--`); `None` when none are given.
    pub args: Option<Vec<String>>,
    /// The MPI implementation asked for on the command line (`--mpi`);
    /// else the tree's `fib.toml`, else the one installed (MPICH first).
    pub mpi: Option<Mpi>,
    /// The compiler wrapper and launcher to use instead of the
    /// implementation's own (`FIB_MPICC`, `FIB_MPICXX`, `FIB_MPIEXEC`).
    pub mpicc: Option<String>,
    pub mpicxx: Option<String>,
    pub mpiexec: Option<String>,
    /// The ranks' working directory (`--cwd`); by default each program's
    /// own directory.
    pub cwd: Option<PathBuf>,
    /// Where each implementation's interposition library is.
    pub libraries: Arc<Libraries>,
    /// The user's build command (`--build`): the programs are what it
    /// links, run in the one directory of `paths` (see `buildcmd`).
    pub build: Option<String>,
}

/// What a check found, and what fib has to tell about the paths themselves
/// (a file left out by `ignore`, a header no program uses).
#[derive(Debug, Default)]
pub struct Checked {
    pub report: Report,
    pub notes: Vec<String>,
    /// The main sources already checked (canonical paths): a program named
    /// twice is checked once.
    seen: HashSet<PathBuf>,
}

/// The paths of one tree: its root, and the files named in it (none when
/// the directory itself was named).
struct Group {
    root: PathBuf,
    /// The root as canonicalised, to recognise it when named twice.
    key: PathBuf,
    whole: bool,
    /// File names in `root`, with the path as the user gave it.
    named: Vec<(PathBuf, PathBuf)>,
}

/// Checks every program `req.paths` name, each once, at each of its
/// process counts, telling `progress` how each check goes; then applies the
/// waivers of their sources and each tree's severity overrides.
///
/// Once the user interrupts fib ([`launch::interrupt`]), the check in
/// progress reports what it has, the ones after it are listed in
/// [`Report::not_checked`], and the report is marked
/// [`Report::interrupted`].
pub fn check_paths(req: &Request, progress: &dyn Progress) -> Result<Checked, DriverError> {
    if let Some(command) = &req.build {
        return crate::buildcmd::check_build(req, command, progress);
    }
    let groups = group_paths(&req.paths)?;
    let mut checked = Checked::default();
    for g in &groups {
        check_group(req, progress, g, &mut checked)?;
    }
    checked.report.interrupted = launch::interrupted();
    if checked.report.programs.is_empty() && checked.notes.is_empty() && !checked.report.interrupted
    {
        return Err(DriverError::Input(format!(
            "{}: no program here (no source defines main)",
            req.paths[0].display()
        )));
    }
    Ok(checked)
}

/// The paths given, grouped by the tree (directory) they belong to.
fn group_paths(paths: &[PathBuf]) -> Result<Vec<Group>, DriverError> {
    let mut groups: Vec<Group> = Vec::new();
    for path in paths {
        if !path.exists() {
            return Err(DriverError::Input(format!(
                "{}: no such file or directory",
                path.display()
            )));
        }
        let (root, name) = if path.is_dir() {
            (path.clone(), None)
        } else {
            let (root, name) = discover::split_file(path);
            (root, Some(name))
        };
        // Part of a project with a compile database above it: the project,
        // that part named.
        let (root, name) = match database::enclosing(&root) {
            Some((top, rel)) => (top, Some(name.map_or(rel.clone(), |n| rel.join(n)))),
            None => (root, name),
        };
        let key = std::fs::canonicalize(&root).unwrap_or_else(|_| root.clone());
        let at = match groups.iter().position(|g| g.key == key) {
            Some(at) => at,
            None => {
                groups.push(Group {
                    root,
                    key,
                    whole: false,
                    named: Vec::new(),
                });
                groups.len() - 1
            }
        };
        match name {
            None => groups[at].whole = true,
            Some(name) => groups[at].named.push((name, path.clone())),
        }
    }

    Ok(groups)
}

/// The tools a tree is checked with: the implementation the command line,
/// else the tree's `fib.toml`, asks for, else the one installed; its
/// interposition library (built first if need be).
pub(crate) fn toolchain(
    req: &Request,
    s: &Settings,
    progress: &dyn Progress,
) -> Result<Toolchain, DriverError> {
    let mpi = match (req.mpi, s.mpi) {
        (Some(m), _) => Mpi::choose(Some(m)),
        (None, Some(m)) => {
            Mpi::choose(Some(m)).map_err(|e| format!("{} asks for {m}: {e}", s.file.display()))
        }
        (None, None) => Mpi::detect(),
    }
    .map_err(DriverError::Input)?;
    let interpose = req.libraries.library(mpi, &|m| progress.note(m))?;
    Ok(Toolchain {
        mpi,
        mpicc: req.mpicc.clone().unwrap_or_else(|| mpi.mpicc().to_string()),
        mpicxx: req
            .mpicxx
            .clone()
            .unwrap_or_else(|| mpi.mpicxx().to_string()),
        mpiexec: req
            .mpiexec
            .clone()
            .unwrap_or_else(|| mpi.mpiexec().to_string()),
        interpose,
    })
}

/// Checks one group of the paths given (one tree), adding to `checked`.
fn check_group(
    req: &Request,
    progress: &dyn Progress,
    g: &Group,
    checked: &mut Checked,
) -> Result<(), DriverError> {
    if launch::interrupted() {
        // Not even looked at: name what the user named.
        let given: Vec<&PathBuf> = if g.whole {
            vec![&g.root]
        } else {
            g.named.iter().map(|(_, given)| given).collect()
        };
        for path in given {
            checked.report.not_checked.push(NotChecked {
                program: path.display().to_string(),
                nprocs: None,
            });
        }
        return Ok(());
    }
    let settings = config::load(&g.root)?.unwrap_or_default();
    let mut named = Vec::new();
    for (name, given) in &g.named {
        if !discover::is_source(name) && !discover::is_header(name) && !g.root.join(name).is_dir() {
            return Err(DriverError::Input(format!(
                "{}: not a C or C++ source (.c, .cc, .cpp, .cxx) or header",
                given.display()
            )));
        }
        if settings.ignores(name) {
            checked.notes.push(format!(
                "{}: left out by `ignore` in {}",
                given.display(),
                settings.file.display()
            ));
        } else {
            named.push(name.clone());
        }
    }
    if !g.whole && named.is_empty() {
        return Ok(());
    }
    let toolchain = toolchain(req, &settings, progress)?;
    let top = std::fs::canonicalize(&g.root).unwrap_or_else(|_| g.root.clone());
    let tree = discover::discover_in(
        &g.root,
        (!g.whole).then_some(named.as_slice()),
        &toolchain.mpicc,
        &settings.cflags_in(&top),
        &|rel| settings.ignores(rel),
    )?;
    for key in settings.programs.keys() {
        if !g.root.join(key).is_file() {
            return Err(DriverError::Input(format!(
                "{}: `programs.\"{}\"`: no such file in {}",
                settings.file.display(),
                key.display(),
                if g.root == Path::new(".") {
                    "this directory".to_string()
                } else {
                    g.root.display().to_string()
                }
            )));
        }
    }
    let programs = tree.programs()?;
    if programs.is_empty() {
        if g.whole {
            return Err(DriverError::Input(format!(
                "{}: no program here (no source defines main)",
                g.root.display()
            )));
        }
        for (name, given) in &g.named {
            if named.contains(name) {
                checked.notes.push(format!(
                    "{}: no program in its directory uses it; nothing to check",
                    given.display()
                ));
            }
        }
        return Ok(());
    }
    let setup = Setup {
        settings: &settings,
        toolchain: &toolchain,
    };
    let mut report = run_programs(req, progress, g, &tree, &programs, &setup, checked)?;
    // A waiver whose finding an unfinished check did not reach yet is
    // not unused.
    let complete = req.replay.is_none() && !launch::interrupted();
    waivers::apply(&mut report, &mut read, complete);
    for p in &mut report.programs {
        overrides::apply(p, &settings.severity);
    }
    checked.report.programs.extend(report.programs);
    Ok(())
}

/// What a tree's programs are checked with: its `fib.toml` and the MPI
/// toolchain.
struct Setup<'a> {
    settings: &'a config::Settings,
    toolchain: &'a Toolchain,
}

/// Checks each of `programs` (once per process count), skipping those an
/// earlier group already checked; a check the user interrupted is listed
/// as not checked.
fn run_programs(
    req: &Request,
    progress: &dyn Progress,
    g: &Group,
    tree: &discover::Tree,
    programs: &[discover::Program],
    setup: &Setup,
    checked: &mut Checked,
) -> Result<Report, DriverError> {
    let mut report = Report::default();
    for p in programs {
        let id =
            std::fs::canonicalize(g.root.join(&p.main)).unwrap_or_else(|_| g.root.join(&p.main));
        if !checked.seen.insert(id) {
            continue;
        }
        let sources: Vec<String> = p.sources.iter().map(|s| tree.show(s)).collect();
        for opts in options(req, setup.settings, p, setup.toolchain) {
            let not_checked = || NotChecked {
                program: tree.show(&p.main),
                nprocs: opts.nprocs,
            };
            if launch::interrupted() {
                checked.report.not_checked.push(not_checked());
                continue;
            }
            match verify(tree, p, &opts, progress) {
                Ok(mut r) => {
                    r.workflow.sources = sources.clone();
                    report.programs.push(r);
                }
                Err(DriverError::Interrupted) => checked.report.not_checked.push(not_checked()),
                Err(e) => return Err(e),
            }
        }
    }
    Ok(report)
}

/// A file's text, by the path a report shows it with.
fn read(path: &str) -> Option<String> {
    instrument::read_source(Path::new(path)).ok()
}

/// The options of each check of `program`, one per process count: the
/// command line first, then the program's `[programs."..."]` table, its
/// `fib:` directive (for the count), the file's top level, the defaults.
pub(crate) fn options(
    req: &Request,
    s: &Settings,
    program: &Program,
    tc: &Toolchain,
) -> Vec<Options> {
    let own = s.program(&program.main).cloned().unwrap_or_default();
    let counts = if !req.nprocs.is_empty() {
        req.nprocs.clone()
    } else if let Some(n) = own.nprocs {
        n
    } else if let Some(n) = program.directive_nprocs {
        vec![n]
    } else if let Some(n) = &s.nprocs {
        n.clone()
    } else {
        vec![DEFAULT_NPROCS]
    };
    let mut unique = Vec::new();
    for n in counts {
        if !unique.contains(&n) {
            unique.push(n);
        }
    }
    unique
        .into_iter()
        .map(|n| Options {
            nprocs: Some(n),
            zero_buffer: req.zero_buffer || s.zero_buffer.unwrap_or(false),
            timeout: req
                .timeout
                .or(own.timeout)
                .or(s.timeout)
                .unwrap_or(DEFAULT_TIMEOUT),
            replay: req.replay.clone(),
            max_interleavings: req
                .max_interleavings
                .or(s.max_interleavings)
                .unwrap_or(DEFAULT_MAX_INTERLEAVINGS),
            jobs: req.jobs.or(s.jobs).unwrap_or_else(default_jobs),
            exhaustive: req.exhaustive || s.exhaustive.unwrap_or(false),
            toolchain: tc.clone(),
            cwd: req.cwd.clone(),
            args: req.args.clone().or(own.args.clone()).unwrap_or_default(),
            confirm: req.confirm || s.confirm.unwrap_or(false),
            run_unsupported: req.run_unsupported,
            link: s.link.iter().chain(&own.link).cloned().collect(),
        })
        .collect()
}

/// How the baseline stored in `file` names the program shown as `program`:
/// its path relative to the baseline file's directory, with `/`.
fn baseline_name(file: &Path, program: &str) -> String {
    let abs = |p: &Path| {
        std::fs::canonicalize(p).unwrap_or_else(|_| {
            std::env::current_dir()
                .map(|d| d.join(p))
                .unwrap_or_else(|_| p.to_path_buf())
        })
    };
    let dir = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let rel = relative(&abs(Path::new(program)), &abs(dir));
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// `path` relative to `base` (both absolute), with `..` where needed.
fn relative(path: &Path, base: &Path) -> PathBuf {
    let p: Vec<Component> = path.components().collect();
    let b: Vec<Component> = base.components().collect();
    let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &p[common..] {
        out.push(c.as_os_str());
    }
    out
}

/// Reads the baseline in `file`; an error names the file.
pub fn read_baseline(file: &Path) -> Result<Baseline, DriverError> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| DriverError::Io(format!("reading the baseline {}", file.display()), e))?;
    Baseline::parse(&text)
        .map_err(|e| DriverError::Input(format!("{}: not a fib baseline: {e}", file.display())))
}

/// Takes out of `report` the findings the baseline (read from `file`)
/// knows.
pub fn apply_baseline(baseline: &Baseline, file: &Path, report: &mut Report) {
    baseline.apply(report, &|p| baseline_name(file, p), &mut read);
}

/// Writes every finding of `report` to `file` as a baseline; returns how
/// many findings it holds.
pub fn write_baseline(file: &Path, report: &Report) -> Result<usize, DriverError> {
    let b = Baseline::of(report, &|p| baseline_name(file, p), &mut read);
    std::fs::write(file, b.to_json())
        .map_err(|e| DriverError::Io(format!("writing the baseline {}", file.display()), e))?;
    Ok(b.findings.iter().map(|e| e.count).sum())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_climb_where_needed() {
        assert_eq!(
            relative(Path::new("/r/src/a.c"), Path::new("/r")),
            PathBuf::from("src/a.c")
        );
        assert_eq!(
            relative(Path::new("/r/src/a.c"), Path::new("/r/ci")),
            PathBuf::from("../src/a.c")
        );
    }
}
