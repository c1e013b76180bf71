//! From a path the user names to the programs to check: discovers the C/C++
//! sources (honouring `.gitignore`) and their compile flags (from
//! `compile_commands.json` or the MPI compiler), analyses them with
//! libclang, and groups them into programs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use instrument::{Analysis, CallSite};

use crate::DriverError;

/// Source file extensions fib checks.
const SOURCE_EXT: &[&str] = &["c", "cc", "cpp", "cxx", "C"];
/// Header extensions copied (instrumented) next to the sources.
const HEADER_EXT: &[&str] = &["h", "hh", "hpp", "hxx"];

/// The checked tree: its root, its sources and how to compile them.
pub struct Tree {
    /// The directory the user named (or the directory of the file named).
    pub root: PathBuf,
    /// How to show `root` to the user: as given, `.` shown as empty.
    pub shown_root: PathBuf,
    /// Parser/compiler flags per source, relative to `root`.
    pub flags: BTreeMap<PathBuf, Vec<String>>,
    /// Every source of the tree, relative to `root`.
    pub sources: Vec<PathBuf>,
    /// Every header of the tree, relative to `root`.
    pub headers: Vec<PathBuf>,
    /// When the user named files: the sources with main whose programs are
    /// checked (none: every program of the tree).
    pub only: Option<Vec<PathBuf>>,
}

/// One program: a source with `main`, the sources linked with it, and what
/// libclang found in them.
#[derive(Clone, Debug)]
pub struct Program {
    /// The source with `main`, relative to the tree's root.
    pub main: PathBuf,
    /// Every source of the program (the main one first), relative to root.
    pub sources: Vec<PathBuf>,
    /// The process count its `fib:` directive asks for, if any.
    pub directive_nprocs: Option<usize>,
    /// The program's site table and static facts; site ids are the
    /// program's own.
    pub analysis: Analysis,
}

fn has_ext(p: &Path, exts: &[&str]) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| exts.contains(&e))
}

/// Whether `p` is a C or C++ source fib can check.
pub fn is_source(p: &Path) -> bool {
    has_ext(p, SOURCE_EXT)
}

pub(crate) fn is_cxx(p: &Path) -> bool {
    has_ext(p, &["cc", "cpp", "cxx", "C"])
}

/// Finds the sources under `path` (a file or a directory) and analyses them.
pub fn discover(path: &Path, mpicc: &str) -> Result<Tree, DriverError> {
    if path.is_dir() {
        return discover_in(path, None, mpicc, &|_| false);
    }
    let (root, name) = split_file(path);
    if !is_source(&name) {
        return Err(DriverError::Input(format!(
            "{}: not a C or C++ source (.c, .cc, .cpp, .cxx)",
            path.display()
        )));
    }
    discover_in(&root, Some(&[name]), mpicc, &|_| false)
}

/// A file's directory (`.` when it has none) and its name.
pub fn split_file(path: &Path) -> (PathBuf, PathBuf) {
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    (
        parent.to_path_buf(),
        path.file_name().map(PathBuf::from).unwrap_or_default(),
    )
}

/// Whether `p` is a header fib copies beside the sources.
pub fn is_header(p: &Path) -> bool {
    has_ext(p, HEADER_EXT)
}

