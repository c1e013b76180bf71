//! Where a run's scheduler listens for its ranks: a Unix socket in the
//! run's private directory when fib launches the ranks itself, or a TCP
//! port when a launcher of the user's (`--launcher`) may place them on
//! other hosts, which share no path with fib. Either way every rank says
//! the run's key in its hello ([`fib_wire::env::KEY`]).

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::os::fd::{AsRawFd, RawFd};
use std::path::Path;

use mio::event::Source;
use mio::net::{TcpListener, TcpStream, UnixListener, UnixStream};
use mio::{Interest, Registry, Token};

use crate::DriverError;

/// The scheduler's listening socket.
pub(super) enum Listener {
    Unix(UnixListener),
    Tcp(TcpListener),
}

/// One rank's connection.
pub(super) enum Stream {
    Unix(UnixStream),
    Tcp(TcpStream),
}

impl Listener {
    /// A Unix socket at `path`.
    pub fn unix(path: &Path) -> Result<Listener, DriverError> {
        UnixListener::bind(path)
            .map(Listener::Unix)
            .map_err(|e| DriverError::Io(format!("binding {}", path.display()), e))
    }

    /// A TCP port on every interface, chosen by the system.
    pub fn tcp() -> Result<Listener, DriverError> {
        TcpListener::bind(SocketAddr::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), 0))
            .map(Listener::Tcp)
            .map_err(|e| DriverError::Io("listening on a TCP port".into(), e))
    }

    /// What the ranks are told to connect to ([`fib_wire::env::SOCKET`]):
    /// the socket's path, or `tcp:HOST:PORT` with this host's address as
    /// [`host`] finds it.
    pub fn address(&self, path: &Path) -> Result<String, DriverError> {
        match self {
            Listener::Unix(_) => Ok(path.to_string_lossy().into_owned()),
            Listener::Tcp(l) => {
                let port = l
                    .local_addr()
                    .map_err(|e| DriverError::Io("reading the TCP port".into(), e))?
                    .port();
                Ok(format!("tcp:{}:{port}", host()))
            }
        }
    }

    /// The next rank waiting to connect.
    pub fn accept(&self) -> std::io::Result<Stream> {
        match self {
            Listener::Unix(l) => l.accept().map(|(s, _)| Stream::Unix(s)),
            Listener::Tcp(l) => l.accept().map(|(s, _)| {
                // Each answer is one small frame a rank waits for.
                let _ = s.set_nodelay(true);
                Stream::Tcp(s)
            }),
        }
    }
}

/// The address ranks on other hosts reach fib at: `FIB_HOST` when set,
/// else this host's first IPv4 address that is not a loopback one, else
/// `127.0.0.1`.
pub(super) fn host() -> String {
    if let Some(h) = crate::settings::host() {
        return h;
    }
    first_address().map_or_else(|| "127.0.0.1".to_string(), |a| a.to_string())
}

/// This host's first IPv4 address that is up and not a loopback one.
fn first_address() -> Option<Ipv4Addr> {
    let mut list: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs fills in a list it allocates, freed below.
    if unsafe { libc::getifaddrs(&mut list) } != 0 {
        return None;
    }
    let mut found = None;
    let mut at = list;
    while !at.is_null() {
        // SAFETY: a node of the list getifaddrs returned.
        let ifa = unsafe { &*at };
        at = ifa.ifa_next;
        let up = ifa.ifa_flags & (libc::IFF_UP as u32) != 0;
        let loopback = ifa.ifa_flags & (libc::IFF_LOOPBACK as u32) != 0;
        if !up || loopback || ifa.ifa_addr.is_null() {
            continue;
        }
        // SAFETY: a socket address of the family it names.
        if i32::from(unsafe { (*ifa.ifa_addr).sa_family }) != libc::AF_INET {
            continue;
        }
        // SAFETY: an AF_INET address is a sockaddr_in.
        let sin = unsafe { &*(ifa.ifa_addr as *const libc::sockaddr_in) };
        found = Some(Ipv4Addr::from(u32::from_be(sin.sin_addr.s_addr)));
        break;
    }
    // SAFETY: the list getifaddrs allocated.
    unsafe { libc::freeifaddrs(list) };
    found
}

/// A new run's key ([`fib_wire::env::KEY`]): random enough that no one who
/// did not start the ranks can guess it.
pub(super) fn new_key() -> u64 {
    let mut k = 0u64;
    // SAFETY: getrandom fills the 8 bytes it is given.
    let n = unsafe { libc::getrandom((&mut k as *mut u64).cast(), 8, 0) };
    if n != 8 {
        // No entropy source: the clock and the process id, which still
        // differ between runs.
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        k = t ^ (u64::from(std::process::id()) << 32);
    }
    k | 1
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Stream::Unix(s) => s.read(buf),
            Stream::Tcp(s) => s.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Stream::Unix(s) => s.write(buf),
            Stream::Tcp(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl AsRawFd for Stream {
    fn as_raw_fd(&self) -> RawFd {
        match self {
            Stream::Unix(s) => s.as_raw_fd(),
            Stream::Tcp(s) => s.as_raw_fd(),
        }
    }
}

impl Source for Listener {
    fn register(&mut self, r: &Registry, t: Token, i: Interest) -> std::io::Result<()> {
        match self {
            Listener::Unix(l) => l.register(r, t, i),
            Listener::Tcp(l) => l.register(r, t, i),
        }
    }

    fn reregister(&mut self, r: &Registry, t: Token, i: Interest) -> std::io::Result<()> {
        match self {
            Listener::Unix(l) => l.reregister(r, t, i),
            Listener::Tcp(l) => l.reregister(r, t, i),
        }
    }

    fn deregister(&mut self, r: &Registry) -> std::io::Result<()> {
        match self {
            Listener::Unix(l) => l.deregister(r),
            Listener::Tcp(l) => l.deregister(r),
        }
    }
}

impl Source for Stream {
    fn register(&mut self, r: &Registry, t: Token, i: Interest) -> std::io::Result<()> {
        match self {
            Stream::Unix(s) => s.register(r, t, i),
            Stream::Tcp(s) => s.register(r, t, i),
        }
    }

    fn reregister(&mut self, r: &Registry, t: Token, i: Interest) -> std::io::Result<()> {
        match self {
            Stream::Unix(s) => s.reregister(r, t, i),
            Stream::Tcp(s) => s.reregister(r, t, i),
        }
    }

    fn deregister(&mut self, r: &Registry) -> std::io::Result<()> {
        match self {
            Stream::Unix(s) => s.deregister(r),
            Stream::Tcp(s) => s.deregister(r),
        }
    }
}
