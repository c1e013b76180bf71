//! The sources of a program fib did not build, as its debug information
//! names them: each compile unit's file (its name under its compilation
//! directory) and the flags its compiler recorded (`DW_AT_producer`). Those
//! that exist are analysed as `fib check` analyses a program
//! ([`crate::project::analyze_units`], with its parse cache), so that
//! `fib run` judges the binary's calls with the same static facts; what
//! cannot be read is said in notes, naming the facts the advice lacks.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use addr2line::gimli;
use instrument::Analysis;
use object::{Object, ObjectSection};

use crate::project::{self, Database};
use crate::toolchain::Toolchain;

/// What fib run's advice lacks for calls of files it could not analyse.
pub(crate) const MISSING_FACTS: &str = "barrier advice does not know the program's clock reads and output, nor whether input decides which calls run";

/// One compile unit of the binary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CompileUnit {
    /// The source, absolute when the unit names its compilation directory.
    pub path: PathBuf,
    /// The compilation directory.
    pub dir: PathBuf,
    /// What the compiler recorded of itself and its flags.
    pub producer: Option<String>,
}

/// The program's analysed sources.
pub(crate) struct Sources {
    /// Their site table and static facts (empty when none could be read).
    pub analysis: Analysis,
    /// The directory they were analysed under (canonical); `None` when no
    /// source was analysed.
    pub root: Option<PathBuf>,
    /// How `root` shows: relative to the current directory when inside it.
    pub shown_root: PathBuf,
    /// What the user should know: sources missing, parses that failed.
    pub notes: Vec<String>,
}

/// The compile units of the ELF file `exe` that have a name, in the order
/// of its debug information (none without it).
pub(crate) fn compile_units(exe: &Path) -> Vec<CompileUnit> {
    let Ok(data) = std::fs::read(exe) else {
        return Vec::new();
    };
    let Ok(file) = object::File::parse(&*data) else {
        return Vec::new();
    };
    let load = |id: gimli::SectionId| -> Result<Cow<[u8]>, gimli::Error> {
        Ok(file
            .section_by_name(id.name())
            .and_then(|s| s.uncompressed_data().ok())
            .unwrap_or(Cow::Borrowed(&[])))
    };
    let Ok(owned) = gimli::DwarfSections::load(load) else {
        return Vec::new();
    };
    let endian = if file.is_little_endian() {
        gimli::RunTimeEndian::Little
    } else {
        gimli::RunTimeEndian::Big
    };
    let dwarf = owned.borrow(|s| gimli::EndianSlice::new(s, endian));
    let text = |r: gimli::EndianSlice<gimli::RunTimeEndian>| r.to_string_lossy().into_owned();
    let mut out = Vec::new();
    let mut headers = dwarf.units();
    while let Ok(Some(header)) = headers.next() {
        let Ok(unit) = dwarf.unit(header) else {
            continue;
        };
        let Some(name) = unit.name.map(text) else {
            continue;
        };
        let dir = PathBuf::from(unit.comp_dir.map(text).unwrap_or_default());
        let mut entries = unit.entries();
        let producer = match entries.next_dfs() {
            Ok(Some(root)) => root
                .attr_value(gimli::DW_AT_producer)
                .and_then(|v| dwarf.attr_string(&unit, v).ok())
                .map(text),
            _ => None,
        };
        let unit = CompileUnit {
            path: dir.join(&name),
            dir,
            producer,
        };
        if !out.contains(&unit) {
            out.push(unit);
        }
    }
    out
}

/// The flags of a compiler's record of itself that the parser takes:
/// definitions, include directories (made absolute against `dir`), the
/// language standard, the optimisation level and OpenMP, each of which
/// can change what the preprocessor keeps. GCC records none of `-D`,
/// `-U` and `-I`; clang records its whole command line with
/// `-grecord-command-line`.
pub(crate) fn producer_flags(producer: &str, dir: &Path) -> Vec<String> {
    let words: Vec<&str> = producer.split_whitespace().collect();
    let mut out = Vec::new();
    let mut k = 0;
    while k < words.len() {
        let w = words[k];
        k += 1;
        // `-D NAME` and `-I DIR`, as two words.
        let (flag, value) = match w {
            "-D" | "-U" | "-I" => match words.get(k) {
                Some(v) => {
                    k += 1;
                    (&w[..2], *v)
                }
                None => continue,
            },
            _ if w.len() > 2 && (w.starts_with("-D") || w.starts_with("-U")) => (&w[..2], &w[2..]),
            _ if w.len() > 2 && w.starts_with("-I") => ("-I", &w[2..]),
            _ if w.starts_with("-std=")
                || w.starts_with("-O")
                || w == "-fopenmp"
                || w == "-ansi" =>
            {
                out.push(w.to_string());
                continue;
            }
            _ => continue,
        };
        if flag == "-I" {
            out.push(format!("-I{}", dir.join(value).display()));
        } else {
            out.push(format!("{flag}{value}"));
        }
    }
    out
}