/// Finds the sources under the directory `root` and analyses them, leaving
/// out those `excluded` says (paths relative to `root`). With `named`
/// (files directly in `root`), only their programs are checked: a named
/// source that defines main is one; a named source that does not, or a
/// named header, stands for every program of `root` (each source there
/// that defines main). Each is linked with the sources of `root` that do
/// not define main.
pub fn discover_in(
    root: &Path,
    named: Option<&[PathBuf]>,
    mpicc: &str,
    excluded: &dyn Fn(&Path) -> bool,
) -> Result<Tree, DriverError> {
    let (mut sources, mut headers) = walk(root)?;
    sources.retain(|s| !excluded(s));
    let only = match named {
        None => None,
        Some(named) => {
            let text = |rel: &Path| std::fs::read_to_string(root.join(rel)).unwrap_or_default();
            let top = |s: &&PathBuf| s.parent() == Some(Path::new(""));
            let mains: Vec<PathBuf> = sources
                .iter()
                .filter(top)
                .filter(|s| defines_main(&text(s)))
                .cloned()
                .collect();
            let mut only: Vec<PathBuf> = Vec::new();
            for n in named {
                if is_source(n) && defines_main(&text(n)) {
                    only.push(n.clone());
                } else {
                    only.extend(mains.iter().cloned());
                }
            }
            only.sort();
            only.dedup();
            // Linked with the sources of the directory that do not define
            // main (its helpers), and nothing else.
            let helpers: Vec<PathBuf> = sources
                .iter()
                .filter(top)
                .filter(|s| !only.contains(s) && !defines_main(&text(s)))
                .cloned()
                .collect();
            sources = only.iter().cloned().chain(helpers).collect();
            Some(only)
        }
    };
    sources.sort();
    headers.sort();
    if sources.is_empty() && only.is_none() {
        return Err(DriverError::Input(format!(
            "{}: no C or C++ sources here",
            root.display()
        )));
    }
    let flags = compile_flags(root, &sources, mpicc)?;
    let shown_root = if root == Path::new(".") {
        PathBuf::new()
    } else {
        root.to_path_buf()
    };
    Ok(Tree {
        root: root.to_path_buf(),
        shown_root,
        flags,
        sources,
        headers,
        only,
    })
}

/// The sources and headers under `root`, relative to it (the files its
/// `.gitignore` names left out).
fn walk(root: &Path) -> Result<(Vec<PathBuf>, Vec<PathBuf>), DriverError> {
    let mut sources = Vec::new();
    let mut headers = Vec::new();
    let walk = ignore::WalkBuilder::new(root)
        .hidden(true)
        .git_ignore(true)
        .require_git(false)
        .build();
    for entry in walk {
        let entry = entry.map_err(|e| {
            DriverError::Io(
                format!("walking {}", root.display()),
                std::io::Error::other(e),
            )
        })?;
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let rel = entry
            .path()
            .strip_prefix(root)
            .unwrap_or(entry.path())
            .to_path_buf();
        if is_source(&rel) {
            sources.push(rel);
        } else if has_ext(&rel, HEADER_EXT) {
            headers.push(rel);
        }
    }
    Ok((sources, headers))
}

/// Every source's parser and compiler flags: the MPI compiler's, and the
/// source's own from `compile_commands.json` at `root` when there is one.
fn compile_flags(
    root: &Path,
    sources: &[PathBuf],
    mpicc: &str,
) -> Result<BTreeMap<PathBuf, Vec<String>>, DriverError> {
    let db = root.join("compile_commands.json");
    let mut flags = BTreeMap::new();
    if db.is_file() {
        let cmds = instrument::compile_db(&db).map_err(DriverError::Instrument)?;
        // A relative "directory" is taken relative to the database itself.
        let db_dir = std::fs::canonicalize(root).unwrap_or(root.to_path_buf());
        let base = instrument::mpi_flags(mpicc).map_err(DriverError::Instrument)?;
        for s in sources {
            let abs = std::fs::canonicalize(root.join(s)).unwrap_or(root.join(s));
            let args = cmds
                .iter()
                .find(|c| {
                    let dir = db_dir.join(&c.directory);
                    let f = if c.file.is_absolute() {
                        c.file.clone()
                    } else {
                        dir.join(&c.file)
                    };
                    std::fs::canonicalize(&f).unwrap_or(f) == abs
                })
                .map(|c| {
                    let mut c = c.clone();
                    c.directory = db_dir.join(&c.directory);
                    c.parser_flags()
                })
                .unwrap_or_default();
            let mut all = base.clone();
            all.extend(args);
            flags.insert(s.clone(), all);
        }
    } else {
        let base = instrument::mpi_flags(mpicc).map_err(DriverError::Instrument)?;
        for s in sources {
            flags.insert(s.clone(), base.clone());
        }
    }
    Ok(flags)
}

/// Whether a source's text seems to define `main` (a cheap look before
/// parsing; libclang decides for the files it parses).
fn defines_main(text: &str) -> bool {
    text.match_indices("main").any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + 4..].trim_start();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_') && after.starts_with('(')
    })
}

