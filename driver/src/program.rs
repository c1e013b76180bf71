//! From a path the user names to the programs to check: discovers the C/C++
//! sources (honouring `.gitignore`), analyses them with libclang, groups them
//! into programs, and builds each program from instrumented copies into a
//! cache keyed by content, so an unchanged tree is never compiled twice.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use instrument::{Analysis, CallSite, Dependence};

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
    /// When the user named one file: that file (only its program is
    /// checked).
    pub only: Option<PathBuf>,
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

fn is_cxx(p: &Path) -> bool {
    has_ext(p, &["cc", "cpp", "cxx", "C"])
}

/// Finds the sources under `path` (a file or a directory) and analyses them.
pub fn discover(path: &Path, mpicc: &str) -> Result<Tree, DriverError> {
    let (root, only) = if path.is_dir() {
        (path.to_path_buf(), None)
    } else {
        let parent = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        (parent.to_path_buf(), path.file_name().map(PathBuf::from))
    };
    let mut sources = Vec::new();
    let mut headers = Vec::new();
    let walk = ignore::WalkBuilder::new(&root)
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
            .strip_prefix(&root)
            .unwrap_or(entry.path())
            .to_path_buf();
        if is_source(&rel) {
            sources.push(rel);
        } else if has_ext(&rel, HEADER_EXT) {
            headers.push(rel);
        }
    }
    if let Some(only) = &only {
        if !is_source(only) {
            return Err(DriverError::Input(format!(
                "{}: not a C or C++ source (.c, .cc, .cpp, .cxx)",
                path.display()
            )));
        }
        // A single file is checked with the sources of its directory that
        // do not define main (its helpers), and nothing else.
        let helpers: Vec<PathBuf> = sources
            .iter()
            .filter(|s| *s != only && s.parent() == Some(Path::new("")))
            .filter(|s| {
                std::fs::read_to_string(root.join(s))
                    .map(|t| !defines_main(&t))
                    .unwrap_or(false)
            })
            .cloned()
            .collect();
        sources = std::iter::once(only.clone()).chain(helpers).collect();
    }
    sources.sort();
    headers.sort();
    if sources.is_empty() {
        return Err(DriverError::Input(format!(
            "{}: no C or C++ sources here",
            path.display()
        )));
    }
    let db = root.join("compile_commands.json");
    let mut flags = BTreeMap::new();
    if db.is_file() {
        let cmds = instrument::compile_db(&db).map_err(DriverError::Instrument)?;
        // A relative "directory" is taken relative to the database itself.
        let db_dir = std::fs::canonicalize(&root).unwrap_or(root.clone());
        let base = instrument::mpi_flags(mpicc).map_err(DriverError::Instrument)?;
        for s in &sources {
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
        for s in &sources {
            flags.insert(s.clone(), base.clone());
        }
    }
    let shown_root = if root == Path::new(".") {
        PathBuf::new()
    } else {
        root.clone()
    };
    Ok(Tree {
        root,
        shown_root,
        flags,
        sources,
        headers,
        only,
    })
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
            .filter(|s| self.only.as_ref().is_none_or(|o| o == *s))
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

    /// The site a rank reported: by id, or (for calls produced by macros)
    /// by the file and line of the macro's use and the function called.
    pub fn resolve(
        &self,
        file: Option<&str>,
        line: u32,
        table_id: Option<u32>,
        callee: &str,
    ) -> Option<&CallSite> {
        let sites = &self.analysis.sites.sites;
        if let Some(id) = table_id {
            return sites.get(id as usize);
        }
        let file = Path::new(file?);
        let mut found = sites.iter().filter(|s| s.file == file && s.line == line);
        let all: Vec<&CallSite> = found.by_ref().collect();
        all.iter()
            .find(|s| s.callee == callee)
            .or_else(|| all.first())
            .copied()
    }

    /// Whether a site's control flow depends on input.
    pub fn dependence(&self, site: u32) -> Option<&Dependence> {
        self.analysis
            .facts
            .control
            .iter()
            .find(|(s, _)| *s == site)
            .map(|(_, d)| d)
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

/// A built program.
pub struct Build {
    pub exe: PathBuf,
    /// Whether it came from the cache.
    pub cached: bool,
}

/// Why a program did not build.
pub struct BuildFailure {
    pub output: String,
    pub file: Option<String>,
    pub line: Option<u32>,
}

/// A stable 128-bit content hash (two FNV-1a lanes), for cache keys.
struct Hash(u64, u64);

impl Hash {
    fn new() -> Hash {
        Hash(0xcbf2_9ce4_8422_2325, 0x6c62_272e_07bb_0142)
    }
    fn add(&mut self, bytes: &[u8]) {
        for &b in bytes.iter().chain(&(bytes.len() as u64).to_le_bytes()) {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
            self.1 = (self.1 ^ b as u64)
                .wrapping_mul(0x0000_0100_0000_01b3)
                .rotate_left(5);
        }
    }
    fn hex(&self) -> String {
        format!("{:016x}{:016x}", self.0, self.1)
    }
}

/// fib's build cache: `FIB_CACHE_DIR`, else `$XDG_CACHE_HOME/fib`, else
/// `~/.cache/fib`.
pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("FIB_CACHE_DIR") {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(d).join("fib");
    }
    match std::env::var_os("HOME") {
        Some(h) => PathBuf::from(h).join(".cache/fib"),
        None => std::env::temp_dir().join("fib-cache"),
    }
}

impl Tree {
    /// Builds `program` from instrumented copies of its sources and of the
    /// tree's headers, or takes it from the cache when the same inputs were
    /// built before.
    pub fn build(
        &self,
        program: &Program,
        mpicc: &str,
    ) -> Result<Result<Build, BuildFailure>, DriverError> {
        let header = instrument::site_header();
        let mut copies: Vec<(PathBuf, String)> = Vec::new();
        for rel in program.sources.iter().chain(&self.headers) {
            let Some(text) = program.text(&self.root, rel) else {
                continue;
            };
            let sites = program.sites_in(rel);
            copies.push((rel.clone(), instrument::rewrite(&text, &sites)));
        }
        let mut key = Hash::new();
        key.add(env!("CARGO_PKG_VERSION").as_bytes());
        key.add(mpicc.as_bytes());
        key.add(header.as_bytes());
        for s in &program.sources {
            key.add(s.as_os_str().as_encoded_bytes());
            for f in &self.flags[s] {
                key.add(f.as_bytes());
            }
        }
        for (rel, text) in &copies {
            key.add(rel.as_os_str().as_encoded_bytes());
            key.add(text.as_bytes());
        }
        let dir = cache_dir().join("builds").join(key.hex());
        let exe = dir.join("program");
        if exe.is_file() {
            return Ok(Ok(Build { exe, cached: true }));
        }
        std::fs::create_dir_all(cache_dir().join("builds"))
            .map_err(|e| DriverError::Io(format!("creating {}", cache_dir().display()), e))?;
        let work = tempfile::Builder::new()
            .prefix("tmp-")
            .tempdir_in(cache_dir().join("builds"))
            .map_err(|e| DriverError::Io("creating a build directory".into(), e))?;
        crate::launch::register_temp(work.path());
        let _forget = crate::launch::Forget(work.path().to_path_buf());
        let src = work.path().join("src");
        for (rel, text) in &copies {
            let p = src.join(rel);
            if let Some(parent) = p.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| DriverError::Io(format!("creating {}", parent.display()), e))?;
            }
            std::fs::write(&p, text)
                .map_err(|e| DriverError::Io(format!("writing {}", p.display()), e))?;
        }
        let hpath = work.path().join(instrument::HEADER_NAME);
        std::fs::write(&hpath, &header)
            .map_err(|e| DriverError::Io(format!("writing {}", hpath.display()), e))?;
        // Compile in the copy's root with the same relative paths as in the
        // user's tree, so `__FILE__` and the compiler's messages name the
        // user's files; the original directories stay on the include path.
        let root_abs = std::fs::canonicalize(&self.root).unwrap_or(self.root.clone());
        let mut cmd = Command::new(mpicc);
        cmd.current_dir(&src)
            .arg("-g")
            .arg("-O0")
            .arg("-include")
            .arg(&hpath);
        let mut dirs: Vec<PathBuf> = program
            .sources
            .iter()
            .filter_map(|s| s.parent().map(|p| root_abs.join(p)))
            .collect();
        dirs.dedup();
        for d in dirs {
            cmd.arg(format!("-I{}", d.display()));
        }
        cmd.args(&self.flags[&program.main]);
        cmd.args(&program.sources)
            .arg("-o")
            .arg(work.path().join("program"));
        if program.sources.iter().any(|s| is_cxx(s)) {
            cmd.arg("-lstdc++");
        }
        let out = cmd
            .output()
            .map_err(|e| DriverError::Tool(mpicc.to_string(), e))?;
        if out.status.success() {
            // Publish atomically: a concurrent check of the same tree either
            // sees no entry or a complete one.
            let done = work.path().join("program");
            let staged = tempfile::Builder::new()
                .prefix("tmp-")
                .tempdir_in(cache_dir().join("builds"))
                .map_err(|e| DriverError::Io("creating a build directory".into(), e))?
                .keep();
            std::fs::rename(&done, staged.join("program"))
                .map_err(|e| DriverError::Io(format!("moving {}", done.display()), e))?;
            if std::fs::rename(&staged, &dir).is_err() && !exe.is_file() {
                return Err(DriverError::Io(
                    format!("publishing {}", dir.display()),
                    std::io::Error::other("rename failed"),
                ));
            }
            let _ = std::fs::remove_dir_all(&staged);
            return Ok(Ok(Build { exe, cached: false }));
        }
        // Show the user's own build: the instrumentation can change what the
        // compiler says, and its paths are the copies'.
        let mut plain = Command::new(mpicc);
        plain.current_dir(&self.root).arg("-fsyntax-only");
        plain.args(&self.flags[&program.main]);
        let plain = plain
            .args(&program.sources)
            .output()
            .map_err(|e| DriverError::Tool(mpicc.to_string(), e))?;
        let instrumented = String::from_utf8_lossy(&out.stderr).into_owned();
        let raw = if plain.status.success() {
            format!(
                "the program compiles, but not instrumented by fib (a bug in fib):\n{instrumented}"
            )
        } else {
            String::from_utf8_lossy(&plain.stderr).into_owned()
        };
        let (file, line) = first_location(&raw, &program.main);
        let output = if self.shown_root.as_os_str().is_empty() {
            raw
        } else {
            // Name files as the user does, from where fib was started.
            let mut s = String::new();
            for l in raw.lines() {
                let shown = match l.split_once(':') {
                    Some((f, rest)) if self.root.join(f).is_file() => {
                        format!("{}:{rest}", self.show(Path::new(f)))
                    }
                    _ => l.to_string(),
                };
                s.push_str(&shown);
                s.push('\n');
            }
            s
        };
        Ok(Err(BuildFailure {
            output,
            file: file.map(|f| self.show(Path::new(&f))),
            line,
        }))
    }
}

/// The first `path:line:` in compiler output, preferring the main source.
fn first_location(text: &str, main: &Path) -> (Option<String>, Option<u32>) {
    let main = main.to_string_lossy();
    let mut any = None;
    for l in text.lines() {
        let mut parts = l.splitn(3, ':');
        let (Some(f), Some(n)) = (parts.next(), parts.next()) else {
            continue;
        };
        let Ok(n) = n.trim().parse::<u32>() else {
            continue;
        };
        if f == main {
            return (Some(f.to_string()), Some(n));
        }
        if any.is_none() {
            any = Some((f.to_string(), n));
        }
    }
    match any {
        Some((f, n)) => (Some(f), Some(n)),
        None => (Some(main.into_owned()), None),
    }
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

    #[test]
    fn finds_the_main_file_in_compiler_output() {
        let text = "In file included from x.h:3:\nprog.c: In function 'main':\nprog.c:7:5: error: expected ';'\n";
        assert_eq!(
            first_location(text, Path::new("prog.c")),
            (Some("prog.c".into()), Some(7))
        );
    }
}
