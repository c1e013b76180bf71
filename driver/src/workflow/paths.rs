//! `fib check PATH...`: the paths grouped by the tree they belong to (a
//! part of a project with a compile database above it belongs to the
//! project), each tree checked with its `fib.toml`: its programs found
//! ([`crate::project`]), each checked once ([`super::check_program`]).

use std::path::{Path, PathBuf};

use fib_report::{NotChecked, Report};

use super::{check_program, finish, Checked, Session, Setup};
use crate::processes;
use crate::project::{self, config, Program, Tree};
use crate::DriverError;

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

/// Checks every program the paths of `session.req` name, each once, at
/// each of its process counts.
pub(super) fn check_paths(session: &Session) -> Result<Checked, DriverError> {
    let req = session.req;
    let groups = group_paths(&req.paths)?;
    let mut checked = Checked::default();
    for g in &groups {
        check_group(session, g, &mut checked)?;
    }
    checked.report.interrupted = processes::interrupted();
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
            let (root, name) = project::split_file(path);
            (root, Some(name))
        };
        // Part of a project with a compile database above it: the project,
        // that part named.
        let (root, name) = match project::enclosing(&root) {
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

/// Checks one group of the paths given (one tree), adding to `checked`.
fn check_group(session: &Session, g: &Group, checked: &mut Checked) -> Result<(), DriverError> {
    if processes::interrupted() {
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
    let config = config::load(&g.root)?.unwrap_or_default();
    let mut named = Vec::new();
    for (name, given) in &g.named {
        if !project::is_source(name) && !project::is_header(name) && !g.root.join(name).is_dir() {
            return Err(DriverError::Input(format!(
                "{}: not a C or C++ source (.c, .cc, .cpp, .cxx) or header",
                given.display()
            )));
        }
        if config.ignores(name) {
            checked.notes.push(format!(
                "{}: left out by `ignore` in {}",
                given.display(),
                config.file.display()
            ));
        } else {
            named.push(name.clone());
        }
    }
    if !g.whole && named.is_empty() {
        return Ok(());
    }
    let toolchain = session.toolchain(&config)?;
    let top = std::fs::canonicalize(&g.root).unwrap_or_else(|_| g.root.clone());
    let tree = project::discover_in(
        &g.root,
        (!g.whole).then_some(named.as_slice()),
        &toolchain.mpicc,
        &config.cflags_in(&top),
        &|rel| config.ignores(rel),
    )?;
    for key in config.programs.keys() {
        if !g.root.join(key).is_file() {
            return Err(DriverError::Input(format!(
                "{}: `programs.\"{}\"`: no such file in {}",
                config.file.display(),
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
        config: &config,
        toolchain: &toolchain,
    };
    let report = run_programs(session, g, &tree, &programs, &setup, checked)?;
    finish(session, &config, report, checked);
    Ok(())
}

/// Checks each of `programs` (once per process count), skipping those an
/// earlier group already checked.
fn run_programs(
    session: &Session,
    g: &Group,
    tree: &Tree,
    programs: &[Program],
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
        check_program(session, setup, tree, p, &mut report, checked)?;
    }
    Ok(report)
}
