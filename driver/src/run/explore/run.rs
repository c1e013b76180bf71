//! Runs one interleaving: a private Unix socket, one `mpiexec` launch, and an
//! event loop that feeds every rank's calls to the engine, writes the
//! engine's answers back, and tells [`Endings`] what it sees until the run
//! has ended.

use std::collections::HashMap;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::AsRawFd;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use fib_analysis::{
    CallThread, Ending, Endings, HandleLeak, OwnedAccess, RunRecord, ThreadIssue, WatchedAccesses,
};
use fib_wire::{Down, Frames, ThreadStep, Up};
use mio::{Events, Interest, Poll, Token as MioToken};
use poe::engine::{Config, Engine, Planned, RunEnd};

use super::ahead::{Ahead, Held, Pending, Went};
use super::launch::{Launch, LaunchSpec};
use super::listen::{self, Listener, Stream};
use super::recorded::{Ordinals, Recorded};
use super::rerun::Rerun;
use crate::processes;
use crate::run::scratch::{self, Mirror};
use crate::toolchain::Toolchain;
use crate::DriverError;

/// One interleaving's settings.
pub struct RunSpec<'a> {
    pub toolchain: &'a Toolchain,
    pub nprocs: usize,
    pub exe: &'a Path,
    pub args: &'a [String],
    /// The ranks' working directory.
    pub cwd: &'a Path,
    /// When the ranks run in a scratch directory of each run's own rather
    /// than in `cwd` itself: the mirror of `cwd` it is made from.
    pub scratch: Option<&'a Mirror>,
    pub zero_buffer: bool,
    /// When a run may stand for other orders of its calls
    /// ([`poe::Config::exchange`]): the sites that allow it.
    pub exchange: Option<Exchangeable<'a>>,
    pub timeout: Duration,
    /// Barrier sites the ranks must skip, for `--confirm`.
    pub elide: Option<String>,
    /// Whether the runs are recorded (`--mode recorded`, see
    /// [`super::recorded`]).
    pub recorded: bool,
    /// Whether a buffered run's standard sends go from a copy of the
    /// program's data (`FIB_COPY_SENDS=1`). Runs start without, and the
    /// first run that cannot go on without copies ([`Engine::held_by_sends`])
    /// sets it for every later run of the program (one run at a time or
    /// several) and runs again with it.
    pub copies: &'a AtomicBool,
}

/// The sites (ids, sorted) whose calls let a run stand for other orders
/// of them, as the static facts found.
#[derive(Clone, Copy, Debug)]
pub struct Exchangeable<'a> {
    /// Receives from `MPI_ANY_SOURCE` whose data steers nothing
    /// (`Facts::free_receives`, or every one when `Facts::steering` is
    /// empty): rows of them are exchangeable blocks.
    pub receives: &'a [u32],
    /// `MPI_Waitany` calls whose index and status reach nothing MPI sees
    /// (`Facts::free_waits`): rows of them stand for every order.
    pub waits: &'a [u32],
    /// Probes from `MPI_ANY_SOURCE` whose status only names the receive
    /// after them (`Facts::free_probes`, sorted): rows of them are
    /// exchangeable blocks.
    pub probes: &'a [instrument::ProbeRow],
    /// Whether the ranks hash the data they send, so that the orders of a
    /// row of wildcard receives whose sites nothing vouches for can be
    /// tried (the program has a receive from `MPI_ANY_SOURCE`;
    /// `fib_analysis::orders`).
    pub try_orders: bool,
}

const LISTENER: MioToken = MioToken(usize::MAX);
/// `mpiexec`'s exit ([`Launch::exit_fd`]).
const LAUNCHER: MioToken = MioToken(usize::MAX - 1);

/// How many times the scheduler polls without sleeping after activity.
const SPIN_POLLS: u32 = 64;

/// How often the loop looks at the launcher while ranks keep it busy.
const LAUNCHER_CHECK: Duration = Duration::from_millis(100);

/// How long the loop lets the other ranks go on after a rank reported an
/// argument check, at most, before the lowest rank's check so far is the
/// ending ([`Loop::settle_checks`]).
const CHECKS_GRACE: Duration = Duration::from_millis(500);

/// The longest plan a recorded run hands its ranks ([`fib_wire::env::FORCE`]):
/// Linux refuses a single argument or environment string of 128 KiB or
/// more, which a launcher's command line or environment would carry. A
/// longer one makes the program's exploration scheduled.
const MAX_FORCE: usize = 96 * 1024;

/// How long a rank with several threads must have been quiet before every
/// rank waiting counts as the run standing still ([`Loop::threads_busy`]).
const THREADS_QUIET: Duration = Duration::from_millis(200);

/// How long a rank whose gate is on must have been quiet before its
/// running threads are taken as idle
/// ([`Loop::threads_idle`]): longer than a thread computes between two
/// calls in most programs, and than the one-second `sleep` a benchmark's
/// threads take before they end, since a thread taken so lets its
/// siblings' calls enter without a choice, which the replay of a run
/// whose thread was quicker would not meet.
const THREADS_IDLE: Duration = Duration::from_millis(1500);

/// How long a replay waits for a thread that its run did not take as idle
/// there before taking it so all the same ([`Loop::threads_idle`]): the
/// program did not do what it did in the run (it computed for longer, or
/// waits for something else), and the replay is likely to diverge.
const THREADS_OVERDUE: Duration = Duration::from_secs(8);

struct Conn {
    stream: Stream,
    frames: Frames,
    rank: Option<usize>,
    eof: bool,
}

