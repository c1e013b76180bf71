//! The current call site. Instrumented programs call [`fib_set_site`] just
//! before every MPI call; the library keeps the site in atomics (the crash
//! handler reads them) and names every file once to the scheduler with
//! [`Up::File`] before the first message that uses its id.

use std::cell::UnsafeCell;
use std::collections::HashMap;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int};
use std::sync::atomic::{AtomicU32, Ordering};

use fib_wire::{Site, Up};

static FILE: AtomicU32 = AtomicU32::new(0);
static LINE: AtomicU32 = AtomicU32::new(0);

/// The file names seen so far; id `i + 1` names `paths[i]`.
struct Files {
    /// The last pointer seen and its id (most calls repeat it).
    last: (usize, u32),
    by_ptr: HashMap<usize, u32>,
    by_path: HashMap<String, u32>,
    paths: Vec<String>,
    /// How many of `paths` the scheduler has been told about.
    announced: usize,
}

struct Global(UnsafeCell<Option<Files>>);

// SAFETY: MPI programs call the library from one thread at a time (fib does
// not model MPI_THREAD_MULTIPLE), so the table is never used concurrently.
unsafe impl Sync for Global {}

static FILES: Global = Global(UnsafeCell::new(None));

fn files() -> &'static mut Files {
    // SAFETY: see `Global`; no caller keeps the reference across another
    // call into this module.
    unsafe {
        (*FILES.0.get()).get_or_insert_with(|| Files {
            last: (0, 0),
            by_ptr: HashMap::new(),
            by_path: HashMap::new(),
            paths: Vec::new(),
            announced: 0,
        })
    }
}

/// The site of the MPI call in progress (or of the last one).
pub fn current() -> Site {
    Site::from_raw(FILE.load(Ordering::Relaxed), LINE.load(Ordering::Relaxed))
}

/// Appends an [`Up::File`] for every file id not yet named to the scheduler.
pub fn announce(out: &mut Vec<u8>) {
    let f = files();
    while f.announced < f.paths.len() {
        let id = f.announced as u32 + 1;
        Up::File {
            id,
            path: f.paths[f.announced].clone(),
        }
        .encode(out);
        f.announced += 1;
    }
}

/// Records the site of the MPI call about to be made: `file` is a C string
/// (normally `__FILE__`, so the same pointer comes back for every call in a
/// file) and `line` its line.
#[no_mangle]
pub unsafe extern "C" fn fib_set_site(file: *const c_char, line: c_int) {
    let id = if file.is_null() {
        0
    } else {
        let f = files();
        let key = file as usize;
        if f.last.0 == key {
            f.last.1
        } else {
            let id = match f.by_ptr.get(&key) {
                Some(id) => *id,
                None => {
                    let path = CStr::from_ptr(file).to_string_lossy().into_owned();
                    let id = match f.by_path.get(&path) {
                        Some(id) => *id,
                        None => {
                            f.paths.push(path.clone());
                            let id = f.paths.len() as u32;
                            f.by_path.insert(path, id);
                            id
                        }
                    };
                    f.by_ptr.insert(key, id);
                    id
                }
            };
            f.last = (key, id);
            id
        }
    };
    FILE.store(id, Ordering::Relaxed);
    LINE.store(line.max(0) as u32, Ordering::Relaxed);
    if files().announced < files().paths.len() {
        // Name the file right away, so that a crash before the next MPI call
        // still refers to a known file.
        crate::state::announce_files();
    }
}

/// Records the site of the MPI call about to be made by its id in the
/// program's site table (instrumented copies call this through
/// `fib__site(ID)`). Reported as [`Site::Table`].
#[no_mangle]
pub extern "C" fn fib_set_site_id(id: c_int) {
    let (file, line) = Site::Table(id.max(0) as u32).to_raw();
    FILE.store(file, Ordering::Relaxed);
    LINE.store(line, Ordering::Relaxed);
}

/// The barrier sites the driver asked to delete (`FIB_ELIDE`): entries
/// `#ID` name site-table ids, entries `PATH:LINE` name the use of a macro
/// that expands to the call. Read once.
struct Elide {
    ids: std::collections::HashSet<u32>,
    lines: std::collections::HashSet<(String, u32)>,
}

fn elide() -> &'static Elide {
    static ELIDE: std::sync::OnceLock<Elide> = std::sync::OnceLock::new();
    ELIDE.get_or_init(|| {
        let mut e = Elide {
            ids: Default::default(),
            lines: Default::default(),
        };
        if let Ok(v) = std::env::var("FIB_ELIDE") {
            for entry in v.split(',').filter(|x| !x.is_empty()) {
                if let Some(id) = entry.strip_prefix('#').and_then(|x| x.parse().ok()) {
                    e.ids.insert(id);
                } else if let Some((path, line)) = entry.rsplit_once(':') {
                    if let Ok(line) = line.parse() {
                        e.lines.insert((path.to_string(), line));
                    }
                }
            }
        }
        e
    })
}

/// Whether the call being made is at a site the driver asked to delete.
pub fn elided() -> bool {
    let e = elide();
    if e.ids.is_empty() && e.lines.is_empty() {
        return false;
    }
    match current() {
        Site::Table(id) => e.ids.contains(&id),
        Site::Line { file, line } => match files().paths.get(file as usize - 1) {
            Some(path) => e.lines.contains(&(path.clone(), line)),
            None => false,
        },
        Site::Unknown => false,
    }
}
