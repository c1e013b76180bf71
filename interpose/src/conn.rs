//! The connection to the scheduler: an outgoing batch buffer flushed with one
//! `write_all`, incoming frames read either blocking (when the rank waits
//! for an answer) or without blocking (while it polls MPI), and the library's
//! logging, which writes each line with a single write(2) because all ranks
//! share stderr.

use std::net::TcpStream;
use std::os::fd::{AsRawFd, FromRawFd, IntoRawFd, OwnedFd, RawFd};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicI32, Ordering};

use fib_wire::{Down, Frames, Up};

/// The world rank, or -1 before `MPI_Init`; used in log lines.
pub static RANK: AtomicI32 = AtomicI32::new(-1);
/// The socket's file descriptor, or -1 when there is none (for the crash
/// handler).
pub static FD: AtomicI32 = AtomicI32::new(-1);

/// Flushes once the batch grows past this many bytes.
const FLUSH_AT: usize = 64 * 1024;

/// Writes one line to stderr with a single write(2), prefixed with
/// `fib: rank N: `.
pub fn log(msg: &str) {
    let rank = RANK.load(Ordering::Relaxed);
    let line = if rank >= 0 {
        format!("fib: rank {rank}: {msg}\n")
    } else {
        format!("fib: {msg}\n")
    };
    // SAFETY: writing a valid buffer to fd 2.
    unsafe {
        libc::write(2, line.as_ptr().cast(), line.len());
    }
}

/// Logs `msg` and ends the process with status 3 (a protocol or socket
/// error the run cannot recover from).
pub fn fatal(msg: &str) -> ! {
    log(msg);
    // SAFETY: `_exit` is always safe to call.
    unsafe { libc::_exit(3) }
}

/// Writes all of `buf` to `fd` with write(2) only (usable in a signal
/// handler); gives up on any error.
pub fn raw_write_all(fd: i32, mut buf: &[u8]) {
    while !buf.is_empty() {
        // SAFETY: writing a valid buffer.
        let n = unsafe { libc::write(fd, buf.as_ptr().cast(), buf.len()) };
        if n < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return;
        }
        buf = &buf[n as usize..];
    }
}

/// The scheduler's socket: a Unix socket when the ranks share a directory
/// with fib, a TCP connection when a launcher of the user's places them
/// (`tcp:HOST:PORT`, see [`fib_wire::env::SOCKET`]).
pub struct Stream(OwnedFd);

impl Stream {
    /// Connects to `addr`: `tcp:HOST:PORT` or a socket's path.
    fn connect(addr: &str) -> std::io::Result<Stream> {
        match addr.strip_prefix("tcp:") {
            Some(hp) => {
                let s = TcpStream::connect(hp)?;
                // Each answer is one small frame a rank waits for.
                s.set_nodelay(true)?;
                Ok(Stream(s.into()))
            }
            None => Ok(Stream(UnixStream::connect(addr)?.into())),
        }
    }

    /// Sends all of `buf` (never raising `SIGPIPE`: a scheduler gone is an
    /// error here, not a signal to the program).
    fn write_all(&mut self, mut buf: &[u8]) -> std::io::Result<()> {
        while !buf.is_empty() {
            // SAFETY: sending a valid buffer on the descriptor this stream
            // owns.
            let n = unsafe {
                libc::send(
                    self.0.as_raw_fd(),
                    buf.as_ptr().cast(),
                    buf.len(),
                    libc::MSG_NOSIGNAL,
                )
            };
            if n < 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            buf = &buf[n as usize..];
        }
        Ok(())
    }
}

impl AsRawFd for Stream {
    fn as_raw_fd(&self) -> RawFd {
        self.0.as_raw_fd()
    }
}

/// The connection to fib made before `PMPI_Init`, watched while MPI
/// starts.
///
/// A rank can wait in `PMPI_Init` for peers that never come: a peer
/// killed while the launcher started the job, or a launcher step cancelled
/// while Slurm was still placing its tasks. Nothing of fib's reaches such a
/// rank (it is no descendant of fib's on another host, or its launcher is
/// gone), and it would wait forever, holding its job. Connected first, the
/// rank learns that fib is gone from the connection itself: a thread
/// watches it until MPI has started, and ends the process when fib closes
/// it. Once MPI has started ([`Watched::into_conn`]) the rank talks to fib
/// at its next call and learns it there.
pub struct Watched {
    stream: Stream,
    /// Written to when MPI has started: the watch ends.
    stop: OwnedFd,
    watch: Option<std::thread::JoinHandle<()>>,
}

impl Watched {
    /// Connects to `addr` (`tcp:HOST:PORT` or a socket's path) and starts
    /// the watch.
    pub fn connect(addr: &str) -> Watched {
        let stream = match Stream::connect(addr) {
            Ok(s) => s,
            Err(e) => fatal(&format!("cannot connect to the scheduler at {addr}: {e}")),
        };
        let mut ends = [0; 2];
        // SAFETY: pipe2 fills in two descriptors, owned below.
        if unsafe { libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            fatal(&format!(
                "cannot make a pipe: {}",
                std::io::Error::last_os_error()
            ));
        }
        // SAFETY: the descriptors pipe2 just made, each owned once.
        let (read, stop) =
            unsafe { (OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1])) };
        let fd = stream.as_raw_fd();
        let watch = std::thread::Builder::new()
            .name("fib-watch".into())
            .spawn(move || watch(fd, read))
            .ok();
        Watched {
            stream,
            stop,
            watch,
        }
    }

    /// Ends the watch (MPI has started) and makes the connection the
    /// rank's.
    pub fn into_conn(mut self) -> Conn {
        raw_write_all(self.stop.as_raw_fd(), &[1]);
        if let Some(w) = self.watch.take() {
            let _ = w.join();
        }
        Conn::over(self.stream)
    }
}