/// Runs the program once, following `plan`.
///
/// With `log_calls`, a buffered run whose calls cannot depend on timing
/// checks them without buffering ([`RunRecord::unbuffered`]). With
/// `keep_files`, what the run wrote into its scratch directory is kept
/// ([`Mirror::keep`]).
///
/// A run the user interrupts ends as [`Served::Interrupted`]: its processes
/// are killed and it returns [`DriverError::Interrupted`], never a record,
/// so that how it died is never taken for something the program did.
pub fn run(
    spec: &RunSpec,
    plan: Vec<Planned>,
    log_calls: bool,
    keep_files: bool,
    ordinals: &Ordinals,
) -> Result<RunRecord, DriverError> {
    let copies = spec.zero_buffer || spec.copies.load(Ordering::Relaxed);
    let once = Once {
        log_calls,
        copies,
        keep_files,
    };
    if let Some(rec) = run_once(spec, plan.clone(), once, ordinals)? {
        return Ok(rec);
    }
    // MPI held a send of the program's buffer that the interleaving needs
    // buffered: the same interleaving again, and every later one, with
    // copies.
    spec.copies.store(true, Ordering::Relaxed);
    let once = Once {
        copies: true,
        ..once
    };
    Ok(
        run_once(spec, plan, once, ordinals)?
            .expect("a run with copies is never held by its sends"),
    )
}

/// How [`run_once`] runs: [`run`]'s flags, and whether sends are copied.
#[derive(Clone, Copy)]
struct Once {
    log_calls: bool,
    copies: bool,
    keep_files: bool,
}

/// A run's private temporary directory (its socket, its scratch
/// directory), removed with everything in it when the run ends, however it
/// ends ([`scratch::remove`]: also what the program left unwritable).
struct RunDir(tempfile::TempDir);

impl Drop for RunDir {
    fn drop(&mut self) {
        scratch::remove(self.0.path());
    }
}

/// [`run`] with sends copied or not; `None` when the run was held by its
/// sends ([`Served::HeldBySends`]; only without copies).
fn run_once(
    spec: &RunSpec,
    plan: Vec<Planned>,
    once: Once,
    ordinals: &Ordinals,
) -> Result<Option<RunRecord>, DriverError> {
    let Once {
        log_calls,
        copies,
        keep_files,
    } = once;
    let run_dir = RunDir(
        tempfile::Builder::new()
            .prefix("fib-run-")
            .tempdir()
            .map_err(|e| DriverError::Io("creating a run directory".into(), e))?,
    );
    let dir = run_dir.0.path();
    let _temp = processes::Temp::register(dir);
    let cwd = match spec.scratch {
        Some(m) => m.make(dir)?,
        None => spec.cwd.to_path_buf(),
    };
    let sock = dir.join("s");
    let mut listener = match spec.toolchain.launcher {
        None => Listener::unix(&sock)?,
        Some(_) => Listener::tcp()?,
    };
    let address = listener.address(&sock)?;
    let key = listen::new_key();
    let poll = Poll::new().map_err(|e| DriverError::Io("creating a poller".into(), e))?;
    poll.registry()
        .register(&mut listener, LISTENER, Interest::READABLE)
        .map_err(|e| DriverError::Io("registering the socket".into(), e))?;

    // A recorded run's plan is forced on the ranks. Its standard sends go
    // from the program's buffers, as a scheduled run's do, until MPI holds
    // one that the run needs buffered: its ranks say they are stuck in it
    // (`Up::Stuck`) and blocked, and once every rank waits the engine
    // finds the run held by its sends, which is run again with copies.
    let record = match spec.recorded {
        true => {
            let force = ordinals
                .force(&plan)
                .map_err(|what| DriverError::Unrecorded(what.into()))?;
            // The launcher passes it as one argument or environment
            // string, which the kernel caps (`MAX_ARG_STRLEN`).
            if force.len() > MAX_FORCE {
                return Err(DriverError::Unrecorded(format!(
                    "a plan of {} choices, too long to hand the ranks ({} bytes)",
                    plan.len(),
                    force.len()
                )));
            }
            Some(force)
        }
        false => None,
    };
    let mut launch = Launch::start(&LaunchSpec {
        record: record.as_deref(),
        toolchain: spec.toolchain,
        nprocs: spec.nprocs,
        exe: spec.exe,
        args: spec.args,
        cwd: &cwd,
        dir,
        address: &address,
        key,
        zero_buffer: spec.zero_buffer,
        copies,
        elide: spec.elide.as_deref(),
        hash_data: spec.exchange.is_some_and(|x| x.try_orders),
    })?;
    if let Some(fd) = launch.exit_fd() {
        poll.registry()
            .register(&mut mio::unix::SourceFd(&fd), LAUNCHER, Interest::READABLE)
            .map_err(|e| DriverError::Io("registering the launcher".into(), e))?;
    }
    let config = Config {
        nprocs: spec.nprocs,
        zero_buffer: spec.zero_buffer,
        exchange: spec.exchange.is_some(),
    };
    let engine = match spec.recorded {
        true => {
            let mut e = Engine::following(config, plan);
            e.hold(true);
            e
        }
        false => Engine::new(config, plan),
    };
    let mut st = Loop {
        poll,
        listener,
        engine,
        key,
        conns: Vec::new(),
        by_rank: vec![None; spec.nprocs],
        files: HashMap::new(),
        calls: 0,
        handles: Vec::new(),
        owned: Vec::new(),
        threads: Vec::new(),
        watched: Vec::new(),
        call_threads: Vec::new(),
        struct_types: Vec::new(),
        rank_calls: vec![0; spec.nprocs],
        lent: vec![Vec::new(); spec.nprocs],
        endings: Endings::new(spec.nprocs),
        rerun: (log_calls && !spec.zero_buffer).then(|| Rerun::start(spec.nprocs)),
        buf: vec![0u8; 64 * 1024],
        ahead: (0..spec.nprocs).map(|_| Ahead::default()).collect(),
        fixed: spec
            .exchange
            .map(|x| (x.receives.to_vec(), x.waits.to_vec(), x.probes.to_vec())),
        stuck: vec![false; spec.nprocs],
        copies,
        held: false,
        streams: spec
            .exchange
            .is_some_and(|x| x.try_orders)
            .then(|| vec![Default::default(); spec.nprocs]),
        recorded: spec.recorded.then(|| Recorded::new(spec.nprocs, ordinals)),
        live: true,
        errors: Vec::new(),
        threaded: vec![None; spec.nprocs],
        any_threaded: false,
        gated: vec![false; spec.nprocs],
        any_gated: false,
        by: vec![None; spec.nprocs],
        checks_since: None,
    };
    let served = st.serve(&mut launch, Instant::now() + spec.timeout)?;
    match served {
        Served::Interrupted => {
            launch.kill();
            return Err(DriverError::Interrupted);
        }
        Served::HeldBySends => {
            launch.kill();
            return Ok(None);
        }
        Served::Unrecorded(what) => {
            launch.kill();
            return Err(DriverError::Unrecorded(what));
        }
        Served::Ended => {}
    }
    let ending = st.endings.take().expect("the loop ends with an ending");
    if ending.completed() {
        launch.finish(Duration::from_secs(5));
    } else if ending.rank_failed() {
        // Let the launcher pass on the program's own report of the failure
        // (an assertion's message, MPI_Abort's line): it exits as soon as it
        // has, and a loaded machine can take a while.
        launch.finish(Duration::from_secs(3));
    } else {
        launch.kill();
    }
    let stderr = launch.stderr();
    drop(launch);
    if processes::interrupted() {
        // The interrupt came while the run was being wound up, and may have
        // killed what the ending speaks of.
        return Err(DriverError::Interrupted);
    }
    if let (Some(m), true) = (spec.scratch, keep_files) {
        m.keep(&cwd)?;
    }
    Ok(Some(st.record(ending, stderr)))
}

