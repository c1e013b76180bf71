//! The baseline file (`--baseline`, `--write-baseline`): read and written
//! here, its findings named by their programs' paths relative to the file.
//! What a baseline keeps and leaves out is [`fib_report::baseline`]'s.

use std::path::{Component, Path, PathBuf};

use fib_report::baseline::Baseline;
use fib_report::Report;

use super::read;
use crate::DriverError;

/// How the baseline stored in `file` names the program shown as `program`:
/// its path relative to the baseline file's directory, with `/`.
fn baseline_name(file: &Path, program: &str) -> String {
    let abs = |p: &Path| {
        std::fs::canonicalize(p).unwrap_or_else(|_| {
            std::env::current_dir()
                .map(|d| d.join(p))
                .unwrap_or_else(|_| p.to_path_buf())
        })
    };
    let dir = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let rel = relative(&abs(Path::new(program)), &abs(dir));
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// `path` relative to `base` (both absolute), with `..` where needed.
fn relative(path: &Path, base: &Path) -> PathBuf {
    let p: Vec<Component> = path.components().collect();
    let b: Vec<Component> = base.components().collect();
    let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &p[common..] {
        out.push(c.as_os_str());
    }
    out
}

/// Reads the baseline in `file`; an error names the file.
pub fn read_baseline(file: &Path) -> Result<Baseline, DriverError> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| DriverError::Io(format!("reading the baseline {}", file.display()), e))?;
    Baseline::parse(&text)
        .map_err(|e| DriverError::Input(format!("{}: not a fib baseline: {e}", file.display())))
}

/// Takes out of `report` the findings the baseline (read from `file`)
/// knows.
pub fn apply_baseline(baseline: &Baseline, file: &Path, report: &mut Report) {
    baseline.apply(report, &|p| baseline_name(file, p), &mut read);
}

/// Writes every finding of `report` to `file` as a baseline; returns how
/// many findings it holds.
pub fn write_baseline(file: &Path, report: &Report) -> Result<usize, DriverError> {
    let b = Baseline::of(report, &|p| baseline_name(file, p), &mut read);
    std::fs::write(file, b.to_json())
        .map_err(|e| DriverError::Io(format!("writing the baseline {}", file.display()), e))?;
    Ok(b.findings.iter().map(|e| e.count).sum())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_climb_where_needed() {
        assert_eq!(
            relative(Path::new("/r/src/a.c"), Path::new("/r")),
            PathBuf::from("src/a.c")
        );
        assert_eq!(
            relative(Path::new("/r/src/a.c"), Path::new("/r/ci")),
            PathBuf::from("../src/a.c")
        );
    }
}
