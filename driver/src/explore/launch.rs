//! Starts `mpiexec` in a process group of its own and makes sure nothing it
//! started outlives the run: on success, failure, timeout or interrupt the
//! whole group is killed. Holds the interrupt flag: the CLI's signal
//! handler calls [`interrupt`], and the check, on its own thread, sees
//! [`interrupted`], stops, and reports what it gathered.

use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::mpi::Toolchain;
use crate::DriverError;

/// The process groups of the runs in progress (several with `--jobs`), and
/// of a build command, for the interrupt handler.
static GROUPS: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Adds `group` to the ones an interrupt kills; `false` (and the group is
/// not added) when the user already interrupted fib: the caller kills it.
fn watch_group(group: i32) -> bool {
    let mut groups = GROUPS.lock().unwrap_or_else(|e| e.into_inner());
    if interrupted() {
        return false;
    }
    groups.push(group);
    true
}

/// Removes `group` from the ones an interrupt kills.
fn forget_group(group: i32) {
    GROUPS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|&g| g != group);
}

/// Set once the user interrupted fib; no run starts after that.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Whether [`interrupt`] (or [`kill_current_run`]) has been called. No run
/// starts after that; the run in progress ends without a record (how the
/// interrupt killed it is not a finding), and the check reports what the
/// runs before it showed.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Temporary directories of the run in progress, removed on interrupt.
static TEMP_DIRS: Mutex<Vec<std::path::PathBuf>> = Mutex::new(Vec::new());

/// Notes a temporary directory to remove if the run is interrupted.
pub(crate) fn register_temp(dir: &Path) {
    TEMP_DIRS.lock().unwrap().push(dir.to_path_buf());
}

/// Forgets a temporary directory that is about to be removed normally.
pub(crate) fn unregister_temp(dir: &Path) {
    TEMP_DIRS.lock().unwrap().retain(|d| d != dir);
}

/// Unregisters a temporary directory when the work that made it ends
/// normally (the directory itself is removed by its owner).
pub(crate) struct Forget(pub(crate) std::path::PathBuf);

impl Drop for Forget {
    fn drop(&mut self) {
        unregister_temp(&self.0);
    }
}

/// Stops the check: sets the flag [`interrupted`] reads and kills the
/// process groups of the runs in progress, if any, with every descendant.
/// The check's thread notices, throws the run away and reports what it has.
/// Safe to call from a signal-handling thread; the CLI calls it on the
/// first Ctrl-C.
pub fn interrupt() {
    // First, so that whatever sees the killed processes die also sees why.
    INTERRUPTED.store(true, Ordering::SeqCst);
    let groups = std::mem::take(&mut *GROUPS.lock().unwrap_or_else(|e| e.into_inner()));
    for g in groups {
        kill_tree(g);
    }
}

