//! Builds a program from instrumented copies of its sources into a cache
//! keyed by content, so an unchanged tree is never compiled twice; when the
//! build fails, shows the user's own build's errors on the user's files.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::discover::{Program, Tree};
use crate::explore::launch;
use crate::DriverError;

/// A built program.
pub struct Build {
    pub exe: PathBuf,
    /// Whether it came from the cache.
    pub cached: bool,
}

/// Why a program did not build.
pub struct BuildFailure {
    pub output: String,
    pub file: Option<String>,
    pub line: Option<u32>,
}

/// A stable 128-bit content hash (two FNV-1a lanes), for cache keys.
pub(crate) struct Hash(u64, u64);

impl Hash {
    pub(crate) fn new() -> Hash {
        Hash(0xcbf2_9ce4_8422_2325, 0x6c62_272e_07bb_0142)
    }
    pub(crate) fn add(&mut self, bytes: &[u8]) {
        for &b in bytes.iter().chain(&(bytes.len() as u64).to_le_bytes()) {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
            self.1 = (self.1 ^ b as u64)
                .wrapping_mul(0x0000_0100_0000_01b3)
                .rotate_left(5);
        }
    }
    pub(crate) fn hex(&self) -> String {
        format!("{:016x}{:016x}", self.0, self.1)
    }
}

/// fib's build cache: `FIB_CACHE_DIR`, else `$XDG_CACHE_HOME/fib`, else
/// `~/.cache/fib`.
pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("FIB_CACHE_DIR") {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(d).join("fib");
    }
    match std::env::var_os("HOME") {
        Some(h) => PathBuf::from(h).join(".cache/fib"),
        None => std::env::temp_dir().join("fib-cache"),
    }
}

/// A program's instrumented copies and the cache key of its build.
struct Inputs {
    header: String,
    /// Each source and header of the tree, relative to its root, rewritten.
    copies: Vec<(PathBuf, String)>,
    key: String,
}

fn io(what: String) -> impl FnOnce(std::io::Error) -> DriverError {
    move |e| DriverError::Io(what, e)
}

impl Tree {
    /// Builds `program` from instrumented copies of its sources and of the
    /// tree's headers, or takes it from the cache when the same inputs were
    /// built before.
    pub fn build(
        &self,
        program: &Program,
        mpicc: &str,
    ) -> Result<Result<Build, BuildFailure>, DriverError> {
        let inputs = self.inputs(program, mpicc);
        let builds = cache_dir().join("builds");
        let dir = builds.join(&inputs.key);
        let exe = dir.join("program");
        if exe.is_file() {
            return Ok(Ok(Build { exe, cached: true }));
        }
        std::fs::create_dir_all(&builds).map_err(io(format!("creating {}", builds.display())))?;
        let work = tempfile::Builder::new()
            .prefix("tmp-")
            .tempdir_in(&builds)
            .map_err(io("creating a build directory".into()))?;
        launch::register_temp(work.path());
        let _forget = launch::Forget(work.path().to_path_buf());
        let step = self.compile(program, mpicc, &inputs, work.path())?;
        if !matches!(step, Step::Done) && launch::interrupted() {
            // Ctrl-C reaches the compiler too: its failure says nothing
            // about the program.
            return Err(DriverError::Interrupted);
        }
        match step {
            Step::Done => {}
            Step::Compile(out) => {
                let instrumented = String::from_utf8_lossy(&out.stderr).into_owned();
                return self.failure(program, mpicc, instrumented).map(Err);
            }
            Step::Link(out) => {
                let raw = String::from_utf8_lossy(&out.stderr).into_owned();
                return Ok(Err(self.shown_failure(program, raw)));
            }
        }
        // Publish atomically: a concurrent check of the same tree either
        // sees no entry or a complete one.
        let done = work.path().join("program");
        let staged = tempfile::Builder::new()
            .prefix("tmp-")
            .tempdir_in(&builds)
            .map_err(io("creating a build directory".into()))?
            .keep();
        std::fs::rename(&done, staged.join("program"))
            .map_err(io(format!("moving {}", done.display())))?;
        if std::fs::rename(&staged, &dir).is_err() && !exe.is_file() {
            return Err(DriverError::Io(
                format!("publishing {}", dir.display()),
                std::io::Error::other("rename failed"),
            ));
        }
        let _ = std::fs::remove_dir_all(&staged);
        Ok(Ok(Build { exe, cached: false }))
    }

    /// The instrumented copies of a program's files and their cache key.
    fn inputs(&self, program: &Program, mpicc: &str) -> Inputs {
        let header = instrument::site_header();
        let mut copies: Vec<(PathBuf, String)> = Vec::new();
        for rel in program.sources.iter().chain(&self.headers) {
            let Some(text) = program.text(&self.root, rel) else {
                continue;
            };
            let sites = program.sites_in(rel);
            copies.push((rel.clone(), instrument::rewrite(&text, &sites)));
        }
        let mut key = Hash::new();
        key.add(env!("CARGO_PKG_VERSION").as_bytes());
        key.add(mpicc.as_bytes());
        key.add(header.as_bytes());
        for s in &program.sources {
            key.add(s.as_os_str().as_encoded_bytes());
            for f in &self.flags[s] {
                key.add(f.as_bytes());
            }
        }
        for (rel, text) in &copies {
            key.add(rel.as_os_str().as_encoded_bytes());
            key.add(text.as_bytes());
        }
        for f in &program.link_flags {
            key.add(f.as_bytes());
        }
        Inputs {
            header,
            copies,
            key: key.hex(),
        }
    }

