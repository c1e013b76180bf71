//! Runs one interleaving: a private Unix socket, one `mpiexec` launch, and an
//! event loop that feeds every rank's calls to the engine and writes the
//! engine's answers back.

use std::collections::HashMap;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::AsRawFd;
use std::path::Path;
use std::time::{Duration, Instant};

use fib_wire::{Down, Frames, Site, Up};
use mio::net::{UnixListener, UnixStream};
use mio::{Events, Interest, Poll, Token as MioToken};
use poe::engine::{Choice, Config, Engine, Fired, OpRec, Planned, RankView, RunEnd};

use crate::launch::{Launch, LaunchSpec};
use crate::DriverError;

/// How a run ended, seen from outside the engine too.
#[derive(Clone, Debug)]
pub enum Ending {
    /// The engine ended the run (completed, deadlock, mismatch, ...).
    Engine(RunEnd),
    /// A rank died of a signal after its last MPI call at `site`.
    Crash {
        rank: usize,
        signal: i32,
        site: Site,
    },
    /// A rank called `MPI_Abort`.
    Abort { rank: usize, code: i32, site: Site },
    /// A rank's process ended without `MPI_Finalize`.
    NoFinalize {
        rank: usize,
        site: Site,
        /// The exit status, when the rank reported a failing one.
        status: Option<i32>,
    },
    /// A rank passed `MPI_Finalize` and then exited with a failing status
    /// (`status`, or a fatal signal reported as a crash).
    BadExit {
        rank: usize,
        status: i32,
        site: Site,
    },
    /// A rank called an MPI function fib does not model.
    Unsupported {
        rank: usize,
        name: String,
        site: Site,
    },
    /// The MPI library raised an error in a rank's call at `site`.
    MpiError {
        rank: usize,
        code: i32,
        text: String,
        site: Site,
    },
    /// The run went past its time limit.
    Timeout,
    /// `mpiexec` ended before every rank reached `MPI_Init`.
    LaunchFailed { status: String },
    /// A rank sent something the protocol does not allow.
    Protocol {
        rank: Option<usize>,
        message: String,
    },
}

/// Everything one run produced.
pub struct RunRecord {
    pub ending: Ending,
    pub choices: Vec<Choice>,
    pub fired: Vec<Fired>,
    /// Every rank's operations, for the Fib pass and for reports.
    pub ops: Vec<Vec<OpRec>>,
    pub ranks: Vec<RankView>,
    /// File ids named by the ranks.
    pub files: HashMap<u32, String>,
    pub calls: u64,
    pub stderr: String,
    /// What the ranks left behind, when the run completed.
    pub leaks: Vec<poe::Leak>,
    /// Every rank's calls, when the run completed with buffering and none
    /// of its calls could make the sequence depend on timing: the same
    /// calls are what the program makes under any buffering, so rerunning
    /// them in the engine without buffering is exact.
    pub calls_log: Option<Vec<Vec<(Site, fib_wire::Op)>>>,
}

/// One interleaving's settings.
pub struct RunSpec<'a> {
    pub mpiexec: &'a str,
    pub nprocs: usize,
    pub exe: &'a Path,
    pub args: &'a [String],
    pub interpose: &'a Path,
    pub zero_buffer: bool,
    pub timeout: Duration,
    /// Barrier sites the ranks must skip, for `--confirm`.
    pub elide: Option<String>,
}

const LISTENER: MioToken = MioToken(usize::MAX);

/// How many times the scheduler polls without sleeping after activity.
const SPIN_POLLS: u32 = 64;

struct Conn {
    stream: UnixStream,
    frames: Frames,
    rank: Option<usize>,
    eof: bool,
}

