//! Builds a program from instrumented copies of its sources into a cache
//! keyed by content, so an unchanged tree is never compiled twice; when the
//! build fails, shows the user's own build's errors on the user's files.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use fib_report::codes::BuildStage;

use crate::cache::Hash;
use crate::processes;
use crate::project::{Program, Tree};
use crate::settings::Memory;
use crate::toolchain::Toolchain;
use crate::DriverError;

/// A built program.
pub struct Build {
    pub exe: PathBuf,
    /// Whether it came from the cache.
    pub cached: bool,
}

/// Why a program did not build.
pub struct BuildFailure {
    /// Which step failed, and whose failure it is.
    pub stage: BuildStage,
    pub output: String,
    pub file: Option<String>,
    pub line: Option<u32>,
}

/// A program's instrumented copies and the cache key of its build.
struct Inputs {
    header: String,
    /// The sources the preprocessor already expanded, which get the bare
    /// header ([`instrument::bare_header`]).
    preprocessed: HashSet<PathBuf>,
    /// Each source and header of the tree, relative to its root, rewritten.
    copies: Vec<(PathBuf, String)>,
    key: String,
}

fn io(what: String) -> impl FnOnce(std::io::Error) -> DriverError {
    move |e| DriverError::Io(what, e)
}

/// How a program's sources are compiled and linked: the MPI compiler
/// wrappers and the link flags.
struct Tools<'a> {
    mpicc: &'a str,
    mpicxx: &'a str,
    /// Whether a source of the program is C++: then it links with `mpicxx`.
    cxx: bool,
    /// `fib.toml`'s link flags, the program's own, then `-lm`.
    link: Vec<String>,
    /// When the program is built to see its loads and stores: the
    /// interposition library, which defines the hooks it calls.
    memory: Option<PathBuf>,
    /// The interposition library, which defines the allocation wrappers
    /// ([`HEAP_WRAPPED`]) the program is linked with: every program, but
    /// one the user builds with a sanitizer of their own.
    heap: Option<PathBuf>,
}

/// The allocation functions whose calls in the program's own objects are
/// wrapped (`-Wl,--wrap=NAME`), so that the interposition library knows
/// the program's heap blocks for the check of a call's extents (FIB039;
/// `interpose/src/heap.rs` defines each `__wrap_NAME`): C's allocators
/// and C++'s `operator new`, `new[]`, `delete`, `delete[]`.
pub const HEAP_WRAPPED: [&str; 17] = [
    "malloc",
    "calloc",
    "realloc",
    "free",
    "posix_memalign",
    "aligned_alloc",
    "memalign",
    "_Znwm",
    "_Znam",
    "_ZnwmRKSt9nothrow_t",
    "_ZnamRKSt9nothrow_t",
    "_ZdlPv",
    "_ZdaPv",
    "_ZdlPvm",
    "_ZdaPvm",
    "_ZdlPvRKSt9nothrow_t",
    "_ZdaPvRKSt9nothrow_t",
];

/// The flags that compile a source to report its loads and stores to the
/// hooks of `interpose/src/memory.rs`: the compiler's ThreadSanitizer
/// pass, without the function entry and exit hooks.
pub const MEMORY_FLAGS: [&str; 2] = [
    "-fsanitize=thread",
    "--param=tsan-instrument-func-entry-exit=0",
];

/// Whether a call to `callee` hands MPI memory that it owns past the call:
/// a nonblocking or persistent operation (not a probe), a nonblocking
/// collective, a window or a one-sided communication call.
pub fn owns_memory(callee: &str) -> bool {
    let Some(rest) = callee.strip_prefix("MPI_") else {
        return false;
    };
    let nonblocking = rest.starts_with('I')
        && rest[1..].starts_with(|c: char| c.is_ascii_lowercase())
        && !matches!(
            rest,
            "Iprobe" | "Improbe" | "Init" | "Init_thread" | "Initialized" | "Is_thread_main"
        )
        && !rest.starts_with("Info_")
        && !rest.starts_with("Intercomm_");
    nonblocking
        || (rest.ends_with("_init") && rest != "Init")
        || matches!(rest, "Start" | "Startall")
        || fib_wire::one_sided(callee)
}