    /// Writes the copies into `work` and compiles them there, each source
    /// on its own with its own flags into an object, then links the objects
    /// into `work/program`. The output of the first step that failed.
    fn compile(
        &self,
        program: &Program,
        mpicc: &str,
        inputs: &Inputs,
        work: &Path,
    ) -> Result<Step, DriverError> {
        let src = work.join("src");
        for (rel, text) in &inputs.copies {
            let p = src.join(rel);
            if let Some(parent) = p.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(io(format!("creating {}", parent.display())))?;
            }
            std::fs::write(&p, text).map_err(io(format!("writing {}", p.display())))?;
        }
        let hpath = work.join(instrument::HEADER_NAME);
        std::fs::write(&hpath, &inputs.header)
            .map_err(io(format!("writing {}", hpath.display())))?;
        // Compile in the copy's root with the same relative paths as in the
        // user's tree, so `__FILE__` and the compiler's messages name the
        // user's files; the original directories stay on the include path.
        let root_abs = std::fs::canonicalize(&self.root).unwrap_or(self.root.clone());
        let mut dirs: Vec<PathBuf> = program
            .sources
            .iter()
            .filter_map(|s| s.parent().map(|p| root_abs.join(p)))
            .collect();
        dirs.dedup();
        let mut objects = Vec::new();
        for (i, s) in program.sources.iter().enumerate() {
            let obj = work.join(format!("{i}.o"));
            let mut cmd = Command::new(mpicc);
            cmd.current_dir(&src)
                .args(["-c", "-g", "-O0", "-include"])
                .arg(&hpath);
            for d in &dirs {
                cmd.arg(format!("-I{}", d.display()));
            }
            cmd.args(&self.flags[s]).arg(s).arg("-o").arg(&obj);
            let out = run(cmd, mpicc)?;
            if !out.status.success() {
                return Ok(Step::Compile(out));
            }
            objects.push(obj);
        }
        let mut cmd = Command::new(mpicc);
        cmd.current_dir(&src)
            .args(&objects)
            .arg("-o")
            .arg(work.join("program"));
        if program.sources.iter().any(|s| crate::discover::is_cxx(s)) {
            cmd.arg("-lstdc++");
        }
        cmd.args(&program.link_flags);
        let out = run(cmd, mpicc)?;
        Ok(if out.status.success() {
            Step::Done
        } else {
            Step::Link(out)
        })
    }

    /// Why the program did not build: the user's own build's errors when it
    /// fails too (the instrumentation can change what the compiler says,
    /// and its paths are the copies'), else the instrumented build's.
    fn failure(
        &self,
        program: &Program,
        mpicc: &str,
        instrumented: String,
    ) -> Result<BuildFailure, DriverError> {
        let mut raw = None;
        for s in &program.sources {
            let mut plain = Command::new(mpicc);
            plain.current_dir(&self.root).arg("-fsyntax-only");
            plain.args(&self.flags[s]).arg(s);
            let out = run(plain, mpicc)?;
            if !out.status.success() {
                raw = Some(String::from_utf8_lossy(&out.stderr).into_owned());
                break;
            }
        }
        let raw = raw.unwrap_or_else(|| {
            format!(
                "the program compiles, but not instrumented by fib (a bug in fib):\n{instrumented}"
            )
        });
        Ok(self.shown_failure(program, raw))
    }

    /// A build failure from the compiler's or linker's output, its files
    /// named as the user does, from where fib was started.
    fn shown_failure(&self, program: &Program, raw: String) -> BuildFailure {
        let (file, line) = first_location(&raw, &program.main);
        let output = if self.shown_root.as_os_str().is_empty() {
            raw
        } else {
            let mut s = String::new();
            for l in raw.lines() {
                let shown = match l.split_once(':') {
                    Some((f, rest)) if self.root.join(f).is_file() => {
                        format!("{}:{rest}", self.show(Path::new(f)))
                    }
                    _ => l.to_string(),
                };
                s.push_str(&shown);
                s.push('\n');
            }
            s
        };
        BuildFailure {
            output,
            file: file.map(|f| self.show(Path::new(&f))),
            line,
        }
    }
}

/// What building a program came to.
enum Step {
    Done,
    /// A source did not compile: the compiler's output.
    Compile(std::process::Output),
    /// The objects did not link: the linker's output.
    Link(std::process::Output),
}

fn run(mut cmd: Command, tool: &str) -> Result<std::process::Output, DriverError> {
    cmd.output()
        .map_err(|e| DriverError::Tool(tool.to_string(), e))
}

/// The first `path:line:` in compiler output, preferring the main source.
fn first_location(text: &str, main: &Path) -> (Option<String>, Option<u32>) {
    let main = main.to_string_lossy();
    let mut any = None;
    for l in text.lines() {
        let mut parts = l.splitn(3, ':');
        let (Some(f), Some(n)) = (parts.next(), parts.next()) else {
            continue;
        };
        let Ok(n) = n.trim().parse::<u32>() else {
            continue;
        };
        if f == main {
            return (Some(f.to_string()), Some(n));
        }
        if any.is_none() {
            any = Some((f.to_string(), n));
        }
    }
    match any {
        Some((f, n)) => (Some(f), Some(n)),
        None => (Some(main.into_owned()), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_main_file_in_compiler_output() {
        let text = "In file included from x.h:3:\nprog.c: In function 'main':\nprog.c:7:5: error: expected ';'\n";
        assert_eq!(
            first_location(text, Path::new("prog.c")),
            (Some("prog.c".into()), Some(7))
        );
    }
}
