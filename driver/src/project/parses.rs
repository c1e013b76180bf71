//! libclang's results, kept in fib's cache until a file they were read
//! from changes.
//!
//! Parsing a source with `mpi.h` and the C library's headers, and loading
//! libclang to do it, takes most of a check of a small program that was
//! built before. A check of unchanged sources takes the symbols
//! (`instrument::symbols`) and the analysis (`instrument::analyze`) it
//! computed last time instead:
//!
//! - an entry's name is a hash of what the call was given and of what
//!   parses: the units' paths (canonical: symlinks resolved, no `..`, so
//!   that a check from another directory finds them) and parser flags (and
//!   for an analysis, the tree's root, canonical too), fib's version, the
//!   fingerprint of the code that parses (`FIB_PARSER_FINGERPRINT`, a hash
//!   of `instrument`'s and `sites`' sources and of the locked dependencies,
//!   made when fib is built) and the libclang it loads (its library's
//!   canonical path and size). Nothing else: not the time, not the current
//!   directory, not the executable (a fib rebuilt with the same parser
//!   keeps its parses);
//! - it holds every file the parse read (the sources and each header they
//!   included, system headers too) with a hash of its contents, and is
//!   used only while every one of them hashes the same;
//! - a parse with errors is kept like any other (libclang rejects some
//!   code compilers accept, and would reject it again); one with a fatal
//!   error, such as a header not found, is not: it may hang on a file that
//!   does not exist yet. The errors of a parse made now are returned with
//!   its analysis, so that the check tells them once, when the parse runs.
//!
//! Entries are written to a temporary file and renamed into place, so a
//! concurrent check sees a whole entry or none; one that cannot be read
//! is parsed again and overwritten.

use std::path::{Path, PathBuf};

use instrument::{Analysis, ParseError, Symbols};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::cache::Hash;
use crate::DriverError;

/// A translation unit as the parsers take it: a source and its flags.
pub(crate) type ParseUnit = (PathBuf, Vec<String>);

/// One kept result and the files it was read from.
#[derive(Serialize, Deserialize)]
struct Entry<T> {
    /// Each file the parse read, with the hash of its contents then.
    files: Vec<(PathBuf, String)>,
    value: T,
}

/// The symbols of each unit, parsing only those whose kept symbols are
/// missing or out of date, all in one go.
pub(crate) fn symbols(units: &[ParseUnit]) -> Result<Vec<Symbols>, DriverError> {
    let keys: Vec<String> = units
        .iter()
        .map(|u| key("symbols", None, std::slice::from_ref(u)))
        .collect();
    let dir = dir();
    // A kept value names each unit as the check that parsed it did; this
    // one may name it otherwise (relative to another directory).
    let mut out: Vec<Option<Symbols>> = keys
        .iter()
        .zip(units)
        .map(|(k, (path, _))| {
            load(&dir, k).map(|s: Symbols| Symbols {
                path: path.clone(),
                ..s
            })
        })
        .collect();
    let todo: Vec<usize> = (0..units.len()).filter(|&k| out[k].is_none()).collect();
    if !todo.is_empty() {
        let parse: Vec<ParseUnit> = todo.iter().map(|&k| units[k].clone()).collect();
        let before = sources(&parse);
        let parsed = instrument::symbols(&parse).map_err(DriverError::Instrument)?;
        for (k, s) in todo.into_iter().zip(parsed) {
            if let Some(read) = &s.read {
                store(&dir, &keys[k], read, &before, &s);
            }
            out[k] = Some(s);
        }
    }
    Ok(out.into_iter().flatten().collect())
}

/// The analysis of a program's units under the tree `root`, as kept or
/// parsed now; with libclang's errors when it was parsed now (none when
/// it was kept: they were told when it was made).
pub(crate) fn analyze(
    root: &Path,
    units: &[ParseUnit],
) -> Result<(Analysis, Vec<ParseError>), DriverError> {
    let key = key("analysis", Some(root), units);
    let dir = dir();
    if let Some(mut a) = load::<Analysis>(&dir, &key) {
        for (unit, (path, _)) in a.units.iter_mut().zip(units) {
            unit.path = path.clone();
        }
        return Ok((a, Vec::new()));
    }
    let before = sources(units);
    let (a, errors) =
        instrument::analyze_with_errors(root, units).map_err(DriverError::Instrument)?;
    if let Some(read) = &a.read {
        store(&dir, &key, read, &before, &a);
    }
    Ok((a, errors))
}

/// Where kept results live.
fn dir() -> PathBuf {
    crate::cache::dir("parses")
}

