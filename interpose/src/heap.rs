//! The program's own heap blocks, for the check of a call's extents
//! (`extents.rs`). The driver links every program it builds with
//! `--wrap` for `malloc`, `calloc`, `realloc`, `free`, `posix_memalign`,
//! `aligned_alloc`, `memalign` and C++'s `operator new`, `new[]`,
//! `delete` and `delete[]` (plain, sized and `nothrow`): the program's
//! calls come here, to `__wrap_NAME`, which calls the real function and
//! records the live block (start, size, the allocator and the return
//! address of its call) in a hash map by start address, so that an
//! allocation and a free cost one insertion and one removal. The question
//! the check asks once per buffer, which block holds an address, is
//! answered by the block starting there when there is one (a buffer is
//! most often a block's start), else by a scan of the live blocks, the
//! latest allocated of those that hold it winning. Only the program's own objects
//! are linked that way, so MPI's and the C and C++ libraries' own
//! allocations never pass here. A block freed by code that was not
//! wrapped stays in the map until a wrapped allocation reuses its start;
//! a later block overlapping it wins the scan.
//!
//! On x86-64 the allocating wrappers are three-instruction trampolines
//! that pass their return address to the recording function (one more
//! argument register), so that a finding can name where the block was
//! allocated at no cost per allocation beyond the map's; elsewhere the
//! site is unknown. This module depends on nothing of the crate.

use rustc_hash::{FxBuildHasher, FxHashMap};
use std::os::raw::{c_int, c_void};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// A live block: its size, its allocator, the return address of the call
/// that made it (0: unknown).
#[derive(Clone, Copy)]
struct Block {
    size: usize,
    allocator: Allocator,
    ret: usize,
    /// The order of allocation.
    seq: u64,
}

/// The functions that allocate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Allocator {
    Malloc,
    Calloc,
    Realloc,
    PosixMemalign,
    AlignedAlloc,
    Memalign,
    New,
    NewArray,
}

impl Allocator {
    pub fn name(self) -> &'static str {
        match self {
            Allocator::Malloc => "malloc",
            Allocator::Calloc => "calloc",
            Allocator::Realloc => "realloc",
            Allocator::PosixMemalign => "posix_memalign",
            Allocator::AlignedAlloc => "aligned_alloc",
            Allocator::Memalign => "memalign",
            Allocator::New => "operator new",
            Allocator::NewArray => "operator new[]",
        }
    }
}

/// The live blocks by start address, and the next sequence number.
static BLOCKS: Mutex<(FxHashMap<usize, Block>, u64)> =
    Mutex::new((FxHashMap::with_hasher(FxBuildHasher), 0));
/// Whether a block was ever recorded (a program linked without the
/// wrappers never takes the lock).
static ANY: AtomicBool = AtomicBool::new(false);

/// Whether the program has allocated through the wrappers.
pub fn any() -> bool {
    ANY.load(Ordering::Relaxed)
}

fn blocks() -> std::sync::MutexGuard<'static, (FxHashMap<usize, Block>, u64)> {
    BLOCKS.lock().unwrap_or_else(|e| e.into_inner())
}

fn record(p: *mut c_void, size: usize, allocator: Allocator, ret: usize) {
    if p.is_null() {
        return;
    }
    let mut b = blocks();
    let seq = b.1;
    b.1 += 1;
    b.0.insert(
        p as usize,
        Block {
            size,
            allocator,
            ret,
            seq,
        },
    );
    ANY.store(true, Ordering::Relaxed);
}

fn forget(p: *mut c_void) {
    if !p.is_null() && any() {
        blocks().0.remove(&(p as usize));
    }
}

/// The live block that holds address `addr`: its start, size, allocator
/// and the return address of its allocation (0: unknown).
pub fn containing(addr: usize) -> Option<(usize, usize, Allocator, usize)> {
    if !any() {
        return None;
    }
    let b = blocks();
    let holds = |s: usize, blk: &Block| s <= addr && addr < s.saturating_add(blk.size);
    let (&s, blk) = match b.0.get_key_value(&addr) {
        Some((s, blk)) if holds(*s, blk) => (s, blk),
        _ => {
            b.0.iter()
                .filter(|(s, blk)| holds(**s, blk))
                .max_by_key(|(_, blk)| blk.seq)?
        }
    };
    Some((s, blk.size, blk.allocator, blk.ret))
}

