//! The current call site. Instrumented programs call [`fib_set_site`] just
//! before every MPI call; the library keeps the site in atomics (the crash
//! handler reads them) and names every file once to the scheduler with
//! [`Up::File`] before the first message that uses its id. A call that no
//! instrumented site named (a program fib did not build) is placed by its
//! return address instead ([`for_call`]), as a module and an offset; each
//! module is named once the same way.

use rustc_hash::FxHashMap as HashMap;
use std::cell::UnsafeCell;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int};
use std::sync::atomic::{AtomicU32, Ordering};

use fib_wire::{Site, Up};

use crate::state::try_lib;

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
    /// The modules met by return address, by load base: their ids.
    modules: HashMap<usize, u32>,
    /// Modules not yet named to the scheduler: id and path.
    new_modules: Vec<(u32, String)>,
    /// The sites of return addresses already placed.
    by_ip: HashMap<usize, Site>,
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
            by_ptr: HashMap::default(),
            by_path: HashMap::default(),
            paths: Vec::new(),
            announced: 0,
            modules: HashMap::default(),
            new_modules: Vec::new(),
            by_ip: HashMap::default(),
        })
    }
}

thread_local! {
    /// The site the calling thread set last: with threads, the global one
    /// may be another thread's.
    static MINE: std::cell::Cell<(u32, u32)> = const { std::cell::Cell::new((0, 0)) };
}

/// Sets the site of the MPI call about to be made, for its thread and as
/// the rank's last.
fn set(file: u32, line: u32) {
    FILE.store(file, Ordering::Relaxed);
    LINE.store(line, Ordering::Relaxed);
    let _ = MINE.try_with(|m| m.set((file, line)));
}

/// The site of the calling thread's MPI call in progress (or of its last
/// one; the rank's last when the thread set none).
pub fn current() -> Site {
    let (file, line) = MINE
        .try_with(|m| m.get())
        .ok()
        .filter(|&(f, l)| (f, l) != (0, 0))
        .unwrap_or_else(|| (FILE.load(Ordering::Relaxed), LINE.load(Ordering::Relaxed)));
    Site::from_raw(file, line)
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
    for (id, path) in f.new_modules.drain(..) {
        Up::File { id, path }.encode(out);
    }
}

/// Sends [`Up::File`] for files not yet named, if connected.
pub fn announce_files() {
    if let Some(l) = try_lib() {
        announce(&mut l.conn.pending);
    }
}

/// The site of the MPI call being made: the one the instrumented program
/// set, or, when it set none (today [`Site::Unknown`], or an address this
/// function stored for the previous call), the caller's return address,
/// kept as the current site for the crash and error handlers. Only calls
/// without an instrumented site walk the stack.
pub fn for_call() -> Site {
    match current() {
        s @ (Site::Table(_) | Site::Line { .. }) => s,
        Site::Unknown | Site::Addr { .. } => {
            let s = caller().unwrap_or_default();
            let (file, line) = s.to_raw();
            set(file, line);
            s
        }
    }
}

/// The load base and the path of the module holding `addr`.
fn module_of(addr: usize) -> Option<(usize, *const c_char)> {
    // SAFETY: dladdr only reads the dynamic linker's tables; `info` is
    // plain data it fills in.
    unsafe {
        let mut info: libc::Dl_info = std::mem::zeroed();
        if libc::dladdr(addr as *const libc::c_void, &mut info) == 0 {
            return None;
        }
        Some((info.dli_fbase as usize, info.dli_fname))
    }
}

/// The load base of this library.
fn own_base() -> usize {
    static BASE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *BASE.get_or_init(|| module_of(for_call as fn() -> Site as usize).map_or(0, |(base, _)| base))
}

/// The return address of the first frame outside this library (the
/// program's call into MPI), as a module and offset.
fn caller() -> Option<Site> {
    of_ip(program_ip()?)
}

/// The return address of the first frame outside this library: the
/// program's call into it (an MPI call, or a memory access hook).
pub fn program_ip() -> Option<usize> {
    let own = own_base();
    let mut inside = false;
    let mut found = None;
    // SAFETY: the unwinder only reads the stack and the loaded modules'
    // tables; glibc's is safe to use from several threads.
    unsafe {
        backtrace::trace_unsynchronized(|frame| {
            let ip = frame.ip() as usize;
            // A return address may be just past its function's end: look
            // the module up by the call instruction.
            let Some((base, _)) = module_of(ip.wrapping_sub(1)) else {
                return !inside;
            };
            if base == own {
                inside = true;
                return true;
            }
            if inside {
                found = Some(ip);
                return false;
            }
            true
        });
    }
    found
}

