//! The MPI implementations fib runs programs under, and what differs between
//! them on the way: the compiler wrapper, the launcher and its flags, the
//! Debian packages that provide them.
//!
//! Nothing about an implementation's handles or constants is written here:
//! the interposition library is built against each implementation's own
//! headers (see [`super::interpose`]).

use std::path::{Path, PathBuf};
use std::process::Command;

/// An MPI implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mpi {
    Mpich,
    OpenMpi,
}

impl Mpi {
    /// Every implementation fib knows, in the order `detect` prefers them.
    pub const ALL: [Mpi; 2] = [Mpi::Mpich, Mpi::OpenMpi];

    /// The name written on the command line and in `fib.toml`.
    pub fn key(self) -> &'static str {
        match self {
            Mpi::Mpich => "mpich",
            Mpi::OpenMpi => "openmpi",
        }
    }

    /// The name shown to the user.
    pub fn name(self) -> &'static str {
        match self {
            Mpi::Mpich => "MPICH",
            Mpi::OpenMpi => "Open MPI",
        }
    }

    /// The implementation a user's spelling names (`mpich`, `MPICH`,
    /// `openmpi`, `Open MPI`, `open-mpi`, `ompi`).
    pub fn parse(s: &str) -> Option<Mpi> {
        match s.to_ascii_lowercase().replace([' ', '-', '_'], "").as_str() {
            "mpich" => Some(Mpi::Mpich),
            "openmpi" | "ompi" => Some(Mpi::OpenMpi),
            _ => None,
        }
    }

    /// The C compiler wrapper (Debian installs both side by side under
    /// these names; plain `mpicc` is whichever the alternatives chose).
    pub fn mpicc(self) -> &'static str {
        match self {
            Mpi::Mpich => "mpicc.mpich",
            Mpi::OpenMpi => "mpicc.openmpi",
        }
    }

    /// The C++ compiler wrapper, which compiles and links C++ sources
    /// (against the C++ standard library and, for MPICH, its C++ bindings).
    pub fn mpicxx(self) -> &'static str {
        match self {
            Mpi::Mpich => "mpicxx.mpich",
            Mpi::OpenMpi => "mpicxx.openmpi",
        }
    }

    /// The launcher.
    pub fn mpiexec(self) -> &'static str {
        match self {
            Mpi::Mpich => "mpiexec.mpich",
            Mpi::OpenMpi => "mpiexec.openmpi",
        }
    }

    /// The Debian packages that provide the wrapper, the launcher and the
    /// headers.
    pub fn packages(self) -> &'static str {
        match self {
            Mpi::Mpich => "mpich libmpich-dev",
            Mpi::OpenMpi => "openmpi-bin libopenmpi-dev",
        }
    }

    /// The start of the shared library's name every program built with
    /// this implementation links (`DT_NEEDED`).
    pub fn library_prefix(self) -> &'static str {
        match self {
            Mpi::Mpich => "libmpich.so",
            Mpi::OpenMpi => "libmpi.so",
        }
    }

    /// Whether both the compiler wrapper and the launcher are on `PATH`.
    pub fn installed(self) -> bool {
        on_path(self.mpicc()).is_some() && on_path(self.mpiexec()).is_some()
    }

    /// The implementation to use when none is asked for: MPICH when both
    /// are installed.
    pub fn detect() -> Result<Mpi, String> {
        Mpi::ALL.into_iter().find(|m| m.installed()).ok_or_else(|| {
            format!(
                "no MPI implementation found: neither {} nor {} is on PATH; install MPICH (apt-get install {}) or Open MPI (apt-get install {})",
                Mpi::Mpich.mpicc(),
                Mpi::OpenMpi.mpicc(),
                Mpi::Mpich.packages(),
                Mpi::OpenMpi.packages()
            )
        })
    }

    /// `requested` if it is installed, else a message naming what to
    /// install; with nothing requested, [`Mpi::detect`].
    pub fn choose(requested: Option<Mpi>) -> Result<Mpi, String> {
        match requested {
            None => Mpi::detect(),
            Some(m) if m.installed() => Ok(m),
            Some(m) => Err(format!(
                "{} is not installed ({} or {} is not on PATH); install it with apt-get install {}",
                m.name(),
                m.mpicc(),
                m.mpiexec(),
                m.packages()
            )),
        }
    }

    /// The launcher's arguments before the program: `nprocs` ranks, each
    /// with the environment variables `env` (and nothing else changed for
    /// the launcher itself).
    pub fn launch_args(self, nprocs: usize, env: &[(&str, &str)]) -> Vec<String> {
        let mut args = Vec::new();
        match self {
            Mpi::Mpich => {
                args.extend(["-n".to_string(), nprocs.to_string()]);
                for (k, v) in env {
                    args.extend(["-env".to_string(), k.to_string(), v.to_string()]);
                }
            }
            Mpi::OpenMpi => {
                // Root is refused without the first flag; more ranks than
                // cores without the second. Shared memory only, without
                // the cross-memory-attach copy that containers forbid, and
                // no binding of ranks to cores, which oversubscribed ranks
                // would fight over. One-sided communication through the
                // shared-memory component where it applies and the
                // point-to-point one otherwise: the default (rdma) needs
                // the single copy turned off above, and without it
                // MPI_Win_create and MPI_Win_create_dynamic fail with
                // MPI_ERR_WIN.
                args.extend(
                    [
                        "--allow-run-as-root",
                        "--oversubscribe",
                        "--bind-to",
                        "none",
                        "--mca",
                        "btl",
                        "self,vader",
                        "--mca",
                        "btl_vader_single_copy_mechanism",
                        "none",
                        "--mca",
                        "osc",
                        "sm,pt2pt",
                        "-n",
                    ]
                    .map(String::from),
                );
                args.push(nprocs.to_string());
                for (k, v) in env {
                    args.extend(["-x".to_string(), format!("{k}={v}")]);
                }
            }
        }
        args
    }

    /// The implementation's version as its launcher's `--version` tells
    /// it (`4.0.2`), when it can be run.
    pub fn version(self) -> Option<String> {
        let out = Command::new(self.mpiexec())
            .arg("--version")
            .output()
            .ok()?;
        let text = String::from_utf8_lossy(&out.stdout);
        let line = match self {
            // "    Version:     4.0.2"
            Mpi::Mpich => text
                .lines()
                .find(|l| l.trim_start().starts_with("Version:"))?,
            // "mpiexec.openmpi (OpenRTE) 4.1.4"
            Mpi::OpenMpi => text.lines().next()?,
        };
        line.split_whitespace().last().map(str::to_string)
    }
}

