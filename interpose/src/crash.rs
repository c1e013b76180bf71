//! Crash and exit handling: on a fatal signal the rank flushes its batch,
//! reports [`fib_wire::Up::Crash`] with the site of its last MPI call and
//! dies of the same signal; at exit it flushes its batch. The crash message
//! is encoded by hand into a stack buffer so the handler does not allocate.

use std::sync::atomic::Ordering;

use crate::conn::{raw_write_all, FD};
use crate::site;
use crate::state::try_lib;

const SIGNALS: [libc::c_int; 5] = [
    libc::SIGSEGV,
    libc::SIGBUS,
    libc::SIGFPE,
    libc::SIGILL,
    libc::SIGABRT,
];

/// The alternate signal stack's size (so a stack overflow can be reported).
const ALT_STACK: usize = 64 * 1024;

/// Encodes `Up::Crash { site, signal }` exactly as [`fib_wire::Up::encode`]
/// does, without allocating.
pub fn crash_frame(site: fib_wire::Site, signal: i32) -> [u8; 17] {
    let mut f = [0u8; 17];
    f[0..4].copy_from_slice(&13u32.to_le_bytes());
    f[4] = 5;
    let (file, line) = site.to_raw();
    f[5..9].copy_from_slice(&file.to_le_bytes());
    f[9..13].copy_from_slice(&line.to_le_bytes());
    f[13..17].copy_from_slice(&signal.to_le_bytes());
    f
}

extern "C" fn on_signal(sig: libc::c_int) {
    let fd = FD.load(Ordering::Relaxed);
    if fd >= 0 {
        if let Some(l) = try_lib() {
            raw_write_all(fd, &l.conn.pending);
            l.conn.pending.clear();
        }
        raw_write_all(fd, &crash_frame(site::current(), sig));
    }
    // SAFETY: restoring the default action and re-raising are
    // async-signal-safe.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

extern "C" fn at_exit() {
    if let Some(l) = try_lib() {
        l.conn.flush();
    }
}

extern "C" {
    /// glibc's `on_exit`: like `atexit`, with the exit status.
    fn on_exit(
        f: extern "C" fn(libc::c_int, *mut libc::c_void),
        arg: *mut libc::c_void,
    ) -> libc::c_int;
}

/// Reports the exit status and the site of the last MPI call: a failing
/// status after `MPI_Finalize` is a failure nothing else would tell the
/// scheduler about, and an exit before it is shown at the rank's last call.
extern "C" fn on_exit_status(status: libc::c_int, _arg: *mut libc::c_void) {
    let fd = FD.load(Ordering::Relaxed);
    if fd >= 0 {
        if let Some(l) = try_lib() {
            raw_write_all(fd, &l.conn.pending);
            l.conn.pending.clear();
        }
        let mut frame = Vec::new();
        fib_wire::Up::Exit {
            site: site::current(),
            status,
        }
        .encode(&mut frame);
        raw_write_all(fd, &frame);
    }
}

/// Installs the signal handlers and the exit hook.
pub fn install() {
    // SAFETY: plain libc calls with valid arguments; the alternate stack is
    // leaked on purpose and lives as long as the process.
    unsafe {
        let stack = Box::leak(vec![0u8; ALT_STACK].into_boxed_slice());
        let ss = libc::stack_t {
            ss_sp: stack.as_mut_ptr().cast(),
            ss_flags: 0,
            ss_size: ALT_STACK,
        };
        libc::sigaltstack(&ss, std::ptr::null_mut());
        for sig in SIGNALS {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as *const () as usize;
            sa.sa_flags = libc::SA_ONSTACK;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
        libc::atexit(at_exit);
        on_exit(on_exit_status, std::ptr::null_mut());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crash_frame_matches_the_wire_encoding() {
        let site = fib_wire::Site::Line { file: 7, line: 42 };
        let mut out = Vec::new();
        fib_wire::Up::Crash { site, signal: 11 }.encode(&mut out);
        assert_eq!(&crash_frame(site, 11)[..], &out[..]);
    }
}
