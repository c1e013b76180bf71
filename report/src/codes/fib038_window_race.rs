//! FIB038: two accesses to a window's memory that MPI's synchronisation
//! leaves unordered.

use super::{Code, Rule};
use crate::finding::{Finding, Label, Place, Severity};

/// Two conflicting accesses to one window's memory, neither of which MPI
/// orders before the other.
pub const FIB038: Code = Code {
    code: "FIB038",
    name: "window-race",
    severity: Severity::Error,
    tool_failure: false,
    summary: "Two accesses to the same bytes of a window, at least one a write, that no MPI synchronisation orders.",
    explanation: "\
## What it means

Two accesses touch the same bytes of one rank's window memory, at least one
of them writes, and nothing MPI guarantees puts one before the other: a
memory race. An access is a load or store the program makes to its own
window memory, or the effect at the target of a one-sided call (MPI_Put,
MPI_Get, MPI_Accumulate, MPI_Get_accumulate, MPI_Fetch_and_op,
MPI_Compare_and_swap and their request forms). A one-sided call's effect
may happen at any time between the call and the synchronisation that
completes it at the target: the unlock or flush of its passive-target
epoch, the MPI_Win_complete of its access epoch, or the next
MPI_Win_fence. The buffer of a send, a receive or a nonblocking
collective that lies in window memory is an access too: MPI reads a send
buffer and writes a receive buffer at any time during a blocking call,
and between a nonblocking call and the wait or test that completes its
request.

The orders fib knows are MPI's: program order within a rank; collectives
and fences (everything before any member's call comes before everything
after every member's call); a send before the completion of the receive
that matched it; MPI_Win_post before the MPI_Win_start that waited for
it, MPI_Win_complete before the MPI_Win_wait that waited for it; an
unlock before the next conflicting lock granted on its target. Exclusive
lock epochs on one target never overlap; fib explores both orders of
competing ones. Two accumulates with the same operation (or MPI_NO_OP) on
the same basic datatype are atomic and do not race, and the accumulates
of one origin to one target are applied in order. The rules are those of
MPI's unified memory model (what MPICH and Open MPI report for these
windows).

The race counts whatever the timing of the run: it is a pair that MPI
leaves unordered, whether or not the accesses collided this time. A pair
MPI orders is never reported. The finding points at one access and labels
the other.

## Why it matters

The result depends on timing: a load may see the value before or after a
remote MPI_Put, or a torn mix; two unordered MPI_Put calls to one
location leave either value. The program works on one machine and
computes something else on another, or with another network.

## Example

    /* rank 1 */                      /* rank 0 */
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Win_unlock(0, win);           x = mem[0];   /* races the put */

## What to do

Order the two accesses: put a synchronisation between them that MPI
guarantees (an MPI_Barrier or a message after rank 1's MPI_Win_unlock and
before rank 0's load; a fence epoch; PSCW), or make them touch different
bytes, or make both accumulates with the same operation.
",
};

/// What one of the two accesses is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RaceAccess {
    pub rank: usize,
    /// "load", "store", or the one-sided call's name (`MPI_Put`).
    pub what: String,
    /// The rank whose window it touches, and the bytes (offsets in that
    /// rank's window).
    pub target: usize,
    pub offset: u64,
    pub len: u64,
    pub place: Place,
    /// For a one-sided call: the call that completes it at the target, if
    /// it came, such as `MPI_Win_unlock`, and where. For the buffer of a
    /// nonblocking message or collective call: the wait or test that
    /// completed its request, if one did.
    pub completed_by: Option<(String, Place)>,
    /// When the access is MPI's use of the buffer of the call `what` (a
    /// send, a receive, a collective) that lies in window memory: whether
    /// MPI writes it (a receive buffer) or only reads it (a send buffer).
    pub buffer: Option<bool>,
}

/// A race on window memory: `first` is where the finding points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowRace {
    pub first: RaceAccess,
    pub second: RaceAccess,
    /// Two one-sided calls of one origin to one target in one epoch
    /// (rather than accesses of different ranks, or a call and a load or
    /// store).
    pub same_origin: bool,
    pub replay: String,
}

