//! Where a program's runs write: each interleaving runs in a scratch
//! directory of its own, made inside the run's private temporary
//! directory, in which the program finds the files of its working
//! directory and writes only into the scratch directory, so that checking
//! a program leaves nothing in the user's tree. What the first run of a
//! check created or changed is kept in fib's cache and named in the
//! report; the other runs' scratch directories go with their temporary
//! directories, whichever way the run ended (the interrupt handler's
//! second Ctrl-C removes them through [`crate::processes::Temp`]).
//!
//! The mirror of the working directory is planned once per check
//! ([`Mirror::plan`]) and made again for every run ([`Mirror::make`]):
//!
//! - a directory is made for real, and its entries mirrored in it, so that
//!   a file the program creates in a subdirectory lands in the scratch
//!   directory too; a version-control directory (`.git`, `.hg`, `.svn`)
//!   and every directory past [`ENTRY_BUDGET`] entries are linked instead;
//! - a regular file of at most [`COPY_LIMIT`] bytes is copied (within
//!   [`COPY_BUDGET`] bytes per run), so that a program that opens it for
//!   writing, as a native run's output that is still there, changes only
//!   its copy; but not what a build makes (executables, object files,
//!   libraries), which the program only reads;
//! - anything else (a bigger file, a build's product, a symbolic link, a
//!   device) is a
//!   symbolic link to the entry in the user's tree: readable as it is, but
//!   a program that writes into such a file writes into the user's tree.
//!
//! The directory the working directory sits in is there too, its entries
//! linked (at most [`SIBLING_LIMIT`] of them), so that a program that
//! reads `../data/input` finds it.
//!
//! `run_in = "source"` in `fib.toml` (or `--run-in source`) runs the
//! program in its working directory itself, for a program whose writes
//! must reach it ([`crate::settings::RunIn`]).

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::DriverError;

/// The largest file copied into a scratch directory; bigger ones are
/// linked.
pub(crate) const COPY_LIMIT: u64 = 1 << 20;
/// The most bytes copied into one scratch directory; files past it are
/// linked.
pub(crate) const COPY_BUDGET: u64 = 64 << 20;
/// The most entries of the working directory's tree mirrored one by one;
/// the directories past it are linked whole.
pub(crate) const ENTRY_BUDGET: usize = 4096;
/// The most entries of the directory above the working directory linked
/// beside the scratch directory.
pub(crate) const SIBLING_LIMIT: usize = 256;

/// Directories linked whole: the program has no business writing there.
const LINKED_DIRS: [&str; 3] = [".git", ".hg", ".svn"];

/// How one entry of the working directory appears in a scratch directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum How {
    /// A directory of its own, its entries mirrored.
    Dir,
    /// A copy of a regular file.
    Copy,
    /// A symbolic link to the entry.
    Link,
}

/// The plan of a working directory's mirror, made once per check, and
/// where the first run's files are kept.
#[derive(Debug)]
pub(crate) struct Mirror {
    /// The working directory (canonical).
    source: PathBuf,
    /// The scratch directory's name: the working directory's own.
    name: OsString,
    /// Every entry mirrored, by its path relative to `source`, parents
    /// before their entries.
    entries: Vec<(PathBuf, How)>,
    /// The entries of the directory above `source`, other than `source`.
    siblings: Vec<OsString>,
    /// Where the first run's files are kept, when they are.
    keep: Option<PathBuf>,
    /// What the first run kept.
    kept: Mutex<Option<Kept>>,
}

/// The files the first run created or changed, moved out of its scratch
/// directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Kept {
    /// The directory they are in.
    pub dir: PathBuf,
    /// Each one's path in it, sorted.
    pub files: Vec<PathBuf>,
}

/// An I/O error about `path`.
fn io(what: &str, path: &Path) -> impl FnOnce(std::io::Error) -> DriverError {
    let what = format!("{what} {}", path.display());
    move |e| DriverError::Io(what, e)
}

