//! The MPI toolchain a program is built and run with: the implementation
//! (`mpi`: its compiler wrappers, launcher and packages), the tools the
//! user names instead of its own (`FIB_MPICC`, `FIB_MPICXX`, `FIB_MPIEXEC`), and the
//! interposition library built against it (`interpose`, [`Libraries`]). [`Toolchain`]
//! gathers them for a check; [`for_program`] chooses them for a program
//! fib did not build (`fib run`).

use std::path::{Path, PathBuf};

use crate::settings::Tools;
use crate::DriverError;

mod interpose;
mod mpi;

use interpose::built_against;
pub use interpose::{Libraries, Source};
pub(crate) use mpi::is_executable;
pub use mpi::Mpi;

/// The tools a check uses for one MPI implementation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Toolchain {
    pub mpi: Mpi,
    /// The compiler wrapper (`mpicc.mpich`, or `FIB_MPICC`).
    pub mpicc: String,
    /// The C++ compiler wrapper (`mpicxx.mpich`, or `FIB_MPICXX`): it
    /// compiles the C++ sources, and links a program that has one.
    pub mpicxx: String,
    /// The launcher (`mpiexec.mpich`, or `FIB_MPIEXEC`).
    pub mpiexec: String,
    /// The interposition library built against this implementation.
    pub interpose: PathBuf,
    /// The user's launch command (`--launcher`), which replaces
    /// `mpiexec -n N`: the ranks then reach the scheduler over TCP and run
    /// in the working directory itself.
    pub launcher: Option<crate::settings::Launcher>,
}

impl Toolchain {
    /// The tools for `mpi`: those `tools` names, else the implementation's
    /// own, and its interposition library from `libraries`, built first if
    /// need be (`note` hears about it).
    pub(crate) fn for_mpi(
        mpi: Mpi,
        tools: &Tools,
        libraries: &Libraries,
        note: &dyn Fn(&str),
    ) -> Result<Toolchain, DriverError> {
        let interpose = libraries.library(mpi, note)?;
        Ok(Toolchain {
            mpi,
            mpicc: tools.mpicc.clone().unwrap_or_else(|| mpi.mpicc().into()),
            mpicxx: tools.mpicxx.clone().unwrap_or_else(|| mpi.mpicxx().into()),
            mpiexec: tools
                .mpiexec
                .clone()
                .unwrap_or_else(|| mpi.mpiexec().into()),
            interpose,
            launcher: None,
        })
    }
}

/// The toolchain to run the program `exe` (which fib did not build) under:
/// the implementation `requested` (`--mpi`), else the one it is linked
/// with, else the one installed; with the tools fib's environment names
/// and the interposition library (`note` hears about building it).
pub fn for_program(
    exe: &Path,
    requested: Option<Mpi>,
    note: &dyn Fn(&str),
) -> Result<Toolchain, DriverError> {
    let linked = built_against(exe);
    let mpi = match (requested, linked) {
        (Some(m), Some(l)) if m != l => {
            return Err(DriverError::Input(format!(
                "{} is linked with {l}: it cannot run under {m} (--mpi {})",
                exe.display(),
                m.key()
            )))
        }
        (Some(m), _) | (None, Some(m)) => Mpi::choose(Some(m)),
        (None, None) => Mpi::detect(),
    }
    .map_err(DriverError::Input)?;
    Toolchain::for_mpi(mpi, &Tools::from_env(), &Libraries::from_env(), note)
}
