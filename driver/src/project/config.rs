//! `fib.toml`: the settings a project keeps at the top of its checked tree.
//! [`parse`] turns the file's text into typed [`Config`] (unknown keys and
//! bad values are errors naming the file, the key and the line); [`load`]
//! reads the file when there is one.
//!
//! ```toml
//! nprocs = [2, 4]                 # or one count: nprocs = 3
//! timeout = 30                    # seconds per interleaving
//! max_interleavings = 5000
//! jobs = 2                        # interleavings run at once (default: the cores)
//! exhaustive = false              # run every order of wildcard receive and Waitany rows
//! zero_buffer = false
//! confirm = true
//! mpi = "mpich"                 # or "openmpi"
//! ignore = ["legacy/**", "*_scratch.c"]
//! link = ["-lfftw3"]              # link flags of every program (-lm is always linked)
//! cflags = ["-DUSE_MPI", "-O2"]   # compile flags of every source, after the build's
//! run_in = "scratch"              # or "source": where the runs write their files
//! launcher = "srun -n {n}"        # the cluster's launch command ({n}: the process count)
//! mode = "scheduled"              # or "recorded": the ranks never wait for fib's scheduler
//!
//! [severity]
//! FIB014 = "error"                # or "warning", "note", "off"
//!
//! [programs."solver/main.c"]
//! nprocs = 4
//! args = ["--size", "16"]
//! timeout = 120
//! link = ["-L/opt/petsc/lib", "-lpetsc"]   # added to the top-level ones
//! run_in = "source"
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use fib_report::codes::{self, Code};
use fib_report::overrides::Level;
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;

use crate::settings::{Launcher, Mode, RunIn};
use crate::toolchain::Mpi;
use crate::DriverError;

/// The name of the configuration file.
pub const FILE_NAME: &str = "fib.toml";

/// The file as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    #[serde(default, deserialize_with = "counts")]
    nprocs: Option<Vec<usize>>,
    timeout: Option<f64>,
    max_interleavings: Option<usize>,
    jobs: Option<usize>,
    exhaustive: Option<bool>,
    #[serde(default)]
    ignore: Vec<String>,
    zero_buffer: Option<bool>,
    confirm: Option<bool>,
    #[serde(default)]
    severity: BTreeMap<String, String>,
    mpi: Option<String>,
    #[serde(default)]
    link: Vec<String>,
    #[serde(default)]
    cflags: Vec<String>,
    run_in: Option<String>,
    launcher: Option<String>,
    mode: Option<String>,
    #[serde(default)]
    programs: BTreeMap<String, RawProgram>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProgram {
    #[serde(default, deserialize_with = "counts")]
    nprocs: Option<Vec<usize>>,
    args: Option<Vec<String>>,
    timeout: Option<f64>,
    #[serde(default)]
    link: Vec<String>,
    run_in: Option<String>,
}