/// Runs the program once, following `plan`.
///
/// With `log_calls`, a buffered run keeps every rank's calls while they
/// cannot depend on timing ([`RunRecord::calls_log`]).
pub fn run(spec: &RunSpec, plan: Vec<Planned>, log_calls: bool) -> Result<RunRecord, DriverError> {
    let dir = tempfile::Builder::new()
        .prefix("fib-run-")
        .tempdir()
        .map_err(|e| DriverError::Io("creating a run directory".into(), e))?;
    crate::launch::register_temp(dir.path());
    let _forget = crate::launch::Forget(dir.path().to_path_buf());
    let sock = dir.path().join("s");
    let mut listener = UnixListener::bind(&sock)
        .map_err(|e| DriverError::Io(format!("binding {}", sock.display()), e))?;
    let mut poll = Poll::new().map_err(|e| DriverError::Io("creating a poller".into(), e))?;
    poll.registry()
        .register(&mut listener, LISTENER, Interest::READABLE)
        .map_err(|e| DriverError::Io("registering the socket".into(), e))?;

    let mut launch = Launch::start(&LaunchSpec {
        mpiexec: spec.mpiexec,
        nprocs: spec.nprocs,
        exe: spec.exe,
        args: spec.args,
        interpose: spec.interpose,
        socket: &sock,
        zero_buffer: spec.zero_buffer,
        elide: spec.elide.as_deref(),
    })?;

    let mut engine = Engine::new(
        Config {
            nprocs: spec.nprocs,
            zero_buffer: spec.zero_buffer,
        },
        plan,
    );
    let mut st = Loop {
        conns: Vec::new(),
        by_rank: vec![None; spec.nprocs],
        files: HashMap::new(),
        calls: 0,
        ending: None,
        finalized: vec![false; spec.nprocs],
        gone: vec![false; spec.nprocs],
        last_site: vec![Site::default(); spec.nprocs],
        exit_status: vec![None; spec.nprocs],
        exited_quietly: None,
        log: (log_calls && !spec.zero_buffer).then(|| vec![Vec::new(); spec.nprocs]),
    };
    let deadline = Instant::now() + spec.timeout;
    let mut events = Events::with_capacity(256);
    let mut buf = vec![0u8; 64 * 1024];
    let mut last_check = Instant::now();
    let mut spins = SPIN_POLLS;

    while st.ending.is_none() {
        let now = Instant::now();
        if now >= deadline {
            st.ending = Some(Ending::Timeout);
            break;
        }
        // After activity, look for more a few times without sleeping: the
        // next message usually follows within microseconds, and a sleeping
        // scheduler costs a cross-CPU wakeup per message.
        let wait = if spins < SPIN_POLLS {
            spins += 1;
            Duration::ZERO
        } else {
            (deadline - now).min(Duration::from_millis(50))
        };
        if let Err(e) = poll.poll(&mut events, Some(wait)) {
            if e.kind() != ErrorKind::Interrupted {
                return Err(DriverError::Io("polling".into(), e));
            }
        }
        if events.is_empty() {
            if wait.is_zero() {
                std::thread::yield_now();
                continue;
            }
        } else {
            spins = 0;
        }
        for ev in events.iter() {
            if ev.token() == LISTENER {
                loop {
                    match listener.accept() {
                        Ok((mut stream, _)) => {
                            let t = MioToken(st.conns.len());
                            poll.registry()
                                .register(&mut stream, t, Interest::READABLE)
                                .map_err(|e| DriverError::Io("registering a rank".into(), e))?;
                            st.conns.push(Conn {
                                stream,
                                frames: Frames::default(),
                                rank: None,
                                eof: false,
                            });
                        }
                        Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                        Err(e) => return Err(DriverError::Io("accepting a rank".into(), e)),
                    }
                }
                continue;
            }
            let c = ev.token().0;
            st.read_conn(c, &mut buf, &mut engine);
        }
        if st.ending.is_none() && st.exited_quietly.is_some() {
            // A rank died without saying why. Whatever killed it (another
            // rank's crash, abort or MPI error, which the launcher answers
            // by killing the job) was reported before that rank died: read
            // every rank once more so the cause wins over the symptom.
            for c in 0..st.conns.len() {
                st.read_conn(c, &mut buf, &mut engine);
            }
            if st.ending.is_none() {
                st.ending = st.exited_quietly.take();
            }
        }
        if st.ending.is_none() {
            if let Some(end) = engine.end() {
                if !matches!(end, RunEnd::Completed) {
                    st.ending = Some(Ending::Engine(end.clone()));
                }
            }
        }
        let answers = engine.advance();
        st.send(answers);
        if st.ending.is_none() {
            if let Some(end) = engine.end() {
                if matches!(end, RunEnd::Completed) {
                    // Every rank may now finalize and exit; wait for them.
                    if st.all_gone() {
                        st.ending = Some(Ending::Engine(RunEnd::Completed));
                    }
                } else {
                    st.ending = Some(Ending::Engine(end.clone()));
                }
            }
        }
        let idle = events.is_empty();
        if idle || last_check.elapsed() >= Duration::from_millis(100) {
            last_check = Instant::now();
        } else {
            continue;
        }
        if st.ending.is_none() {
            if let Some(status) = launch.exited() {
                // The launcher is gone; take what is still buffered, then
                // decide.
                for c in 0..st.conns.len() {
                    st.read_conn(c, &mut buf, &mut engine);
                }
                if st.ending.is_none() {
                    if matches!(engine.end(), Some(RunEnd::Completed)) {
                        st.ending = Some(Ending::Engine(RunEnd::Completed));
                    } else if let Some(r) = (0..spec.nprocs).find(|&r| st.by_rank[r].is_none()) {
                        let _ = r;
                        st.ending = Some(Ending::LaunchFailed {
                            status: status.to_string(),
                        });
                    } else {
                        let r = (0..spec.nprocs).find(|&r| !st.finalized[r]).unwrap_or(0);
                        st.ending = Some(Ending::NoFinalize {
                            rank: r,
                            site: st.last_site[r],
                            status: st.exit_status[r],
                        });
                    }
                }
            }
        }
    }

    let ending = st.ending.take().unwrap();
    let ending_completed = matches!(ending, Ending::Engine(RunEnd::Completed));
    match ending {
        Ending::Engine(RunEnd::Completed) => launch.finish(Duration::from_secs(5)),
        Ending::Crash { .. }
        | Ending::Abort { .. }
        | Ending::MpiError { .. }
        | Ending::NoFinalize { .. }
        | Ending::BadExit { .. } => {
            // Let the launcher report the failure on stderr, briefly.
            launch.finish(Duration::from_millis(300))
        }
        _ => launch.kill(),
    }
    let stderr = launch.stderr();
    drop(launch);
    let ranks = engine.rank_views();
    Ok(RunRecord {
        ending,
        choices: engine.choices().to_vec(),
        fired: engine.fired().to_vec(),
        ops: (0..spec.nprocs).map(|r| engine.ops(r).to_vec()).collect(),
        ranks,
        files: st.files,
        calls: st.calls,
        stderr,
        leaks: engine.leaks(),
        calls_log: match ending_completed {
            true => st.log.take(),
            false => None,
        },
    })
}