/// The synchronisation functions whose calls in the program's own objects
/// are wrapped (`-Wl,--wrap=NAME`), so that the interposition library
/// knows the happens-before order of the rank's threads for the check of
/// their MPI calls against the thread level (FIB042, FIB043;
/// `interpose/src/threads.rs` defines each `__wrap_NAME`): POSIX threads'
/// creation, join, mutexes, condition variables, barriers and semaphores,
/// and the entry points of GCC's OpenMP runtime that fork, join, wait at a
/// barrier, take a lock or pass an `ordered` section on, and those that
/// create a task and wait for tasks.
pub const THREAD_WRAPPED: [&str; 39] = [
    "pthread_create",
    "pthread_join",
    "pthread_mutex_lock",
    "pthread_mutex_trylock",
    "pthread_mutex_unlock",
    "pthread_cond_wait",
    "pthread_cond_timedwait",
    "pthread_cond_signal",
    "pthread_cond_broadcast",
    "pthread_barrier_wait",
    "sem_wait",
    "sem_post",
    "GOMP_parallel",
    "GOMP_parallel_loop_static",
    "GOMP_parallel_loop_dynamic",
    "GOMP_parallel_loop_guided",
    "GOMP_parallel_loop_runtime",
    "GOMP_parallel_sections",
    "GOMP_barrier",
    "GOMP_loop_end",
    "GOMP_sections_end",
    "GOMP_critical_start",
    "GOMP_critical_end",
    "GOMP_critical_name_start",
    "GOMP_critical_name_end",
    "GOMP_atomic_start",
    "GOMP_atomic_end",
    "GOMP_ordered_start",
    "GOMP_ordered_end",
    "omp_set_lock",
    "omp_unset_lock",
    "omp_set_nest_lock",
    "omp_unset_nest_lock",
    "GOMP_task",
    "GOMP_taskwait",
    "GOMP_taskgroup_start",
    "GOMP_taskgroup_end",
    "GOMP_taskloop",
    "GOMP_taskloop_ull",
];

/// Where one build of a program happens.
struct Way {
    /// The directory the compiler runs in; sources are named relative to it.
    dir: PathBuf,
    /// Flags before each source's own.
    extra: Vec<String>,
    /// Those flags for a source the preprocessor already expanded (its
    /// site header is the bare one), and which sources those are.
    expanded: Vec<String>,
    preprocessed: HashSet<PathBuf>,
    /// Where the objects and the program are written.
    out: PathBuf,
    /// Whether it builds the instrumented copies (else the user's sources
    /// as they are).
    instrumented: bool,
}

/// What building a program came to.
enum Step {
    Done,
    /// A step failed: the source it compiled (`None`: the link), and the
    /// compiler's or linker's output.
    Failed {
        source: Option<usize>,
        output: String,
    },
}

impl Tree {
    /// Whether `rel` is compiled as C++: by its extension, or by `-x c++`
    /// in its flags.
    fn is_cxx(&self, rel: &Path) -> bool {
        let flags = &self.flags[rel];
        crate::project::is_cxx(rel)
            || flags.iter().any(|f| f == "-xc++")
            || flags.windows(2).any(|w| w[0] == "-x" && w[1] == "c++")
    }