impl Mirror {
    /// Plans the mirror of `source` (a directory); the first run's files
    /// go to `keep` when it is given (their earlier contents are removed
    /// then).
    pub(crate) fn plan(source: &Path, keep: Option<PathBuf>) -> Result<Mirror, DriverError> {
        let source = std::fs::canonicalize(source).map_err(io("the working directory", source))?;
        let mut entries = Vec::new();
        let mut budget = ENTRY_BUDGET;
        let mut queue = vec![PathBuf::new()];
        // Breadth first, so that the budget goes to the shallow entries.
        let mut next = 0;
        while next < queue.len() {
            let rel = queue[next].clone();
            next += 1;
            let dir = source.join(&rel);
            let mut names: Vec<OsString> = std::fs::read_dir(&dir)
                .map_err(io("reading", &dir))?
                .filter_map(|e| e.ok().map(|e| e.file_name()))
                .collect();
            names.sort();
            for name in names {
                let r = rel.join(&name);
                let meta = match std::fs::symlink_metadata(source.join(&r)) {
                    Ok(m) => m,
                    Err(_) => continue,
                };
                let how = if budget == 0 {
                    How::Link
                } else if meta.is_dir() && !LINKED_DIRS.iter().any(|d| name == *d) {
                    How::Dir
                } else if meta.is_file() && meta.len() <= COPY_LIMIT && !built(&name, &meta) {
                    How::Copy
                } else {
                    How::Link
                };
                budget = budget.saturating_sub(1);
                if how == How::Dir {
                    queue.push(r.clone());
                }
                entries.push((r, how));
            }
        }
        // Directories first in each level is not needed: a directory's
        // entries come after it in breadth-first order.
        let name = source
            .file_name()
            .map_or_else(|| OsString::from("root"), |n| n.to_os_string());
        let siblings = match source.parent() {
            Some(parent) => {
                let mut s: Vec<OsString> = std::fs::read_dir(parent)
                    .map(|d| {
                        d.filter_map(|e| e.ok().map(|e| e.file_name()))
                            .filter(|n| Some(n.as_os_str()) != source.file_name())
                            .collect()
                    })
                    .unwrap_or_default();
                s.sort();
                if s.len() > SIBLING_LIMIT {
                    s.clear();
                }
                s
            }
            None => Vec::new(),
        };
        if let Some(k) = &keep {
            // The files of an earlier check would pass for this one's.
            let _ = std::fs::remove_dir_all(k);
        }
        Ok(Mirror {
            source,
            name,
            entries,
            siblings,
            keep,
            kept: Mutex::new(None),
        })
    }

    /// Makes the mirror in `root` (a new directory of the run's own) and
    /// returns the directory the program runs in.
    pub(crate) fn make(&self, root: &Path) -> Result<PathBuf, DriverError> {
        let top = root.join("w");
        let work = top.join(&self.name);
        std::fs::create_dir_all(&work).map_err(io("creating", &work))?;
        if let Some(parent) = self.source.parent() {
            for s in &self.siblings {
                let _ = std::os::unix::fs::symlink(parent.join(s), top.join(s));
            }
        }
        let mut copied = 0u64;
        for (rel, how) in &self.entries {
            let from = self.source.join(rel);
            let to = work.join(rel);
            let made = match how {
                How::Dir => std::fs::create_dir(&to),
                How::Copy => {
                    let len = std::fs::metadata(&from).map_or(u64::MAX, |m| m.len());
                    if len <= COPY_LIMIT && copied + len <= COPY_BUDGET {
                        copied += len;
                        std::fs::copy(&from, &to).map(|_| ())
                    } else {
                        std::os::unix::fs::symlink(&from, &to)
                    }
                }
                How::Link => std::os::unix::fs::symlink(&from, &to),
            };
            match made {
                Ok(()) => {}
                // Gone since the plan: the program will not find it either.
                Err(e)
                    if e.kind() == std::io::ErrorKind::NotFound
                        && from.symlink_metadata().is_err() => {}
                Err(e) => return Err(io("making the scratch entry", &to)(e)),
            }
        }
        Ok(work)
    }

