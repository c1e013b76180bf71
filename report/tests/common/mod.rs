//! What the snapshot tests share: comparing a text with its snapshot file.

use std::path::PathBuf;

/// Compares `actual` with the snapshot file `name` in `tests/snapshots/`, or
/// rewrites the file when `FIB_UPDATE_SNAPSHOTS` is set.
pub fn assert_snapshot(name: &str, actual: &str) {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "snapshots", name]
        .iter()
        .collect();
    if std::env::var_os("FIB_UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read snapshot {}: {e}; run with FIB_UPDATE_SNAPSHOTS=1 to create it",
            path.display()
        )
    });
    assert!(
        expected == actual,
        "{name} differs from its snapshot\n--- expected\n{expected}\n--- actual\n{actual}"
    );
}

/// `text` without its ANSI escape sequences.
pub fn strip_ansi(text: &str) -> String {
    let mut stripped = String::new();
    let mut rest = text;
    while let Some(start) = rest.find('\x1b') {
        stripped.push_str(&rest[..start]);
        let end = rest[start..].find('m').unwrap();
        rest = &rest[start + end + 1..];
    }
    stripped.push_str(rest);
    stripped
}