    fn tools<'a>(
        &self,
        program: &Program,
        tc: &'a Toolchain,
        link: &[String],
        memory: Memory,
    ) -> Tools<'a> {
        let mut all: Vec<String> = link.iter().chain(&program.link).cloned().collect();
        if !all.iter().any(|f| f == "-lm") {
            all.push("-lm".into());
        }
        let wanted = match memory {
            Memory::Off => false,
            Memory::On => true,
            // Only calls the program may make count: a header's helper
            // that nothing calls (a window helper in a common header, say)
            // does not make every program that includes it pay.
            Memory::Auto => program
                .analysis
                .live_sites()
                .any(|s| owns_memory(&s.callee) || s.callee == "MPI_Init_thread"),
        };
        // A program the user builds with a sanitizer of their own keeps it.
        let sanitized = program
            .sources
            .iter()
            .flat_map(|s| &self.flags[s])
            .chain(&all)
            .any(|f| f.starts_with("-fsanitize"));
        Tools {
            mpicc: &tc.mpicc,
            mpicxx: &tc.mpicxx,
            cxx: program.sources.iter().any(|s| self.is_cxx(s)),
            link: all,
            memory: (wanted && !sanitized).then(|| tc.interpose.clone()),
            heap: (!sanitized).then(|| tc.interpose.clone()),
        }
    }

    /// Builds `program` from instrumented copies of its sources and of the
    /// tree's headers, or takes it from the cache when the same inputs were
    /// built before. C sources compile with the toolchain's `mpicc`, C++
    /// ones with its `mpicxx`, which also links a program that has one;
    /// `link` (from `fib.toml`) and the program's own link flags are passed
    /// to the link, and `-lm` always is.
    pub fn build(
        &self,
        program: &Program,
        toolchain: &Toolchain,
        link: &[String],
    ) -> Result<Result<Build, BuildFailure>, DriverError> {
        let tools = self.tools(program, toolchain, link, crate::settings::memory()?);
        let inputs = self.inputs(program, &tools);
        let builds = crate::cache::dir("builds");
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
        let _temp = processes::Temp::register(work.path());
        let way = self.write_copies(program, &inputs, work.path())?;
        let mut commands = Vec::new();
        let step = self.make(program, &tools, &way, &mut commands)?;
        if !matches!(step, Step::Done) && processes::interrupted() {
            // Ctrl-C reaches the compiler too: its failure says nothing
            // about the program.
            return Err(DriverError::Interrupted);
        }
        if let Step::Failed { source, output } = step {
            let failed = Failed {
                source,
                output,
                command: commands.pop().unwrap_or_default(),
                way,
            };
            return self.failure(program, &tools, work.path(), failed).map(Err);
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
    fn inputs(&self, program: &Program, tools: &Tools) -> Inputs {
        let header = instrument::site_header();
        let mut copies: Vec<(PathBuf, String)> = Vec::new();
        let mut preprocessed = HashSet::new();
        for rel in program.sources.iter().chain(&self.headers) {
            let Some(text) = program.text(&self.root, rel) else {
                continue;
            };
            if program.sources.contains(rel) && instrument::preprocessed(&text) {
                preprocessed.insert(rel.clone());
            }
            let sites = program.sites_in(rel);
            copies.push((rel.clone(), instrument::rewrite(&text, &sites)));
        }
        let mut key = Hash::new();
        key.add(env!("CARGO_PKG_VERSION").as_bytes());
        key.add(tools.mpicc.as_bytes());
        key.add(tools.mpicxx.as_bytes());
        for f in &tools.link {
            key.add(f.as_bytes());
        }
        if let Some(lib) = &tools.memory {
            for f in MEMORY_FLAGS {
                key.add(f.as_bytes());
            }
            key.add(lib.as_os_str().as_encoded_bytes());
        }
        if let Some(lib) = &tools.heap {
            key.add(HEAP_WRAPPED.join(",").as_bytes());
            key.add(THREAD_WRAPPED.join(",").as_bytes());
            key.add(lib.as_os_str().as_encoded_bytes());
        }
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
        Inputs {
            header,
            preprocessed,
            copies,
            key: key.hex(),
        }
    }

    /// Writes the copies and the site header into `work`; how to build
    /// them there.
    fn write_copies(
        &self,
        program: &Program,
        inputs: &Inputs,
        work: &Path,
    ) -> Result<Way, DriverError> {
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
        let bare = work.join(instrument::BARE_HEADER_NAME);
        if !inputs.preprocessed.is_empty() {
            std::fs::write(&bare, instrument::bare_header())
                .map_err(io(format!("writing {}", bare.display())))?;
        }
        let mut dirs: Vec<String> = Vec::new();
        for s in &program.sources {
            let d = format!(
                "-I{}",
                root_abs.join(s.parent().unwrap_or(Path::new(""))).display()
            );
            if !dirs.contains(&d) {
                dirs.push(d);
            }
        }
        let including = |header: &Path| -> Vec<String> {
            ["-include".to_string(), header.display().to_string()]
                .into_iter()
                .chain(dirs.iter().cloned())
                .collect()
        };
        Ok(Way {
            dir: src,
            extra: including(&hpath),
            expanded: including(&bare),
            preprocessed: inputs.preprocessed.clone(),
            out: work.to_path_buf(),
            instrumented: true,
        })
    }

    /// Compiles each source of the program on its own with its own flags
    /// into an object, then links the objects into `way.out/program`; the
    /// command line of each step run is added to `commands`.
    fn make(
        &self,
        program: &Program,
        tools: &Tools,
        way: &Way,
        commands: &mut Vec<String>,
    ) -> Result<Step, DriverError> {
        let mut objects = Vec::new();
        for (i, s) in program.sources.iter().enumerate() {
            let compiler = if self.is_cxx(s) {
                tools.mpicxx
            } else {
                tools.mpicc
            };
            let obj = way.out.join(format!("{i}.o"));
            let mut cmd = Command::new(compiler);
            cmd.current_dir(&way.dir).args(["-c", "-g", "-O0"]);
            if tools.memory.is_some() && way.instrumented {
                cmd.args(MEMORY_FLAGS);
            }
            if way.instrumented {
                // Loads, stores and allocations are placed through the
                // debug information: let it name the user's files, not the
                // copies'.
                let root = std::fs::canonicalize(&self.root).unwrap_or(self.root.clone());
                let copies = std::fs::canonicalize(&way.dir).unwrap_or(way.dir.clone());
                cmd.arg(format!(
                    "-fdebug-prefix-map={}={}",
                    copies.display(),
                    root.display()
                ));
            }
            let extra = if way.preprocessed.contains(s) {
                &way.expanded
            } else {
                &way.extra
            };
            cmd.args(extra)
                .args(&self.flags[s])
                .arg(s)
                .arg("-o")
                .arg(&obj);
            commands.push(shown_command(&cmd));
            let out = run(cmd, compiler)?;
            if !out.status.success() {
                let output = String::from_utf8_lossy(&out.stderr).into_owned();
                return Ok(Step::Failed {
                    source: Some(i),
                    output,
                });
            }
            objects.push(obj);
        }
        let linker = if tools.cxx { tools.mpicxx } else { tools.mpicc };
        let mut cmd = Command::new(linker);
        cmd.current_dir(&way.dir).args(&objects);
        cmd.arg("-o").arg(way.out.join("program"));
        if let (Some(lib), true) = (&tools.memory, way.instrumented) {
            // The hooks the pass calls are the interposition library's: the
            // program needs it by its path, the one the ranks preload (so
            // the dynamic linker loads it once). The program's own calls to
            // libc's copies go through it too.
            cmd.arg(lib)
                .arg("-Wl,--wrap=memcpy,--wrap=memmove,--wrap=memset");
        }
        if let (Some(lib), true) = (&tools.heap, way.instrumented) {
            // The program's own allocations and thread synchronisation go
            // through the library's wrappers (linked by its path, as above).
            if tools.memory.is_none() {
                cmd.arg(lib);
            }
            let wraps: Vec<String> = HEAP_WRAPPED
                .iter()
                .chain(&THREAD_WRAPPED)
                .map(|f| format!("--wrap={f}"))
                .collect();
            cmd.arg(format!("-Wl,{}", wraps.join(",")));
        }
        cmd.args(&tools.link);
        commands.push(shown_command(&cmd));
        let out = run(cmd, linker)?;
        Ok(if out.status.success() {
            Step::Done
        } else {
            let output = String::from_utf8_lossy(&out.stderr).into_owned();
            Step::Failed {
                source: None,
                output,
            }
        })
    }

    /// Why the program did not build. The instrumented build failed; the
    /// user's sources are built as they are, and when that fails too, its
    /// errors are the user's (the instrumentation can change what the
    /// compiler says, and its paths are the copies'). When it succeeds,
    /// the failure is fib's: both command lines and the instrumented
    /// build's output.
    fn failure(
        &self,
        program: &Program,
        tools: &Tools,
        work: &Path,
        failed: Failed,
    ) -> Result<BuildFailure, DriverError> {
        let plain = Way {
            dir: self.root.clone(),
            extra: Vec::new(),
            expanded: Vec::new(),
            preprocessed: HashSet::new(),
            out: work.join("plain"),
            instrumented: false,
        };
        std::fs::create_dir_all(&plain.out)
            .map_err(io(format!("creating {}", plain.out.display())))?;
        let mut commands = Vec::new();
        let step = self.make(program, tools, &plain, &mut commands)?;
        if !matches!(step, Step::Done) && processes::interrupted() {
            return Err(DriverError::Interrupted);
        }
        if let Step::Failed { source, output } = step {
            let stage = match source {
                Some(_) => BuildStage::Compile,
                None => BuildStage::Link {
                    undefined: undefined_references(&output),
                },
            };
            let output = self.cleaned(program, &plain, &output);
            return Ok(self.shown_failure(program, stage, output));
        }
        let plain_command = match failed.source {
            Some(i) => commands.get(i),
            None => commands.last(),
        };
        let output = format!(
            "instrumented: {}\nas it is: {}\n{}",
            failed.command,
            plain_command.map_or("", String::as_str),
            self.cleaned(program, &failed.way, &failed.output)
        );
        Ok(self.shown_failure(program, BuildStage::Instrumented, output))
    }

    /// The output of a build made the `way` given, its object files named
    /// by their sources and its sources (as the debug information names
    /// them, absolute) relative to the tree: no build directory, which is
    /// gone once the build is over, is named.
    fn cleaned(&self, program: &Program, way: &Way, output: &str) -> String {
        let mut text = output.to_string();
        for out in [
            way.out.clone(),
            std::fs::canonicalize(&way.out).unwrap_or_default(),
        ] {
            for (i, s) in program.sources.iter().enumerate() {
                let obj = out.join(format!("{i}.o")).display().to_string();
                text = text.replace(&obj, &self.show(s));
            }
        }
        for dir in [
            way.dir.clone(),
            std::fs::canonicalize(&way.dir).unwrap_or_default(),
        ] {
            if dir.is_absolute() {
                text = text.replace(&format!("{}/", dir.display()), "");
            }
        }
        text
    }

    /// A build failure from the compiler's or linker's output, its files
    /// named as the user does, from where fib was started.
    fn shown_failure(&self, program: &Program, stage: BuildStage, raw: String) -> BuildFailure {
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
            stage,
            output,
            file: file.map(|f| self.show(Path::new(&f))),
            line,
        }
    }
}

