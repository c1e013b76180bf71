//! Every environment variable fib's scheduler passes to the ranks it
//! launches, named once: the driver sets them (through the launcher, which
//! passes on only what it is told) and the interposition library reads
//! them. A rank started without [`SOCKET`] was not started by fib.

/// Where the scheduler listens: the path of its Unix socket, or
/// `tcp:HOST:PORT` when the ranks run wherever a launcher puts them and
/// share no path with fib.
pub const SOCKET: &str = "FIB_SOCKET";

/// The run's key, a random 64-bit number in hexadecimal, which every rank
/// says in its [`Up::Hello`](crate::Up::Hello): over TCP, anyone who can
/// reach the port can connect, and only the run's ranks know the key.
pub const KEY: &str = "FIB_KEY";

/// `1` when every standard send is synchronous (`--zero-buffer`), `0` when
/// standard sends are buffered.
pub const ZERO_BUFFER: &str = "FIB_ZERO_BUFFER";

/// `1` when standard and ready sends go to MPI from fib's private copies of
/// their buffers instead of the program's own (set for the reruns of a
/// program whose sends MPI held back for want of a receive).
pub const COPY_SENDS: &str = "FIB_COPY_SENDS";

/// `0` turns off receives and completions that go ahead of the scheduler;
/// passed on from fib's own environment, for comparison.
pub const AHEAD: &str = "FIB_AHEAD";

/// The barrier sites a rank skips (`--confirm`'s re-explorations): a
/// comma-separated list of `#ID` (a site-table id), `FILE:LINE` or a module
/// address.
pub const ELIDE: &str = "FIB_ELIDE";

/// `1` when every send and collective reports a hash of the data it sends
/// as an [`Op::Data`](crate::Op::Data) before its call (the program has a
/// row of wildcard receives whose order fib may try, see the engine's
/// `exchange` module); unset or `0` otherwise.
pub const HASH_DATA: &str = "FIB_HASH_DATA";

/// `1` when the run is recorded: every call goes to MPI at once, the rank
/// never waits for the scheduler, and its reports are sent in bulk, the
/// scheduler reading the run back afterwards (`--mode recorded`).
pub const RECORD: &str = "FIB_RECORD";

/// In a recorded run, the choices the run's plan forces, a
/// comma-separated list: `P/K:R`, rank `P`'s `K`-th receive call (from 0,
/// counting every receive it makes), from `MPI_ANY_SOURCE`, taking the
/// message of world rank `R`; and `P/wK:I+J`, rank `P`'s `K`-th
/// `MPI_Waitany` or `MPI_Waitsome` (counting the two) returning the
/// requests at positions `I` and `J` of its active ones; and `P/pK:R`,
/// rank `P`'s `K`-th blocking probe, from `MPI_ANY_SOURCE`, finding the
/// message of world rank `R`; and `P/lK:X@T#J`, rank `P`'s `K`-th lock call
/// (`MPI_Win_lock` and `MPI_Win_lock_all` counted together) waiting at
/// world rank `T` until world rank `X`'s lock call `J - 1` was granted
/// there (the mark `X` leaves in the library's lock window). The other
/// choices take what MPI gives.
pub const FORCE: &str = "FIB_FORCE";
