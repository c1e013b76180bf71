//! A tree's compile database (`compile_commands.json`, as CMake and Bear
//! write it): where it is, which of the tree's sources the build compiles
//! and with which flags, and how a program is linked from them: its `main`
//! source against the others as against one static archive.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use instrument::{CompileCommand, Symbols};

use crate::DriverError;

/// The file name of a compile database.
pub const NAME: &str = "compile_commands.json";

/// A tree's compile database, read.
pub struct Database {
    /// The file, as found under the tree's root.
    pub path: PathBuf,
    /// Each compiled file (canonical) and the first command compiling it.
    commands: BTreeMap<PathBuf, CompileCommand>,
}

/// Where the database of the tree at `root` is: `compile_commands.json` at
/// its top, else in its `build/` directory (where `cmake -B build` writes
/// it). A CMake build directory at either place without a database is an
/// error: the build's flags are unknown, and guessing would check a
/// program other than the one the build makes.
pub fn find(root: &Path) -> Result<Option<PathBuf>, DriverError> {
    let dirs = [root.to_path_buf(), root.join("build")];
    for d in &dirs {
        let db = d.join(NAME);
        if db.is_file() {
            return Ok(Some(db));
        }
    }
    for d in &dirs {
        if d.join("CMakeCache.txt").is_file() {
            return Err(DriverError::Input(format!(
                "{}: no such file: {} is a CMake build directory configured without \
                 -DCMAKE_EXPORT_COMPILE_COMMANDS=ON; configure it again with that option \
                 so that fib compiles and links each program as the build does",
                d.join(NAME).display(),
                d.display()
            )));
        }
    }
    Ok(None)
}

/// When the directory `dir` has no database of its own: the nearest
/// directory above it that has one (see [`find`]), as a path from where
/// fib runs, and `dir` relative to it. Checking part of a project is then
/// checking that part of the project, built as the project is.
pub fn enclosing(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    if !matches!(find(dir), Ok(None)) {
        return None;
    }
    let abs = std::fs::canonicalize(dir).ok()?;
    let mut up = dir.to_path_buf();
    for top in abs.ancestors().skip(1) {
        up.push("..");
        if top.join(NAME).is_file() || top.join("build").join(NAME).is_file() {
            let rel = abs.strip_prefix(top).ok()?.to_path_buf();
            return Some((fib_analysis::lexical(&up), rel));
        }
    }
    None
}

impl Database {
    /// Reads the database at `path`. An entry whose file does not exist is
    /// an error naming it: the database is older than the tree.
    pub fn read(path: &Path) -> Result<Database, DriverError> {
        // Relative `directory` entries are relative to the database's own
        // directory, which must then be absolute.
        let abs = std::fs::canonicalize(path)
            .map_err(|e| DriverError::Io(format!("reading {}", path.display()), e))?;
        let entries = instrument::compile_db(&abs).map_err(DriverError::Instrument)?;
        let mut commands = BTreeMap::new();
        for (i, c) in entries.into_iter().enumerate() {
            let Ok(file) = std::fs::canonicalize(&c.file) else {
                return Err(DriverError::Input(format!(
                    "{}: entry {i} compiles {}, which does not exist: the database is \
                     out of date; run the build that writes it again",
                    path.display(),
                    c.file.display()
                )));
            };
            commands.entry(file).or_insert(c);
        }
        Ok(Database {
            path: path.to_path_buf(),
            commands,
        })
    }

    /// The command compiling `rel`, a source of the tree at `root`, if the
    /// build compiles it.
    pub fn command(&self, root: &Path, rel: &Path) -> Option<&CompileCommand> {
        let abs = std::fs::canonicalize(root.join(rel)).ok()?;
        self.commands.get(&abs)
    }

    /// The parser and compiler flags of `rel`'s command (relative include
    /// paths made absolute), if the build compiles it.
    pub fn flags(&self, root: &Path, rel: &Path) -> Option<Vec<String>> {
        self.command(root, rel).map(CompileCommand::parser_flags)
    }

    /// The link flags of `rel`'s command (`-l`, `-L`, `-Wl,`, `-pthread`),
    /// which a command that compiles and links in one step has; relative
    /// `-L` paths made absolute.
    pub fn link_flags(&self, root: &Path, rel: &Path) -> Vec<String> {
        let Some(c) = self.command(root, rel) else {
            return Vec::new();
        };
        link_flags(&c.args[1.min(c.args.len())..], &c.directory)
    }
}