/// The instrumented build's failed step.
struct Failed {
    source: Option<usize>,
    output: String,
    /// Its command line.
    command: String,
    /// How the build was made.
    way: Way,
}

/// A command line as a shell would take it: `cd DIR && tool args...`.
fn shown_command(cmd: &Command) -> String {
    let quote = |s: &std::ffi::OsStr| {
        let s = s.to_string_lossy();
        if !s.is_empty()
            && s.chars()
                .all(|c| c.is_alphanumeric() || "-_./=,+:@%".contains(c))
        {
            s.into_owned()
        } else {
            format!("'{}'", s.replace('\'', "'\\''"))
        }
    };
    let mut words = vec![quote(cmd.get_program())];
    words.extend(cmd.get_args().map(quote));
    match cmd.get_current_dir() {
        Some(d) => format!("cd {} && {}", quote(d.as_os_str()), words.join(" ")),
        None => words.join(" "),
    }
}

/// The symbols a linker's output says it found no definition of, each once.
fn undefined_references(output: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for l in output.lines() {
        // GNU ld: "undefined reference to `f'", or for a symbol of a
        // library not on the command line "... to symbol 'sqrt@@GLIBC_2.2.5'".
        let rest = l
            .split_once("undefined reference to `")
            .or_else(|| l.split_once("undefined reference to symbol '"));
        let Some((_, rest)) = rest else {
            continue;
        };
        let name = rest.split(['\'', '@']).next().unwrap_or(rest).to_string();
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out
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

    #[test]
    fn the_linker_names_what_is_undefined() {
        let text = "/usr/bin/ld: a.c: in function `main':\na.c:5: undefined reference to `missing'\n\
                    a.c:6: undefined reference to `missing'\nb.cc:2: undefined reference to `f(int)'\n\
                    /usr/bin/ld: c.o: undefined reference to symbol 'sqrt@@GLIBC_2.2.5'\n";
        assert_eq!(undefined_references(text), ["missing", "f(int)", "sqrt"]);
    }

    #[test]
    fn the_calls_that_hand_mpi_memory_past_their_return() {
        for c in [
            "MPI_Isend",
            "MPI_Irecv",
            "MPI_Imrecv",
            "MPI_Ibcast",
            "MPI_Ineighbor_alltoallw",
            "MPI_Send_init",
            "MPI_Recv_init",
            "MPI_Start",
            "MPI_Startall",
            "MPI_Win_create",
            "MPI_Put",
            "MPI_Rget_accumulate",
        ] {
            assert!(owns_memory(c), "{c}");
        }
        for c in [
            "MPI_Send",
            "MPI_Recv",
            "MPI_Iprobe",
            "MPI_Improbe",
            "MPI_Init",
            "MPI_Init_thread",
            "MPI_Initialized",
            "MPI_Info_create",
            "MPI_Intercomm_create",
            "MPI_Is_thread_main",
            "MPI_Bcast",
            "fib_set_site",
        ] {
            assert!(!owns_memory(c), "{c}");
        }
    }

    #[test]
    fn command_lines_are_quoted_for_a_shell() {
        let mut cmd = Command::new("mpicc.mpich");
        cmd.current_dir("/t/a b").args(["-c", "-DX=\"1\"", "a.c"]);
        assert_eq!(
            shown_command(&cmd),
            "cd '/t/a b' && mpicc.mpich -c '-DX=\"1\"' a.c"
        );
    }
}
