//! The finding a one-sided error the rank found makes
//! ([`fib_wire::Up::OneSided`]): an epoch error (FIB035) or an argument
//! outside the window (FIB036), worded from the typed facts, with labels at
//! the calls that opened the epochs concerned and at the window's creation.

use fib_report::codes::{EpochError, OutOfWindow, Rule};
use fib_report::{Finding, Place};
use fib_wire::{Epoch, EpochKind, RmaFault, Site, PROC_NULL};

use crate::sites::{FileNames, Resolver};

/// A rank of the window's group, in words.
fn rank(r: i32) -> String {
    if r == PROC_NULL {
        "MPI_PROC_NULL".to_string()
    } else {
        format!("rank {r}")
    }
}

/// Ranks in words: "rank 1", "ranks 0, 2".
fn ranks(rs: &[i32]) -> String {
    match rs {
        [r] => rank(*r),
        _ => format!(
            "ranks {}",
            rs.iter()
                .map(|r| r.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// `n` elements, in words.
fn elements(n: i32) -> String {
    if n == 1 {
        "1 element".to_string()
    } else {
        format!("{n} elements")
    }
}

/// An open epoch, in words, with what would close it.
fn epoch(e: &Epoch) -> String {
    let close = e.kind.closer();
    match e.kind {
        EpochKind::Fence => {
            "the epoch MPI_Win_fence opened, in which one-sided calls were made".to_string()
        }
        EpochKind::Access if e.ranks.is_empty() => {
            format!("the access epoch MPI_Win_start opened (no {close})")
        }
        EpochKind::Access => format!(
            "the access epoch MPI_Win_start opened to {} (no {close})",
            ranks(&e.ranks)
        ),
        EpochKind::Exposure if e.ranks.is_empty() => {
            format!("the exposure epoch MPI_Win_post opened (no {close})")
        }
        EpochKind::Exposure => format!(
            "the exposure epoch MPI_Win_post opened to {} (no {close})",
            ranks(&e.ranks)
        ),
        EpochKind::Lock => format!(
            "the lock MPI_Win_lock took on {} (no {close})",
            ranks(&e.ranks)
        ),
        EpochKind::LockAll => format!("the locks MPI_Win_lock_all took (no {close})"),
    }
}

/// What the label at an epoch's opening call says.
fn opened_here(e: &Epoch) -> String {
    match e.kind {
        EpochKind::Fence => "the fence epoch opens here".to_string(),
        EpochKind::Access => "the access epoch opens here".to_string(),
        EpochKind::Exposure => "the exposure epoch opens here".to_string(),
        EpochKind::Lock => format!("the lock on {} is taken here", ranks(&e.ranks)),
        EpochKind::LockAll => "the lock-all epoch opens here".to_string(),
    }
}

fn list(open: &[Epoch]) -> String {
    open.iter().map(epoch).collect::<Vec<_>>().join(", and ")
}

/// The facts of one one-sided error.
pub struct OneSided<'a> {
    pub rank: usize,
    pub site: Site,
    pub call: &'a str,
    pub win: Option<u32>,
    pub made: Site,
    pub fault: &'a RmaFault,
}

/// The finding `e` makes, in the interleaving `replay`.
pub fn finding(sites: &Resolver, files: &FileNames, e: &OneSided, replay: String) -> Finding {
    let place = |site, callee: &str| sites.place(site, callee, files);
    let at = place(e.site, e.call);
    let made = e.win.map(|_| place(e.made, ""));
    let maker = match sites.call_name(e.made, "", files) {
        n if n.is_empty() => "MPI_Win_create".to_string(),
        n => n,
    };
    let window = match (&made, e.win) {
        (_, None) => "the window it makes".to_string(),
        (
            Some(Place {
                file: Some(f),
                line: Some(l),
                ..
            }),
            _,
        ) => format!("the window made by {maker} at {f}:{l}"),
        (_, Some(id)) => format!("window {id}"),
    };
    let overlapped: [Epoch; 2];
    let (problem, open, help): (String, &[Epoch], &str) = match e.fault {
        RmaFault::NoAccessEpoch { target } => (
            format!(
                "{} is accessed outside an access epoch (no MPI_Win_fence, MPI_Win_start naming it, MPI_Win_lock of it or MPI_Win_lock_all is open)",
                rank(*target)
            ),
            &[],
            "open an access epoch to the target first: MPI_Win_fence on every rank, MPI_Win_start with a matching MPI_Win_post at the target, or MPI_Win_lock / MPI_Win_lock_all",
        ),
        RmaFault::NoLock { target } => (
            format!("this rank holds no lock on {} (no MPI_Win_lock)", rank(*target)),
            &[],
            "lock the target with MPI_Win_lock before unlocking or flushing it",
        ),
        RmaFault::NoLockAll => (
            "no MPI_Win_lock_all is open".to_string(),
            &[],
            "pair each MPI_Win_unlock_all with an earlier MPI_Win_lock_all",
        ),
        RmaFault::NoPassiveEpoch => (
            "no passive-target epoch is open (no MPI_Win_lock or MPI_Win_lock_all)".to_string(),
            &[],
            "flush only inside an epoch opened by MPI_Win_lock or MPI_Win_lock_all",
        ),
        RmaFault::NoStart => (
            "no access epoch is open (no MPI_Win_start)".to_string(),
            &[],
            "pair each MPI_Win_complete with an earlier MPI_Win_start",
        ),
        RmaFault::NoPost => (
            "no exposure epoch is open (no MPI_Win_post)".to_string(),
            &[],
            "pair each MPI_Win_wait or MPI_Win_test with an earlier MPI_Win_post",
        ),
        RmaFault::AlreadyOpen { open } => (
            format!("the epoch it opens is open already: {}", epoch(open)),
            std::slice::from_ref(open),
            "close the open epoch before opening it again",
        ),
        RmaFault::StillOpen { open } => (
            format!(
                "{} still open: {}",
                if open.len() == 1 {
                    "an epoch is"
                } else {
                    "epochs are"
                },
                list(open)
            ),
            open,
            "close every epoch on the window (MPI_Win_complete, MPI_Win_wait, MPI_Win_unlock, MPI_Win_unlock_all) before a fence, MPI_Win_free or MPI_Finalize",
        ),
        RmaFault::Mixed { passive, open } => (
            format!(
                "{} target synchronisation is mixed with {}",
                if *passive { "passive" } else { "active" },
                list(open)
            ),
            open,
            "close the epochs of one kind of synchronisation (with a fence, MPI_Win_complete and MPI_Win_wait, or the unlocks) before using the other on the window",
        ),
        RmaFault::Overlapped { fence, lock } => {
            let held = match lock.kind {
                EpochKind::LockAll => "the locks MPI_Win_lock_all took".to_string(),
                _ => format!("the lock MPI_Win_lock took on {}", ranks(&lock.ranks)),
            };
            overlapped = [fence.clone(), lock.clone()];
            (
                format!(
                    "it closes the epoch of the previous MPI_Win_fence, which the communication calls between the two fences started, and {held} in between overlaps it"
                ),
                &overlapped[..],
                "give the previous fence MPI_MODE_NOSUCCEED, so that no fence epoch is open while the lock is held, or use one kind of synchronisation on the window",
            )
        }
        RmaFault::TargetOutside { target, size } => {
            return OutOfWindow {
                rank: e.rank,
                call: e.call.to_string(),
                window,
                problem: format!(
                    "target rank {target} is outside the window's group of {size} processes"
                ),
                place: at,
                made,
                help: "name a rank of the window's communicator, or MPI_PROC_NULL".into(),
                replay,
            }
            .finding()
        }
        RmaFault::BytesOutside {
            target,
            disp,
            unit,
            count,
            start,
            end,
            size,
        } => {
            return OutOfWindow {
                rank: e.rank,
                call: e.call.to_string(),
                window,
                problem: format!(
                    "bytes {start}..{end} at {} (displacement {disp} times unit {unit}, {}) are outside its window of {size} bytes",
                    rank(*target),
                    elements(*count)
                ),
                place: at,
                made,
                help: "keep the displacement (in the target's displacement units) and the count within the size the target gave its window".into(),
                replay,
            }
            .finding()
        }
        RmaFault::NullDatatype { origin, count } => {
            return OutOfWindow {
                rank: e.rank,
                call: e.call.to_string(),
                window,
                problem: format!(
                    "the {} datatype is MPI_DATATYPE_NULL for {}",
                    if *origin { "origin" } else { "target" },
                    elements(*count)
                ),
                place: at,
                made,
                help: "pass the datatype of the data moved".into(),
                replay,
            }
            .finding()
        }
        RmaFault::NullBuffer { count } => {
            return OutOfWindow {
                rank: e.rank,
                call: e.call.to_string(),
                window,
                problem: format!(
                    "the origin buffer is a null pointer for {}",
                    elements(*count)
                ),
                place: at,
                made,
                help: "pass the buffer that holds the data".into(),
                replay,
            }
            .finding()
        }
        RmaFault::NullMemory { size } => {
            return OutOfWindow {
                rank: e.rank,
                call: e.call.to_string(),
                window,
                problem: format!("its memory is a null pointer but its size is {size} bytes"),
                place: at,
                made,
                help: "give the window the memory it declares, or size 0".into(),
                replay,
            }
            .finding()
        }
        RmaFault::ShortMemory { size, mapped } => {
            return OutOfWindow {
                rank: e.rank,
                call: e.call.to_string(),
                window,
                problem: format!(
                    "its memory is declared {size} bytes long, but only the first {mapped} bytes are mapped in the process"
                ),
                place: at,
                made,
                help: "give the window the memory it declares: allocate at least its size".into(),
                replay,
            }
            .finding()
        }
    };
    let mut opened: Vec<(Place, String)> = open
        .iter()
        .filter(|o| o.site != e.site)
        .map(|o| (place(o.site, o.kind.opener()), opened_here(o)))
        .collect();
    if let Some(m) = made {
        opened.push((m, "the window is made here".to_string()));
    }
    EpochError {
        rank: e.rank,
        call: e.call.to_string(),
        window,
        problem,
        place: at,
        opened,
        help: help.to_string(),
        replay,
    }
    .finding()
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::path::Path;

    use fib_sites::Analysis;

    fn line(line: u32) -> Site {
        Site::Line { file: 1, line }
    }

    fn judge(call: &str, win: Option<u32>, fault: RmaFault) -> Finding {
        let a = Analysis::default();
        let r = Resolver::new(&a, Path::new(""));
        let files: FileNames = [(1, "a.c".to_string())].into();
        let e = OneSided {
            rank: 1,
            site: line(20),
            call,
            win,
            made: line(5),
            fault: &fault,
        };
        finding(&r, &files, &e, "0".into())
    }

    #[test]
    fn epoch_errors_are_fib035_with_the_opening_calls_labelled() {
        let f = judge(
            "MPI_Win_free",
            Some(2),
            RmaFault::StillOpen {
                open: vec![
                    Epoch {
                        kind: EpochKind::Access,
                        ranks: vec![0, 2],
                        site: line(9),
                    },
                    Epoch {
                        kind: EpochKind::LockAll,
                        ranks: vec![],
                        site: line(12),
                    },
                ],
            },
        );
        assert_eq!(f.code.code, "FIB035");
        assert_eq!(
            f.message,
            "MPI_Win_free on the window made by MPI_Win_create at a.c:5: epochs are still open: \
             the access epoch MPI_Win_start opened to ranks 0, 2 (no MPI_Win_complete), and \
             the locks MPI_Win_lock_all took (no MPI_Win_unlock_all)"
        );
        let labels: Vec<(u32, &str)> = f
            .labels
            .iter()
            .map(|l| (l.line, l.message.as_str()))
            .collect();
        assert_eq!(
            labels,
            [
                (9, "the access epoch opens here"),
                (12, "the lock-all epoch opens here"),
                (5, "the window is made here")
            ]
        );
        assert_eq!((f.line, f.rank), (Some(20), Some(1)));
        for (fault, says) in [
            (
                RmaFault::NoAccessEpoch { target: 1 },
                "rank 1 is accessed outside an access epoch",
            ),
            (
                RmaFault::NoLock { target: PROC_NULL },
                "this rank holds no lock on MPI_PROC_NULL",
            ),
            (RmaFault::NoLockAll, "no MPI_Win_lock_all is open"),
            (RmaFault::NoPassiveEpoch, "no passive-target epoch is open"),
            (
                RmaFault::NoStart,
                "no access epoch is open (no MPI_Win_start)",
            ),
            (
                RmaFault::NoPost,
                "no exposure epoch is open (no MPI_Win_post)",
            ),
            (
                RmaFault::Mixed {
                    passive: true,
                    open: vec![Epoch {
                        kind: EpochKind::Fence,
                        ranks: vec![],
                        site: line(8),
                    }],
                },
                "passive target synchronisation is mixed with the epoch MPI_Win_fence opened",
            ),
            (
                RmaFault::AlreadyOpen {
                    open: Epoch {
                        kind: EpochKind::Lock,
                        ranks: vec![1],
                        site: line(8),
                    },
                },
                "the epoch it opens is open already: the lock MPI_Win_lock took on rank 1",
            ),
            (
                RmaFault::Overlapped {
                    fence: Epoch {
                        kind: EpochKind::Fence,
                        ranks: vec![],
                        site: line(6),
                    },
                    lock: Epoch {
                        kind: EpochKind::LockAll,
                        ranks: vec![],
                        site: line(8),
                    },
                },
                "it closes the epoch of the previous MPI_Win_fence, which the communication calls between the two fences started, and the locks MPI_Win_lock_all took in between overlaps it",
            ),
        ] {
            let f = judge("MPI_Put", Some(2), fault);
            assert_eq!(f.code.code, "FIB035");
            assert!(f.message.contains(says), "{}", f.message);
        }
    }

    #[test]
    fn arguments_outside_the_window_are_fib036() {
        for (call, win, fault, says) in [
            (
                "MPI_Get",
                Some(2),
                RmaFault::TargetOutside { target: 2, size: 2 },
                "target rank 2 is outside the window's group of 2 processes",
            ),
            (
                "MPI_Put",
                Some(2),
                RmaFault::BytesOutside {
                    target: 1,
                    disp: 4,
                    unit: 4,
                    count: 2,
                    start: 16,
                    end: 24,
                    size: 16,
                },
                "bytes 16..24 at rank 1 (displacement 4 times unit 4, 2 elements) are outside its window of 16 bytes",
            ),
            (
                "MPI_Accumulate",
                Some(2),
                RmaFault::NullDatatype {
                    origin: false,
                    count: 1,
                },
                "the target datatype is MPI_DATATYPE_NULL for 1 element",
            ),
            (
                "MPI_Put",
                Some(2),
                RmaFault::NullBuffer { count: 3 },
                "the origin buffer is a null pointer for 3 elements",
            ),
            (
                "MPI_Win_create",
                None,
                RmaFault::NullMemory { size: 64 },
                "MPI_Win_create on the window it makes: its memory is a null pointer but its size is 64 bytes",
            ),
            (
                "MPI_Win_attach",
                Some(2),
                RmaFault::ShortMemory {
                    size: 1 << 30,
                    mapped: 8192,
                },
                "its memory is declared 1073741824 bytes long, but only the first 8192 bytes are mapped",
            ),
        ] {
            let f = judge(call, win, fault);
            assert_eq!(f.code.code, "FIB036");
            assert!(f.message.contains(says), "{}", f.message);
            assert_eq!(f.labels.len(), usize::from(win.is_some()));
        }
    }
}