/// The name of the entry for a call: what it was given, and what parses.
fn key(what: &str, root: Option<&Path>, units: &[ParseUnit]) -> String {
    let mut h = Hash::new();
    h.add(what.as_bytes());
    h.add(env!("CARGO_PKG_VERSION").as_bytes());
    h.add(env!("FIB_PARSER_FINGERPRINT").as_bytes());
    h.add(libclang());
    if let Some(r) = root {
        h.add(canonical(r).as_os_str().as_encoded_bytes());
    }
    for (path, flags) in units {
        h.add(canonical(path).as_os_str().as_encoded_bytes());
        for f in flags {
            h.add(f.as_bytes());
        }
    }
    h.hex()
}

/// A path as a key names it: canonical (absolute, symlinks resolved) when
/// it exists, else absolute with `.` and `name/..` taken out.
fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| {
        let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        fib_analysis::lexical(&abs)
    })
}

/// What stands for the libclang fib loads (`LIBCLANG_PATH`, a directory
/// or the library): the canonical path and size of each `libclang` library
/// it names, so that however the variable spells it the key is the same,
/// and another libclang is another key.
fn libclang() -> &'static [u8] {
    static ID: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    ID.get_or_init(|| libclang_id(crate::settings::libclang_path().map(PathBuf::from)))
}

/// The identity of the libclang `given` (`LIBCLANG_PATH`) names.
fn libclang_id(given: Option<PathBuf>) -> Vec<u8> {
    let Some(given) = given else {
        return Vec::new();
    };
    {
        let mut libs: Vec<PathBuf> = match std::fs::read_dir(&given) {
            Ok(entries) => entries
                .flatten()
                .filter(|e| {
                    e.file_name().to_str().is_some_and(|n| {
                        n.starts_with("libclang")
                            && !n.starts_with("libclang-cpp")
                            && n.contains(".so")
                    })
                })
                .map(|e| e.path())
                .collect(),
            Err(_) => vec![given.clone()],
        };
        for lib in &mut libs {
            *lib = canonical(lib);
        }
        libs.sort();
        libs.dedup();
        let mut out = Vec::new();
        for lib in libs {
            out.extend_from_slice(lib.as_os_str().as_encoded_bytes());
            let size = std::fs::metadata(&lib).map_or(0, |m| m.len());
            out.extend_from_slice(&size.to_le_bytes());
        }
        out
    }
}

/// The hash of a file's contents, or `None` when it cannot be read.
fn content(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    let mut h = Hash::new();
    h.add(&bytes);
    Some(h.hex())
}

/// The units' sources with the hashes of their contents before a parse:
/// a source edited while it is parsed is then kept with its old hash, and
/// parsed again next time.
fn sources(units: &[ParseUnit]) -> Vec<(PathBuf, String)> {
    units
        .iter()
        .filter_map(|(path, _)| {
            let path = std::fs::canonicalize(path).ok()?;
            let hash = content(&path)?;
            Some((path, hash))
        })
        .collect()
}

/// The kept value of `key`, when every file it was read from is as it was.
fn load<T: DeserializeOwned>(dir: &Path, key: &str) -> Option<T> {
    let text = std::fs::read(dir.join(format!("{key}.json"))).ok()?;
    let entry: Entry<T> = serde_json::from_slice(&text).ok()?;
    entry
        .files
        .iter()
        .all(|(path, hash)| content(path).as_ref() == Some(hash))
        .then_some(entry.value)
}