/// Whether what a call returns, and so what the program calls next, can
/// depend on timing: wildcard receives and probes, polls, and the calls
/// that return some of their requests.
fn depends_on_timing(op: &fib_wire::Op) -> bool {
    use fib_wire::{Op, WaitKind};
    match op {
        Op::Recv { src, .. } => *src == fib_wire::ANY,
        Op::Probe { src, blocking, .. } => *src == fib_wire::ANY || !blocking,
        Op::Test { .. } => true,
        Op::Wait { kind, .. } => matches!(kind, WaitKind::Any | WaitKind::Some),
        _ => false,
    }
}

struct Loop {
    conns: Vec<Conn>,
    by_rank: Vec<Option<usize>>,
    files: HashMap<u32, String>,
    calls: u64,
    ending: Option<Ending>,
    finalized: Vec<bool>,
    gone: Vec<bool>,
    last_site: Vec<Site>,
    /// Failing exit statuses the ranks reported.
    exit_status: Vec<Option<i32>>,
    /// A rank's connection closed before `MPI_Finalize` with no report of
    /// why: the run's ending unless a report read after it explains it.
    exited_quietly: Option<Ending>,
    /// Every rank's calls, kept while their sequence cannot depend on
    /// timing, to rerun them without buffering (see [`RunRecord::calls`]).
    log: Option<Vec<Vec<(Site, fib_wire::Op)>>>,
}

impl Loop {
    fn all_gone(&self) -> bool {
        self.gone.iter().all(|&g| g)
    }