/// An access as a sentence names it: whose, what, which bytes of whose
/// window.
pub(crate) fn describe(a: &RaceAccess) -> String {
    // A dynamic window's displacements are the target's addresses.
    let bytes = if a.offset >= 1 << 40 {
        format!("the {} bytes at address {:#x}", a.len, a.offset)
    } else if a.len == 1 {
        format!("byte {}", a.offset)
    } else {
        format!("bytes {}..{}", a.offset, a.offset + a.len)
    };
    let whose = if a.target == a.rank {
        "its window".to_string()
    } else {
        format!("rank {}'s segment of the shared window", a.target)
    };
    match (a.what.as_str(), a.buffer) {
        (call, Some(true)) => format!(
            "rank {}'s {call} receiving into {bytes} of {whose} (its receive buffer)",
            a.rank
        ),
        (call, Some(false)) => format!(
            "rank {}'s {call} sending from {bytes} of {whose} (its send buffer)",
            a.rank
        ),
        ("load", None) => format!("rank {}'s load of {bytes} of {whose}", a.rank),
        ("store", None) => format!("rank {}'s store to {bytes} of {whose}", a.rank),
        (call, None) => format!(
            "rank {}'s {call} to {bytes} of rank {}'s window",
            a.rank, a.target
        ),
    }
}

impl Rule for WindowRace {
    const CODE: &'static Code = &FIB038;