/// [`interrupt`], then removes the temporary directories of the run in
/// progress, for a process about to exit without unwinding (the CLI's
/// second Ctrl-C).
pub fn kill_current_run() {
    interrupt();
    let dirs = std::mem::take(&mut *TEMP_DIRS.lock().unwrap());
    for d in dirs {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// A process group fib started besides a run (the user's build command of
/// `fib check --build`): an interrupt kills it as it kills a run, and
/// dropping the guard kills whatever of it is left.
pub(crate) struct Group(i32);

impl Group {
    /// Tracks the group `leader` leads (started with its own process
    /// group); `None` when the user already interrupted fib (the group is
    /// then killed here).
    pub(crate) fn track(leader: i32) -> Option<Group> {
        if !watch_group(leader) {
            kill_tree(leader);
            return None;
        }
        Some(Group(leader))
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        forget_group(self.0);
        kill_tree(self.0);
    }
}

/// Kills the process group `root` leads and every descendant of `root`
/// (MPICH's proxy and ranks start sessions of their own), then waits, for a
/// bounded time, until none of them runs any more.
///
/// The tree is stopped before it is killed: a process that is still
/// starting others (the proxy launching the ranks when the user hits
/// Ctrl-C) would otherwise fork between the look at `/proc` and its own
/// kill, and its new children, orphaned, could no longer be found. A
/// process stops once it leaves the call it is in (a fork under way
/// completes first, and its child shows in `/proc` by then) and forks no
/// more: once every process found has stopped and a look finds nothing
/// new, every process of the tree is known.
fn kill_tree(root: i32) {
    let _killing = KILLING.lock().unwrap_or_else(|e| e.into_inner());
    let mut victims = vec![root];
    // SAFETY: signalling the group we created and the processes found
    // below it.
    unsafe {
        libc::kill(root, libc::SIGSTOP);
        libc::kill(-root, libc::SIGSTOP);
    }
    let until = std::time::Instant::now() + std::time::Duration::from_secs(1);
    for _ in 0..FREEZE_ROUNDS {
        // Until every process found has stopped (or died).
        while victims
            .iter()
            .any(|&p| state(p).is_some_and(|s| !"TtZX".contains(s)))
            && std::time::Instant::now() < until
        {
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
        let new: Vec<i32> = descendants(root)
            .into_iter()
            .filter(|p| !victims.contains(p))
            .collect();
        if new.is_empty() {
            break;
        }
        for &pid in &new {
            // SAFETY: as above.
            unsafe { libc::kill(pid, libc::SIGSTOP) };
        }
        victims.extend(new);
    }
    // SAFETY: as above; SIGKILL ends stopped processes too.
    unsafe {
        for &pid in &victims {
            libc::kill(pid, libc::SIGKILL);
        }
        libc::kill(-root, libc::SIGKILL);
    }
    let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while victims.iter().any(|&p| running(p)) && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// The most looks at `/proc` [`kill_tree`] takes to stop a tree: each
/// finds the children the processes stopped by the last one had started
/// before they stopped, so a tree needs as many as it has levels.
const FREEZE_ROUNDS: usize = 32;

/// Held while [`kill_tree`] kills and waits: a run that ends because its
/// launcher died under the interrupt handler's kill waits for that kill to
/// finish before it goes on (and perhaps lets fib exit).
static KILLING: Mutex<()> = Mutex::new(());

/// A descriptor of the process `pid` that becomes readable when it exits;
/// `None` where the kernel has no `pidfd_open`.
fn pidfd(pid: i32) -> Option<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor
    // or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    // SAFETY: a descriptor the call just opened, owned by nothing else.
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// Whether `pid` exists and is not a zombie.
fn running(pid: i32) -> bool {
    state(pid).is_some_and(|s| s != 'Z' && s != 'X')
}

/// The state of `pid` as `/proc` shows it (`R`, `S`, `T` for stopped,
/// `Z` for a zombie, ...), or `None` once it is gone.
fn state(pid: i32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().next()?.chars().next()
}

/// The most stderr kept per run.
const STDERR_KEEP: usize = 64 * 1024;

/// A running `mpiexec` and everything it started.
pub struct Launch {
    child: Child,
    group: i32,
    stderr: Arc<Mutex<Vec<u8>>>,
    drains: Vec<JoinHandle<()>>,
    reaped: Option<std::process::ExitStatus>,
    /// A descriptor that becomes readable when `mpiexec` exits, where the
    /// kernel has `pidfd_open` (Linux 5.3): the run loop waits on it with
    /// the ranks' sockets instead of looking now and then.
    exit_fd: Option<OwnedFd>,
}

/// How to launch one interleaving.
pub struct LaunchSpec<'a> {
    pub toolchain: &'a Toolchain,
    pub nprocs: usize,
    pub exe: &'a Path,
    pub args: &'a [String],
    /// The working directory of `mpiexec` and so of every rank.
    pub cwd: &'a Path,
    pub socket: &'a Path,
    pub zero_buffer: bool,
    /// Standard sends go from a copy ([`super::RunSpec::copies`]).
    pub copies: bool,
    /// Barrier sites the ranks must skip (`FIB_ELIDE`), for `--confirm`.
    pub elide: Option<&'a str>,
}

impl Launch {
    /// Starts `mpiexec -n N` with the interposition library preloaded into
    /// every rank (through the launcher's own way of setting the ranks'
    /// environment, so `mpiexec` itself is not affected and no link order
    /// can drop the library).
    pub fn start(spec: &LaunchSpec) -> Result<Launch, DriverError> {
        use std::os::unix::process::CommandExt;
        if interrupted() {
            return Err(DriverError::Interrupted);
        }
        let tc = spec.toolchain;
        let mut cmd = Command::new(&tc.mpiexec);
        let preload = tc.interpose.to_string_lossy();
        let socket = spec.socket.to_string_lossy();
        let mut env = vec![
            ("LD_PRELOAD", preload.as_ref()),
            (fib_wire::env::SOCKET, socket.as_ref()),
            (
                fib_wire::env::ZERO_BUFFER,
                if spec.zero_buffer { "1" } else { "0" },
            ),
            (
                fib_wire::env::COPY_SENDS,
                if spec.copies { "1" } else { "0" },
            ),
        ];
        if let Some(e) = spec.elide {
            env.push((fib_wire::env::ELIDE, e));
        }
        // Calls going ahead of the scheduler can be turned off for
        // comparison; Open MPI's launcher passes on only what it is told.
        let ahead = std::env::var(fib_wire::env::AHEAD).ok();
        if let Some(a) = &ahead {
            env.push((fib_wire::env::AHEAD, a));
        }
        cmd.args(tc.mpi.launch_args(spec.nprocs, &env));
        cmd.arg(spec.exe).args(spec.args);
        cmd.current_dir(spec.cwd)
            .env("HWLOC_COMPONENTS", "-linuxio,-pci")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let mut child = cmd
            .spawn()
            .map_err(|e| DriverError::Tool(tc.mpiexec.clone(), e))?;
        let group = child.id() as i32;
        if !watch_group(group) {
            // The interrupt came between the check above and now: the
            // handler did not see this group, so kill it here.
            kill_tree(group);
            let _ = child.wait();
            return Err(DriverError::Interrupted);
        }
        let exit_fd = pidfd(group);
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let mut drains = Vec::new();
        if let Some(mut out) = child.stdout.take() {
            drains.push(std::thread::spawn(move || {
                let mut buf = [0u8; 8192];
                while matches!(out.read(&mut buf), Ok(n) if n > 0) {}
            }));
        }
        if let Some(mut err) = child.stderr.take() {
            let keep = stderr.clone();
            drains.push(std::thread::spawn(move || {
                let mut buf = [0u8; 8192];
                while let Ok(n) = err.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    let mut k = keep.lock().unwrap();
                    if k.len() < STDERR_KEEP {
                        let take = n.min(STDERR_KEEP - k.len());
                        k.extend_from_slice(&buf[..take]);
                    }
                }
            }));
        }
        Ok(Launch {
            child,
            group,
            stderr,
            drains,
            reaped: None,
            exit_fd,
        })
    }

    /// The descriptor that becomes readable when `mpiexec` exits, if the
    /// kernel gave one.
    pub fn exit_fd(&self) -> Option<RawFd> {
        self.exit_fd.as_ref().map(|f| f.as_raw_fd())
    }

    /// Whether `mpiexec` has exited (and its status).
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        if self.reaped.is_none() {
            if let Ok(Some(s)) = self.child.try_wait() {
                self.reaped = Some(s);
            }
        }
        self.reaped
    }

    /// Kills the whole process group, and every descendant of `mpiexec`
    /// that left it (MPICH's proxy starts a session of its own), and reaps
    /// `mpiexec`.
    pub fn kill(&mut self) {
        if self.reaped.is_none() {
            kill_tree(self.group);
        } else {
            let _killing = KILLING.lock().unwrap_or_else(|e| e.into_inner());
            // SAFETY: signalling the group we created; stragglers only.
            unsafe {
                libc::kill(-self.group, libc::SIGKILL);
            }
        }
        if self.reaped.is_none() {
            self.reaped = self.child.wait().ok();
        }
    }

    /// Waits up to `grace` for `mpiexec` to exit by itself, then kills the
    /// group (any straggler it left) either way.
    pub fn finish(&mut self, grace: std::time::Duration) {
        let until = std::time::Instant::now() + grace;
        while self.exited().is_none() {
            let left = until.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                break;
            }
            match self.exit_fd() {
                Some(fd) => {
                    let mut p = libc::pollfd {
                        fd,
                        events: libc::POLLIN,
                        revents: 0,
                    };
                    // SAFETY: polling one valid pollfd.
                    unsafe { libc::poll(&mut p, 1, left.as_millis().max(1) as i32) };
                }
                None => std::thread::sleep(std::time::Duration::from_millis(2)),
            }
        }
        self.kill();
    }

    /// What the program and the launcher wrote on stderr (up to 64 KiB),
    /// once the launch has been finished or killed.
    pub fn stderr(&mut self) -> String {
        for d in self.drains.drain(..) {
            let _ = d.join();
        }
        String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned()
    }
}

