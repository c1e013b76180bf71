//! [`analyze`]: parses a program's translation units with libclang, merges
//! what they say, numbers the sites and computes the facts.

use crate::extract::{Global, Unit as Walker};
use crate::ir::SiteKey;
use crate::{Analysis, InstrumentError, SiteTable, Unit};
use clang::diagnostic::Severity;
use clang::{EntityKind, EntityVisitResult, TranslationUnit};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// libclang allows one `Clang` instance per process: every analysis holds
/// this lock for its whole run.
pub(crate) static CLANG: Mutex<()> = Mutex::new(());

/// Whether a file name says C++.
pub(crate) fn is_cxx(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("cc" | "cpp" | "cxx" | "C" | "c++" | "hpp" | "hh" | "hxx" | "H")
    )
}

/// Analyses the translation units `units` (each a source path and the
/// parser flags it is compiled with, such as [`crate::mpi_flags`]'s) of a
/// program whose checked tree is `root`.
///
/// Every MPI call is attributed to a file under `root` (a macro's call to
/// the macro's outermost use there); calls attributed elsewhere are not
/// sites. Site ids follow the order file, byte offset, callee.
pub fn analyze(root: &Path, units: &[(PathBuf, Vec<String>)]) -> Result<Analysis, InstrumentError> {
    analyze_with_errors(root, units).map(|(a, _)| a)
}

/// An error libclang reported while parsing, where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// The file, by its canonical path (`None` when libclang names none).
    pub file: Option<PathBuf>,
    pub line: u32,
    pub column: u32,
    pub message: String,
}

/// Where the C compiler keeps `omp.h`, which libclang's own headers lack:
/// GCC's directory of its own headers (`gcc -print-file-name=include`),
/// searched after every other for a unit built with `-fopenmp`. Asked
/// once; `None` when there is no `gcc`.
fn openmp_headers() -> Option<&'static str> {
    static DIR: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let out = std::process::Command::new("gcc")
            .arg("-print-file-name=include")
            .output()
            .ok()?;
        let dir = String::from_utf8(out.stdout).ok()?.trim().to_string();
        std::path::Path::new(&dir)
            .join("omp.h")
            .exists()
            .then_some(dir)
    })
    .as_deref()
}

/// [`analyze`], with the errors libclang reported in the units' parses,
/// each once (a header's comes once however many units include it), in
/// the order they were met. libclang parses on past an error, and a
/// compiler may accept what libclang rejects (a redeclared builtin, an
/// extension): the caller decides what they mean.
pub fn analyze_with_errors(
    root: &Path,
    units: &[(PathBuf, Vec<String>)],
) -> Result<(Analysis, Vec<ParseError>), InstrumentError> {
    let root = std::fs::canonicalize(root).map_err(|e| InstrumentError::Io(root.into(), e))?;
    let _lock = CLANG.lock().unwrap_or_else(|p| p.into_inner());
    let clang = clang::Clang::new().map_err(not_loaded)?;
    let index = clang::Index::new(&clang, false, false);
    let mut g = Global::new(root.clone());
    let mut out_units = Vec::new();
    let mut read: Option<Vec<PathBuf>> = Some(Vec::new());
    let mut errors: Vec<ParseError> = Vec::new();
    for (path, flags) in units {
        let abs = std::fs::canonicalize(path).map_err(|e| InstrumentError::Io(path.clone(), e))?;
        let mut args: Vec<String> = Vec::new();
        if is_cxx(&abs) && !flags.iter().any(|f| f == "-x") {
            args.extend(["-x".to_string(), "c++".to_string()]);
        }
        // A unit built with OpenMP is parsed as its sequential reading:
        // libclang does not walk into the statements of OpenMP directives,
        // whose MPI calls the site table must hold. `_OPENMP` keeps its
        // value (GCC 12's, OpenMP 4.5), and `omp.h` is found in GCC's own
        // headers.
        let openmp = flags.iter().any(|f| f.starts_with("-fopenmp"));
        args.extend(flags.iter().filter(|f| !f.starts_with("-fopenmp")).cloned());
        if openmp {
            args.push("-D_OPENMP=201511".to_string());
            if let Some(dir) = openmp_headers() {
                // GCC's omp.h gives `__malloc__` an argument (its
                // deallocator), which clang rejects: the parse drops it.
                args.extend([
                    "-idirafter".to_string(),
                    dir.to_string(),
                    "-D__malloc__(...)=__malloc__".to_string(),
                ]);
            }
        }
        let tu = index
            .parser(&abs)
            .arguments(&args)
            .detailed_preprocessing_record(true)
            .keep_going(true)
            .parse()
            .map_err(|e| InstrumentError::Clang(format!("{}: {e}", abs.display())))?;
        for e in errors_of(&tu) {
            if !errors.contains(&e) {
                errors.push(e);
            }
        }
        match (files_read(&tu, &abs), read.as_mut()) {
            (Some(files), Some(all)) => all.extend(files),
            _ => read = None,
        }
        let fi = g.file(&abs, None);
        if g.files[fi].rel.is_some() {
            g.files[fi].listed = true;
        }
        let has_main = {
            let mut w = Walker::new(&mut g, abs.clone());
            w.run(&tu);
            w.has_main
        };
        out_units.push(Unit {
            path: path.clone(),
            has_main,
        });
    }
    // Number the sites: dedupe (a header's sites come once per unit that
    // includes it), then sort by file, offset, callee.
    let mut sites = std::mem::take(&mut g.sites);
    sites.sort_by(|a, b| {
        (&a.file, a.span.0, &a.callee, a.span.1).cmp(&(&b.file, b.span.0, &b.callee, b.span.1))
    });
    sites.dedup_by(|a, b| a.file == b.file && a.span == b.span && a.callee == b.callee);
    let mut ids: HashMap<SiteKey, u32> = HashMap::default();
    for (i, site) in sites.iter_mut().enumerate() {
        site.id = i as u32;
        ids.insert(
            (site.file.clone(), site.span.0, site.callee.clone()),
            site.id,
        );
    }
    crate::facts::apply_calls(&mut g.ir);
    let mut facts = crate::facts::facts(&g.ir, &ids);
    facts.inputs = crate::inputs::inputs(&g.ir, &ids);
    let mut files: Vec<(PathBuf, String)> = g
        .files
        .iter()
        .filter(|f| f.listed)
        .filter_map(|f| Some((f.rel.clone()?, f.text.clone())))
        .collect();
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files.dedup_by(|a, b| a.0 == b.0);
    if let Some(all) = read.as_mut() {
        all.sort();
        all.dedup();
    }
    let analysis = Analysis {
        sites: SiteTable { sites },
        facts,
        units: out_units,
        files,
        read,
    };
    Ok((analysis, errors))
}