/// Waits until `stop` is written to, or fib closes the socket `fd`; then
/// ends the process.
fn watch(fd: RawFd, stop: OwnedFd) {
    // Signals to the process are the program's threads' to take.
    // SAFETY: a signal set on the stack, filled before use; the mask is
    // this thread's own.
    unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_BLOCK, &all, std::ptr::null_mut());
    }
    let mut fds = [
        libc::pollfd {
            fd,
            events: libc::POLLIN | libc::POLLRDHUP,
            revents: 0,
        },
        libc::pollfd {
            fd: stop.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        },
    ];
    loop {
        // SAFETY: polling two descriptors this process owns.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) };
        if n < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return;
        }
        if fds[1].revents != 0 {
            return;
        }
        if fds[0].revents != 0 {
            // fib says nothing before the rank's hello: what can be read
            // now is the end of the connection.
            let mut b = 0u8;
            // SAFETY: peeking one byte into a valid buffer.
            let got = unsafe {
                libc::recv(
                    fd,
                    (&mut b as *mut u8).cast(),
                    1,
                    libc::MSG_PEEK | libc::MSG_DONTWAIT,
                )
            };
            if got > 0 {
                return;
            }
            fatal("fib is gone while MPI was starting; this rank leaves");
        }
    }
}

/// The socket to the scheduler with its buffers.
pub struct Conn {
    stream: Option<Stream>,
    /// Encoded messages not yet written.
    pub pending: Vec<u8>,
    frames: Frames,
    /// What each read takes in: kept, so that a poll of the socket (many
    /// per call while a rank waits) does not clear 8 KiB of stack first.
    inbuf: Box<[u8; 8192]>,
}

impl Conn {
    /// The connection over `stream` (see [`Watched`]).
    fn over(stream: Stream) -> Conn {
        FD.store(stream.as_raw_fd(), Ordering::Relaxed);
        Conn {
            stream: Some(stream),
            pending: Vec::with_capacity(FLUSH_AT + 4096),
            frames: Frames::default(),
            inbuf: Box::new([0; 8192]),
        }
    }

    fn fd(&self) -> i32 {
        match &self.stream {
            Some(s) => s.as_raw_fd(),
            None => fatal("the connection to the scheduler is already closed"),
        }
    }

    /// Appends `m` to the batch, flushing if the batch is large.
    pub fn push(&mut self, m: &Up) {
        m.encode(&mut self.pending);
        if self.pending.len() > FLUSH_AT {
            self.flush();
        }
    }

    /// Writes the batch with one `write_all`.
    pub fn flush(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let Some(stream) = self.stream.as_mut() else {
            return;
        };
        if let Err(e) = stream.write_all(&self.pending) {
            fatal(&format!("cannot write to the scheduler: {e}"));
        }
        self.pending.clear();
    }

    /// Reads whatever has arrived. With `timeout_ms` 0 it never blocks; with
    /// -1 it waits until something arrives. Returns whether bytes arrived.
    pub fn read(&mut self, timeout_ms: i32) -> bool {
        let fd = self.fd();
        if timeout_ms != 0 {
            let mut p = libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: polling one valid pollfd.
            let r = unsafe { libc::poll(&mut p, 1, timeout_ms) };
            if r <= 0 {
                return false;
            }
        }
        let buf = &mut self.inbuf;
        // SAFETY: reading into a valid buffer.
        let n = unsafe {
            libc::recv(
                fd,
                buf.as_mut_ptr().cast(),
                buf.len(),
                if timeout_ms == 0 {
                    libc::MSG_DONTWAIT
                } else {
                    0
                },
            )
        };
        if n == 0 {
            fatal("the scheduler closed the connection");
        }
        if n < 0 {
            let e = std::io::Error::last_os_error();
            return match e.kind() {
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted => false,
                _ => fatal(&format!("cannot read from the scheduler: {e}")),
            };
        }
        self.frames.push(&self.inbuf[..n as usize]);
        true
    }

    /// The next complete message already read, if any.
    pub fn next(&mut self) -> Option<Down> {
        let body = self.frames.next_body()?;
        match Down::decode(body) {
            Ok(d) => Some(d),
            Err(e) => fatal(&format!("protocol error: {e}")),
        }
    }

    /// Blocks until the scheduler closes the connection, then ends the
    /// process with status 70 (used after reporting an unsupported call).
    pub fn wait_for_eof(&mut self) -> ! {
        self.flush();
        if let Some(s) = &self.stream {
            let fd = s.as_raw_fd();
            let mut buf = [0u8; 4096];
            loop {
                // SAFETY: reading into a valid buffer.
                let n = unsafe { libc::recv(fd, buf.as_mut_ptr().cast(), buf.len(), 0) };
                if n == 0
                    || (n < 0
                        && std::io::Error::last_os_error().kind()
                            != std::io::ErrorKind::Interrupted)
                {
                    break;
                }
            }
        }
        // SAFETY: `_exit` is always safe to call.
        unsafe { libc::_exit(70) }
    }

    /// Flushes and gives up the connection without closing its socket: the
    /// process keeps it until it ends, so a crash or a failing exit status
    /// after `MPI_Finalize` still reaches the scheduler (through [`FD`]).
    pub fn release(&mut self) {
        self.flush();
        if let Some(s) = self.stream.take() {
            let _ = s.0.into_raw_fd();
        }
    }
}