    fn read_conn(&mut self, c: usize, buf: &mut [u8], engine: &mut Engine) {
        loop {
            if self.conns[c].eof {
                return;
            }
            match self.conns[c].stream.read(buf) {
                Ok(0) => {
                    self.conns[c].eof = true;
                    self.handle_frames(c, engine);
                    self.on_eof(c, engine);
                    return;
                }
                Ok(n) => {
                    self.conns[c].frames.push(&buf[..n]);
                    self.handle_frames(c, engine);
                    if n < buf.len() {
                        // A short read emptied the socket; new data will
                        // raise a new readiness event.
                        return;
                    }
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(_) => {
                    self.conns[c].eof = true;
                    self.on_eof(c, engine);
                    return;
                }
            }
        }
    }

    fn on_eof(&mut self, c: usize, engine: &Engine) {
        let Some(r) = self.conns[c].rank else {
            return;
        };
        self.gone[r] = true;
        if self.ending.is_some() || self.finalized[r] {
            return;
        }
        // A rank that passed MPI_Finalize in the engine may exit.
        if engine.rank_views().get(r).is_some_and(|v| v.finalized) {
            return;
        }
        self.exited_quietly.get_or_insert(Ending::NoFinalize {
            rank: r,
            site: self.last_site[r],
            status: self.exit_status[r],
        });
    }

    fn handle_frames(&mut self, c: usize, engine: &mut Engine) {
        loop {
            let msg = {
                let Some(body) = self.conns[c].frames.next_body() else {
                    return;
                };
                Up::decode(body)
            };
            let msg = match msg {
                Ok(m) => m,
                Err(e) => {
                    self.ending.get_or_insert(Ending::Protocol {
                        rank: self.conns[c].rank,
                        message: e.to_string(),
                    });
                    return;
                }
            };
            let rank = self.conns[c].rank;
            match (msg, rank) {
                (Up::Hello { rank: r, size, .. }, None) => {
                    let r = r as usize;
                    if size as usize != self.by_rank.len()
                        || r >= self.by_rank.len()
                        || self.by_rank[r].is_some()
                    {
                        self.ending.get_or_insert(Ending::Protocol {
                            rank: Some(r),
                            message: format!(
                                "rank {r} of {size} said hello to a run of {} processes",
                                self.by_rank.len()
                            ),
                        });
                        return;
                    }
                    self.by_rank[r] = Some(c);
                    self.conns[c].rank = Some(r);
                }
                (Up::File { id, path }, Some(_)) => {
                    self.files.insert(id, path);
                }
                (Up::Op { site, op }, Some(r)) => {
                    self.calls += 1;
                    self.last_site[r] = site;
                    if matches!(op, fib_wire::Op::Finalize) {
                        self.finalized[r] = true;
                    }
                    if let Some(log) = &mut self.log {
                        if depends_on_timing(&op) {
                            self.log = None;
                        } else {
                            log[r].push((site, op.clone()));
                        }
                    }
                    engine.call(r, site, op);
                }
                (Up::Abort { site, code }, Some(r)) => {
                    self.ending.get_or_insert(Ending::Abort {
                        rank: r,
                        code,
                        site,
                    });
                }
                (Up::Crash { site, signal }, Some(r)) => {
                    self.ending.get_or_insert(Ending::Crash {
                        rank: r,
                        signal,
                        site,
                    });
                }
                (Up::Unsupported { site, name }, Some(r)) => {
                    self.ending.get_or_insert(Ending::Unsupported {
                        rank: r,
                        name,
                        site,
                    });
                }
                (Up::Exit { site, status }, Some(r)) => {
                    self.exit_status[r] = Some(status);
                    if self.finalized[r] {
                        self.ending.get_or_insert(Ending::BadExit {
                            rank: r,
                            status,
                            site,
                        });
                    }
                }
                (Up::MpiError { site, code, text }, Some(r)) => {
                    self.ending.get_or_insert(Ending::MpiError {
                        rank: r,
                        code,
                        text,
                        site,
                    });
                }
                (m, r) => {
                    self.ending.get_or_insert(Ending::Protocol {
                        rank: r,
                        message: format!("unexpected message {m:?}"),
                    });
                    return;
                }
            }
        }
    }

    fn send(&mut self, answers: Vec<(usize, Down)>) {
        if answers.is_empty() {
            return;
        }
        // Group answers per rank, keeping their order, one write per rank.
        let mut per: Vec<Vec<u8>> = vec![Vec::new(); self.by_rank.len()];
        for (r, d) in answers {
            d.encode(&mut per[r]);
        }
        for (r, bytes) in per.into_iter().enumerate() {
            if bytes.is_empty() {
                continue;
            }
            let Some(c) = self.by_rank[r] else { continue };
            if self.conns[c].eof {
                continue;
            }
            if write_all(&mut self.conns[c].stream, &bytes).is_err() {
                // The rank is gone; its end of file tells the rest.
                continue;
            }
        }
    }
}

/// Writes everything to a non-blocking socket, waiting for room as needed.
fn write_all(s: &mut UnixStream, mut bytes: &[u8]) -> std::io::Result<()> {
    while !bytes.is_empty() {
        match s.write(bytes) {
            Ok(n) => bytes = &bytes[n..],
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                let mut pfd = libc::pollfd {
                    fd: s.as_raw_fd(),
                    events: libc::POLLOUT,
                    revents: 0,
                };
                // SAFETY: one valid pollfd for the duration of the call.
                unsafe {
                    libc::poll(&mut pfd, 1, 100);
                }
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