extern "C" fn malloc_at(size: usize, ret: usize) -> *mut c_void {
    // SAFETY: libc's allocator, called as the program called it.
    let p = unsafe { libc::malloc(size) };
    record(p, size, Allocator::Malloc, ret);
    p
}

extern "C" fn calloc_at(n: usize, size: usize, ret: usize) -> *mut c_void {
    // SAFETY: as `malloc_at`.
    let p = unsafe { libc::calloc(n, size) };
    record(p, n.saturating_mul(size), Allocator::Calloc, ret);
    p
}

extern "C" fn realloc_at(old: *mut c_void, size: usize, ret: usize) -> *mut c_void {
    // SAFETY: as `malloc_at`; `old` is the program's block or null.
    let p = unsafe { libc::realloc(old, size) };
    if !p.is_null() || size == 0 {
        forget(old);
    }
    record(p, size, Allocator::Realloc, ret);
    p
}

extern "C" fn posix_memalign_at(
    out: *mut *mut c_void,
    align: usize,
    size: usize,
    ret: usize,
) -> c_int {
    // SAFETY: as `malloc_at`; `out` is the program's.
    let rc = unsafe { libc::posix_memalign(out, align, size) };
    if rc == 0 && !out.is_null() {
        // SAFETY: just written by posix_memalign.
        record(unsafe { *out }, size, Allocator::PosixMemalign, ret);
    }
    rc
}

extern "C" fn aligned_alloc_at(align: usize, size: usize, ret: usize) -> *mut c_void {
    // SAFETY: as `malloc_at`.
    let p = unsafe { libc::aligned_alloc(align, size) };
    record(p, size, Allocator::AlignedAlloc, ret);
    p
}

extern "C" fn memalign_at(align: usize, size: usize, ret: usize) -> *mut c_void {
    // SAFETY: as `malloc_at`.
    let p = unsafe { libc::memalign(align, size) };
    record(p, size, Allocator::Memalign, ret);
    p
}

/// C++'s allocation functions, found once in the global scope (the C++
/// library, or the program's own replacement).
struct CxxFn {
    name: &'static [u8],
    addr: AtomicUsize,
}

impl CxxFn {
    const fn new(name: &'static [u8]) -> CxxFn {
        CxxFn {
            name,
            addr: AtomicUsize::new(0),
        }
    }

    fn get(&self) -> usize {
        let a = self.addr.load(Ordering::Relaxed);
        if a != 0 {
            return a;
        }
        // SAFETY: a NUL-terminated name looked up in the global scope.
        let a = unsafe { libc::dlsym(libc::RTLD_DEFAULT, self.name.as_ptr().cast()) } as usize;
        if a == 0 {
            // The program called it, so the C++ library is loaded.
            std::process::abort();
        }
        self.addr.store(a, Ordering::Relaxed);
        a
    }
}

static NEW: CxxFn = CxxFn::new(b"_Znwm\0");
static NEW_ARRAY: CxxFn = CxxFn::new(b"_Znam\0");
static NEW_NOTHROW: CxxFn = CxxFn::new(b"_ZnwmRKSt9nothrow_t\0");
static NEW_ARRAY_NOTHROW: CxxFn = CxxFn::new(b"_ZnamRKSt9nothrow_t\0");
static DELETE: CxxFn = CxxFn::new(b"_ZdlPv\0");
static DELETE_ARRAY: CxxFn = CxxFn::new(b"_ZdaPv\0");
static DELETE_SIZED: CxxFn = CxxFn::new(b"_ZdlPvm\0");
static DELETE_ARRAY_SIZED: CxxFn = CxxFn::new(b"_ZdaPvm\0");
static DELETE_NOTHROW: CxxFn = CxxFn::new(b"_ZdlPvRKSt9nothrow_t\0");
static DELETE_ARRAY_NOTHROW: CxxFn = CxxFn::new(b"_ZdaPvRKSt9nothrow_t\0");

extern "C" fn new_at(size: usize, ret: usize) -> *mut c_void {
    // SAFETY: `operator new(size_t)`'s address and signature.
    let f: extern "C" fn(usize) -> *mut c_void = unsafe { std::mem::transmute(NEW.get()) };
    let p = f(size);
    record(p, size, Allocator::New, ret);
    p
}

extern "C" fn new_array_at(size: usize, ret: usize) -> *mut c_void {
    // SAFETY: `operator new[](size_t)`'s.
    let f: extern "C" fn(usize) -> *mut c_void = unsafe { std::mem::transmute(NEW_ARRAY.get()) };
    let p = f(size);
    record(p, size, Allocator::NewArray, ret);
    p
}

