//! The interposition library for each MPI implementation: where it comes
//! from, and building it on first use.
//!
//! The library is compiled against one implementation's headers (handles
//! and constants differ), so fib needs one per implementation. In order of
//! preference:
//!
//! 1. `FIB_INTERPOSE_LIB`, when it was built against the implementation
//!    asked for;
//! 2. one beside the `fib` binary built against it: a workspace build puts
//!    MPICH's in `target/<profile>/`, and `scripts/test.sh` builds Open
//!    MPI's into `target/openmpi/<profile>/`;
//! 3. fib's cache (`<cache>/interpose/<mpi>-<fingerprint>/`), where fib
//!    builds it with cargo from the sources compiled into it, once per
//!    implementation and again whenever the implementation changes (the
//!    fingerprint covers its version, its compiler wrapper's flags and the
//!    library file those name).

use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

use super::mpi::{on_path, Mpi};
use crate::cache::Hash;
use crate::settings;
use crate::DriverError;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/interpose_sources.rs"));
}

/// The library's file name.
pub const LIB: &str = "libfib_interpose.so";

/// Where a library comes from (for `fib doctor`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// `FIB_INTERPOSE_LIB`.
    Explicit(PathBuf),
    /// Beside the `fib` binary.
    Beside(PathBuf),
    /// Already built in the cache.
    Cached(PathBuf),
    /// Not built yet: the first check under this implementation builds it
    /// here.
    ToBuild(PathBuf),
}

impl Source {
    pub fn path(&self) -> &Path {
        match self {
            Source::Explicit(p) | Source::Beside(p) | Source::Cached(p) | Source::ToBuild(p) => p,
        }
    }
}

/// The interposition libraries of one fib invocation.
#[derive(Debug)]
pub struct Libraries {
    explicit: Option<PathBuf>,
    exe_dir: Option<PathBuf>,
    cache: PathBuf,
    found: Mutex<HashMap<Mpi, PathBuf>>,
}

impl Libraries {
    pub fn new(explicit: Option<PathBuf>, exe_dir: Option<PathBuf>, cache: PathBuf) -> Libraries {
        Libraries {
            explicit,
            exe_dir,
            cache,
            found: Mutex::new(HashMap::new()),
        }
    }

    /// As the environment says: `FIB_INTERPOSE_LIB`, the running binary's
    /// directory, and fib's cache.
    pub fn from_env() -> Libraries {
        let exe_dir = std::env::current_exe()
            .ok()
            .and_then(|e| e.parent().map(Path::to_path_buf));
        Libraries::new(
            settings::interpose_lib(),
            exe_dir,
            crate::cache::dir("interpose"),
        )
    }

    /// Where the library for `mpi` is or will be, without building it.
    pub fn source(&self, mpi: Mpi) -> Result<Source, DriverError> {
        if let Some(p) = &self.explicit {
            if !p.is_file() {
                return Err(DriverError::Input(format!(
                    "FIB_INTERPOSE_LIB={}: no such file",
                    p.display()
                )));
            }
            return match built_against(p) {
                Some(m) if m != mpi => Err(DriverError::Input(format!(
                    "FIB_INTERPOSE_LIB={} is built against {m}, but the check runs under {mpi}",
                    p.display()
                ))),
                _ => Ok(Source::Explicit(
                    std::path::absolute(p).unwrap_or_else(|_| p.clone()),
                )),
            };
        }
        if let Some(p) = self.beside(mpi) {
            return Ok(Source::Beside(p));
        }
        let dir = self
            .cache
            .join(format!("{}-{}", mpi.key(), fingerprint(mpi)));
        let lib = dir.join(LIB);
        Ok(if lib.is_file() {
            Source::Cached(lib)
        } else {
            Source::ToBuild(lib)
        })
    }

    /// The library for `mpi`, built into the cache first if need be
    /// (`note` hears about it: building takes a minute).
    pub fn library(&self, mpi: Mpi, note: &dyn Fn(&str)) -> Result<PathBuf, DriverError> {
        if let Some(p) = self.found.lock().unwrap().get(&mpi) {
            return Ok(p.clone());
        }
        let lib = match self.source(mpi)? {
            Source::ToBuild(lib) => {
                build(mpi, &self.cache, &lib, note)?;
                lib
            }
            s => s.path().to_path_buf(),
        };
        self.found.lock().unwrap().insert(mpi, lib.clone());
        Ok(lib)
    }