    fn finding(&self) -> Finding {
        let message = format!(
            "{} races {}: no MPI synchronisation orders them",
            describe(&self.first),
            describe(&self.second)
        );
        let mut f = Finding::new(Self::CODE, message).at(&self.first.place);
        f.rank = Some(self.first.rank);
        f.replay = Some(self.replay.clone());
        // Two calls of one epoch are completed by the same call: it is
        // labelled once.
        let mut label = |p: &Place, message: String| {
            if let (Some(file), Some(line)) = (&p.file, p.line) {
                let l = Label {
                    file: file.clone(),
                    line,
                    column: p.column.unwrap_or(1),
                    span: p.span,
                    message,
                };
                if !f.labels.contains(&l) {
                    f.labels.push(l);
                }
            }
        };
        label(
            &self.second.place,
            format!("the other access: {}", describe(&self.second)),
        );
        for a in [&self.first, &self.second] {
            if let Some((call, p)) = &a.completed_by {
                let message = if a.buffer.is_some() {
                    format!(
                        "the {call} that completes rank {}'s {}: its buffer is MPI's until then",
                        a.rank, a.what
                    )
                } else {
                    format!(
                        "the {call} that completes rank {}'s {} at the target",
                        a.rank, a.what
                    )
                };
                label(p, message);
            }
        }
        let lent = self.first.buffer.is_some() || self.second.buffer.is_some();
        f.help = Some(if self.same_origin {
            "MPI does not order two one-sided calls of one epoch unless both are accumulates: separate them with MPI_Win_flush, or make them touch different bytes".to_string()
        } else if lent {
            "order the two accesses with a synchronisation MPI guarantees (a barrier or message between the wait that hands the call's buffer back and the other access, or after the epoch that completes a one-sided call), or make them touch different bytes".to_string()
        } else {
            "order the two accesses with a synchronisation MPI guarantees (a barrier or message after the epoch that completes the one-sided call, a fence, or PSCW), or make them touch different bytes".to_string()
        });
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_both_accesses_and_labels_the_other_and_the_completion() {
        let at = |line| Place {
            file: Some("a.c".into()),
            line: Some(line),
            column: Some(5),
            span: None,
        };
        let f = WindowRace {
            first: RaceAccess {
                rank: 0,
                what: "load".into(),
                target: 0,
                offset: 0,
                len: 4,
                place: at(20),
                completed_by: None,
                buffer: None,
            },
            second: RaceAccess {
                rank: 1,
                what: "MPI_Put".into(),
                target: 0,
                offset: 0,
                len: 4,
                place: at(12),
                completed_by: Some(("MPI_Win_unlock".into(), at(13))),
                buffer: None,
            },
            same_origin: false,
            replay: "0".into(),
        }
        .finding();
        assert_eq!(
            f.message,
            "rank 0's load of bytes 0..4 of its window races rank 1's MPI_Put to bytes 0..4 of rank 0's window: no MPI synchronisation orders them"
        );
        assert_eq!((f.line, f.rank), (Some(20), Some(0)));
        assert_eq!(
            f.labels.iter().map(|l| l.line).collect::<Vec<_>>(),
            vec![12, 13]
        );
        assert_eq!(f.severity(), Severity::Error);
    }

    #[test]
    fn two_puts_of_one_epoch_label_their_unlock_once() {
        let at = |line| Place {
            file: Some("a.c".into()),
            line: Some(line),
            column: Some(5),
            span: None,
        };
        let put = RaceAccess {
            rank: 0,
            what: "MPI_Put".into(),
            target: 1,
            offset: 0,
            len: 1,
            place: at(12),
            completed_by: Some(("MPI_Win_unlock".into(), at(15))),
            buffer: None,
        };
        let f = WindowRace {
            first: put.clone(),
            second: put,
            same_origin: true,
            replay: "0".into(),
        }
        .finding();
        let labels: Vec<(u32, &str)> = f
            .labels
            .iter()
            .map(|l| (l.line, l.message.as_str()))
            .collect();
        assert_eq!(
            labels,
            [
                (
                    12,
                    "the other access: rank 0's MPI_Put to byte 0 of rank 1's window"
                ),
                (
                    15,
                    "the MPI_Win_unlock that completes rank 0's MPI_Put at the target"
                ),
            ]
        );
    }

    #[test]
    fn a_dynamic_windows_bytes_are_named_by_address() {
        let a = RaceAccess {
            rank: 0,
            what: "store".into(),
            target: 0,
            offset: 0x7ffc_0000_1000,
            len: 4,
            place: Place::default(),
            completed_by: None,
            buffer: None,
        };
        assert_eq!(
            describe(&a),
            "rank 0's store to the 4 bytes at address 0x7ffc00001000 of its window"
        );
    }

    #[test]
    fn a_message_buffer_is_named_by_its_call_and_labels_its_completion() {
        let at = |line| Place {
            file: Some("x.c".into()),
            line: Some(line),
            column: Some(5),
            span: None,
        };
        let f = WindowRace {
            first: RaceAccess {
                rank: 0,
                what: "MPI_Irecv".into(),
                target: 0,
                offset: 0,
                len: 8,
                place: at(12),
                completed_by: Some(("MPI_Wait".into(), at(15))),
                buffer: Some(true),
            },
            second: RaceAccess {
                rank: 1,
                what: "MPI_Put".into(),
                target: 0,
                offset: 4,
                len: 4,
                place: at(30),
                completed_by: Some(("MPI_Win_unlock".into(), at(31))),
                buffer: None,
            },
            same_origin: false,
            replay: "0".into(),
        }
        .finding();
        assert_eq!(
            f.message,
            "rank 0's MPI_Irecv receiving into bytes 0..8 of its window (its receive buffer) races rank 1's MPI_Put to bytes 4..8 of rank 0's window: no MPI synchronisation orders them"
        );
        let labels: Vec<_> = f
            .labels
            .iter()
            .map(|l| (l.line, l.message.as_str()))
            .collect();
        assert_eq!(
            labels,
            vec![
                (30, "the other access: rank 1's MPI_Put to bytes 4..8 of rank 0's window"),
                (15, "the MPI_Wait that completes rank 0's MPI_Irecv: its buffer is MPI's until then"),
                (31, "the MPI_Win_unlock that completes rank 1's MPI_Put at the target"),
            ]
        );
        let send = RaceAccess {
            rank: 0,
            what: "MPI_Isend".into(),
            target: 1,
            offset: 2,
            len: 1,
            place: Place::default(),
            completed_by: None,
            buffer: Some(false),
        };
        assert_eq!(
            describe(&send),
            "rank 0's MPI_Isend sending from byte 2 of rank 1's segment of the shared window (its send buffer)"
        );
    }
}
