//! Helpers shared by the instrument tests: the fixtures' directory and
//! MPICH's parser flags.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The directory of the test fixtures.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// MPICH's parser flags.
pub fn flags() -> Vec<String> {
    instrument::mpi_flags("mpicc.mpich").expect("mpicc.mpich -show")
}

/// Analyses the named files of a fixture directory, with the directory as
/// the checked tree.
pub fn analyze(dir: &str, files: &[&str]) -> instrument::Analysis {
    let root = fixtures().join(dir);
    let flags = flags();
    let units: Vec<_> = files
        .iter()
        .map(|f| (root.join(f), flags.clone()))
        .collect();
    instrument::analyze(&root, &units).expect("analysis runs")
}