    /// A library beside the binary built against `mpi`.
    fn beside(&self, mpi: Mpi) -> Option<PathBuf> {
        let dir = self.exe_dir.as_ref()?;
        let mut candidates = vec![dir.join(LIB)];
        if let Some(up) = dir.parent() {
            candidates.push(up.join(LIB));
            if let Some(profile) = dir.file_name() {
                candidates.push(up.join(mpi.key()).join(profile).join(LIB));
            }
        }
        candidates
            .into_iter()
            .find(|p| p.is_file() && built_against(p) == Some(mpi))
    }
}

/// The implementation a built interposition library (or a program) links
/// against, read from the names of the shared libraries it needs: the
/// `DT_NEEDED` entries of its dynamic table. Only the ELF header, the
/// section headers, the dynamic table and its strings are read, not the
/// (tens of megabytes of) code and debug information around them.
pub fn built_against(lib: &Path) -> Option<Mpi> {
    use object::read::elf::FileHeader;
    let cache = object::ReadCache::new(std::fs::File::open(lib).ok()?);
    let header = object::elf::FileHeader64::<object::Endianness>::parse(&cache).ok()?;
    let endian = header.endian().ok()?;
    let sections = header.sections(endian, &cache).ok()?;
    let dynamic = sections.dynamic_table(endian, &cache).ok()?;
    let needed: Vec<&[u8]> = dynamic
        .iter()
        .filter(|d| d.tag == object::elf::DT_NEEDED)
        .filter_map(|d| dynamic.string(d).ok())
        .collect();
    Mpi::ALL.into_iter().find(|m| {
        let prefix = m.library_prefix().as_bytes();
        needed.iter().any(|name| name.starts_with(prefix))
    })
}

/// What the library built for `mpi` depends on: fib's version and the
/// library's sources, and the implementation as installed (its version,
/// its wrapper's flags, and the size and time of the library file those
/// flags name).
fn fingerprint(mpi: Mpi) -> String {
    let mut h = Hash::new();
    h.add(env!("CARGO_PKG_VERSION").as_bytes());
    for (path, text) in embedded::SOURCES {
        h.add(path.as_bytes());
        h.add(text);
    }
    h.add(mpi.key().as_bytes());
    h.add(mpi.version().unwrap_or_default().as_bytes());
    let show = instrument::wrapper_show(mpi.mpicc()).unwrap_or_default();
    h.add(show.as_bytes());
    for lib in linked_libraries(&show) {
        if let Ok(m) = std::fs::metadata(&lib) {
            let time = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_secs());
            h.add(lib.as_os_str().as_encoded_bytes());
            h.add(&m.len().to_le_bytes());
            h.add(&time.to_le_bytes());
        }
    }
    h.hex()[..16].to_string()
}

/// The shared libraries a wrapper's `-show` line links (`-L` dir + `-l`
/// name), resolved to the files they point at.
fn linked_libraries(show: &str) -> Vec<PathBuf> {
    let words: Vec<&str> = show.split_whitespace().collect();
    let dirs: Vec<&str> = words.iter().filter_map(|w| w.strip_prefix("-L")).collect();
    let mut out = Vec::new();
    for name in words.iter().filter_map(|w| w.strip_prefix("-l")) {
        for d in &dirs {
            let p = Path::new(d).join(format!("lib{name}.so"));
            if let Ok(real) = std::fs::canonicalize(&p) {
                out.push(real);
                break;
            }
        }
    }
    out
}