/// A process count or a list of them.
fn counts<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<usize>>, D::Error> {
    struct Counts;
    impl<'de> Visitor<'de> for Counts {
        type Value = Vec<usize>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a process count or a list of process counts")
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Vec<usize>, E> {
            usize::try_from(v)
                .map(|n| vec![n])
                .map_err(|_| E::custom(format!("{v} is not a process count")))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Vec<usize>, E> {
            Ok(vec![v as usize])
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<usize>, A::Error> {
            let mut out = Vec::new();
            while let Some(n) = seq.next_element::<usize>()? {
                out.push(n);
            }
            Ok(out)
        }
    }
    d.deserialize_any(Counts).map(Some)
}

/// The settings of one `fib.toml`, checked.
#[derive(Debug, Default)]
pub struct Config {
    /// Where the file is (for messages).
    pub file: PathBuf,
    /// The default process counts (`nprocs`).
    pub nprocs: Option<Vec<usize>>,
    pub timeout: Option<Duration>,
    pub max_interleavings: Option<usize>,
    /// How many interleavings run at once (`jobs`).
    pub jobs: Option<usize>,
    /// Run every order of exchangeable wildcard receives, rows of wildcard
    /// probes and rows of `MPI_Waitany` (`exhaustive`).
    pub exhaustive: Option<bool>,
    pub zero_buffer: Option<bool>,
    pub confirm: Option<bool>,
    /// Paths (relative to the file's directory) left out of discovery.
    pub ignore: GlobSet,
    /// `[severity]`: codes and what their findings become.
    pub severity: Vec<(&'static Code, Level)>,
    /// `[programs."path"]`, by the path relative to the file's directory.
    pub programs: BTreeMap<PathBuf, ProgramConfig>,
    /// The MPI implementation to run under (`mpi`), when the file says.
    pub mpi: Option<Mpi>,
    /// Link flags of every program (`link`), before each program's own.
    pub link: Vec<String>,
    /// Compile flags of every source (`cflags`), after its own (the MPI
    /// compiler's and the compile database's); relative include paths are
    /// taken from the file's directory, as [`Config::cflags_in`] writes
    /// them.
    pub cflags: Vec<String>,
    /// Where the runs write (`run_in`): a scratch directory of each run's
    /// own, or the program's working directory.
    pub run_in: Option<RunIn>,
    /// The launch command (`launcher`), in place of `mpiexec -n N`.
    pub launcher: Option<Launcher>,
    /// How the runs go (`mode`).
    pub mode: Option<Mode>,
}

/// The settings of one program (`[programs."path/to/prog.c"]`).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ProgramConfig {
    pub nprocs: Option<Vec<usize>>,
    pub args: Option<Vec<String>>,
    pub timeout: Option<Duration>,
    /// Link flags of this program, after the top-level ones.
    pub link: Vec<String>,
    /// Where this program's runs write (`run_in`), over the top level's.
    pub run_in: Option<RunIn>,
}

impl Config {
    /// The `cflags`, with relative include paths (`-Ipath`) made absolute
    /// against `dir`, the directory of the file.
    pub fn cflags_in(&self, dir: &Path) -> Vec<String> {
        self.cflags
            .iter()
            .map(|f| match f.strip_prefix("-I") {
                Some(p) if Path::new(p).is_relative() => format!("-I{}", dir.join(p).display()),
                _ => f.clone(),
            })
            .collect()
    }

    /// Whether the path `rel` (relative to the file's directory) is left
    /// out: it, or a directory it is in, matches an `ignore` glob.
    pub fn ignores(&self, rel: &Path) -> bool {
        rel.ancestors()
            .filter(|a| !a.as_os_str().is_empty())
            .any(|a| self.ignore.is_match(a))
    }

    /// The settings of the program whose main source is `rel`.
    pub fn program(&self, rel: &Path) -> Option<&ProgramConfig> {
        self.programs.get(rel)
    }
}

/// A `fib.toml` that cannot be used: where and why.
#[derive(Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub file: String,
    pub line: Option<usize>,
    /// The key at fault, dotted (`programs."a.c".nprocs`), when known.
    pub key: Option<String>,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(key) = &self.key {
            write!(f, ": `{key}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Reads `fib.toml` in `root`, if there is one.
pub fn load(root: &Path) -> Result<Option<Config>, DriverError> {
    let file = root.join(FILE_NAME);
    if !file.is_file() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(&file)
        .map_err(|e| DriverError::Io(format!("reading {}", file.display()), e))?;
    parse(&text, &file)
        .map(Some)
        .map_err(|e| DriverError::Input(e.to_string()))
}

/// The settings `text` (the contents of `file`) gives.
pub fn parse(text: &str, file: &Path) -> Result<Config, ConfigError> {
    let shown = file.display().to_string();
    let raw: Raw = toml::from_str(text).map_err(|e| {
        let line = e.span().map(|s| line_number(text, s.start));
        ConfigError {
            file: shown.clone(),
            line,
            key: e.span().and_then(|s| key_at(text, s.start)),
            message: e.message().trim().to_string(),
        }
    })?;
    let cx = Cx { text, shown };
    cx.counts(None, &raw.nprocs)?;
    let timeout = cx.timeout(None, raw.timeout)?;
    if raw.max_interleavings == Some(0) {
        return Err(cx.err(None, "max_interleavings", "must be at least 1".into()));
    }
    if raw.jobs == Some(0) {
        return Err(cx.err(None, "jobs", "must be at least 1".into()));
    }
    let mpi = match &raw.mpi {
        Some(m) => Some(parse_mpi(m).map_err(|m| cx.err(None, "mpi", m))?),
        None => None,
    };
    let ignore = ignore_set(&raw.ignore).map_err(|m| cx.err(None, "ignore", m))?;
    cx.link(None, &raw.link)?;
    cx.cflags(&raw.cflags)?;
    let run_in = cx.run_in(None, raw.run_in.as_deref())?;
    let launcher = raw
        .launcher
        .as_deref()
        .map(|l| Launcher::parse(l).map_err(|m| cx.err(None, "launcher", m)))
        .transpose()?;
    let mode = raw
        .mode
        .as_deref()
        .map(|m| Mode::parse(m).map_err(|e| cx.err(None, "mode", e)))
        .transpose()?;
    let mut severity = Vec::new();
    for (code, level) in &raw.severity {
        let s = severity_of(code, level).map_err(|m| cx.err(Some("severity"), code, m))?;
        severity.push(s);
    }
    let mut programs = BTreeMap::new();
    for (path, p) in &raw.programs {
        let table = format!("programs.\"{path}\"");
        cx.counts(Some(&table), &p.nprocs)?;
        let timeout = cx.timeout(Some(&table), p.timeout)?;
        cx.link(Some(&table), &p.link)?;
        let own_run_in = cx.run_in(Some(&table), p.run_in.as_deref())?;
        let rel: PathBuf = Path::new(path)
            .components()
            .filter(|c| !matches!(c, std::path::Component::CurDir))
            .collect();
        programs.insert(
            rel,
            ProgramConfig {
                nprocs: p.nprocs.clone(),
                args: p.args.clone(),
                timeout,
                link: p.link.clone(),
                run_in: own_run_in,
            },
        );
    }
    Ok(Config {
        file: file.to_path_buf(),
        nprocs: raw.nprocs,
        timeout,
        max_interleavings: raw.max_interleavings,
        jobs: raw.jobs,
        exhaustive: raw.exhaustive,
        zero_buffer: raw.zero_buffer,
        confirm: raw.confirm,
        ignore,
        severity,
        programs,
        mpi,
        link: raw.link,
        cflags: raw.cflags,
        run_in,
        launcher,
        mode,
    })
}

/// The file being parsed, for errors that name a key and its line.
struct Cx<'a> {
    text: &'a str,
    shown: String,
}

impl Cx<'_> {
    /// An error about `key` (of `table`, if not at the top level).
    fn err(&self, table: Option<&str>, key: &str, message: String) -> ConfigError {
        ConfigError {
            file: self.shown.clone(),
            line: line_of(self.text, table, key),
            key: Some(match table {
                Some(t) => format!("{t}.{key}"),
                None => key.to_string(),
            }),
            message,
        }
    }

    fn counts(&self, table: Option<&str>, counts: &Option<Vec<usize>>) -> Result<(), ConfigError> {
        match counts {
            Some(c) if c.is_empty() => {
                Err(self.err(table, "nprocs", "the list of counts is empty".into()))
            }
            Some(c) if c.contains(&0) => {
                Err(self.err(table, "nprocs", "a process count must be at least 1".into()))
            }
            _ => Ok(()),
        }
    }

    /// Link flags: each one word, a flag (`-lm`, `-L/dir`, `-Wl,...`) or
    /// an absolute path to a library.
    fn link(&self, table: Option<&str>, flags: &[String]) -> Result<(), ConfigError> {
        for f in flags {
            let why = if f.is_empty() || f.contains(char::is_whitespace) {
                Some("one flag per string (\"-L/opt/lib\", not \"-L /opt/lib\")")
            } else if !(f.starts_with('-') || Path::new(f).is_absolute()) {
                Some("write it as a flag (-lm, -L/dir, -Wl,...) or an absolute path")
            } else if f == "-c" || f.starts_with("-o") {
                Some("fib chooses the output and the step itself")
            } else {
                None
            };
            if let Some(why) = why {
                return Err(self.err(table, "link", format!("`{f}` is not a link flag: {why}")));
            }
        }
        Ok(())
    }

    /// Compile flags: each one word, a flag that says how to compile
    /// (`-D`, `-U`, `-I`, `-O`, `-g`, `-std=`, `-f`, `-m`, `-W`,
    /// `-pthread`), never one that says what to make or link.
    fn cflags(&self, flags: &[String]) -> Result<(), ConfigError> {
        const KINDS: &[&str] = &["-D", "-U", "-I", "-O", "-g", "-std=", "-f", "-m", "-W"];
        for f in flags {
            // A definition's value may hold spaces (`-DMSG=a b` is one
            // argument); nothing else may.
            let spaced = match f.strip_prefix("-D") {
                Some(def) => def
                    .split('=')
                    .next()
                    .is_some_and(|name| name.contains(char::is_whitespace)),
                None => f.contains(char::is_whitespace),
            };
            let why = if f.is_empty() || spaced {
                Some("one flag per string (\"-Iinclude\", not \"-I include\")")
            } else if f.starts_with("-Wl,") {
                Some("a linker option belongs in `link`")
            } else if f == "-I" || f == "-D" || f == "-U" {
                Some("write its value in the same string (\"-Iinclude\", \"-DN=4\")")
            } else if !(KINDS.iter().any(|k| f.starts_with(k)) || f == "-pthread") {
                Some("write a definition (-D, -U), an include path (-I), an optimisation level (-O), -g, -std=, -pthread, or a -f, -m or -W option")
            } else {
                None
            };
            if let Some(why) = why {
                return Err(self.err(
                    None,
                    "cflags",
                    format!("`{f}` is not a compile flag fib takes: {why}"),
                ));
            }
        }
        Ok(())
    }

    /// `run_in`: `"scratch"` or `"source"`.
    fn run_in(&self, table: Option<&str>, v: Option<&str>) -> Result<Option<RunIn>, ConfigError> {
        v.map(|v| RunIn::parse(v).map_err(|m| self.err(table, "run_in", m)))
            .transpose()
    }

    fn timeout(
        &self,
        table: Option<&str>,
        t: Option<f64>,
    ) -> Result<Option<Duration>, ConfigError> {
        match t {
            Some(t) if !(t.is_finite() && t > 0.0) => Err(self.err(
                table,
                "timeout",
                "the time limit must be a positive number of seconds".into(),
            )),
            t => Ok(t.map(Duration::from_secs_f64)),
        }
    }
}

/// An MPI implementation fib knows.
fn parse_mpi(mpi: &str) -> Result<Mpi, String> {
    Mpi::parse(mpi).ok_or_else(|| {
        format!("`{mpi}` is not an MPI implementation fib knows: mpi = \"mpich\" or \"openmpi\"")
    })
}

/// The `ignore` patterns as one set: a pattern without `/` matches a file
/// or directory name anywhere.
fn ignore_set(patterns: &[String]) -> Result<GlobSet, String> {
    let mut globs = GlobSetBuilder::new();
    for g in patterns {
        let glob = GlobBuilder::new(g.trim_end_matches('/'))
            .literal_separator(true)
            .build()
            .map_err(|e| format!("`{g}`: {}", e.kind()))?;
        globs.add(glob);
        if !g.contains('/') {
            if let Ok(anywhere) = GlobBuilder::new(&format!("**/{g}"))
                .literal_separator(true)
                .build()
            {
                globs.add(anywhere);
            }
        }
    }
    globs.build().map_err(|e| e.to_string())
}

/// One `[severity]` entry.
fn severity_of(code: &str, level: &str) -> Result<(&'static Code, Level), String> {
    let Some(c) = codes::lookup(code) else {
        return Err(format!(
            "`{code}` is no finding code (codes look like FIB014)"
        ));
    };
    let Some(l) = Level::parse(level) else {
        return Err(format!(
            "\"{level}\" is not a severity: use \"error\", \"warning\", \"note\" or \"off\""
        ));
    };
    Ok((c, l))
}

/// The 1-based line of byte `offset` in `text`.
fn line_number(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// The dotted key of the line holding byte `offset`: the key before its
/// `=` (under the table in effect), or the table a `[header]` names.
fn key_at(text: &str, offset: usize) -> Option<String> {
    let offset = offset.min(text.len());
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = text[start..].lines().next().unwrap_or("").trim();
    if let Some(h) = header(line) {
        return Some(h);
    }
    let key = line.split('=').next()?.trim();
    if key.is_empty() {
        return None;
    }
    let table = text[..start].lines().rev().find_map(|l| header(l.trim()));
    Some(match table {
        Some(t) => format!("{t}.{key}"),
        None => key.to_string(),
    })
}

/// The table a `[header]` line names.
fn header(line: &str) -> Option<String> {
    let inner = line.strip_prefix('[')?.split(']').next()?;
    Some(inner.trim_matches('[').trim().to_string())
}

/// The line where `key` is set in `table` (`None`: the top level), as
/// `key = ...` or a dotted `table.key = ...`.
fn line_of(text: &str, table: Option<&str>, key: &str) -> Option<usize> {
    let norm = |s: &str| s.replace([' ', '\t'], "");
    let mut current: Option<String> = None;
    for (i, l) in text.lines().enumerate() {
        let t = l.trim();
        if let Some(h) = header(t) {
            current = Some(norm(&h));
            continue;
        }
        let Some(k) = t.split('=').next().map(norm) else {
            continue;
        };
        if !t.contains('=') {
            continue;
        }
        let bare = |k: &str| k.trim_matches('"').to_string();
        let here = match (&current, table) {
            (None, None) => bare(&k) == key,
            (Some(c), Some(tb)) => *c == norm(tb) && bare(&k) == key,
            (None, Some(tb)) => k == format!("{}.{key}", norm(tb)),
            (Some(_), None) => false,
        };
        if here {
            return Some(i + 1);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use fib_report::Severity;

    fn parse_str(text: &str) -> Result<Config, ConfigError> {
        parse(text, Path::new("tree/fib.toml"))
    }

    #[test]
    fn every_key() {
        let s = parse_str(
            r#"
nprocs = [2, 4]
timeout = 30
max_interleavings = 500
jobs = 3
ignore = ["legacy", "gen/*.c"]
zero_buffer = true
confirm = false
mpi = "mpich"
link = ["-lm", "-L/opt/x/lib"]
cflags = ["-DUSE_MPI=1", "-DMSG=a b", "-Iinclude", "-I/opt/x/include", "-O2", "-std=c11", "-pthread"]

[severity]
FIB014 = "error"
fib020 = "off"

[programs."./solver/main.c"]
nprocs = 3
args = ["-v"]
timeout = 1.5
link = ["-lfoo"]
"#,
        )
        .unwrap();
        assert_eq!(s.nprocs, Some(vec![2, 4]));
        assert_eq!(s.timeout, Some(Duration::from_secs(30)));
        assert_eq!(s.max_interleavings, Some(500));
        assert_eq!(s.jobs, Some(3));
        assert_eq!(
            s.cflags_in(Path::new("/src/tree")),
            [
                "-DUSE_MPI=1",
                "-DMSG=a b",
                "-I/src/tree/include",
                "-I/opt/x/include",
                "-O2",
                "-std=c11",
                "-pthread"
            ]
        );
        assert_eq!((s.zero_buffer, s.confirm), (Some(true), Some(false)));
        assert_eq!(
            s.severity,
            vec![
                (&codes::FIB014, Level::Show(Severity::Error)),
                (&codes::FIB020, Level::Off)
            ]
        );
        let p = s.program(Path::new("solver/main.c")).unwrap();
        assert_eq!(p.nprocs, Some(vec![3]));
        assert_eq!(p.args, Some(vec!["-v".to_string()]));
        assert_eq!(p.timeout, Some(Duration::from_millis(1500)));
        assert_eq!(s.link, ["-lm", "-L/opt/x/lib"]);
        assert_eq!(p.link, ["-lfoo"]);
        assert!(s.ignores(Path::new("legacy/old.c")));
        assert!(
            s.ignores(Path::new("src/legacy/old.c")),
            "a bare name anywhere"
        );
        assert!(s.ignores(Path::new("gen/x.c")));
        assert!(
            !s.ignores(Path::new("gen/sub/x.c")),
            "* stays in its directory"
        );
        assert!(!s.ignores(Path::new("solver/main.c")));
    }

    #[test]
    fn an_empty_file_sets_nothing() {
        let s = parse_str("").unwrap();
        assert_eq!(s.nprocs, None);
        assert!(s.severity.is_empty() && s.programs.is_empty());
        assert!(!s.ignores(Path::new("a.c")));
    }

    #[test]
    fn an_unknown_key_names_the_file_the_key_and_the_line() {
        let e = parse_str("nprocs = 2\nnproc = 4\n").unwrap_err();
        assert_eq!(e.file, "tree/fib.toml");
        assert_eq!(e.line, Some(2));
        assert_eq!(e.key.as_deref(), Some("nproc"));
        assert!(e.message.starts_with("unknown field `nproc`"), "{e}");
        assert!(e
            .to_string()
            .starts_with("tree/fib.toml:2: `nproc`: unknown field `nproc`"));

        let e = parse_str("[programs.\"a.c\"]\nnprocs = 2\nargz = []\n").unwrap_err();
        assert_eq!(
            (e.line, e.key.as_deref()),
            (Some(3), Some("programs.\"a.c\".argz"))
        );
    }

    #[test]
    fn bad_values_name_their_key() {
        let e = parse_str("timeout = \"long\"\n").unwrap_err();
        assert_eq!((e.line, e.key.as_deref()), (Some(1), Some("timeout")));
        assert!(e.message.contains("invalid type"), "{e}");

        let e = parse_str("nprocs = [2, \"x\"]\n").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("nprocs"));

        let e = parse_str("\nnprocs = [2, 0]\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "tree/fib.toml:2: `nprocs`: a process count must be at least 1"
        );

        let e = parse_str("[severity]\nFIB014 = \"loud\"\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "tree/fib.toml:2: `severity.FIB014`: \"loud\" is not a severity: use \"error\", \"warning\", \"note\" or \"off\""
        );
        let e = parse_str("[severity]\nFIB999 = \"note\"\n").unwrap_err();
        assert_eq!(
            (e.line, e.key.as_deref()),
            (Some(2), Some("severity.FIB999"))
        );

        let e = parse_str("[programs.\"a.c\"]\ntimeout = -1\n").unwrap_err();
        assert_eq!(
            (e.line, e.key.as_deref()),
            (Some(2), Some("programs.\"a.c\".timeout"))
        );

        let e = parse_str("link = \"-lm\"\n").unwrap_err();
        assert_eq!((e.line, e.key.as_deref()), (Some(1), Some("link")));
        assert!(e.message.contains("invalid type"), "{e}");
        let e = parse_str("nprocs = 2\nlink = [\"m\"]\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "tree/fib.toml:2: `link`: `m` is not a link flag: write it as a flag (-lm, -L/dir, -Wl,...) or an absolute path"
        );
        let e = parse_str("[programs.\"a.c\"]\nlink = [\"-L /opt\"]\n").unwrap_err();
        assert_eq!(
            (e.line, e.key.as_deref()),
            (Some(2), Some("programs.\"a.c\".link"))
        );

        let e = parse_str("ignore = [\"a/[b\"]\n").unwrap_err();
        assert_eq!((e.line, e.key.as_deref()), (Some(1), Some("ignore")));
    }

    #[test]
    fn the_mpi_implementation() {
        assert_eq!(parse_str("mpi = \"MPICH\"").unwrap().mpi, Some(Mpi::Mpich));
        assert_eq!(
            parse_str("mpi = \"openmpi\"").unwrap().mpi,
            Some(Mpi::OpenMpi)
        );
        assert_eq!(parse_str("nprocs = 2").unwrap().mpi, None);
        let e = parse_str("mpi = \"intel\"").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("mpi"));
        assert!(e.message.contains("\"mpich\" or \"openmpi\""), "{e}");
    }

    #[test]
    fn where_the_runs_write() {
        assert_eq!(parse_str("nprocs = 2").unwrap().run_in, None);
        assert_eq!(
            parse_str("launcher = \"srun -p debug -n {n}\"")
                .unwrap()
                .launcher
                .map(|l| l.command(4)),
            Some(vec![
                "srun".into(),
                "-p".into(),
                "debug".into(),
                "-n".into(),
                "4".into()
            ])
        );
        assert_eq!(
            parse_str("mode = \"recorded\"").unwrap().mode,
            Some(Mode::Recorded)
        );
        let e = parse_str("mode = \"fast\"").unwrap_err();
        assert!(e
            .to_string()
            .starts_with("tree/fib.toml:1: `mode`: `fast`: runs are `scheduled`"));
        let e = parse_str("\nlauncher = \"srun\"\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "tree/fib.toml:2: `launcher`: `srun` does not say where the process count goes: write `{n}` there, as in `srun -n {n}`"
        );
        let s =
            parse_str("run_in = \"source\"\n[programs.\"a.c\"]\nrun_in = \"scratch\"\n").unwrap();
        assert_eq!(s.run_in, Some(RunIn::Source));
        assert_eq!(
            s.program(Path::new("a.c")).unwrap().run_in,
            Some(RunIn::Scratch)
        );
        let e = parse_str("\n[programs.\"a.c\"]\nrun_in = \"tmp\"\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "tree/fib.toml:3: `programs.\"a.c\".run_in`: `tmp`: runs are in a scratch directory (`scratch`) or in the program's directory (`source`)"
        );
    }

    #[test]
    fn a_syntax_error_gives_the_line() {
        let e = parse_str("nprocs = 2\n[severity\n").unwrap_err();
        assert_eq!(e.line, Some(2));
    }

    #[test]
    fn a_compile_flag_that_links_or_makes_output_is_an_error() {
        for (flag, why) in [
            ("-lm", "write a definition"),
            ("-Wl,-rpath,/x", "a linker option belongs in `link`"),
            ("-o", "write a definition"),
            ("-c", "write a definition"),
            ("-I include", "one flag per string"),
            ("-D X", "one flag per string"),
            ("-I", "write its value in the same string"),
            ("USE_MPI", "write a definition"),
        ] {
            let e = parse_str(&format!("nprocs = 2\ncflags = [\"{flag}\"]\n")).unwrap_err();
            assert_eq!(
                (e.line, e.key.as_deref()),
                (Some(2), Some("cflags")),
                "{flag}"
            );
            assert!(e.message.contains(why), "{flag}: {}", e.message);
            assert!(e.message.starts_with(&format!("`{flag}`")), "{}", e.message);
        }
    }
}
