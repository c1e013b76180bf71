//! What a rank finds wrong with a one-sided call before it reaches MPI
//! ([`Up::OneSided`](crate::Up::OneSided)): an epoch error (a call outside
//! the epoch it needs, an epoch closed that was never opened, or one left
//! open) or an argument outside the window (a target, bytes, a null
//! datatype or buffer). The facts are typed so that the report can name the
//! window, the target, the byte ranges and the calls that opened the epochs.

use crate::site::Site;

/// The kinds of epoch a rank opens on a window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EpochKind {
    /// The epoch the last `MPI_Win_fence` opened, in which one-sided calls
    /// were made.
    Fence,
    /// The access epoch `MPI_Win_start` opened.
    Access,
    /// The exposure epoch `MPI_Win_post` opened.
    Exposure,
    /// A lock `MPI_Win_lock` took.
    Lock,
    /// The locks `MPI_Win_lock_all` took.
    LockAll,
}

impl EpochKind {
    /// The call that opens it.
    pub fn opener(self) -> &'static str {
        match self {
            EpochKind::Fence => "MPI_Win_fence",
            EpochKind::Access => "MPI_Win_start",
            EpochKind::Exposure => "MPI_Win_post",
            EpochKind::Lock => "MPI_Win_lock",
            EpochKind::LockAll => "MPI_Win_lock_all",
        }
    }

    /// The call that closes it.
    pub fn closer(self) -> &'static str {
        match self {
            EpochKind::Fence => "MPI_Win_fence",
            EpochKind::Access => "MPI_Win_complete",
            EpochKind::Exposure => "MPI_Win_wait",
            EpochKind::Lock => "MPI_Win_unlock",
            EpochKind::LockAll => "MPI_Win_unlock_all",
        }
    }

    /// Whether it is passive-target synchronisation.
    pub fn passive(self) -> bool {
        matches!(self, EpochKind::Lock | EpochKind::LockAll)
    }
}

/// An epoch open on a window at a rank: its kind, the ranks of the
/// window's group it concerns (the group of `MPI_Win_start` or
/// `MPI_Win_post`, the target of a lock; none for a fence or
/// `MPI_Win_lock_all`), and the call that opened it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Epoch {
    pub kind: EpochKind,
    pub ranks: Vec<i32>,
    pub site: Site,
}

/// What is wrong with a one-sided call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RmaFault {
    /// A communication call to `target` with no access epoch to it open
    /// (no fence, `MPI_Win_start` naming it, lock of it or lock-all).
    NoAccessEpoch { target: i32 },
    /// An unlock or a flush of `target`, which this rank holds no lock on.
    NoLock { target: i32 },
    /// `MPI_Win_unlock_all` with no `MPI_Win_lock_all` open.
    NoLockAll,
    /// `MPI_Win_flush_all` or `MPI_Win_flush_local_all` with no lock held.
    NoPassiveEpoch,
    /// `MPI_Win_complete` with no `MPI_Win_start` open.
    NoStart,
    /// `MPI_Win_wait` or `MPI_Win_test` with no `MPI_Win_post` open.
    NoPost,
    /// An epoch opened while the same one is open already (a second
    /// `MPI_Win_start`, `MPI_Win_post`, lock of one target, lock-all).
    AlreadyOpen { open: Epoch },
    /// `MPI_Win_free` or `MPI_Finalize` with these epochs still open.
    StillOpen { open: Vec<Epoch> },
    /// Passive-target synchronisation (`passive`) while these active-target
    /// epochs are open, or the reverse (a fence counts as active).
    Mixed { passive: bool, open: Vec<Epoch> },
    /// A fence closes the epoch the previous fence (`fence`) opened, which
    /// the communication calls between the two started, and the
    /// passive-target epoch `lock` was opened in between: two epochs of
    /// one window overlapped.
    Overlapped { fence: Epoch, lock: Epoch },
    /// A target rank outside the window's group of `size` processes.
    TargetOutside { target: i32, size: u32 },
    /// Bytes `start..end` at `target` (displacement `disp` times the unit
    /// `unit`, `count` elements of the target datatype) reach outside the
    /// `size` bytes of its window.
    BytesOutside {
        target: i32,
        disp: i64,
        unit: i64,
        count: i32,
        start: i64,
        end: i64,
        size: i64,
    },
    /// `MPI_DATATYPE_NULL` as the origin (`origin`) or target datatype for
    /// a nonzero count.
    NullDatatype { origin: bool, count: i32 },
    /// A null origin buffer for `count` elements.
    NullBuffer { count: i32 },
    /// Window memory (or memory attached to a dynamic window) that is a
    /// null pointer with `size` bytes declared.
    NullMemory { size: i64 },
    /// Window memory (or memory attached to a dynamic window) declared
    /// `size` bytes long of which only the first `mapped` are memory of the
    /// process at all.
    ShortMemory { size: i64, mapped: i64 },
}

impl RmaFault {
    /// Whether it is an epoch error (else an argument outside the window).
    pub fn is_epoch(&self) -> bool {
        matches!(
            self,
            RmaFault::NoAccessEpoch { .. }
                | RmaFault::NoLock { .. }
                | RmaFault::NoLockAll
                | RmaFault::NoPassiveEpoch
                | RmaFault::NoStart
                | RmaFault::NoPost
                | RmaFault::AlreadyOpen { .. }
                | RmaFault::StillOpen { .. }
                | RmaFault::Mixed { .. }
                | RmaFault::Overlapped { .. }
        )
    }
}