/// Builds the library for `mpi` with cargo from the embedded sources and
/// puts it at `dest`. Several fib processes may try at once: a lock file
/// in the cache lets one build while the others wait.
fn build(mpi: Mpi, cache: &Path, dest: &Path, note: &dyn Fn(&str)) -> Result<(), DriverError> {
    let io = |what: String| move |e| DriverError::Io(what, e);
    std::fs::create_dir_all(cache).map_err(io(format!("creating {}", cache.display())))?;
    let lock_path = cache.join("lock");
    let lock = std::fs::File::create(&lock_path)
        .map_err(io(format!("creating {}", lock_path.display())))?;
    lock.lock()
        .map_err(io(format!("locking {}", lock_path.display())))?;
    if dest.is_file() {
        return Ok(());
    }
    let cargo = cargo().ok_or_else(|| {
        DriverError::Input(format!(
            "fib needs its interposition library for {mpi}: it is not beside the fib binary, and building it needs cargo, which was not found (install Rust with rustup, or set FIB_INTERPOSE_LIB)"
        ))
    })?;
    note(&format!(
        "building the interposition library for {mpi}{} into {} (once; about a minute)",
        mpi.version().map(|v| format!(" {v}")).unwrap_or_default(),
        cache.display()
    ));
    let src = write_sources(cache)?;
    let target = cache.join(format!("target-{}", mpi.key()));
    let mut cmd = Command::new(&cargo);
    cmd.args([
        "build",
        "--release",
        "--quiet",
        "-p",
        "fib-interpose",
        "--target-dir",
    ])
    .arg(&target)
    .current_dir(&src)
    .env("MPICC", mpi.mpicc())
    .env_remove("CARGO_TARGET_DIR")
    .env_remove("CARGO_BUILD_TARGET_DIR")
    .env_remove("RUSTFLAGS")
    .stdin(Stdio::null());
    if !settings::rustc_set() {
        if let Some(rustc) = cargo
            .parent()
            .map(|d| d.join("rustc"))
            .filter(|p| p.is_file())
        {
            cmd.env("RUSTC", rustc);
        }
    }
    let out = cmd
        .output()
        .map_err(|e| DriverError::Tool(cargo.display().to_string(), e))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = err.lines().rev().take(20).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(DriverError::Input(format!(
            "building the interposition library for {mpi} failed ({}):\n{}\nfib needs {}'s headers (apt-get install {}) and libclang (apt-get install libclang-14-dev)",
            out.status,
            tail.join("\n"),
            mpi,
            mpi.packages()
        )));
    }
    let built = target.join("release").join(LIB);
    let dir = dest.parent().unwrap_or(cache);
    std::fs::create_dir_all(dir).map_err(io(format!("creating {}", dir.display())))?;
    let tmp = dir.join(format!("{LIB}.tmp"));
    std::fs::copy(&built, &tmp).map_err(io(format!("copying {}", built.display())))?;
    std::fs::rename(&tmp, dest).map_err(io(format!("writing {}", dest.display())))?;
    // The build's intermediate files take a hundred megabytes; a rebuild
    // (after the MPI changed) is rare enough to start afresh.
    let _ = std::fs::remove_dir_all(&target);
    Ok(())
}

/// Writes the embedded sources, as a workspace of their own, into the
/// cache (once per set of sources) and returns its directory.
fn write_sources(cache: &Path) -> Result<PathBuf, DriverError> {
    let mut h = Hash::new();
    for (path, text) in embedded::SOURCES {
        h.add(path.as_bytes());
        h.add(text);
    }
    let dir = cache.join(format!("src-{}", &h.hex()[..16]));
    let io = |what: String| move |e| DriverError::Io(what, e);
    for (path, text) in embedded::SOURCES {
        let p = dir.join(path);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent)
                .map_err(io(format!("creating {}", parent.display())))?;
        }
        std::fs::write(&p, text).map_err(io(format!("writing {}", p.display())))?;
    }
    let manifest = dir.join("Cargo.toml");
    let mut f =
        std::fs::File::create(&manifest).map_err(io(format!("writing {}", manifest.display())))?;
    write!(
        f,
        "[workspace]\nmembers = [\"interpose\", \"wire\"]\nresolver = \"2\"\n\n\
         [workspace.package]\nedition = \"2021\"\nversion = \"{}\"\nlicense = \"MIT OR Apache-2.0\"\n",
        env!("CARGO_PKG_VERSION")
    )
    .map_err(io(format!("writing {}", manifest.display())))?;
    Ok(dir)
}

