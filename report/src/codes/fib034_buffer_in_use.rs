//! FIB034: the program touched a buffer that MPI owned then.

use super::common::{leak_message, leak_rank};
use super::{Code, Rule};
use crate::finding::{Finding, Place, Severity};

/// A load or store of the program, or a new operation's buffer, in the
/// buffer of an operation still pending.
pub const FIB034: Code = Code {
    code: "FIB034",
    name: "buffer-in-use",
    severity: Severity::Error,
    tool_failure: false,
    summary: "The program read or wrote a buffer that a pending nonblocking or persistent operation still owns.",
    explanation: "\
## What it means

From the call that starts a nonblocking operation until the wait or test
that completes it, MPI owns the operation's buffer. A rank broke that
rule: while MPI still owned the buffer of a pending MPI_Isend (or
MPI_Issend, MPI_Ibsend, MPI_Irsend), MPI_Irecv, MPI_Imrecv, nonblocking
collective, persistent operation started with MPI_Start, or one-sided
call (the origin buffer of MPI_Put, MPI_Accumulate and the other
communication calls, which MPI reads, and of MPI_Get, which MPI writes,
until the call completes at the origin: MPI_Win_flush_local, a flush,
the unlock, fence or MPI_Win_complete that ends its epoch, or for
MPI_Rput and the other request forms the wait on its request), the
program

- stored into a buffer MPI reads (a send's, or a collective's send
  buffer), or
- loaded from or stored into a buffer MPI writes (a receive's, or a
  collective's receive buffer), or
- handed MPI a new operation whose buffer overlaps it, where one of the
  two writes (a receive into memory a pending send reads, or any
  operation on memory a pending receive writes).

Reading the buffer of a pending send is allowed. A test that returns
false does not complete the operation; MPI_Cancel hands nothing back
until the wait or test that completes the cancelled operation. After
MPI_Request_free of an active request the buffer is no longer watched:
nothing the program does can order its accesses with the operation, which
FIB029 reports at the free.

With threads, the owner is the operation, whichever thread made it: a
thread's load or store conflicts while the operation is pending, and
also after another thread completed it when nothing the program does
(a join, a barrier, a mutex, the end of an OpenMP region) orders that
completion before the access; MPI may still be writing the buffer when
the access runs in another execution. The finding then names both
threads.

The finding points at the load or store (fib sees them when it builds the
program with memory checking, see the guide's memory checking page) and
labels the call that made the operation. It is found in the rank's own
program order, so it is reported whatever the timing of the run: the
access came after the call and before the completion. It is reported once
per access site and operation site.

## Why it matters

MPI may read a send buffer at any time until completion: a store changes
the message, or not, depending on timing and message size. MPI may write
a receive buffer at any time until completion: a load sees old data, new
data or a mix, and a store may be overwritten. The program works with
small messages on one machine and sends or computes garbage on another.

## Example

    MPI_Isend(buf, n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &req);
    buf[0] = 0.0;           /* MPI may still be reading buf */
    MPI_Wait(&req, MPI_STATUS_IGNORE);

## What to do

Complete the operation (MPI_Wait, or a test that returns true) before
touching its buffer, or work on another buffer while it is pending
(double buffering). For a receive, read the data only after the
completion.
",
};

/// Whether `call` is a blocking-form one-sided communication call, whose
/// origin buffer an epoch's synchronisation hands back (a request form's
/// is handed back by its wait, like any request's).
fn one_sided(call: &str) -> bool {
    matches!(
        call,
        "MPI_Put"
            | "MPI_Get"
            | "MPI_Accumulate"
            | "MPI_Get_accumulate"
            | "MPI_Fetch_and_op"
            | "MPI_Compare_and_swap"
    )
}

/// What touched the owned buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Touch {
    Load,
    Store,
    /// The buffer of a new operation, made by the named call, which MPI
    /// writes (else reads).
    Call {
        name: String,
        writes: bool,
    },
}

/// An access of one thread against an operation of another that nothing
/// orders it with: the accessing thread, the other thread, and whether the
/// access came before the other thread's call (else after its completion).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unordered {
    pub thread: u32,
    pub other: u32,
    pub before_call: bool,
}

/// Accesses at one site to the buffer of operations made at one site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferInUse {
    pub ranks: Vec<usize>,
    pub touch: Touch,
    /// Bytes touched and where in the owned buffer, for the first one.
    pub size: u64,
    pub offset: u64,
    /// The call that made the pending operation, such as `MPI_Isend`, and
    /// where.
    pub owner_call: String,
    pub owner_place: Place,
    /// Where the access (or the new call) was made.
    pub place: Place,
    pub replay: String,
    /// With threads: the access is another thread's than the operation's
    /// call (`before_call`) or completion, and nothing orders the two.
    pub unordered: Option<Unordered>,
}

impl Rule for BufferInUse {
    const CODE: &'static Code = &FIB034;