    /// Keeps what the run whose mirror is `work` created or changed, when
    /// this mirror keeps files; what was kept is then [`Mirror::kept`].
    pub(crate) fn keep(&self, work: &Path) -> Result<(), DriverError> {
        let Some(keep) = &self.keep else {
            return Ok(());
        };
        let files = self.changes(work);
        let _ = std::fs::remove_dir_all(keep);
        if !files.is_empty() {
            for rel in &files {
                let to = keep.join(rel);
                if let Some(p) = to.parent() {
                    std::fs::create_dir_all(p).map_err(io("creating", p))?;
                }
                move_file(&work.join(rel), &to).map_err(io("keeping the run's file as", &to))?;
            }
            *self.kept.lock().unwrap() = Some(Kept {
                dir: keep.clone(),
                files,
            });
        }
        Ok(())
    }

    /// What the first run kept, if it kept anything.
    pub(crate) fn kept(&self) -> Option<Kept> {
        self.kept.lock().unwrap().clone()
    }

    /// The files under `work` (a mirror made by [`Mirror::make`]) that the
    /// run created or changed, relative to `work`, sorted: an entry the
    /// plan does not have, a copy whose contents differ from the user's
    /// file, and a link the program replaced with a file of its own.
    fn changes(&self, work: &Path) -> Vec<PathBuf> {
        let planned: HashMap<&Path, How> = self
            .entries
            .iter()
            .map(|(r, h)| (r.as_path(), *h))
            .collect();
        let mut out = Vec::new();
        let mut stack = vec![PathBuf::new()];
        while let Some(rel) = stack.pop() {
            let Ok(dir) = std::fs::read_dir(work.join(&rel)) else {
                continue;
            };
            for e in dir.flatten() {
                let r = rel.join(e.file_name());
                let Ok(ft) = e.file_type() else { continue };
                match (planned.get(r.as_path()), ft.is_dir()) {
                    // New, or a planned entry the program replaced: all of
                    // it.
                    (None, true) => stack.push(r),
                    (Some(How::Dir), true) => stack.push(r),
                    (Some(How::Link), _) if ft.is_symlink() => {}
                    // A copy made for a bigger file than fits is a link.
                    (Some(How::Copy), _) if ft.is_symlink() => {}
                    (Some(How::Copy), false) if ft.is_file() => {
                        if !same_contents(&self.source.join(&r), &work.join(&r)) {
                            out.push(r);
                        }
                    }
                    (_, true) => stack.push(r),
                    (_, false) => {
                        if ft.is_file() || ft.is_symlink() {
                            out.push(r);
                        }
                    }
                }
            }
        }
        out.sort();
        out
    }
}

/// Whether the file `name` is what a build makes (an executable, an
/// object file or a library): the program reads it at most, and copying
/// it for every run would cost more than the run.
fn built(name: &std::ffi::OsStr, meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let ext = Path::new(name).extension().and_then(|e| e.to_str());
    meta.permissions().mode() & 0o111 != 0 || matches!(ext, Some("o" | "a" | "so" | "obj"))
}

/// Whether the files `a` and `b` hold the same bytes.
fn same_contents(a: &Path, b: &Path) -> bool {
    let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    if ma.len() != mb.len() {
        return false;
    }
    let (Ok(mut fa), Ok(mut fb)) = (std::fs::File::open(a), std::fs::File::open(b)) else {
        return false;
    };
    let (mut ba, mut bb) = (vec![0u8; 64 * 1024], vec![0u8; 64 * 1024]);
    loop {
        let n = match fa.read(&mut ba) {
            Ok(n) => n,
            Err(_) => return false,
        };
        if n == 0 {
            return true;
        }
        if fb.read_exact(&mut bb[..n]).is_err() || ba[..n] != bb[..n] {
            return false;
        }
    }
}

/// Moves the file `from` to `to`, copying it when they are on different
/// file systems (the run's directory and the cache may be).
fn move_file(from: &Path, to: &Path) -> std::io::Result<()> {
    match std::fs::rename(from, to) {
        Ok(()) => Ok(()),
        Err(_) => {
            let meta = std::fs::symlink_metadata(from)?;
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(from)?;
                std::os::unix::fs::symlink(target, to)
            } else {
                std::fs::copy(from, to).map(|_| ())
            }
        }
    }
}