/// Whether what a call returns, and so what the program calls next, can
/// depend on timing: wildcard receives and probes, polls, cancels, and the
/// calls that return some of their requests.
fn depends_on_timing(op: &fib_wire::Op) -> bool {
    use fib_wire::{Op, WaitKind};
    match op {
        Op::Recv { src, .. } => *src == fib_wire::ANY,
        Op::Probe { src, blocking, .. } | Op::Mprobe { src, blocking, .. } => {
            *src == fib_wire::ANY || !blocking
        }
        // A cancel's outcome, like a poll's, depends on when it is asked.
        Op::Test { .. } | Op::RequestGetStatus { .. } | Op::Cancel { .. } => true,
        Op::Wait { kind, .. } => matches!(kind, WaitKind::Any | WaitKind::Some),
        _ => false,
    }
}

/// How serving a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Served {
    /// [`Endings`] decided how the run ended.
    Ended,
    /// The user interrupted fib: the run has no ending to report.
    Interrupted,
    /// The run cannot go on without copies of its sends
    /// ([`Engine::held_by_sends`]).
    HeldBySends,
    /// A recorded run met a call it cannot follow (named).
    Unrecorded(String),
}

/// The event loop's state.
struct Loop<'a> {
    poll: Poll,
    listener: Listener,
    engine: Engine,
    /// The run's key, which every rank's hello must say.
    key: u64,
    conns: Vec<Conn>,
    by_rank: Vec<Option<usize>>,
    files: HashMap<u32, String>,
    calls: u64,
    /// What the ranks said at `MPI_Finalize` they had not freed.
    handles: Vec<HandleLeak>,
    /// What the ranks touched of the memory MPI owned.
    owned: Vec<OwnedAccess>,
    /// What the ranks found wrong with their threads' calls.
    threads: Vec<ThreadIssue>,
    /// The ranks' accesses to watched memory.
    watched: Vec<WatchedAccesses>,
    /// The threads of the calls of ranks that have several.
    call_threads: Vec<CallThread>,
    /// The struct datatypes the ranks' calls used.
    struct_types: Vec<fib_analysis::StructTypeUse>,
    /// How many calls each rank has reported (the place of its watched
    /// accesses in its program order).
    rank_calls: Vec<u64>,
    /// Per rank, the entries of `watched` that name the buffer of its next
    /// call ([`Up::Lent`]), whose site that call gives.
    lent: Vec<Vec<usize>>,
    endings: Endings,
    /// Every rank's calls, kept for the check without buffering while
    /// their sequence cannot depend on timing (see
    /// [`RunRecord::unbuffered`]).
    rerun: Option<Rerun>,
    buf: Vec<u8>,
    /// Per rank, its calls that went ahead of the scheduler.
    ahead: Vec<Ahead>,
    /// [`RunSpec::exchange`]'s sites: receives, then waits.
    fixed: Option<(Vec<u32>, Vec<u32>, Vec<instrument::ProbeRow>)>,
    /// Per rank, whether it last said it waits in MPI for a send of its
    /// buffer ([`Up::Stuck`]).
    stuck: Vec<bool>,
    /// Whether the run copies sends ([`RunSpec::copies`]).
    copies: bool,
    /// Whether the run is held by its sends ([`Served::HeldBySends`]).
    held: bool,
    /// When the ranks hash their data: each rank's calls and data.
    streams: Option<Vec<fib_analysis::stream::Stream>>,
    /// A recorded run's state ([`super::recorded`]).
    recorded: Option<Recorded<'a>>,
    /// In a recorded run, whether the ranks may still send: the engine
    /// then catches up only when they all wait.
    live: bool,
    /// A recorded run's MPI errors not yet told ([`Loop::settle_errors`]).
    errors: Vec<(usize, fib_wire::Site, i32, String)>,
    /// Per rank with several threads ([`Up::Threads`]), when it was last
    /// heard from: until it has been quiet for [`THREADS_QUIET`], another
    /// of its threads may be on its way to a call ([`Loop::threads_busy`]).
    threaded: Vec<Option<Instant>>,
    /// Whether some rank has several threads (saves scanning `threaded` at
    /// every step of a run that has none).
    any_threaded: bool,
    /// Per rank, whether its gate is on ([`Up::ThreadStep`]): the engine
    /// orders its threads' calls.
    gated: Vec<bool>,
    /// Whether some rank's gate is on.
    any_gated: bool,
    /// Per rank whose gate is on, the thread of the call it reports next
    /// ([`Up::By`]).
    by: Vec<Option<u32>>,
    /// When the first argument check still held by [`Endings`] was read.
    checks_since: Option<Instant>,
}