/// The sources of the binary `exe` (shown as `shown`) analysed, under the
/// MPI compiler's flags, then each unit's own: its compile database entry
/// when a `compile_commands.json` at or above the sources' directory has
/// one, else what its compiler recorded; then `fib.toml`'s `cflags` in
/// that directory.
pub(crate) fn analyse(exe: &Path, shown: &str, toolchain: &Toolchain) -> Sources {
    let mut sources = Sources {
        analysis: Analysis::default(),
        root: None,
        shown_root: PathBuf::new(),
        notes: Vec::new(),
    };
    let units: Vec<CompileUnit> = compile_units(exe)
        .into_iter()
        .filter(|u| project::is_source(&u.path) && !u.path.starts_with("/usr"))
        .collect();
    if units.is_empty() {
        sources.notes.push(format!(
            "{shown} has no debug information naming its C or C++ sources, so fib did not analyse them: {MISSING_FACTS} (build it with -g)"
        ));
        return sources;
    }
    let (found, missing): (Vec<_>, Vec<_>) = units
        .into_iter()
        .partition(|u| u.path.is_file() && std::fs::canonicalize(&u.path).is_ok());
    if !missing.is_empty() {
        let names: Vec<String> = missing
            .iter()
            .map(|u| u.path.display().to_string())
            .collect();
        sources.notes.push(format!(
            "no sources for {} (named by {shown}'s debug information); for the calls there, {MISSING_FACTS}",
            names.join(", ")
        ));
    }
    let found: Vec<(PathBuf, CompileUnit)> = found
        .into_iter()
        .filter_map(|u| Some((std::fs::canonicalize(&u.path).ok()?, u)))
        .collect();
    let Some(root) = common_dir(found.iter().map(|(p, _)| p.as_path())) else {
        return sources;
    };
    let base = match instrument::mpi_flags(&toolchain.mpicc) {
        Ok(f) => f,
        Err(e) => {
            sources.notes.push(format!(
                "the MPI compiler's flags are unknown ({e}), so fib did not analyse {shown}'s sources: {MISSING_FACTS}"
            ));
            return sources;
        }
    };
    let database = database_at(&root);
    let cflags = project::config::load(&root)
        .ok()
        .flatten()
        .map(|c| c.cflags_in(&root))
        .unwrap_or_default();
    let parse_units: Vec<(PathBuf, Vec<String>)> = found
        .iter()
        .map(|(path, u)| {
            let mut flags = base.clone();
            let own = database.as_ref().and_then(|db| {
                let (dir, name) = project::split_file(path);
                db.flags(&dir, &name)
            });
            match own {
                Some(own) => flags.extend(own),
                None => flags.extend(producer_flags(
                    u.producer.as_deref().unwrap_or_default(),
                    &u.dir,
                )),
            }
            flags.extend_from_slice(&cflags);
            (path.clone(), flags)
        })
        .collect();
    match project::analyze_units(&root, &parse_units) {
        Ok((a, errors)) => {
            if !errors.is_empty() {
                sources.notes.push(format!(
                    "libclang reported errors in {shown}'s sources; calls it could not place lack their static facts (the debug information records no -D or -I flags: give them as `cflags` in {}/fib.toml, or in a compile_commands.json there)",
                    root.display()
                ));
            }
            sources.analysis = a;
            sources.shown_root = shown_dir(&root);
            sources.root = Some(root);
        }
        Err(e) => sources.notes.push(format!(
            "fib could not analyse {shown}'s sources ({e}): {MISSING_FACTS}"
        )),
    }
    sources
}

/// The compile database at `root` or above it, when one can be read.
fn database_at(root: &Path) -> Option<Database> {
    let path = match project::find_database(root) {
        Ok(Some(p)) => p,
        _ => {
            let (top, _) = project::enclosing(root)?;
            project::find_database(&top).ok()??
        }
    };
    Database::read(&path).ok()
}

/// The deepest directory holding every one of `paths` (absolute files).
fn common_dir<'a>(mut paths: impl Iterator<Item = &'a Path>) -> Option<PathBuf> {
    let mut dir = paths.next()?.parent()?.to_path_buf();
    for p in paths {
        while !p.starts_with(&dir) {
            dir = dir.parent()?.to_path_buf();
        }
    }
    Some(dir)
}

/// How the directory `dir` shows: relative to the current directory when
/// inside it (empty for the current directory itself), else as it is.
fn shown_dir(dir: &Path) -> PathBuf {
    let cwd = std::env::current_dir()
        .ok()
        .and_then(|c| std::fs::canonicalize(c).ok());
    match cwd.as_deref().and_then(|c| dir.strip_prefix(c).ok()) {
        Some(rel) => rel.to_path_buf(),
        None => dir.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flags_a_compiler_recorded_that_change_the_parse() {
        let gcc = "GNU C11 12.2.0 -mtune=generic -march=x86-64 -g -O1 -std=gnu11 -fasynchronous-unwind-tables";
        assert_eq!(producer_flags(gcc, Path::new("/b")), ["-O1", "-std=gnu11"]);
        let clang =
            "clang version 16.0.6 -DUSE_MPI=1 -D X=2 -UNDEBUG -Iinc -I /opt/inc -fopenmp -c a.c";
        assert_eq!(
            producer_flags(clang, Path::new("/b")),
            [
                "-DUSE_MPI=1",
                "-DX=2",
                "-UNDEBUG",
                "-I/b/inc",
                "-I/opt/inc",
                "-fopenmp"
            ]
        );
        assert_eq!(producer_flags("", Path::new("/b")), Vec::<String>::new());
    }

    #[test]
    fn the_common_directory_of_sources() {
        let paths = [
            Path::new("/a/b/x.c"),
            Path::new("/a/b/c/y.c"),
            Path::new("/a/z.c"),
        ];
        assert_eq!(common_dir(paths.into_iter()), Some(PathBuf::from("/a")));
        assert_eq!(
            common_dir([Path::new("/a/b/x.c")].into_iter()),
            Some(PathBuf::from("/a/b"))
        );
        assert_eq!(common_dir(std::iter::empty()), None);
    }
}