/// The cargo to build with: the one running fib (`CARGO`), else on
/// `PATH`, else rustup's, else the one fib was built with.
fn cargo() -> Option<PathBuf> {
    if let Some(c) = settings::cargo().filter(|p| p.is_file()) {
        return Some(c);
    }
    if let Some(c) = on_path("cargo") {
        return Some(c);
    }
    if let Some(c) = settings::cargo_home()
        .map(|h| h.join("bin/cargo"))
        .filter(|p| p.is_file())
    {
        return Some(c);
    }
    option_env!("CARGO")
        .map(PathBuf::from)
        .filter(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sources_are_compiled_in() {
        let names: Vec<&str> = embedded::SOURCES.iter().map(|(p, _)| *p).collect();
        for must in [
            "interpose/Cargo.toml",
            "interpose/src/lib.rs",
            "wire/src/lib.rs",
            "Cargo.lock",
        ] {
            assert!(names.contains(&must), "{must} not in {names:?}");
        }
        assert!(!names.iter().any(|n| n.contains("target/")));
    }

    #[test]
    fn linked_library_files_are_found() {
        let libs = linked_libraries(
            "gcc -I/usr/include -L/usr/lib/x86_64-linux-gnu -lmpich -lnosuchlibrary",
        );
        assert_eq!(libs.len(), 1, "{libs:?}");
        assert!(
            libs[0].to_string_lossy().contains("libmpich.so"),
            "{libs:?}"
        );
    }

    /// Links a shared library at `path` that needs a library whose soname is
    /// `needs` (a stub of that name, built beside it, stands for the real one).
    fn shared_library(path: &Path, needs: &str) {
        let dir = path.parent().unwrap().join(format!("stub-{needs}"));
        std::fs::create_dir_all(&dir).unwrap();
        let empty = dir.join("empty.c");
        std::fs::write(&empty, "int fib_stub_symbol;\n").unwrap();
        // `libmpich.so.12` is linked as `-lmpich`, from `libmpich.so`.
        let name = needs[3..].split('.').next().unwrap();
        let link = dir.join(format!("lib{name}.so"));
        let cc = |args: &[&std::ffi::OsStr]| {
            let out = Command::new("cc").args(args).output().unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        let soname = format!("-Wl,-soname,{needs}");
        cc(&[
            "-shared".as_ref(),
            "-o".as_ref(),
            link.as_os_str(),
            soname.as_ref(),
            empty.as_os_str(),
        ]);
        let lib_dir = format!("-L{}", dir.display());
        let lib_name = format!("-l{name}");
        cc(&[
            "-shared".as_ref(),
            "-o".as_ref(),
            path.as_os_str(),
            empty.as_os_str(),
            "-Wl,--no-as-needed".as_ref(),
            lib_dir.as_ref(),
            lib_name.as_ref(),
        ]);
    }

    /// The implementation a library is built against comes from the
    /// libraries it needs, not from a name anywhere in its bytes; a file
    /// that is not a shared library has none.
    #[test]
    fn what_a_library_is_built_against_is_read_from_its_dynamic_table() {
        let tmp = tempfile::tempdir().unwrap();
        let mpich = tmp.path().join("mpich.so");
        let openmpi = tmp.path().join("openmpi.so");
        shared_library(&mpich, "libmpich.so.12");
        shared_library(&openmpi, "libmpi.so.40");
        assert_eq!(built_against(&mpich), Some(Mpi::Mpich));
        assert_eq!(built_against(&openmpi), Some(Mpi::OpenMpi));
        let text = tmp.path().join("notes.txt");
        std::fs::write(&text, "linked with libmpich.so.12\n").unwrap();
        assert_eq!(built_against(&text), None);
        assert_eq!(built_against(&tmp.path().join("missing.so")), None);
    }

    /// A workspace's layout: MPICH's library beside the binary, Open
    /// MPI's under `target/openmpi/<profile>/`; each found for its own
    /// implementation by the libraries it names, and neither for the other.
    #[test]
    fn libraries_beside_the_binary_are_found_by_what_they_link() {
        let tmp = tempfile::tempdir().unwrap();
        let debug = tmp.path().join("target/debug");
        let openmpi = tmp.path().join("target/openmpi/debug");
        std::fs::create_dir_all(&debug).unwrap();
        std::fs::create_dir_all(&openmpi).unwrap();
        shared_library(&debug.join(LIB), "libmpich.so.12");
        shared_library(&openmpi.join(LIB), "libmpi.so.40");
        let cache = tmp.path().join("cache");
        let libs = Libraries::new(None, Some(debug.clone()), cache.clone());
        assert_eq!(
            libs.source(Mpi::Mpich).unwrap(),
            Source::Beside(debug.join(LIB))
        );
        assert_eq!(
            libs.source(Mpi::OpenMpi).unwrap(),
            Source::Beside(openmpi.join(LIB))
        );
        std::fs::remove_file(openmpi.join(LIB)).unwrap();
        match libs.source(Mpi::OpenMpi).unwrap() {
            Source::ToBuild(p) => assert!(p.starts_with(&cache), "{p:?}"),
            s => panic!("{s:?}"),
        }
        // Named by FIB_INTERPOSE_LIB, a library for the other implementation
        // is an error that says so.
        let libs = Libraries::new(Some(debug.join(LIB)), None, cache);
        let e = libs.source(Mpi::OpenMpi).unwrap_err().to_string();
        assert!(
            e.contains("is built against MPICH, but the check runs under Open MPI"),
            "{e}"
        );
    }
}