extern "C" fn new_nothrow_at(size: usize, tag: *const c_void, ret: usize) -> *mut c_void {
    // SAFETY: `operator new(size_t, const std::nothrow_t &)`'s.
    let f: extern "C" fn(usize, *const c_void) -> *mut c_void =
        unsafe { std::mem::transmute(NEW_NOTHROW.get()) };
    let p = f(size, tag);
    record(p, size, Allocator::New, ret);
    p
}

extern "C" fn new_array_nothrow_at(size: usize, tag: *const c_void, ret: usize) -> *mut c_void {
    // SAFETY: `operator new[](size_t, const std::nothrow_t &)`'s.
    let f: extern "C" fn(usize, *const c_void) -> *mut c_void =
        unsafe { std::mem::transmute(NEW_ARRAY_NOTHROW.get()) };
    let p = f(size, tag);
    record(p, size, Allocator::NewArray, ret);
    p
}

/// An allocating wrapper: on x86-64, a trampoline that adds its return
/// address as one more argument (`$reg`) and jumps to `$target`.
macro_rules! allocating {
    ($name:ident ( $($a:ident : $t:ty),* ) -> $r:ty, $reg:literal, $target:ident) => {
        #[cfg(target_arch = "x86_64")]
        #[unsafe(naked)]
        #[no_mangle]
        pub unsafe extern "C" fn $name($($a: $t),*) -> $r {
            core::arch::naked_asm!(
                concat!("mov ", $reg, ", qword ptr [rsp]"),
                "jmp {target}",
                target = sym $target,
            )
        }

        #[cfg(not(target_arch = "x86_64"))]
        #[no_mangle]
        pub unsafe extern "C" fn $name($($a: $t),*) -> $r {
            $target($($a,)* 0)
        }
    };
}

allocating!(__wrap_malloc(size: usize) -> *mut c_void, "rsi", malloc_at);
allocating!(__wrap_calloc(n: usize, size: usize) -> *mut c_void, "rdx", calloc_at);
allocating!(__wrap_realloc(p: *mut c_void, size: usize) -> *mut c_void, "rdx", realloc_at);
allocating!(
    __wrap_posix_memalign(out: *mut *mut c_void, align: usize, size: usize) -> c_int,
    "rcx",
    posix_memalign_at
);
allocating!(__wrap_aligned_alloc(align: usize, size: usize) -> *mut c_void, "rdx", aligned_alloc_at);
allocating!(__wrap_memalign(align: usize, size: usize) -> *mut c_void, "rdx", memalign_at);
allocating!(__wrap__Znwm(size: usize) -> *mut c_void, "rsi", new_at);
allocating!(__wrap__Znam(size: usize) -> *mut c_void, "rsi", new_array_at);
allocating!(
    __wrap__ZnwmRKSt9nothrow_t(size: usize, tag: *const c_void) -> *mut c_void,
    "rdx",
    new_nothrow_at
);
allocating!(
    __wrap__ZnamRKSt9nothrow_t(size: usize, tag: *const c_void) -> *mut c_void,
    "rdx",
    new_array_nothrow_at
);

#[no_mangle]
pub unsafe extern "C" fn __wrap_free(p: *mut c_void) {
    forget(p);
    libc::free(p);
}

/// A `delete` wrapper: forgets the block, then calls the real function.
macro_rules! deleting {
    ($name:ident, $real:ident) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name(p: *mut c_void) {
            forget(p);
            let f: extern "C" fn(*mut c_void) = std::mem::transmute($real.get());
            f(p)
        }
    };
    ($name:ident, $real:ident, $t:ty) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name(p: *mut c_void, extra: $t) {
            forget(p);
            let f: extern "C" fn(*mut c_void, $t) = std::mem::transmute($real.get());
            f(p, extra)
        }
    };
}

deleting!(__wrap__ZdlPv, DELETE);
deleting!(__wrap__ZdaPv, DELETE_ARRAY);
deleting!(__wrap__ZdlPvm, DELETE_SIZED, usize);
deleting!(__wrap__ZdaPvm, DELETE_ARRAY_SIZED, usize);
deleting!(__wrap__ZdlPvRKSt9nothrow_t, DELETE_NOTHROW, *const c_void);
deleting!(
    __wrap__ZdaPvRKSt9nothrow_t,
    DELETE_ARRAY_NOTHROW,
    *const c_void
);