impl Tree {
    /// The programs of the tree: each source that defines `main`, with the
    /// other sources of its directory that do not, each analysed with
    /// libclang on its own (one `main` per analysis).
    pub fn programs(&self) -> Result<Vec<Program>, DriverError> {
        let text = |rel: &Path| std::fs::read_to_string(self.root.join(rel)).unwrap_or_default();
        let mains: Vec<&PathBuf> = self
            .sources
            .iter()
            .filter(|s| self.only.as_ref().is_none_or(|o| o.contains(s)))
            .filter(|s| defines_main(&text(s)))
            .collect();
        let mut out = Vec::new();
        for main in mains {
            let dir = main.parent().map(Path::to_path_buf).unwrap_or_default();
            let mut sources = vec![main.clone()];
            for o in &self.sources {
                if o != main
                    && o.parent().map(Path::to_path_buf).unwrap_or_default() == dir
                    && !defines_main(&text(o))
                {
                    sources.push(o.clone());
                }
            }
            let units: Vec<(PathBuf, Vec<String>)> = sources
                .iter()
                .map(|s| (self.root.join(s), self.flags[s].clone()))
                .collect();
            let analysis =
                instrument::analyze(&self.root, &units).map_err(DriverError::Instrument)?;
            let main_path = self.root.join(main);
            if !analysis
                .units
                .iter()
                .any(|u| u.has_main && u.path == main_path)
            {
                // The text looked like it defined main; libclang says no.
                continue;
            }
            out.push(Program {
                main: main.clone(),
                directive_nprocs: directive_nprocs(&text(main)),
                sources,
                analysis,
            });
        }
        Ok(out)
    }

    /// How to show a path of the tree to the user.
    pub fn show(&self, rel: &Path) -> String {
        self.shown_root.join(rel).display().to_string()
    }
}

impl Program {
    /// The text of a file of the program as analysed (or as it is now).
    pub fn text(&self, root: &Path, rel: &Path) -> Option<String> {
        self.analysis
            .files
            .iter()
            .find(|(p, _)| p == rel)
            .map(|(_, t)| t.clone())
            .or_else(|| std::fs::read_to_string(root.join(rel)).ok())
    }

    /// The sites of the program attributed to `rel`.
    pub fn sites_in(&self, rel: &Path) -> Vec<&CallSite> {
        self.analysis
            .sites
            .sites
            .iter()
            .filter(|s| s.file == rel)
            .collect()
    }
}

/// The process count a `fib:` directive comment asks for: `fib: -n 4` or
/// `fib: nprocs=4` anywhere in a comment line.
pub fn directive_nprocs(text: &str) -> Option<usize> {
    for line in text.lines() {
        let Some(i) = line.find("fib:") else { continue };
        let before = &line[..i];
        if !(before.contains("//") || before.contains("/*") || before.trim_start().starts_with('*'))
        {
            continue;
        }
        let words: Vec<&str> = line[i + 4..].split_whitespace().collect();
        for (k, w) in words.iter().enumerate() {
            if (*w == "-n" || *w == "--nprocs") && k + 1 < words.len() {
                if let Ok(n) = words[k + 1].trim_end_matches("*/").parse() {
                    return Some(n);
                }
            }
            if let Some(v) = w.strip_prefix("nprocs=").or_else(|| w.strip_prefix("-n")) {
                if let Ok(n) = v.trim_end_matches("*/").parse() {
                    return Some(n);
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_main_definition_is_noticed() {
        assert!(defines_main("int main(int argc, char **argv) {"));
        assert!(defines_main("int\nmain (void)"));
        assert!(!defines_main("int domain(void); /* maintain */"));
    }

    #[test]
    fn directives_give_the_process_count() {
        assert_eq!(directive_nprocs("/* fib: -n 4 */\nint main(){}"), Some(4));
        assert_eq!(directive_nprocs("// fib: nprocs=3"), Some(3));
        assert_eq!(directive_nprocs(" * fib: -n6"), Some(6));
        assert_eq!(directive_nprocs("int fib: -n 4;"), None);
        assert_eq!(directive_nprocs("// nothing here"), None);
    }
}