/// Keeps `value` under `key` with the files it was read from, the units'
/// sources with their hashes from `before`. A cache that cannot be written
/// only costs the next check a parse.
fn store<T: Serialize>(
    dir: &Path,
    key: &str,
    read: &[PathBuf],
    before: &[(PathBuf, String)],
    value: &T,
) {
    let hash = |p: &PathBuf| match before.iter().find(|(b, _)| b == p) {
        Some((_, h)) => Some(h.clone()),
        None => content(p),
    };
    let Some(files) = read
        .iter()
        .map(|p| Some((p.clone(), hash(p)?)))
        .collect::<Option<Vec<_>>>()
    else {
        return;
    };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let Ok(text) = serde_json::to_vec(&Entry { files, value }) else {
        return;
    };
    let Ok(mut tmp) = tempfile::NamedTempFile::new_in(dir) else {
        return;
    };
    use std::io::Write as _;
    if tmp.write_all(&text).is_ok() {
        let _ = tmp.persist(dir.join(format!("{key}.json")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn a_kept_value_lasts_until_a_file_it_was_read_from_changes() {
        let tmp = tempfile::tempdir().unwrap();
        let (cache, a, b) = (
            tmp.path().join("cache"),
            tmp.path().join("a.c"),
            tmp.path().join("b.h"),
        );
        write(&a, "int main(void) { return 0; }");
        write(&b, "#define N 1");
        let before = sources(&[(a.clone(), vec![])]);
        store(
            &cache,
            "k",
            &[a.clone(), b.clone()],
            &before,
            &vec![1u32, 2],
        );
        assert_eq!(load::<Vec<u32>>(&cache, "k"), Some(vec![1, 2]));
        assert_eq!(load::<Vec<u32>>(&cache, "other"), None);
        // The same length, other contents.
        write(&b, "#define N 2");
        assert_eq!(load::<Vec<u32>>(&cache, "k"), None);
        write(&b, "#define N 1");
        assert_eq!(load::<Vec<u32>>(&cache, "k"), Some(vec![1, 2]));
        std::fs::remove_file(&b).unwrap();
        assert_eq!(load::<Vec<u32>>(&cache, "k"), None);
    }

    #[test]
    fn a_source_edited_during_its_parse_is_kept_with_its_old_hash() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = tmp.path().join("cache");
        let a = tmp.path().join("a.c");
        write(&a, "int x;");
        let before = sources(&[(a.clone(), vec![])]);
        // The parse read `int x;`; the file changes before it is kept.
        write(&a, "int y;");
        let a = std::fs::canonicalize(&a).unwrap();
        store(&cache, "k", std::slice::from_ref(&a), &before, &7u32);
        assert_eq!(load::<u32>(&cache, "k"), None);
        write(&a, "int x;");
        assert_eq!(load::<u32>(&cache, "k"), Some(7));
    }

    #[test]
    fn an_entry_that_cannot_be_read_is_a_miss() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = tmp.path().join("cache");
        std::fs::create_dir_all(&cache).unwrap();
        write(&cache.join("k.json"), "{ not json");
        assert_eq!(load::<u32>(&cache, "k"), None);
        // A value of another shape (an older fib's) is a miss too.
        store(&cache, "k", &[], &[], &"text");
        assert_eq!(load::<u32>(&cache, "k"), None);
        assert_eq!(load::<String>(&cache, "k").as_deref(), Some("text"));
    }

    #[test]
    fn a_key_names_a_file_however_it_is_reached_and_not_by_its_time() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("one-sided");
        std::fs::create_dir(&dir).unwrap();
        let a = dir.join("put.c");
        write(&a, "int main(void) { return 0; }");
        std::os::unix::fs::symlink(&dir, tmp.path().join("link")).unwrap();
        let unit = |p: PathBuf| (p, vec!["-DX".to_string()]);
        let k = key("analysis", Some(&dir), &[unit(a.clone())]);
        let through = [
            dir.join("../one-sided/put.c"),
            dir.join("./put.c"),
            tmp.path().join("link/put.c"),
        ];
        for p in through {
            assert_eq!(k, key("analysis", Some(&dir), &[unit(p.clone())]), "{p:?}");
        }
        assert_eq!(
            k,
            key(
                "analysis",
                Some(&tmp.path().join("link/")),
                &[unit(a.clone())]
            )
        );
        // Its time changes, not its key.
        let f = std::fs::File::options().write(true).open(&a).unwrap();
        f.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(2400))
            .unwrap();
        assert_eq!(k, key("analysis", Some(&dir), &[unit(a.clone())]));
        // A file that does not exist is named lexically.
        assert_eq!(
            canonical(&dir.join("gone/../missing.c")),
            dir.canonicalize().unwrap().join("missing.c")
        );
    }

    #[test]
    fn libclang_is_named_by_its_library_however_the_variable_spells_it() {
        let tmp = tempfile::tempdir().unwrap();
        let lib = tmp.path().join("lib");
        std::fs::create_dir(&lib).unwrap();
        write(&lib.join("libclang-14.so.14.0.6"), "fourteen");
        std::os::unix::fs::symlink("libclang-14.so.14.0.6", lib.join("libclang.so")).unwrap();
        std::os::unix::fs::symlink("libclang-14.so.14.0.6", lib.join("libclang-14.so.1")).unwrap();
        write(&lib.join("libclang-cpp.so.14"), "not this one");
        let id = |p: PathBuf| libclang_id(Some(p));
        let k = id(lib.clone());
        assert!(!k.is_empty());
        assert_eq!(k, id(tmp.path().join("lib/")));
        assert_eq!(k, id(tmp.path().join("lib/../lib/.")));
        // The library named directly is the same library.
        assert_eq!(k, id(lib.join("libclang.so")));
        // Another libclang is another key.
        write(&lib.join("libclang-14.so.14.0.6"), "fourteen and a half");
        assert_ne!(k, id(lib.clone()));
    }

    #[test]
    fn keys_tell_the_flags_the_units_and_the_root_apart() {
        let unit = |f: &str| (PathBuf::from("/t/a.c"), vec![f.to_string()]);
        let k = key("analysis", Some(Path::new("/t")), &[unit("-DX")]);
        assert_eq!(k, key("analysis", Some(Path::new("/t")), &[unit("-DX")]));
        assert_ne!(k, key("analysis", Some(Path::new("/t")), &[unit("-DY")]));
        assert_ne!(k, key("analysis", Some(Path::new("/u")), &[unit("-DX")]));
        assert_ne!(k, key("symbols", Some(Path::new("/t")), &[unit("-DX")]));
    }
}