/// Whether an inclusion directive of `tu` names a file libclang did not
/// find (the preprocessing record's inclusions are its top-level
/// entities).
fn includes_a_missing_file(tu: &TranslationUnit) -> bool {
    let mut missing = false;
    tu.get_entity().visit_children(|e, _| {
        if e.get_kind() == EntityKind::InclusionDirective && e.get_file().is_none() {
            missing = true;
            return EntityVisitResult::Break;
        }
        EntityVisitResult::Continue
    });
    missing
}

/// The errors (and fatal errors) libclang reported in `tu`.
fn errors_of(tu: &TranslationUnit) -> Vec<ParseError> {
    tu.get_diagnostics()
        .iter()
        .filter(|d| d.get_severity() >= Severity::Error)
        .map(|d| {
            let at = d.get_location().get_file_location();
            let file = at.file.map(|f| {
                let path = f.get_path();
                std::fs::canonicalize(&path).unwrap_or(path)
            });
            ParseError {
                file,
                line: at.line,
                column: at.column,
                message: d.get_text(),
            }
        })
        .collect()
}

/// Every file the parse of `source` into `tu` read: the source and each
/// header it included, directly or through another, by their canonical
/// paths. `None` when an `#include` named a file libclang did not find
/// (or a fatal error stopped it): what such a parse gives hangs on a file
/// that may exist next time. A parse with other errors (a builtin the code
/// redeclares, which GCC accepts) read what it read, and is what the next
/// parse of the same files would be.
pub(crate) fn files_read(tu: &TranslationUnit, source: &Path) -> Option<Vec<PathBuf>> {
    let errors: Vec<Severity> = tu
        .get_diagnostics()
        .iter()
        .map(|d| d.get_severity())
        .filter(|s| *s >= Severity::Error)
        .collect();
    if errors.contains(&Severity::Fatal) {
        return None;
    }
    // (libclang, told to keep going, reports a header not found as an
    // error: the inclusions themselves say which were not found. Only a
    // parse with errors can have one.)
    if !errors.is_empty() && includes_a_missing_file(tu) {
        return None;
    }
    let first = tu.get_file(source)?;
    let mut seen: HashSet<PathBuf> = HashSet::default();
    let mut todo = vec![first];
    let mut out = Vec::new();
    while let Some(file) = todo.pop() {
        let path = file.get_path();
        let path = std::fs::canonicalize(&path).unwrap_or(path);
        if !seen.insert(path.clone()) {
            continue;
        }
        out.push(path);
        todo.extend(file.get_includes().iter().filter_map(|i| i.get_file()));
    }
    out.sort();
    Some(out)
}

/// libclang is loaded when fib first parses a file; when it cannot be, the
/// error names the package to install.
fn not_loaded(e: String) -> InstrumentError {
    InstrumentError::Clang(format!(
        "cannot load libclang ({e}); install it with apt-get install libclang-14-dev (or set LIBCLANG_PATH to the directory that holds libclang.so)"
    ))
}

/// Tells the libclang loader where Debian keeps libclang, unless
/// `LIBCLANG_PATH` already says: without it, every load runs `llvm-config`
/// and looks through every library directory under `/usr` (tens of
/// milliseconds, each time a thread first parses). The newest
/// `/usr/lib/llvm-N/lib` that holds a `libclang` library is the one the
/// loader would pick on Debian; elsewhere nothing changes. Call it before
/// any other thread starts, as it sets the process's environment.
pub fn point_at_libclang() {
    if std::env::var_os("LIBCLANG_PATH").is_some() {
        return;
    }
    let Ok(entries) = std::fs::read_dir("/usr/lib") else {
        return;
    };
    let newest = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let version: u32 = name.strip_prefix("llvm-")?.parse().ok()?;
            let lib = e.path().join("lib");
            let has = std::fs::read_dir(&lib).ok()?.flatten().any(|f| {
                f.file_name().to_str().is_some_and(|n| {
                    n.starts_with("libclang") && !n.starts_with("libclang-cpp") && n.contains(".so")
                })
            });
            has.then_some((version, lib))
        })
        .max_by_key(|(v, _)| *v);
    if let Some((_, lib)) = newest {
        std::env::set_var("LIBCLANG_PATH", lib);
    }
}

/// The libclang fib parses with, as it names its version, or why it cannot
/// be loaded (for `fib doctor`).
pub fn libclang_version() -> Result<String, InstrumentError> {
    let _lock = CLANG.lock().unwrap_or_else(|p| p.into_inner());
    let _clang = clang::Clang::new().map_err(not_loaded)?;
    Ok(clang::get_version())
}
