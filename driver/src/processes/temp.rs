//! The temporary directories of the work in progress (a run's socket
//! directory, a build's, the compiler wrappers of `--build`): each is
//! noted while its work goes on, so that an exit without unwinding (the
//! CLI's second Ctrl-C) can still remove it.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Temporary directories of the run in progress, removed on interrupt.
static TEMP_DIRS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A temporary directory noted while the work that made it goes on: it is
/// forgotten when the guard drops, as the work ends normally (the
/// directory itself is removed by its owner).
pub(crate) struct Temp(PathBuf);

impl Temp {
    /// Notes `dir` to remove if fib exits while its work goes on.
    pub(crate) fn register(dir: &Path) -> Temp {
        TEMP_DIRS.lock().unwrap().push(dir.to_path_buf());
        Temp(dir.to_path_buf())
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        TEMP_DIRS.lock().unwrap().retain(|d| *d != self.0);
    }
}

/// Removes every directory noted, for a process about to exit.
pub(super) fn remove_all() {
    let dirs = std::mem::take(&mut *TEMP_DIRS.lock().unwrap());
    for d in dirs {
        let _ = std::fs::remove_dir_all(d);
    }
}