/// The link flags among a command's arguments, run in `dir`.
fn link_flags(args: &[String], dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let (flag, value) = match a.as_str() {
            "-l" | "-L" => match it.next() {
                Some(v) => (a.as_str(), v.as_str()),
                None => break,
            },
            "-pthread" => {
                out.push(a.clone());
                continue;
            }
            _ if a.starts_with("-Wl,") => {
                out.push(a.clone());
                continue;
            }
            _ if a.starts_with("-l") => ("-l", &a[2..]),
            _ if a.starts_with("-L") => ("-L", &a[2..]),
            _ => continue,
        };
        if flag == "-L" && Path::new(value).is_relative() {
            out.push(format!("-L{}", dir.join(value).display()));
        } else {
            out.push(format!("{flag}{value}"));
        }
    }
    out
}

/// The units `units[main]` is linked with, `main` first: the others are
/// taken as the members of one static archive, each pulled in when it
/// defines a symbol that the units already taken use and none defines.
/// When several members define it, the one nearest `main` wins (most
/// leading directories in common, then the first by path), so two
/// programs with helpers of the same name each get their own. Units that
/// define `main` are never members.
pub fn archive_link(main: usize, units: &[Symbols]) -> Vec<usize> {
    let dir = |i: usize| -> Vec<_> {
        let p = units[i].path.parent().unwrap_or(Path::new(""));
        p.components().collect()
    };
    let home = dir(main);
    let nearness = |i: usize| dir(i).iter().zip(&home).take_while(|(a, b)| a == b).count();
    let mut linked = pull_members(
        vec![main],
        units,
        |i| !units[i].has_main,
        |i| (std::cmp::Reverse(nearness(i)), i),
    );
    linked[1..].sort();
    linked
}

/// What a linker does with static archives: starting from the units
/// `linked`, pulls in each unit `member` allows that defines a symbol the
/// units taken so far use and none defines, the one first by `rank` when
/// several do, until nothing more is wanted. A symbol no unit defines (MPI,
/// the C library, a library flag) is left to the real link. Returns the
/// units taken, in the order taken.
pub(crate) fn pull_members<K: Ord>(
    mut linked: Vec<usize>,
    units: &[Symbols],
    member: impl Fn(usize) -> bool,
    rank: impl Fn(usize) -> K,
) -> Vec<usize> {
    let mut defined: BTreeSet<&String> = linked.iter().flat_map(|&i| &units[i].defines).collect();
    let mut wanted: Vec<&String> = linked.iter().flat_map(|&i| &units[i].uses).collect();
    while let Some(sym) = wanted.pop() {
        if defined.contains(sym) {
            continue;
        }
        let best = (0..units.len())
            .filter(|&i| member(i) && !linked.contains(&i))
            .filter(|&i| units[i].defines.contains(sym))
            .min_by_key(|&i| rank(i));
        let Some(m) = best else {
            defined.insert(sym);
            continue;
        };
        linked.push(m);
        defined.extend(&units[m].defines);
        wanted.extend(&units[m].uses);
    }
    linked
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(path: &str, main: bool, defines: &[&str], uses: &[&str]) -> Symbols {
        Symbols {
            path: path.into(),
            defines: defines.iter().map(|s| s.to_string()).collect(),
            uses: uses.iter().map(|s| s.to_string()).collect(),
            has_main: main,
            ..Symbols::default()
        }
    }

    #[test]
    fn a_program_pulls_in_what_it_uses_transitively_and_nothing_else() {
        let units = [
            unit("app/main.c", true, &[], &["halo", "MPI_Init"]),
            unit("lib/halo.c", false, &["halo"], &["pack", "MPI_Send"]),
            unit("lib/pack.c", false, &["pack"], &[]),
            unit("lib/unused.c", false, &["unused"], &["halo"]),
        ];
        assert_eq!(archive_link(0, &units), vec![0, 1, 2]);
    }

    #[test]
    fn two_programs_with_helpers_of_one_name_each_get_their_own() {
        let units = [
            unit("a/main.c", true, &[], &["setup"]),
            unit("a/util.c", false, &["setup"], &[]),
            unit("b/main.c", true, &[], &["setup"]),
            unit("b/util.c", false, &["setup"], &[]),
        ];
        assert_eq!(archive_link(0, &units), vec![0, 1]);
        assert_eq!(archive_link(2, &units), vec![2, 3]);
    }

    #[test]
    fn a_command_that_links_gives_its_link_flags() {
        let args: Vec<String> = [
            "-O2",
            "-Iinc",
            "-L",
            "lib",
            "-lfftw3",
            "-l",
            "m",
            "-Wl,-rpath,/x",
            "-pthread",
            "-o",
            "a",
            "a.c",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            link_flags(&args, Path::new("/b")),
            ["-L/b/lib", "-lfftw3", "-lm", "-Wl,-rpath,/x", "-pthread"]
        );
    }

    #[test]
    fn another_program_is_never_linked() {
        let units = [
            unit("one.c", true, &["shared"], &[]),
            unit("two.c", true, &["shared"], &["shared"]),
        ];
        assert_eq!(archive_link(1, &units), vec![1]);
    }
}
