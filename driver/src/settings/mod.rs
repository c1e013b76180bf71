//! Every setting fib takes from outside its command line, in one place: the
//! defaults of the options (used when neither the command line nor
//! `fib.toml` says), and each environment variable the driver reads, with
//! the function that reads it. No other module of the driver reads fib's
//! environment; the variables passed on to the ranks are named by
//! [`fib_wire::env`], which the interposition library reads on its side.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

/// The time limit of one interleaving (`--timeout`).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// The limit on interleavings (`--max-interleavings`).
pub const DEFAULT_MAX_INTERLEAVINGS: usize = 10_000;
/// The process count used when neither `-n`, `fib.toml` nor a `fib:`
/// directive says.
pub const DEFAULT_NPROCS: usize = 2;

/// Where a program's runs write the files they create (`run_in` in
/// `fib.toml`, `--run-in`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RunIn {
    /// Each run in a scratch directory of its own, in which the program
    /// finds the files of its working directory; the first run's files
    /// are kept in fib's cache (the default).
    #[default]
    Scratch,
    /// Every run in the working directory itself: what the program writes
    /// lands there.
    Source,
}

impl RunIn {
    /// `scratch` or `source`; an error message for anything else.
    pub fn parse(s: &str) -> Result<RunIn, String> {
        match s {
            "scratch" => Ok(RunIn::Scratch),
            "source" => Ok(RunIn::Source),
            _ => Err(format!(
                "`{s}`: runs are in a scratch directory (`scratch`) or in the program's directory (`source`)"
            )),
        }
    }
}

/// A launch command of the user's (`--launcher`, `launcher` in `fib.toml`)
/// in place of the implementation's `mpiexec`: its words, one of which
/// holds `{n}` for the process count; the program and its arguments follow
/// them. `srun -n {n}`, `mpiexec.mpich -f hosts -n {n}`,
/// `mpirun --hostfile hosts -np {n}`. The ranks it starts may be on other
/// hosts: they reach fib over TCP and run in the working directory itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launcher {
    words: Vec<String>,
}

impl Launcher {
    /// Splits `s` as a shell would (quotes, backslashes; no expansion).
    pub fn parse(s: &str) -> Result<Launcher, String> {
        let Some(words) = shlex::split(s) else {
            return Err(format!("`{s}`: a quote is not closed"));
        };
        if words.is_empty() {
            return Err("the launch command is empty".into());
        }
        if !words.iter().any(|w| w.contains("{n}")) {
            return Err(format!(
                "`{s}` does not say where the process count goes: write `{{n}}` there, as in `srun -n {{n}}`"
            ));
        }
        Ok(Launcher { words })
    }

    /// The command for `n` processes, before the program.
    pub fn command(&self, n: usize) -> Vec<String> {
        let n = n.to_string();
        self.words.iter().map(|w| w.replace("{n}", &n)).collect()
    }

    /// The launcher's program, as written.
    pub fn program(&self) -> &str {
        &self.words[0]
    }
}

impl std::fmt::Display for Launcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&shlex::try_join(self.words.iter().map(String::as_str)).unwrap_or_default())
    }
}

/// How the runs go (`--mode`, `mode` in `fib.toml`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// Every rank's calls go through fib's scheduler as they are made,
    /// which decides every choice.
    #[default]
    Scheduled,
    /// The ranks never wait for the scheduler: every call goes to MPI at
    /// once, the reports come in bulk, and the scheduler reads each run
    /// back, forcing only the receives of its plan.
    Recorded,
}

impl Mode {
    pub fn parse(s: &str) -> Result<Mode, String> {
        match s {
            "scheduled" => Ok(Mode::Scheduled),
            "recorded" => Ok(Mode::Recorded),
            _ => Err(format!(
                "`{s}`: runs are `scheduled` (every call through fib's scheduler) or `recorded` (every call straight to MPI, read back afterwards)"
            )),
        }
    }
}

/// `FIB_HOST`: the address the ranks of a `--launcher` run reach fib at,
/// when this host's first address is not the one they can reach.
pub fn host() -> Option<String> {
    text(var::HOST).filter(|h| !h.trim().is_empty())
}

/// How many interleavings run at once when neither `--jobs` nor `fib.toml`
/// says: one per core.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The names of the environment variables the driver reads (those it
/// passes to the ranks are [`fib_wire::env`]'s).
pub mod var {
    /// fib's cache directory.
    pub const CACHE_DIR: &str = "FIB_CACHE_DIR";
    /// The MPI C compiler wrapper to use instead of the implementation's.
    pub const MPICC: &str = "FIB_MPICC";
    /// The MPI C++ compiler wrapper to use instead of the implementation's.
    pub const MPICXX: &str = "FIB_MPICXX";
    /// The launcher to use instead of the implementation's `mpiexec`.
    pub const MPIEXEC: &str = "FIB_MPIEXEC";
    /// The interposition library to use for every implementation.
    pub const INTERPOSE_LIB: &str = "FIB_INTERPOSE_LIB";
    /// The record the compiler wrappers of `--build` append to.
    pub const WRAP_LOG: &str = "FIB_WRAP_LOG";
    /// The directory of the compiler wrappers of `--build`.
    pub const WRAP_DIR: &str = "FIB_WRAP_DIR";
    /// Memory checking: `auto` (the default), `on` or `off`.
    pub const MEMORY: &str = "FIB_MEMORY";
    /// The address the ranks of a `--launcher` run connect to.
    pub const HOST: &str = "FIB_HOST";
}