impl Drop for Launch {
    fn drop(&mut self) {
        self.kill();
        forget_group(self.group);
    }
}

/// Every process below `root` in the process tree, read from `/proc`.
fn descendants(root: i32) -> Vec<i32> {
    let mut parent_of = Vec::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for e in dir.flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                continue;
            };
            // The parent pid is the second field after the command's
            // closing parenthesis.
            let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
                continue;
            };
            if let Some(ppid) = rest
                .split_whitespace()
                .nth(1)
                .and_then(|s| s.parse::<i32>().ok())
            {
                parent_of.push((pid, ppid));
            }
        }
    }
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let p = found[i];
        for &(c, pp) in &parent_of {
            if pp == p && !found.contains(&c) {
                found.push(c);
            }
        }
        i += 1;
    }
    found.remove(0);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Processes whose command line contains `marker`.
    fn with_marker(marker: &str) -> Vec<i32> {
        let mut found = Vec::new();
        for e in std::fs::read_dir("/proc").unwrap().flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
                continue;
            };
            if let Ok(cmd) = std::fs::read(format!("/proc/{pid}/cmdline")) {
                if String::from_utf8_lossy(&cmd).contains(marker) && running(pid) {
                    found.push(pid);
                }
            }
        }
        found
    }

    /// A process in a session of its own (as MPICH's proxy is) that keeps
    /// starting children while the tree is killed: none of them survives.
    #[test]
    fn a_tree_that_keeps_forking_leaves_no_process() {
        use std::os::unix::process::CommandExt;
        // `sleep` adds up its arguments: this one makes the sleeps' command
        // lines this test's own.
        let marker = format!("0.{}7", std::process::id());
        let script = format!(
            "setsid sh -c 'for i in $(seq 400); do sleep 1000 {marker} & done; wait' & wait"
        );
        let mut child = Command::new("sh")
            .args(["-c", &script])
            .process_group(0)
            .spawn()
            .unwrap();
        let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while with_marker(&marker).len() < 20 {
            assert!(std::time::Instant::now() < until, "the tree never grew");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        kill_tree(child.id() as i32);
        let _ = child.wait();
        let left = with_marker(&marker);
        for &p in &left {
            // SAFETY: cleaning up what the test started.
            unsafe { libc::kill(p, libc::SIGKILL) };
        }
        assert_eq!(left, Vec::<i32>::new());
    }
}
