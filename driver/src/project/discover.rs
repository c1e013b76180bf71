//! From a path the user names to the programs to check: discovers the C/C++
//! sources (honouring `.gitignore`) and their compile flags (from
//! `compile_commands.json` or the MPI compiler), analyses them with
//! libclang, and groups them into programs.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use instrument::{Analysis, CallSite, ParseError, Symbols};

use super::database::{self, Database};
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
    /// The current directory when the tree was found (absolute, symlinks
    /// resolved; empty when unknown), from which paths are shown
    /// ([`Tree::show`]).
    pub cwd: PathBuf,
    /// Parser/compiler flags per source, relative to `root`.
    pub flags: BTreeMap<PathBuf, Vec<String>>,
    /// Every source of the tree, relative to `root`.
    pub sources: Vec<PathBuf>,
    /// Every header of the tree, relative to `root`.
    pub headers: Vec<PathBuf>,
    /// When the user named files (relative to `root`): only the programs
    /// that use one are checked (none: every program of the tree).
    pub named: Option<Vec<PathBuf>>,
    /// The compile database the tree is built as, if it has one.
    pub database: Option<Database>,
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
    /// Its own link flags: those its `fib:` directive gives (`-lm`), and
    /// those of its compile database entry (rare); under `--build`, the
    /// libraries and flags the user's build linked it with.
    pub link: Vec<String>,
    /// The program's site table and static facts; site ids are the
    /// program's own.
    pub analysis: Analysis,
    /// The errors libclang reported when it parsed the program in this
    /// check (none when its analysis was kept from an earlier one).
    pub parse_errors: Vec<ParseError>,
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