impl Loop<'_> {
    /// Serves the ranks until the run has ended or the user interrupts
    /// fib (the interrupt handler kills the run's processes; the loop sees
    /// the flag within one poll).
    fn serve(&mut self, launch: &mut Launch, deadline: Instant) -> Result<Served, DriverError> {
        let mut events = Events::with_capacity(256);
        let mut last_check = Instant::now();
        let mut spins = SPIN_POLLS;
        while self.endings.decided().is_none() {
            if self.held {
                return Ok(Served::HeldBySends);
            }
            if self
                .recorded
                .as_ref()
                .is_some_and(|x| x.unrecorded.is_some())
            {
                return Ok(self.unrecorded_at());
            }
            if processes::interrupted() {
                return Ok(Served::Interrupted);
            }
            let now = Instant::now();
            if now >= deadline {
                self.endings.timeout();
                break;
            }
            // After activity, look for more a few times without sleeping:
            // the next message usually follows within microseconds, and a
            // sleeping scheduler costs a cross-CPU wakeup per message.
            let wait = if spins < SPIN_POLLS {
                spins += 1;
                Duration::ZERO
            } else {
                (deadline - now).min(Duration::from_millis(50))
            };
            if let Err(e) = self.poll.poll(&mut events, Some(wait)) {
                if e.kind() != ErrorKind::Interrupted {
                    return Err(DriverError::Io("polling".into(), e));
                }
            }
            if events.is_empty() && wait.is_zero() {
                std::thread::yield_now();
                continue;
            }
            if !events.is_empty() {
                spins = 0;
            }
            let mut launcher = false;
            for ev in events.iter() {
                match ev.token() {
                    LISTENER => self.accept()?,
                    LAUNCHER => launcher = true,
                    t => self.read_conn(t.0),
                }
            }
            self.settle_errors();
            self.step();
            self.when_quiet();
            self.settle_checks();
            if launcher || events.is_empty() || last_check.elapsed() >= LAUNCHER_CHECK {
                last_check = Instant::now();
                self.check_launcher(launch);
            }
        }
        if let Some(x) = &self.recorded {
            if x.unrecorded.is_some() {
                return Ok(self.unrecorded_at());
            }
            // The run ended another way (a rank aborted or crashed, the
            // time ran out): the engine still reads back what the ranks
            // sent, for what the run showed before; nothing more will
            // come, so it no longer holds back what waited for every
            // rank's reports (a collective all reached, a choice the run's
            // outcomes give).
            if self.live {
                self.live = false;
                self.read_all();
                self.engine.hold(false);
                self.catch_up();
            }
        }
        Ok(if processes::interrupted() {
            Served::Interrupted
        } else {
            Served::Ended
        })
    }

    /// Argument checks held by [`Endings`]: settled (the lowest rank's
    /// wins) once every rank has reported one, waits or is gone, or after
    /// [`CHECKS_GRACE`], so that which rank's check ends the run does not
    /// depend on which came first. A scheduled rank waits when the engine
    /// holds a call of it that it waits in (no call of it went ahead
    /// since); a recorded one when it said so.
    fn settle_checks(&mut self) {
        if !self.endings.checks_pending() {
            self.checks_since = None;
            return;
        }
        let since = *self.checks_since.get_or_insert_with(Instant::now);
        let views = match self.recorded {
            Some(_) => Vec::new(),
            None => self.engine.rank_views(),
        };
        let waits = |r: usize| match &self.recorded {
            Some(x) => x.blocked[r],
            None => {
                views.get(r).is_some_and(|v| v.call.is_some())
                    && !self.ahead[r].settled
                    && self.ahead[r].held.is_empty()
            }
        };
        let still = (0..self.by_rank.len()).all(|r| self.endings.checked(r) || waits(r));
        if still || since.elapsed() >= CHECKS_GRACE {
            self.endings.settle_checks();
        }
    }

    /// Accepts every rank waiting to connect.
    fn accept(&mut self) -> Result<(), DriverError> {
        loop {
            match self.listener.accept() {
                Ok(mut stream) => {
                    let t = MioToken(self.conns.len());
                    self.poll
                        .registry()
                        .register(&mut stream, t, Interest::READABLE)
                        .map_err(|e| DriverError::Io("registering a rank".into(), e))?;
                    self.conns.push(Conn {
                        stream,
                        frames: Frames::default(),
                        rank: None,
                        eof: false,
                    });
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => return Ok(()),
                Err(e) => return Err(DriverError::Io("accepting a rank".into(), e)),
            }
        }
    }

    /// A recorded run's MPI errors, once read: the engine first reads what
    /// every rank sent (not through `step`: with some ranks' reports not
    /// all in, how else it stands may be premature), and the arguments it
    /// finds differing in a collective explain the error MPI raised.
    fn settle_errors(&mut self) {
        if self.errors.is_empty() {
            return;
        }
        self.read_all();
        self.catch_up();
        if let Some(e @ RunEnd::ArgsDiffer { .. }) = self.engine.end() {
            let e = e.clone();
            self.endings.engine(Some(&e));
        }
        for (r, site, code, text) in std::mem::take(&mut self.errors) {
            self.endings.mpi_error(r, site, code, text);
        }
    }

    /// Lets a recorded run's engine take in everything sent so far, telling
    /// [`Endings`] nothing: with some ranks' reports not all in, how the
    /// engine stands may be premature.
    fn catch_up(&mut self) {
        loop {
            let answers = self.engine.advance_threads();
            if !self.send(answers) {
                break;
            }
        }
    }

    /// A recorded run's end at the call it cannot follow.
    fn unrecorded_at(&self) -> Served {
        let Some((r, (call, _))) = self
            .recorded
            .as_ref()
            .and_then(|x| x.unrecorded.map(|r| (r, x.last[r])))
        else {
            return Served::Ended;
        };
        Served::Unrecorded(format!("{call} (rank {r})"))
    }

    /// In a recorded run whose ranks still run: once every rank still
    /// running has waited in MPI for a while, with everything before sent,
    /// the engine catches up, and finds the deadlock if there is one.
    fn when_quiet(&mut self) {
        let conns = &self.conns;
        let by_rank = &self.by_rank;
        let gone = |r: usize| by_rank[r].is_some_and(|c| conns[c].eof);
        let quiet = match &mut self.recorded {
            Some(x) if self.live => x.quiet(gone),
            _ => false,
        };
        if quiet {
            self.live = false;
            self.step();
            self.live = true;
            // A rank keeps failing a test while every other waits, and the
            // engine found no deadlock: the scheduler's answers find
            // whether the program is livelocked.
            if self.endings.decided().is_none() {
                if let Some(x) = &mut self.recorded {
                    x.unrecorded = x.unrecorded.or(x.spins());
                }
            }
        }
    }

    /// After reading: settles a quiet exit, lets the engine answer, and
    /// tells [`Endings`] how the engine stands.
    fn step(&mut self) {
        if self.endings.quiet_exit_pending() {
            // A rank died without saying why. Whatever killed it was
            // reported before it died: read every rank once more so that
            // the cause wins over the symptom.
            self.read_all();
            self.endings.settle_quiet_exit();
        }
        // A recorded run's engine takes no choice and declares no deadlock
        // until it knows what every rank waits in; nor does a scheduled
        // run's while a rank with several threads may still be running.
        if self.recorded.is_some() {
            self.engine.hold(self.live);
        } else if self.any_threaded {
            let busy = self.threads_busy();
            self.engine.hold(busy);
        }
        if !matches!(self.engine.end(), Some(RunEnd::Completed)) {
            self.endings.engine(self.engine.end());
        }
        loop {
            let answers = self.engine.advance_threads();
            if !self.send(answers) {
                // Threads of a rank whose gate is on that have made no
                // call for a while are taken as waiting outside MPI, so
                // that the calls at its gate can enter.
                if !self.threads_idle() {
                    break;
                }
            }
        }
        self.endings.engine(self.engine.end());
        if !self.copies && self.stuck.contains(&true) {
            self.held = self.engine.held_by_sends(&self.stuck);
        }
    }

    /// Whether a rank with several threads was heard from within
    /// [`THREADS_QUIET`]. The scheduler sees a rank's calls, not its
    /// threads: one thread waiting inside MPI does not mean that the
    /// others are not about to call (one that does while the first waits
    /// is reported as `MPI_THREAD_MULTIPLE`, which fib does not model, or
    /// under a lower level waits its turn). Every rank waiting is taken as
    /// final only once such ranks have been quiet for a while; a thread
    /// that computes longer than that before its call is not waited for.
    fn threads_busy(&self) -> bool {
        self.threaded.iter().enumerate().any(|(r, heard)| {
            !self.gated[r]
                && heard.is_some_and(|t| t.elapsed() < THREADS_QUIET)
                && self.by_rank[r].is_some_and(|c| !self.conns[c].eof)
        })
    }

    /// The time rule of ranks whose gate is on: a rank not heard from
    /// within [`THREADS_IDLE`] has its running threads taken as idle (a
    /// thread that spins on a flag, computes, or waits in a way fib does
    /// not wrap): its other calls enter, the run is not over while they
    /// may still call, and their next call goes through the gate as any.
    /// A replay idles threads where its run did instead, as soon as it
    /// stands still there (`Engine::replay_idles`), and leaves the clock
    /// alone until its plan is used up, but for a rank quiet for
    /// [`THREADS_OVERDUE`]. Returns whether that changed anything.
    fn threads_idle(&mut self) -> bool {
        let mut any = self.engine.replay_idles();
        for r in 0..self.gated.len() {
            let quiet = self.threaded[r].map(|t| t.elapsed());
            if self.gated[r] && quiet.is_some_and(|q| q >= THREADS_IDLE) {
                let overdue = quiet.is_some_and(|q| q >= THREADS_OVERDUE);
                any |= self.engine.threads_idle(r, overdue);
            }
        }
        any
    }

    /// Gives the engine one call of rank `r`, or holds it while the engine
    /// still owes the rank the answer to a settled call.
    fn call(&mut self, r: usize, site: fib_wire::Site, op: fib_wire::Op) {
        let call = Held {
            site,
            op,
            went: self.ahead[r].next.take(),
            thread: self.by[r].take(),
        };
        if self.ahead[r].settled {
            self.ahead[r].held.push_back(Pending::Call(call));
        } else {
            self.feed(r, call);
        }
    }

    /// What thread `t` of rank `r` did, for the rank's gate; held, like a
    /// call, behind a settled call.
    fn thread_step(&mut self, r: usize, t: u32, step: ThreadStep) {
        if self.ahead[r].settled {
            self.ahead[r].held.push_back(Pending::Step(t, step));
            return;
        }
        match step {
            ThreadStep::Started => {
                self.gated[r] = true;
                self.any_gated = true;
                // The ranks' calls come in the order their threads made
                // them, which the engine orders anew in each run.
                self.rerun = None;
                self.engine.thread_started(r, t);
            }
            ThreadStep::Parked => self.engine.thread_parked(r, t, true),
            ThreadStep::Running => self.engine.thread_parked(r, t, false),
            ThreadStep::Joined { joined } => {
                self.engine.thread_parked(r, t, false);
                self.engine.thread_joined(r, t, joined);
            }
            ThreadStep::Ended => self.engine.thread_ended(r, t),
        }
    }

    fn feed(&mut self, r: usize, mut call: Held) {
        if let Some(x) = &mut self.recorded {
            x.rename(r, &mut call.op);
            // The rerun takes the call as the engine does.
            if let Some(rerun) = &mut self.rerun {
                rerun.push_call(r, call.site, &call.op);
            }
        }
        self.ahead[r].fed(&call);
        let polled = match &mut self.recorded {
            Some(x) => x.fed(r, &call.op, &mut self.engine),
            None => false,
        };
        match call.thread {
            Some(t) => self.engine.call_on(r, t, call.site, call.op),
            None => self.engine.call(r, call.site, call.op),
        }
        if let Some(x) = &mut self.recorded {
            x.issued(&mut self.engine);
        }
        if polled {
            self.engine.polled(r);
        }
    }

    /// The engine answered rank `r`'s settled call (the answer is dropped):
    /// its held calls go to the engine, up to the next settled one.
    fn release(&mut self, r: usize) {
        self.ahead[r].settled = false;
        while !self.ahead[r].settled {
            match self.ahead[r].held.pop_front() {
                Some(Pending::Call(call)) => self.feed(r, call),
                Some(Pending::Step(t, step)) => self.thread_step(r, t, step),
                None => break,
            }
        }
    }

    /// Ends the run if the launcher is gone, after taking what the ranks
    /// still had buffered.
    fn check_launcher(&mut self, launch: &mut Launch) {
        if self.endings.decided().is_some() {
            return;
        }
        if let Some(status) = launch.exited() {
            self.read_all();
            if self.recorded.is_some() {
                // Everything the ranks sent is in: the engine follows the
                // whole run now.
                self.live = false;
                self.engine.followed_all();
                self.step();
                if self.endings.decided().is_some() {
                    return;
                }
            }
            let completed = matches!(self.engine.end(), Some(RunEnd::Completed));
            self.endings.launcher_exited(status.to_string(), completed);
        }
    }

    fn read_all(&mut self) {
        for c in 0..self.conns.len() {
            self.read_conn(c);
        }
    }

    /// What the run produced, once it has ended.
    fn record(mut self, ending: Ending, stderr: String) -> RunRecord {
        // A recorded run's ranks watch the windows they make under the
        // names they gave them.
        if let Some(x) = &self.recorded {
            for w in &mut self.watched {
                x.rename_tag(w.rank, &mut w.tag);
            }
        }
        let completed = ending.completed();
        if !matches!(ending, Ending::Engine(_)) {
            self.engine.drain_gates();
        }
        let (receives, waits, probes) = self.fixed.take().unwrap_or_default();
        let exchanges = self.engine.conclude(&poe::engine::Vouch {
            alike: &|sites| {
                sites.iter().all(
                    |s| matches!(s, fib_wire::Site::Table(id) if receives.binary_search(id).is_ok()),
                )
            },
            free: &|site| {
                matches!(site, fib_wire::Site::Table(id) if waits.binary_search(&id).is_ok())
            },
            probes: &|probe, recv| match (probe, recv) {
                (fib_wire::Site::Table(p), fib_wire::Site::Table(r)) => probes
                    .binary_search_by_key(&(p, r), |x| (x.probe, x.recv))
                    .ok()
                    .map(|i| poe::engine::Vouched {
                        sized: probes[i].sized,
                        tagged: probes[i].tagged,
                        dispatch: probes[i].dispatch,
                    }),
                _ => None,
            },
        });
        let untried = self.engine.untried().to_vec();
        let ranks = self.engine.rank_views();
        let leaks = self.engine.leaks();
        let trace = self.engine.into_trace();
        let unbuffered = self
            .rerun
            .filter(|_| completed)
            .and_then(|rerun| rerun.finish(&trace.ops, &trace.fired));
        RunRecord {
            ending,
            exchanges,
            choices: trace.choices,
            fired: trace.fired,
            ops: trace.ops,
            ranks,
            files: self.files,
            calls: self.calls,
            stderr,
            leaks,
            handles: if completed { self.handles } else { Vec::new() },
            owned: self.owned,
            threads: self.threads,
            watched: self.watched,
            call_threads: self.call_threads,
            unbuffered,
            struct_types: self.struct_types,
            untried,
            streams: self.streams,
            probes: 0,
        }
    }

    fn read_conn(&mut self, c: usize) {
        loop {
            if self.conns[c].eof {
                return;
            }
            match self.conns[c].stream.read(&mut self.buf) {
                Ok(0) => {
                    self.conns[c].eof = true;
                    self.handle_frames(c);
                    self.on_eof(c);
                    return;
                }
                Ok(n) => {
                    self.conns[c].frames.push(&self.buf[..n]);
                    self.handle_frames(c);
                    if n < self.buf.len() {
                        // A short read emptied the socket; new data will
                        // raise a new readiness event.
                        return;
                    }
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(_) => {
                    self.conns[c].eof = true;
                    self.on_eof(c);
                    return;
                }
            }
        }
    }

    fn on_eof(&mut self, c: usize) {
        if let Some(r) = self.conns[c].rank {
            let passed = self.engine.rank_views().get(r).is_some_and(|v| v.finalized);
            self.endings.eof(r, passed);
        }
    }

    fn handle_frames(&mut self, c: usize) {
        loop {
            // Read each time: the rank is known from its first message on.
            let rank = self.conns[c].rank;
            let msg = {
                let Some(body) = self.conns[c].frames.next_body() else {
                    return;
                };
                let msg = Up::decode(body);
                // The rerun keeps a call as the rank sent it (a recorded
                // run's, as the engine takes it: [`Loop::feed`]).
                if let (Some(rerun), Some(r), Ok(Up::Op { .. }), None) =
                    (&mut self.rerun, rank, &msg, &self.recorded)
                {
                    rerun.push(r, body);
                }
                msg
            };
            match msg {
                Ok(m) => {
                    if !self.handle(c, m) {
                        return;
                    }
                }
                Err(_) if self.conns[c].rank.is_none() => {
                    self.drop_stranger(c);
                    return;
                }
                Err(e) => {
                    self.endings.protocol(self.conns[c].rank, e.to_string());
                    return;
                }
            }
        }
    }

    /// Drops connection `c`, which did not say hello with the run's key:
    /// not one of the run's ranks but something else that reached its TCP
    /// port. The run goes on.
    fn drop_stranger(&mut self, c: usize) {
        self.conns[c].eof = true;
        self.conns[c].frames = Frames::default();
        let _ = self.poll.registry().deregister(&mut self.conns[c].stream);
    }

    /// Handles one message of connection `c`; false when the connection
    /// broke the protocol.
    fn handle(&mut self, c: usize, msg: Up) -> bool {
        let Some(r) = self.conns[c].rank else {
            return self.hello(c, msg);
        };
        if let Some(heard) = self.threaded.get_mut(r).and_then(Option::as_mut) {
            *heard = Instant::now();
        }
        match msg {
            Up::Threads => {
                if let Some(t) = self.threaded.get_mut(r) {
                    *t = Some(Instant::now());
                    self.any_threaded = true;
                }
            }
            Up::File { id, path } => {
                self.files.insert(id, path);
            }
            Up::Op {
                op: fib_wire::Op::Data { hash },
                ..
            } => {
                if let Some(s) = self.streams.as_mut().and_then(|s| s.get_mut(r)) {
                    s.data(hash);
                }
            }
            Up::Op { site, op } => {
                if let Some(s) = self.streams.as_mut().and_then(|s| s.get_mut(r)) {
                    s.call(site, &op);
                }
                // A call's arguments ride ahead of it; they are no call.
                if !matches!(
                    op,
                    fib_wire::Op::Args { .. } | fib_wire::Op::Exchange { .. }
                ) {
                    for i in self.lent.get_mut(r).map(std::mem::take).unwrap_or_default() {
                        self.watched[i].site = site;
                    }
                    self.calls += 1;
                    if let Some(n) = self.rank_calls.get_mut(r) {
                        *n += 1;
                    }
                }
                self.endings.call(r, site, &op);
                if let Some(x) = &mut self.recorded {
                    x.reported(r, site, &op, &mut self.engine);
                }
                if self.rerun.is_some() && depends_on_timing(&op) {
                    self.rerun = None;
                }
                self.call(r, site, op);
            }
            Up::Ahead { posted, settled } => self.ahead[r].next = Some(Went { posted, settled }),
            Up::Stuck { on } => self.stuck[r] = on,
            Up::Took { req, src } => {
                if let Some(x) = &mut self.recorded {
                    x.took(r, req, src, &mut self.engine);
                }
            }
            Up::Named { comm } => {
                if let Some(x) = &mut self.recorded {
                    x.named(r, comm);
                }
            }
            Up::Found { src } => {
                if let Some(x) = &mut self.recorded {
                    x.found(r, src, &mut self.engine);
                }
            }
            Up::Granted { grants } => {
                if let Some(x) = &mut self.recorded {
                    x.granted(r, grants, &mut self.engine);
                }
            }
            Up::Picked { indices } => {
                if let Some(x) = &mut self.recorded {
                    x.picked(r, indices, &mut self.engine);
                }
            }
            Up::Polled { indices } => {
                if let Some(x) = &mut self.recorded {
                    x.polled(r, indices);
                }
            }
            Up::Spinning => {
                if let Some(x) = &mut self.recorded {
                    x.spinning(r);
                }
            }
            Up::Blocked { on } => {
                if let Some(x) = &mut self.recorded {
                    x.blocked[r] = on;
                }
            }
            Up::Unrecorded => {
                if let Some(x) = &mut self.recorded {
                    x.unrecorded = Some(r);
                }
            }
            Up::Abort { site, code } => self.endings.abort(r, site, code),
            Up::Crash { site, signal } => self.endings.crash(r, site, signal),
            Up::Unsupported { site, name } => self.endings.unsupported(r, site, name),
            Up::Exit { site, status } => self.endings.exit_status(r, site, status),
            // A recorded run's collective went to MPI before the engine
            // compared its arguments: the error waits until the engine has
            // read what every rank sent ([`Loop::settle_errors`]).
            Up::MpiError { site, code, text } if self.recorded.is_some() => {
                self.errors.push((r, site, code, text));
            }
            Up::MpiError { site, code, text } => self.endings.mpi_error(r, site, code, text),
            Up::Leaked { site, call, count } => self.handles.push(HandleLeak {
                rank: r,
                site,
                call,
                count: count as usize,
            }),
            Up::Invalid { site, message } => self.endings.invalid(r, site, message),
            Up::Reused { site, first } => self.endings.reused(r, site, first),
            Up::Owned {
                site,
                access,
                size,
                offset,
                owner,
                call,
                unordered,
            } => self.owned.push(OwnedAccess {
                rank: r,
                calls: self.rank_calls.get(r).copied().unwrap_or(0),
                site,
                access,
                size,
                offset,
                owner,
                call,
                unordered,
            }),
            Up::Watched {
                tag,
                site,
                store,
                ranges,
                after,
                point,
            } => self.watched.push(WatchedAccesses {
                rank: r,
                calls: self.rank_calls.get(r).copied().unwrap_or(0),
                tag,
                site,
                store,
                ranges,
                lent: false,
                after,
                point,
            }),
            Up::CallThread {
                call,
                thread,
                after,
                seen,
            } => self.call_threads.push(CallThread {
                rank: r,
                call,
                thread,
                after,
                seen,
            }),
            Up::Lent {
                tag,
                writes,
                ranges,
            } => {
                if let Some(open) = self.lent.get_mut(r) {
                    open.push(self.watched.len());
                }
                self.watched.push(WatchedAccesses {
                    rank: r,
                    calls: self.rank_calls.get(r).copied().unwrap_or(0),
                    tag,
                    site: fib_wire::Site::default(),
                    store: writes,
                    ranges,
                    lent: true,
                    after: Vec::new(),
                    point: None,
                });
            }
            Up::OneSided {
                site,
                call,
                win,
                made,
                fault,
            } => {
                // A recorded run's rank names its windows itself.
                let win = win.map(|w| {
                    let mut tag = u64::from(w);
                    if let Some(x) = &self.recorded {
                        x.rename_tag(r, &mut tag);
                    }
                    tag as u32
                });
                self.endings.one_sided(r, site, call, win, made, fault)
            }
            Up::Overflow { site, call, fault } => self.endings.overflow(r, site, call, fault),
            Up::Thread { fault } => self.threads.push(ThreadIssue { rank: r, fault }),
            Up::ThreadStep { thread, step } => {
                if let Some(t) = self.threaded.get_mut(r) {
                    *t = Some(Instant::now());
                }
                self.thread_step(r, thread, step);
            }
            Up::By { thread } => self.by[r] = Some(thread),
            Up::StructType {
                site,
                blocks,
                extent,
            } => self.struct_types.push(fib_analysis::StructTypeUse {
                rank: r,
                site,
                blocks,
                extent,
            }),
            m => {
                self.endings
                    .protocol(Some(r), format!("unexpected message {m:?}"));
                return false;
            }
        }
        true
    }

    /// The first message of a connection, which must say which rank it is.
    fn hello(&mut self, c: usize, msg: Up) -> bool {
        let Up::Hello {
            rank, size, key, ..
        } = msg
        else {
            self.endings
                .protocol(None, format!("unexpected message {msg:?}"));
            return false;
        };
        if key != self.key {
            self.drop_stranger(c);
            return false;
        }
        let r = rank as usize;
        if size as usize != self.by_rank.len()
            || r >= self.by_rank.len()
            || self.by_rank[r].is_some()
        {
            // A launcher that starts every rank as an MPI job of its own
            // (`srun` without the process management interface MPI uses).
            let alone = if size == 1 && self.by_rank.len() > 1 {
                ": the launcher started each rank as a job of its own; give it \
                 the process management interface (PMI) the MPI library speaks (with \
                 `srun`, `--mpi=pmi2` for MPICH, `--mpi=pmix` for Open MPI)"
            } else {
                ""
            };
            self.endings.protocol(
                Some(r),
                format!(
                    "rank {r} of {size} said hello to a run of {} processes{alone}",
                    self.by_rank.len()
                ),
            );
            return false;
        }
        self.by_rank[r] = Some(c);
        self.conns[c].rank = Some(r);
        self.endings.hello(r);
        true
    }

    /// Sends the engine's answers, but those the ranks' calls that went
    /// ahead do not wait for; returns whether that released held calls (the
    /// engine then has more to do).
    fn send(&mut self, answers: Vec<(usize, u32, Down)>) -> bool {
        if answers.is_empty() {
            return false;
        }
        // Group answers per rank, keeping their order, one write per rank
        // (none when every answer was owed to calls that went ahead).
        let mut per: Vec<Vec<u8>> = Vec::new();
        let n = self.by_rank.len();
        // The ranks of a recorded run read nothing.
        let recorded = self.recorded.is_some();
        // (Copied only once a gate is on: the answers of the ranks that
        // went ahead are released below, which takes `self`.)
        let gated = if self.any_gated {
            self.gated.clone()
        } else {
            Vec::new()
        };
        let mut encode = |r: usize, t: u32, d: &Down| {
            if recorded {
                return;
            }
            if per.is_empty() {
                per.resize_with(n, Vec::new);
            }
            // A rank whose gate is on hands each answer to its thread; a
            // receive to post or a cancel is the rank's.
            let rank_wide = matches!(d, Down::PostRecv { .. } | Down::Cancelled { .. });
            if gated.get(r).copied().unwrap_or(false) && !rank_wide {
                Down::To { thread: t }.encode(&mut per[r]);
            }
            d.encode(&mut per[r]);
        };
        let mut released = false;
        for (r, t, d) in answers {
            match &d {
                Down::PostRecv { req, .. } if self.ahead[r].posted.remove(req) => {}
                // A cancel is no answer: the rank takes it wherever it waits.
                Down::PostRecv { .. } | Down::Cancelled { .. } => encode(r, t, &d),
                _ if self.ahead[r].settled => {
                    // A recorded run's constructor: the engine's name for
                    // the communicator the rank made and named itself (an
                    // `MPI_Comm_idup`'s comes before its wait's answer).
                    if let (Some(x), Down::NewComm { id }) = (&mut self.recorded, &d) {
                        x.given(r, *id);
                        if self.ahead[r].settled_wait {
                            continue;
                        }
                    }
                    self.release(r);
                    released = true;
                }
                _ => encode(r, t, &d),
            }
        }
        for (r, bytes) in per.into_iter().enumerate() {
            let Some(c) = self.by_rank[r] else { continue };
            if bytes.is_empty() || self.conns[c].eof {
                continue;
            }
            // A write error means the rank is gone; its end of file tells
            // the rest.
            let _ = write_all(&mut self.conns[c].stream, &bytes);
            // A thread answered runs again: the time rule counts from now.
            if self.gated[r] {
                self.threaded[r] = Some(Instant::now());
            }
        }
        released
    }
}

/// Writes everything to a non-blocking socket, waiting for room as needed.
fn write_all(s: &mut Stream, mut bytes: &[u8]) -> std::io::Result<()> {
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