/// Removes `dir` and everything in it, making the directories the program
/// left without write or search permission writable first.
pub(crate) fn remove(dir: &Path) {
    if std::fs::remove_dir_all(dir).is_ok() || !dir.exists() {
        return;
    }
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o700));
        if let Ok(rd) = std::fs::read_dir(&d) {
            for e in rd.flatten() {
                if e.file_type().is_ok_and(|t| t.is_dir()) {
                    stack.push(e.path());
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(p: &Path, text: &str) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn a_mirror_copies_small_files_links_the_rest_and_finds_what_a_run_wrote() {
        let t = tempfile::tempdir().unwrap();
        let src = t.path().join("proj");
        write(&src.join("input.txt"), "3\n");
        write(&src.join("out.txt"), "native run\n");
        write(&src.join("data/mesh.txt"), "mesh\n");
        write(&src.join(".git/HEAD"), "ref\n");
        write(&t.path().join("shared/table.txt"), "table\n");
        write(&src.join("main.o"), "object");
        let big = src.join("big.bin");
        std::fs::write(&big, vec![7u8; COPY_LIMIT as usize + 1]).unwrap();
        let keep = t.path().join("kept");
        std::fs::create_dir_all(keep.join("stale")).unwrap();
        let m = Mirror::plan(&src, Some(keep.clone())).unwrap();
        assert!(!keep.exists(), "an earlier check's files are removed");
        let run = t.path().join("run");
        let work = m.make(&run).unwrap();
        assert_eq!(work, run.join("w/proj"));
        let ft = |p: &str| std::fs::symlink_metadata(work.join(p)).unwrap().file_type();
        assert!(ft("input.txt").is_file());
        assert!(ft("data").is_dir());
        assert!(ft("data/mesh.txt").is_file());
        assert!(ft("big.bin").is_symlink());
        assert!(ft("main.o").is_symlink());
        assert!(ft(".git").is_symlink());
        assert_eq!(
            std::fs::read_to_string(work.join("../shared/table.txt")).unwrap(),
            "table\n"
        );
        // The run: a new file, a new directory, an output written over the
        // native run's, a file left alone.
        std::fs::write(work.join("rank0.txt"), "0").unwrap();
        write(&work.join("results/r.txt"), "r");
        std::fs::write(work.join("out.txt"), "fib's run\n").unwrap();
        std::fs::write(work.join("data/mesh.txt"), "mesh\n").unwrap();
        m.keep(&work).unwrap();
        let kept = m.kept().unwrap();
        assert_eq!(kept.dir, keep);
        let names: Vec<&str> = kept.files.iter().map(|p| p.to_str().unwrap()).collect();
        assert_eq!(names, ["out.txt", "rank0.txt", "results/r.txt"]);
        assert_eq!(
            std::fs::read_to_string(keep.join("rank0.txt")).unwrap(),
            "0"
        );
        assert_eq!(
            std::fs::read_to_string(src.join("out.txt")).unwrap(),
            "native run\n",
            "the user's file is untouched"
        );
        assert!(!src.join("rank0.txt").exists());
        remove(&run);
        assert!(!run.exists());
    }

    #[test]
    fn a_run_that_writes_nothing_keeps_nothing() {
        let t = tempfile::tempdir().unwrap();
        let src = t.path().join("p");
        write(&src.join("a.c"), "int main(){}");
        let keep = t.path().join("kept");
        let m = Mirror::plan(&src, Some(keep.clone())).unwrap();
        let work = m.make(&t.path().join("run")).unwrap();
        m.keep(&work).unwrap();
        assert_eq!(m.kept(), None);
        assert!(!keep.exists());
    }

    #[test]
    fn a_directory_the_program_locked_is_removed() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("run");
        write(&d.join("locked/f"), "x");
        std::fs::set_permissions(d.join("locked"), std::fs::Permissions::from_mode(0o500)).unwrap();
        remove(&d);
        assert!(!d.exists());
    }
}