/// Finds the sources under `path` (a file or a directory) and analyses them
/// (for the tests: a check goes through [`discover_in`]).
#[cfg(test)]
pub(crate) fn discover(path: &Path, mpicc: &str) -> Result<Tree, DriverError> {
    if path.is_dir() {
        return discover_in(path, None, mpicc, &[], &|_| false);
    }
    let (root, name) = split_file(path);
    if !is_source(&name) {
        return Err(DriverError::Input(format!(
            "{}: not a C or C++ source (.c, .cc, .cpp, .cxx)",
            path.display()
        )));
    }
    discover_in(&root, Some(&[name]), mpicc, &[], &|_| false)
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
/// (files directly in `root`; with a compile database, files or
/// directories anywhere under it), only the programs that use them are
/// checked (see [`Tree::programs`]).
///
/// With a compile database (see [`database::find`]), the tree's sources are
/// those the build compiles, each with its own flags; otherwise every
/// source found, with the MPI compiler's flags, and with `named` only the
/// sources directly in `root`.
pub fn discover_in(
    root: &Path,
    named: Option<&[PathBuf]>,
    mpicc: &str,
    cflags: &[String],
    excluded: &dyn Fn(&Path) -> bool,
) -> Result<Tree, DriverError> {
    let (mut sources, mut headers) = walk(root)?;
    sources.retain(|s| !excluded(s));
    let database = match database::find(root)? {
        Some(path) => Some(Database::read(&path)?),
        None => None,
    };
    match &database {
        Some(db) => sources.retain(|s| db.command(root, s).is_some()),
        None if named.is_some() => sources.retain(|s| s.parent() == Some(Path::new(""))),
        None => {}
    }
    for n in named.unwrap_or_default() {
        if !is_source(n) || sources.contains(n) {
            continue;
        }
        if let Some(db) = &database {
            return Err(DriverError::Input(format!(
                "{}: not compiled by the build: {} has no entry for it",
                root.join(n).display(),
                db.path.display()
            )));
        }
        sources.push(n.clone());
    }
    sources.sort();
    headers.sort();
    if sources.is_empty() && named.is_none() {
        return Err(DriverError::Input(match &database {
            Some(db) => format!(
                "{}: no C or C++ sources here that {} compiles",
                root.display(),
                db.path.display()
            ),
            None => format!("{}: no C or C++ sources here", root.display()),
        }));
    }
    let flags = compile_flags(root, &sources, mpicc, database.as_ref(), cflags)?;
    let shown_root = if root == Path::new(".") {
        PathBuf::new()
    } else {
        root.to_path_buf()
    };
    Ok(Tree {
        root: root.to_path_buf(),
        shown_root,
        cwd: current_dir(),
        flags,
        sources,
        headers,
        named: named.map(<[PathBuf]>::to_vec),
        database,
    })
}

/// The current directory, from which fib shows paths (empty when it
/// cannot be told).
pub(crate) fn current_dir() -> PathBuf {
    std::env::current_dir().unwrap_or_default()
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

/// Every source's parser and compiler flags: the MPI compiler's, the
/// source's own from the compile database when there is one, then
/// `fib.toml`'s `cflags` (which thus win: the last `-O` counts).
fn compile_flags(
    root: &Path,
    sources: &[PathBuf],
    mpicc: &str,
    database: Option<&Database>,
    cflags: &[String],
) -> Result<BTreeMap<PathBuf, Vec<String>>, DriverError> {
    let base = instrument::mpi_flags(mpicc).map_err(DriverError::Instrument)?;
    let mut flags = BTreeMap::new();
    for s in sources {
        let mut all = base.clone();
        if let Some(own) = database.and_then(|db| db.flags(root, s)) {
            all.extend(own);
        }
        all.extend_from_slice(cflags);
        flags.insert(s.clone(), all);
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

/// Whether `text` has the identifier `name` in it.
fn mentions(text: &str, name: &str) -> bool {
    let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    text.match_indices(name).any(|(i, _)| {
        !ident(text[..i].chars().next_back()) && !ident(text[i + name.len()..].chars().next())
    })
}

/// The symbols of a tree's sources (by index), each parsed once, when
/// first needed.
struct Table<'t> {
    tree: &'t Tree,
    parsed: Vec<Option<Symbols>>,
}

impl Table<'_> {
    /// Parses the sources of `which` not parsed yet.
    fn parse(&mut self, which: &[usize]) -> Result<(), DriverError> {
        let todo: Vec<usize> = which
            .iter()
            .copied()
            .filter(|&k| self.parsed[k].is_none())
            .collect();
        if todo.is_empty() {
            return Ok(());
        }
        let t = self.tree;
        let units: Vec<(PathBuf, Vec<String>)> = todo
            .iter()
            .map(|&k| (t.root.join(&t.sources[k]), t.flags[&t.sources[k]].clone()))
            .collect();
        let symbols = super::parses::symbols(&units)?;
        for (k, mut s) in todo.into_iter().zip(symbols) {
            s.path = t.sources[k].clone();
            self.parsed[k] = Some(s);
        }
        Ok(())
    }

    /// A parsed source's symbols.
    fn get(&self, k: usize) -> &Symbols {
        self.parsed[k].as_ref().expect("parsed before use")
    }
}

impl Tree {
    /// The programs of the tree, each analysed with libclang on its own
    /// (one `main` per analysis): each source that defines `main`, linked
    /// (see [`Tree::links`]) with other sources that do not. When the user
    /// named files, only the programs that use one: link a named source,
    /// have their `main` in a named directory, or have a source in a named
    /// header's directory.
    pub fn programs(&self) -> Result<Vec<Program>, DriverError> {
        let text = |rel: &Path| instrument::read_source(&self.root.join(rel)).unwrap_or_default();
        let mut out = Vec::new();
        for sources in self.links()? {
            if !self.uses_named(&sources) {
                continue;
            }
            let main = sources[0].clone();
            let units: Vec<(PathBuf, Vec<String>)> = sources
                .iter()
                .map(|s| (self.root.join(s), self.flags[s].clone()))
                .collect();
            let (analysis, parse_errors) = super::parses::analyze(&self.root, &units)?;
            let main_path = self.root.join(&main);
            if !analysis
                .units
                .iter()
                .any(|u| u.has_main && u.path == main_path)
            {
                // The symbols said main; the analysis does not agree.
                continue;
            }
            let mut link = directive_link(&text(&main));
            if let Some(db) = &self.database {
                link.extend(db.link_flags(&self.root, &main));
            }
            out.push(Program {
                directive_nprocs: directive_nprocs(&text(&main)),
                link,
                main,
                sources,
                analysis,
                parse_errors,
            });
        }
        Ok(out)
    }

    /// Each program's sources, its `main` first: each source libclang
    /// finds a `main` in (under its real flags: a `main` an `#ifdef` leaves
    /// out does not count), linked with the sources a linker would pull in
    /// from one static archive of the others ([`database::archive_link`]):
    /// those that define what it uses, transitively. Without a compile
    /// database the archive holds the other sources of its directory; with
    /// one, every source the build compiles, wherever it is.
    fn links(&self) -> Result<Vec<Vec<PathBuf>>, DriverError> {
        let texts: Vec<String> = self
            .sources
            .iter()
            .map(|s| instrument::read_source(&self.root.join(s)).unwrap_or_default())
            .collect();
        let looks_main: Vec<bool> = texts.iter().map(|t| defines_main(t)).collect();
        let mut table = Table {
            tree: self,
            parsed: vec![None; self.sources.len()],
        };
        if self.database.is_some() {
            // The whole archive, as a linker reads it.
            table.parse(&(0..self.sources.len()).collect::<Vec<_>>())?;
        }
        let candidates = self.candidates(&mut table, &looks_main)?;
        table.parse(&candidates)?;
        let dir = |k: usize| self.sources[k].parent().map(Path::to_path_buf);
        let mut out = Vec::new();
        let mains: Vec<usize> = candidates
            .into_iter()
            .filter(|&m| table.get(m).has_main)
            .collect();
        for main in mains {
            let pool: Vec<usize> = (0..self.sources.len())
                .filter(|&k| k != main && (self.database.is_some() || dir(k) == dir(main)))
                .collect();
            let mut units = vec![main];
            units.extend(self.members(&mut table, main, &pool, &texts, &looks_main)?);
            let symbols: Vec<Symbols> = units.iter().map(|&k| table.get(k).clone()).collect();
            let linked = database::archive_link(0, &symbols);
            out.push(
                linked
                    .into_iter()
                    .map(|i| self.sources[units[i]].clone())
                    .collect(),
            );
        }
        Ok(out)
    }

    /// The sources that may be programs the user asked for: those whose
    /// text seems to define `main` (libclang decides); when files are
    /// named without a compile database, only those that may use one: a
    /// named file itself, those in a named directory, and those of the
    /// directory of a named header or of a named source that is no program.
    fn candidates(
        &self,
        table: &mut Table,
        looks_main: &[bool],
    ) -> Result<Vec<usize>, DriverError> {
        let all = (0..self.sources.len()).filter(|&k| looks_main[k]);
        let Some(named) = self.named.as_ref().filter(|_| self.database.is_none()) else {
            return Ok(all.collect());
        };
        let index = |n: &PathBuf| self.sources.iter().position(|s| s == n);
        let named_sources: Vec<usize> = named.iter().filter_map(index).collect();
        table.parse(&named_sources)?;
        let helper_dirs: Vec<Option<&Path>> = named
            .iter()
            .filter(|n| is_header(n) || index(n).is_some_and(|k| !table.get(k).has_main))
            .map(|n| n.parent())
            .collect();
        Ok(all
            .filter(|&k| {
                let s = &self.sources[k];
                named.iter().any(|n| s.starts_with(n)) || helper_dirs.contains(&s.parent())
            })
            .collect())
    }

    /// The sources of `pool` that may define what the program of `main`
    /// uses, parsed: every one whose text does not look like a program, and
    /// of those that do (a `main` the preprocessor leaves out makes one a
    /// helper), those whose text names something the others use.
    fn members(
        &self,
        table: &mut Table,
        main: usize,
        pool: &[usize],
        texts: &[String],
        looks_main: &[bool],
    ) -> Result<Vec<usize>, DriverError> {
        if self.database.is_some() {
            return Ok(pool.to_vec());
        }
        let mut taken: Vec<usize> = pool.iter().copied().filter(|&k| !looks_main[k]).collect();
        table.parse(&taken)?;
        loop {
            // MPI's names are reserved to the MPI library.
            let names: BTreeSet<String> = std::iter::once(main)
                .chain(taken.iter().copied())
                .flat_map(|k| table.get(k).names.iter().cloned())
                .filter(|n| !n.starts_with("MPI_") && !n.starts_with("PMPI_"))
                .collect();
            let more: Vec<usize> = pool
                .iter()
                .copied()
                .filter(|&k| looks_main[k] && !taken.contains(&k))
                .filter(|&k| names.iter().any(|n| mentions(&texts[k], n)))
                .collect();
            if more.is_empty() {
                return Ok(taken);
            }
            table.parse(&more)?;
            taken.extend(more);
        }
    }

    /// Whether a program made of `sources` uses a file the user named (or
    /// the user named none).
    fn uses_named(&self, sources: &[PathBuf]) -> bool {
        let Some(named) = &self.named else {
            return true;
        };
        named.iter().any(|n| {
            sources.contains(n)
                || sources[0].starts_with(n)
                || is_header(n) && sources.iter().any(|s| s.parent() == n.parent())
        })
    }

    /// How to show a path of the tree to the user: from the current
    /// directory, with no detour out of it and back in
    /// ([`fib_analysis::shown_path`]).
    pub fn show(&self, rel: &Path) -> String {
        fib_analysis::shown_path(&self.shown_root, rel, &self.cwd)
            .display()
            .to_string()
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
            .or_else(|| instrument::read_source(&root.join(rel)).ok())
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

/// The words after `fib:` of each comment line with a directive (not a
/// waiver, `fib: allow ...`).
fn directives(text: &str) -> impl Iterator<Item = Vec<&str>> {
    text.lines().filter_map(|line| {
        let i = line.find("fib:")?;
        let before = &line[..i];
        let comment =
            before.contains("//") || before.contains("/*") || before.trim_start().starts_with('*');
        let waiver = line[i + 4..].trim_start().starts_with("allow");
        (comment && !waiver).then(|| {
            line[i + 4..]
                .split_whitespace()
                .map(|w| w.trim_end_matches("*/"))
                .filter(|w| !w.is_empty())
                .collect()
        })
    })
}

/// Whether a word of a directive is a link flag: `-lm`, `-L/dir`,
/// `-Wl,...`, `-pthread`.
fn is_link_flag(w: &str) -> bool {
    (w.starts_with("-l") || w.starts_with("-L")) && w.len() > 2
        || w.starts_with("-Wl,")
        || w == "-pthread"
}

/// The link flags `fib:` directive comments give: `/* fib: -lm */`,
/// `// fib: -n 4 -L/opt/fftw/lib -lfftw3`.
pub fn directive_link(text: &str) -> Vec<String> {
    directives(text)
        .flatten()
        .filter(|w| is_link_flag(w))
        .map(str::to_string)
        .collect()
}

/// The process count a `fib:` directive comment asks for: `fib: -n 4` or
/// `fib: nprocs=4` anywhere in a comment line.
pub fn directive_nprocs(text: &str) -> Option<usize> {
    for words in directives(text) {
        for (k, w) in words.iter().enumerate() {
            if (*w == "-n" || *w == "--nprocs") && k + 1 < words.len() {
                if let Ok(n) = words[k + 1].parse() {
                    return Some(n);
                }
            }
            if let Some(v) = w.strip_prefix("nprocs=").or_else(|| w.strip_prefix("-n")) {
                if let Ok(n) = v.parse() {
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
    fn a_name_is_mentioned_as_a_whole_identifier() {
        assert!(mentions("x = halo_sum(1, 2);", "halo_sum"));
        assert!(mentions("halo_sum", "halo_sum"));
        assert!(!mentions("x = halo_sum2(1);", "halo_sum"));
        assert!(!mentions("my_halo_sum(1);", "halo_sum"));
    }

    #[test]
    fn directives_give_the_process_count() {
        assert_eq!(directive_nprocs("/* fib: -n 4 */\nint main(){}"), Some(4));
        assert_eq!(directive_nprocs("// fib: nprocs=3"), Some(3));
        assert_eq!(directive_nprocs(" * fib: -n6"), Some(6));
        assert_eq!(directive_nprocs("int fib: -n 4;"), None);
        assert_eq!(directive_nprocs("// nothing here"), None);
        assert_eq!(directive_nprocs("/* fib: -n 4*/"), Some(4));
    }

    /// The programs of a directory of `tests/cli/linking/`, each as its
    /// sources' file names.
    fn linked(dir: &str) -> Vec<Vec<String>> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/cli/linking")
            .join(dir);
        let tree = discover(&root, crate::toolchain::Mpi::Mpich.mpicc()).unwrap();
        let name = |p: &PathBuf| p.file_name().unwrap().to_string_lossy().into_owned();
        tree.programs()
            .unwrap()
            .iter()
            .map(|p| p.sources.iter().map(name).collect())
            .collect()
    }

    #[test]
    fn a_helper_is_linked_only_when_the_program_uses_it() {
        assert_eq!(linked("collide"), [["main.c", "exchange.c"]]);
    }

    #[test]
    fn a_main_the_preprocessor_leaves_out_makes_no_program() {
        assert_eq!(linked("unit_test"), [["solver.c", "halo.c"]]);
    }

    #[test]
    fn directives_give_link_flags() {
        assert_eq!(directive_link("/* fib: -lm */\nint main(){}"), ["-lm"]);
        assert_eq!(
            directive_link("// fib: -n 4 -L/opt/f/lib -lfftw3 -Wl,-rpath,/opt/f/lib\n"),
            ["-L/opt/f/lib", "-lfftw3", "-Wl,-rpath,/opt/f/lib"]
        );
        assert_eq!(directive_link("/* fib: -lm*/"), ["-lm"]);
        assert!(directive_link("// fib: allow FIB014 -- no -lm here").is_empty());
        assert!(directive_link("int x = -lm; // nothing").is_empty());
    }
}