    fn finding(&self) -> Finding {
        let owner = &self.owner_call;
        if let Some(u) = self.unordered {
            return self.unordered_finding(u);
        }
        let what = match &self.touch {
            Touch::Load => format!(
                "load of {} bytes from the buffer of a pending {owner} (at byte {})",
                self.size, self.offset
            ),
            Touch::Store => format!(
                "store of {} bytes into the buffer of a pending {owner} (at byte {})",
                self.size, self.offset
            ),
            Touch::Call { name, .. } => format!(
                "the buffer of this {name} overlaps the buffer of a pending {owner} ({} bytes from byte {})",
                self.size, self.offset
            ),
        };
        let mut f = Finding::new(Self::CODE, leak_message(&self.ranks, &what, 1)).at(&self.place);
        f.rank = leak_rank(&self.ranks);
        f.replay = Some(self.replay.clone());
        f.label_at(&self.owner_place, if one_sided(owner) {
                    format!("the {owner} that owns the buffer until a flush, unlock, fence or MPI_Win_complete completes it")
                } else {
                    format!("the {owner} that owns the buffer until a wait or test completes it")
                });
        let complete = if one_sided(owner) {
            "MPI_Win_flush_local, or the flush, unlock, fence or MPI_Win_complete that ends its epoch"
        } else {
            "MPI_Wait, or a test that returns true"
        };
        f.help = Some(match &self.touch {
            Touch::Call { name, .. } => format!(
                "complete the {owner} ({complete}) before the {name}, or give the {name} a buffer of its own"
            ),
            _ => format!(
                "complete the {owner} ({complete}) before touching its buffer, or use another buffer meanwhile"
            ),
        });
        f
    }
}

impl BufferInUse {
    /// The finding for an access after a completion on another thread
    /// that nothing orders before it.
    fn unordered_finding(&self, u: Unordered) -> Finding {
        let owner = &self.owner_call;
        let (me, other) = (u.thread, u.other);
        let (does, access) = if u.before_call {
            ("makes", "and that call")
        } else {
            ("completes", "after that completion")
        };
        let what = match &self.touch {
            Touch::Load => format!(
                "thread {me} loads {} bytes from the buffer of an {owner} that thread {other} {does}, with nothing ordering the load {access} (at byte {})",
                self.size, self.offset
            ),
            Touch::Store => format!(
                "thread {me} stores {} bytes into the buffer of an {owner} that thread {other} {does}, with nothing ordering the store {access} (at byte {})",
                self.size, self.offset
            ),
            Touch::Call { name, .. } => format!(
                "the buffer of this {name} on thread {me} overlaps the buffer of an {owner} that thread {other} {does}, with nothing ordering this call {access} ({} bytes from byte {})",
                self.size, self.offset
            ),
        };
        let mut f = Finding::new(&FIB034, leak_message(&self.ranks, &what, 1)).at(&self.place);
        f.rank = leak_rank(&self.ranks);
        f.replay = Some(self.replay.clone());
        f.label_at(
            &self.owner_place,
            format!("the {owner} of thread {other}, whose buffer MPI owns until it completes"),
        );
        f.help = Some(if u.before_call {
            format!(
                "order the access before the {owner} on thread {other}: a barrier, a join, or a mutex both threads take, between the two"
            )
        } else {
            format!(
                "order the access after the completion of the {owner} on thread {other}: a barrier, a join, or a mutex both threads take, between the two"
            )
        });
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_access_and_labels_the_owner() {
        let at = |line| Place {
            file: Some("a.c".into()),
            line: Some(line),
            column: Some(5),
            span: None,
        };
        let f = BufferInUse {
            ranks: vec![0],
            touch: Touch::Store,
            size: 4,
            offset: 8,
            owner_call: "MPI_Isend".into(),
            owner_place: at(7),
            place: at(8),
            replay: "0".into(),
            unordered: None,
        }
        .finding();
        assert_eq!(
            f.message,
            "rank 0: store of 4 bytes into the buffer of a pending MPI_Isend (at byte 8)"
        );
        assert_eq!((f.line, f.rank), (Some(8), Some(0)));
        assert_eq!(f.labels[0].line, 7);
        assert_eq!(f.severity(), Severity::Error);
    }

    #[test]
    fn an_access_unordered_with_another_threads_completion_names_both_threads() {
        let at = |line| Place {
            file: Some("a.c".into()),
            line: Some(line),
            column: Some(5),
            span: None,
        };
        let f = BufferInUse {
            ranks: vec![1],
            touch: Touch::Load,
            size: 8,
            offset: 0,
            owner_call: "MPI_Irecv".into(),
            owner_place: at(10),
            place: at(20),
            replay: "0".into(),
            unordered: Some(Unordered {
                thread: 1,
                other: 0,
                before_call: false,
            }),
        }
        .finding();
        assert_eq!(
            f.message,
            "rank 1: thread 1 loads 8 bytes from the buffer of an MPI_Irecv that thread 0 completes, with nothing ordering the load after that completion (at byte 0)"
        );
        assert_eq!(f.labels[0].line, 10);
        assert!(f.help.unwrap().contains("a barrier, a join, or a mutex"));
    }
}
