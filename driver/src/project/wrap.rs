//! The compiler wrappers of `fib check --build CMD` (see [`super::buildcmd`]):
//! what runs when the user's build calls `mpicc`, `cc`, `ar`... from fib's
//! private directory. `fib __wrap NAME REAL ARGS...` runs the real tool
//! `REAL` with `ARGS` (found on `PATH` without that directory, so neither
//! it nor the tools it calls come back here), and when it succeeds appends
//! one JSON line to the record the driver named: the wrapper's name, the
//! working directory and the arguments. The build's outputs are the real
//! tool's; the wrapper only watches.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::settings;

/// The hidden subcommand the wrapper scripts call.
pub const SUBCOMMAND: &str = "__wrap";

/// One tool invocation as the wrapper saw it.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Invocation {
    /// The wrapper's name: the tool the build called (`mpicc`, `ar`, or
    /// `CC` for the one in the environment variable).
    pub name: String,
    /// The directory it ran in.
    pub cwd: PathBuf,
    /// Its arguments, without the tool itself.
    pub args: Vec<String>,
}

/// `PATH` without the wrappers' directory `dir`.
pub(crate) fn path_without(path: &std::ffi::OsStr, dir: &Path) -> OsString {
    let kept: Vec<PathBuf> = std::env::split_paths(path)
        .filter(|p| p != dir && !(p.as_os_str().is_empty() && dir.as_os_str().is_empty()))
        .collect();
    std::env::join_paths(kept).unwrap_or_default()
}

/// The real tool `real` stands for: itself when it is a path, else the
/// first executable of that name on `path`.
fn resolve(real: &str, path: &std::ffi::OsStr) -> Option<PathBuf> {
    if real.contains('/') {
        return Some(PathBuf::from(real));
    }
    std::env::split_paths(path)
        .map(|d| d.join(real))
        .find(|p| crate::toolchain::is_executable(p))
}

/// `fib __wrap NAME REAL ARGS...`: runs the real tool, records the
/// invocation when it succeeds, and returns its exit status.
pub fn main(args: &[OsString]) -> i32 {
    let [name, real, rest @ ..] = args else {
        eprintln!("fib {SUBCOMMAND}: usage: fib {SUBCOMMAND} NAME REAL ARGS...");
        return 2;
    };
    let (name, real) = (name.to_string_lossy(), real.to_string_lossy());
    let dir = settings::wrap_dir();
    let path = path_without(&settings::path().unwrap_or_default(), &dir);
    let Some(tool) = resolve(&real, &path) else {
        eprintln!("fib: `{real}` (which the build calls as `{name}`) is not on PATH");
        return 127;
    };
    let status = Command::new(&tool)
        .args(rest)
        .env("PATH", &path)
        .env_remove(settings::var::WRAP_LOG)
        .status();
    let status = match status {
        Ok(s) => s,
        Err(e) => {
            eprintln!("fib: cannot run `{}`: {e}", tool.display());
            return 127;
        }
    };
    let code = match status.code() {
        Some(c) => c,
        None => {
            use std::os::unix::process::ExitStatusExt;
            128 + status.signal().unwrap_or(0)
        }
    };
    if code == 0 {
        if let Some(log) = settings::wrap_log() {
            let inv = Invocation {
                name: name.into_owned(),
                cwd: std::env::current_dir().unwrap_or_default(),
                args: rest
                    .iter()
                    .map(|a| a.to_string_lossy().into_owned())
                    .collect(),
            };
            if let Err(e) = append(Path::new(&log), &inv) {
                eprintln!("fib: cannot record the build's command line: {e}");
                return 2;
            }
        }
    }
    code
}

/// Appends `inv` to the record as one line, in one write (the build may
/// run tools in parallel).
fn append(log: &Path, inv: &Invocation) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(inv).map_err(std::io::Error::other)?;
    line.push(b'\n');
    let mut f = std::fs::OpenOptions::new().append(true).open(log)?;
    f.write_all(&line)
}

/// Reads the record the wrappers wrote.
pub(crate) fn read(log: &Path) -> std::io::Result<Vec<Invocation>> {
    let text = std::fs::read_to_string(log)?;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).map_err(std::io::Error::other))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wrappers_directory_is_taken_off_path() {
        let p = path_without(
            std::ffi::OsStr::new("/tmp/fib-w:/usr/bin:/bin"),
            Path::new("/tmp/fib-w"),
        );
        assert_eq!(p, OsString::from("/usr/bin:/bin"));
    }
}