impl std::fmt::Display for Mpi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Where `tool` is on `PATH`, if it is.
pub fn on_path(tool: &str) -> Option<PathBuf> {
    if tool.contains('/') {
        let p = Path::new(tool);
        return p.is_file().then(|| p.to_path_buf());
    }
    let path = crate::settings::path()?;
    std::env::split_paths(&path)
        .map(|d| d.join(tool))
        .find(|p| is_executable(p))
}

pub(crate) fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings() {
        assert_eq!(Mpi::parse("MPICH"), Some(Mpi::Mpich));
        assert_eq!(Mpi::parse("Open MPI"), Some(Mpi::OpenMpi));
        assert_eq!(Mpi::parse("open-mpi"), Some(Mpi::OpenMpi));
        assert_eq!(Mpi::parse("intel"), None);
        for m in Mpi::ALL {
            assert_eq!(Mpi::parse(m.key()), Some(m));
        }
    }

    #[test]
    fn launch_arguments_per_implementation() {
        let env = [("LD_PRELOAD", "/x/lib.so"), ("FIB_SOCKET", "/tmp/s")];
        assert_eq!(
            Mpi::Mpich.launch_args(3, &env),
            [
                "-n",
                "3",
                "-env",
                "LD_PRELOAD",
                "/x/lib.so",
                "-env",
                "FIB_SOCKET",
                "/tmp/s"
            ]
        );
        let o = Mpi::OpenMpi.launch_args(3, &env);
        assert!(o.contains(&"--allow-run-as-root".to_string()));
        assert!(o.contains(&"--oversubscribe".to_string()));
        assert!(o.ends_with(&[
            "-n".into(),
            "3".into(),
            "-x".into(),
            "LD_PRELOAD=/x/lib.so".into(),
            "-x".into(),
            "FIB_SOCKET=/tmp/s".into()
        ]));
    }
}
