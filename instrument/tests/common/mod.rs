//! Helpers shared by the instrument tests: the fixtures' directory, MPICH's
//! parser flags, and snapshot comparison.

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

/// Compares `actual` with the snapshot file at `path`, or rewrites the file
/// when `FIB_UPDATE_SNAPSHOTS=1`.
pub fn snapshot(path: &Path, actual: &str) {
    if std::env::var("FIB_UPDATE_SNAPSHOTS").as_deref() == Ok("1") {
        std::fs::write(path, actual).expect("write snapshot");
        return;
    }
    let expected = std::fs::read_to_string(path).unwrap_or_else(|_| {
        panic!(
            "no snapshot {}; run with FIB_UPDATE_SNAPSHOTS=1 to create it",
            path.display()
        )
    });
    assert_eq!(
        expected,
        actual,
        "{} differs (FIB_UPDATE_SNAPSHOTS=1 rewrites it)",
        path.display()
    );
}