/// A return address as a module and offset, naming the module to the
/// scheduler once. Only from the thread that holds the state.
pub fn of_ip(ip: usize) -> Option<Site> {
    let f = files();
    if let Some(s) = f.by_ip.get(&ip) {
        return Some(*s);
    }
    let (base, name) = module_of(ip - 1)?;
    let module = match f.modules.get(&base) {
        Some(id) => *id,
        None => {
            let path = module_path(name);
            let id = fib_wire::module_id(&path);
            f.modules.insert(base, id);
            f.new_modules.push((id, path));
            id
        }
    };
    let site = Site::Addr {
        module,
        offset: u32::try_from(ip - base).ok()?,
    };
    f.by_ip.insert(ip, site);
    Some(site)
}

/// The path of a module as `dladdr` names it, made absolute: the dynamic
/// linker names the executable as it was started (`./a.out`).
fn module_path(name: *const c_char) -> String {
    let given = if name.is_null() {
        String::new()
    } else {
        // SAFETY: dladdr's names are C strings owned by the dynamic linker.
        unsafe { CStr::from_ptr(name) }
            .to_string_lossy()
            .into_owned()
    };
    if given.starts_with('/') {
        return given;
    }
    std::fs::canonicalize(&given)
        .or_else(|_| std::fs::read_link("/proc/self/exe"))
        .map(|p| p.display().to_string())
        .unwrap_or(given)
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
    set(id, line.max(0) as u32);
    if files().announced < files().paths.len() {
        // Name the file right away, so that a crash before the next MPI call
        // still refers to a known file.
        announce_files();
    }
}

/// Records the site of the MPI call about to be made by its id in the
/// program's site table (instrumented copies call this through
/// `fib__site(ID)`). Reported as [`Site::Table`].
#[no_mangle]
pub extern "C" fn fib_set_site_id(id: c_int) {
    let (file, line) = Site::Table(id.max(0) as u32).to_raw();
    set(file, line);
}

/// The barrier sites the driver asked to delete (`FIB_ELIDE`): entries
/// `#ID` name site-table ids, entries `PATH:LINE` name the use of a macro
/// that expands to the call. Read once.
struct Elide {
    ids: std::collections::HashSet<u32>,
    lines: std::collections::HashSet<(String, u32)>,
    /// Entries `@MODULE+OFFSET` (hexadecimal): sites by return address.
    addrs: std::collections::HashSet<(u32, u32)>,
}

/// An entry `@MODULE+OFFSET` of `FIB_ELIDE`, both in hexadecimal.
fn parse_addr(entry: &str) -> Option<(u32, u32)> {
    let (module, offset) = entry.strip_prefix('@')?.split_once('+')?;
    let hex = |x: &str| u32::from_str_radix(x.trim_start_matches("0x"), 16).ok();
    Some((hex(module)?, hex(offset)?))
}

fn elide() -> &'static Elide {
    static ELIDE: std::sync::OnceLock<Elide> = std::sync::OnceLock::new();
    ELIDE.get_or_init(|| {
        let mut e = Elide {
            ids: Default::default(),
            lines: Default::default(),
            addrs: Default::default(),
        };
        if let Ok(v) = std::env::var(fib_wire::env::ELIDE) {
            for entry in v.split(',').filter(|x| !x.is_empty()) {
                if let Some(id) = entry.strip_prefix('#').and_then(|x| x.parse().ok()) {
                    e.ids.insert(id);
                } else if let Some(addr) = parse_addr(entry) {
                    e.addrs.insert(addr);
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
    if e.ids.is_empty() && e.lines.is_empty() && e.addrs.is_empty() {
        return false;
    }
    match for_call() {
        Site::Table(id) => e.ids.contains(&id),
        Site::Line { file, line } => match files().paths.get(file as usize - 1) {
            Some(path) => e.lines.contains(&(path.clone(), line)),
            None => false,
        },
        Site::Addr { module, offset } => e.addrs.contains(&(module, offset)),
        Site::Unknown => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elide_entries_by_address_are_module_and_offset_in_hex() {
        assert_eq!(parse_addr("@0x4000abcd+0x1f"), Some((0x4000_abcd, 0x1f)));
        assert_eq!(parse_addr("@4000abcd+1f"), Some((0x4000_abcd, 0x1f)));
        assert_eq!(parse_addr("#3"), None);
        assert_eq!(parse_addr("@zz+1"), None);
    }
}
