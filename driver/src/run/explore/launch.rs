//! Starts `mpiexec` in a process group of its own, with the interposition
//! library preloaded into every rank and the scheduler's settings in their
//! environment, and makes sure nothing it started outlives the run: the
//! group is watched by [`crate::processes`], so that on success, failure,
//! timeout or interrupt the whole group is killed.

use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::processes::{
    ask_first, forget_group, interrupted, kill_stragglers, kill_tree, tag_group, watch_group, TAG,
};
use crate::toolchain::Toolchain;
use crate::DriverError;

/// A descriptor of the process `pid` that becomes readable when it exits;
/// `None` where the kernel has no `pidfd_open`.
fn pidfd(pid: i32) -> Option<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor
    // or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    // SAFETY: a descriptor the call just opened, owned by nothing else.
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
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
    /// The run's private directory (its socket, Open MPI's session
    /// directory).
    pub dir: &'a Path,
    /// Where the ranks reach the scheduler ([`fib_wire::env::SOCKET`]).
    pub address: &'a str,
    /// The run's key ([`fib_wire::env::KEY`]).
    pub key: u64,
    pub zero_buffer: bool,
    /// Standard sends go from a copy ([`super::RunSpec::copies`]).
    pub copies: bool,
    /// Barrier sites the ranks must skip (`FIB_ELIDE`), for `--confirm`.
    pub elide: Option<&'a str>,
    /// Whether the ranks hash the data they send ([`fib_wire::env::HASH_DATA`]).
    pub hash_data: bool,
    /// When the run is recorded: the receives its plan forces
    /// ([`fib_wire::env::FORCE`]).
    pub record: Option<&'a str>,
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
        let preload = tc.interpose.to_string_lossy();
        let key = format!("{:016x}", spec.key);
        let mut env = vec![
            ("LD_PRELOAD", preload.as_ref()),
            (fib_wire::env::SOCKET, spec.address),
            (fib_wire::env::KEY, key.as_str()),
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
        if spec.hash_data {
            env.push((fib_wire::env::HASH_DATA, "1"));
        }
        if let Some(force) = spec.record {
            env.push((fib_wire::env::RECORD, "1"));
            env.push((fib_wire::env::FORCE, force));
        }
        // Calls going ahead of the scheduler can be turned off for
        // comparison; Open MPI's launcher passes on only what it is told.
        let ahead = crate::settings::ahead();
        if let Some(a) = &ahead {
            env.push((fib_wire::env::AHEAD, a));
        }
        let mut cmd = match &tc.launcher {
            None => {
                let mut cmd = Command::new(&tc.mpiexec);
                cmd.args(tc.mpi.launch_args(spec.nprocs, &env));
                // Open MPI's launcher keeps a session directory per job (8
                // MB, under `/tmp/ompi.HOST.UID` by default) that a killed
                // job leaves behind: in the run's own directory it goes
                // with the run.
                cmd.env("OMPI_MCA_orte_tmpdir_base", spec.dir);
                cmd
            }
            Some(l) => {
                // Each rank starts as `env K=V ... PROGRAM ARGS`: the ranks
                // get fib's settings however the launcher treats its own
                // environment (Open MPI's passes on only what `-x` names),
                // and the launcher itself does not load the library.
                let words = l.command(spec.nprocs);
                let mut cmd = Command::new(&words[0]);
                cmd.args(&words[1..]).arg("env");
                cmd.args(env.iter().map(|(k, v)| format!("{k}={v}")));
                cmd
            }
        };
        cmd.arg(spec.exe).args(spec.args);
        // The run's key tells its processes from every other's.
        let tag = format!("{}-{key}", std::process::id());
        cmd.current_dir(spec.cwd)
            .env("HWLOC_COMPONENTS", "-linuxio,-pci")
            .env(TAG, &tag)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let launcher = match &tc.launcher {
            Some(l) => l.program().to_string(),
            None => tc.mpiexec.clone(),
        };
        let mut child = cmd.spawn().map_err(|e| DriverError::Tool(launcher, e))?;
        let group = child.id() as i32;
        tag_group(group, tag);
        if tc.launcher.is_some() {
            ask_first(group);
        }
        if !watch_group(group) {
            // The interrupt came between the check above and now: the
            // handler did not see this group, so kill it here.
            kill_tree(group);
            forget_group(group);
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
            kill_stragglers(self.group);
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