/// Whether fib builds programs to see their loads and stores (the memory
/// MPI owns is checked only in programs built so).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Memory {
    /// Only programs that call a nonblocking or persistent operation, a
    /// nonblocking collective or a one-sided function.
    Auto,
    /// Every program.
    On,
    /// No program.
    Off,
}

/// `FIB_MEMORY`: `auto` when unset or empty; any other value than `auto`,
/// `on` or `off` is an error naming it.
pub fn memory() -> Result<Memory, crate::DriverError> {
    match text(var::MEMORY).as_deref().map(str::trim) {
        None | Some("") | Some("auto") => Ok(Memory::Auto),
        Some("on") => Ok(Memory::On),
        Some("off") => Ok(Memory::Off),
        Some(v) => Err(crate::DriverError::Input(format!(
            "{}={v}: memory checking is `auto`, `on` or `off`",
            var::MEMORY
        ))),
    }
}

/// The value of `name`, when it is set and valid Unicode.
fn text(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// fib's build cache: `FIB_CACHE_DIR`, else `$XDG_CACHE_HOME/fib`, else
/// `~/.cache/fib`, else `fib-cache` in the temporary directory.
pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os(var::CACHE_DIR) {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(d).join("fib");
    }
    match home() {
        Some(h) => h.join(".cache/fib"),
        None => std::env::temp_dir().join("fib-cache"),
    }
}

/// The user's home directory (`HOME`).
pub(crate) fn home() -> Option<PathBuf> {
    std::env::var_os("HOME").map(PathBuf::from)
}

/// The tools the user names instead of the MPI implementation's own:
/// `FIB_MPICC`, `FIB_MPICXX`, `FIB_MPIEXEC` (each `None` when unset).
#[derive(Clone, Debug, Default)]
pub(crate) struct Tools {
    pub mpicc: Option<String>,
    pub mpicxx: Option<String>,
    pub mpiexec: Option<String>,
}

impl Tools {
    /// Reads the three variables.
    pub(crate) fn from_env() -> Tools {
        Tools {
            mpicc: text(var::MPICC),
            mpicxx: text(var::MPICXX),
            mpiexec: text(var::MPIEXEC),
        }
    }
}

/// The interposition library the user names for every implementation
/// (`FIB_INTERPOSE_LIB`).
pub(crate) fn interpose_lib() -> Option<PathBuf> {
    std::env::var_os(var::INTERPOSE_LIB).map(PathBuf::from)
}

/// Whether standard sends go from a copy from the first run on
/// (`FIB_COPY_SENDS=1`, to compare); otherwise runs start without copies.
pub(crate) fn copy_sends() -> bool {
    text(fib_wire::env::COPY_SENDS).is_some_and(|v| v == "1")
}

/// `FIB_AHEAD` as fib was given it: passed on to the ranks (it turns calls
/// going ahead of the scheduler off, for comparison).
pub(crate) fn ahead() -> Option<String> {
    text(fib_wire::env::AHEAD)
}

/// The libclang fib loads (`LIBCLANG_PATH`): part of the key of a cached
/// parse.
pub(crate) fn libclang_path() -> Option<OsString> {
    std::env::var_os("LIBCLANG_PATH")
}

/// `PATH`, when set.
pub(crate) fn path() -> Option<OsString> {
    std::env::var_os("PATH")
}

/// A compiler the user's environment names for a build (`CC`, `CXX`,
/// `MPICC`, `MPICXX`), when set and not blank.
pub(crate) fn compiler(name: &str) -> Option<String> {
    text(name).filter(|v| !v.trim().is_empty())
}

/// The record the compiler wrappers append to (`FIB_WRAP_LOG`), in a
/// wrapper.
pub(crate) fn wrap_log() -> Option<OsString> {
    std::env::var_os(var::WRAP_LOG)
}

/// The wrappers' own directory (`FIB_WRAP_DIR`), in a wrapper; empty when
/// unset.
pub(crate) fn wrap_dir() -> PathBuf {
    std::env::var_os(var::WRAP_DIR)
        .map(PathBuf::from)
        .unwrap_or_default()
}

/// The cargo running fib (`CARGO`), the one the interposition library is
/// built with when it is a file.
pub(crate) fn cargo() -> Option<PathBuf> {
    std::env::var_os("CARGO").map(PathBuf::from)
}

/// Cargo's home (`CARGO_HOME`), else `~/.cargo`.
pub(crate) fn cargo_home() -> Option<PathBuf> {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| home().map(|h| h.join(".cargo")))
}

/// Whether the user names the Rust compiler cargo uses (`RUSTC`).
pub(crate) fn rustc_set() -> bool {
    std::env::var_os("RUSTC").is_some()
}
