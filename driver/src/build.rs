//! Compiles a user's program with the MPI compiler, force-including the site
//! header, into a private directory.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::DriverError;

/// A compiled program, living in its own temporary directory (removed when
/// this is dropped, or by [`crate::kill_current_run`] on interrupt).
pub struct Built {
    pub exe: PathBuf,
    pub dir: tempfile::TempDir,
}

impl Drop for Built {
    fn drop(&mut self) {
        crate::launch::unregister_temp(self.dir.path());
    }
}

/// What a failed build printed.
pub struct BuildFailure {
    /// The compiler's diagnostics.
    pub output: String,
    /// The first `file:line` the compiler blamed, if any.
    pub file: Option<String>,
    pub line: Option<u32>,
}

/// Compiles `source` with `mpicc`. The compiler runs in the current
/// directory with the path as the user gave it, so `__FILE__` and the
/// compiler's own messages name the user's file as the user knows it.
pub fn build(mpicc: &str, source: &Path) -> Result<Result<Built, BuildFailure>, DriverError> {
    let dir = tempfile::Builder::new()
        .prefix("fib-build-")
        .tempdir()
        .map_err(|e| DriverError::Io("creating a build directory".into(), e))?;
    crate::launch::register_temp(dir.path());
    let header = dir.path().join(instrument::HEADER_NAME);
    std::fs::write(&header, instrument::site_header())
        .map_err(|e| DriverError::Io(format!("writing {}", header.display()), e))?;
    let exe = dir.path().join("program");
    let lang_cxx = matches!(
        source.extension().and_then(|e| e.to_str()),
        Some("cc" | "cpp" | "cxx" | "C")
    );
    let out = Command::new(mpicc)
        .arg("-g")
        .arg("-O0")
        .arg("-include")
        .arg(&header)
        .arg(source)
        .arg("-o")
        .arg(&exe)
        .args(if lang_cxx { &["-lstdc++"][..] } else { &[][..] })
        .output()
        .map_err(|e| DriverError::Tool(mpicc.to_string(), e))?;
    if out.status.success() {
        return Ok(Ok(Built { exe, dir }));
    }
    crate::launch::unregister_temp(dir.path());
    let instrumented =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    // The site macros can change what the compiler says about an error;
    // the user's own build is what the user should see.
    let plain = Command::new(mpicc)
        .arg("-fsyntax-only")
        .arg(source)
        .output()
        .map_err(|e| DriverError::Tool(mpicc.to_string(), e))?;
    let text = if plain.status.success() {
        format!(
            "the program compiles, but not with fib's site instrumentation (a bug in fib):\n{instrumented}"
        )
    } else {
        String::from_utf8_lossy(&plain.stderr).into_owned()
            + &String::from_utf8_lossy(&plain.stdout)
    };
    let (file, line) = first_location(&text, source);
    Ok(Err(BuildFailure {
        output: text,
        file,
        line,
    }))
}

/// The first `path:line:` in compiler output that names the program's file
/// (or any file, failing that).
fn first_location(text: &str, source: &Path) -> (Option<String>, Option<u32>) {
    let src = source.to_string_lossy();
    let mut any = None;
    for l in text.lines() {
        let mut parts = l.splitn(3, ':');
        let (Some(f), Some(n)) = (parts.next(), parts.next()) else {
            continue;
        };
        let Ok(n) = n.trim().parse::<u32>() else {
            continue;
        };
        if f == src {
            return (Some(f.to_string()), Some(n));
        }
        if any.is_none() {
            any = Some((f.to_string(), n));
        }
    }
    match any {
        Some((f, n)) => (Some(f), Some(n)),
        None => (Some(src.into_owned()), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_users_file_in_compiler_output() {
        let text = "In file included from x.h:3:\nprog.c: In function 'main':\nprog.c:7:5: error: expected ';'\n";
        assert_eq!(
            first_location(text, Path::new("prog.c")),
            (Some("prog.c".into()), Some(7))
        );
    }
}
