//! Whether the calls of a completed buffered run also complete when no send
//! is buffered, decided from the run's own trace in one pass.
//!
//! A run whose calls cannot depend on timing (no wildcard receive, no test,
//! no `MPI_Waitany`) matches its messages the same way under any schedule
//! and any buffering: each receive names its source, and non-overtaking
//! fixes which of that source's sends it gets. Without buffering the same
//! calls therefore make the same matches, and only when they complete
//! changes: a send completes once its receive is posted. [`completes`]
//! replays the trace under that rule, with each rank issuing its calls in
//! program order and waiting where the call waits, and says whether every
//! rank gets through `MPI_Finalize`.
//!
//! It is the quick form of the engine's own rerun without buffering
//! ([`crate::sim::rerun_calls`] with [`crate::Config::zero_buffer`]), which
//! costs as much as the run itself. It never says yes where that rerun
//! deadlocks: where it cannot tell (a call it does not model, a call the
//! trace left unmatched) it says no, and the caller reruns. It is stricter
//! than the rerun in one place: a buffered-mode send (`MPI_Bsend`), which
//! MPI buffers whatever its library does, is taken as synchronous too, since
//! the trace does not tell it from a standard send.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use fib_wire::WaitKind;

use crate::engine::{Fired, FiredList, Kind, OpId, Ops, Peer};

/// Whether the calls of `ops` (a completed buffered run's, every rank's in
/// program order) with the matches and collectives of `fired` also complete
/// with no send buffered. `false` when they would deadlock, and also when
/// the trace has something this check does not model.
pub fn completes(ops: &[Ops], fired: &FiredList) -> bool {
    let n = ops.len();
    // The calls of each collective match set (`MPI_Finalize` too), as
    // (rank, index) of each member, by (rank, index) of every member.
    let mut sets: Vec<&[OpId]> = Vec::new();
    let mut set_of: HashMap<OpId, usize> = HashMap::new();
    for f in fired {
        if let Fired::Collective { ops } = f {
            for &o in ops {
                set_of.insert(o, sets.len());
            }
            sets.push(ops);
        }
    }
    let mut check = Check {
        ops,
        sets,
        set_of,
        issued: vec![0; n],
        waiters: (0..n).map(|_| BinaryHeap::new()).collect(),
    };
    let mut work: Vec<usize> = (0..n).collect();
    while let Some(r) = work.pop() {
        if let Err(Unknown) = check.advance(r, &mut work) {
            return false;
        }
    }
    (0..n).all(|r| {
        let len = ops[r].len();
        check.issued[r] == len && (len == 0 || matches!(check.unmet(r, len - 1), Ok(None)))
    })
}

/// A call the check does not model.
struct Unknown;

struct Check<'a> {
    ops: &'a [Ops],
    sets: Vec<&'a [OpId]>,
    set_of: HashMap<OpId, usize>,
    /// How many calls each rank has issued.
    issued: Vec<usize>,
    /// Per rank, the ranks waiting for it to issue its call at an index,
    /// soonest first.
    waiters: Vec<BinaryHeap<Reverse<(usize, usize)>>>,
}

impl Check<'_> {
    /// Issues rank `r`'s calls until one waits for something not there
    /// yet; wakes the ranks that waited for what it issued.
    fn advance(&mut self, r: usize, work: &mut Vec<usize>) -> Result<(), Unknown> {
        let len = self.ops[r].len();
        while self.issued[r] < len {
            let last = self.issued[r].checked_sub(1);
            if let Some(i) = last.filter(|&i| waits(&self.ops[r][i].kind)) {
                if let Some(on) = self.unmet(r, i)? {
                    self.waiters[on.rank].push(Reverse((on.index, r)));
                    break;
                }
            }
            self.issued[r] += 1;
        }
        let now = self.issued[r];
        while let Some(&Reverse((index, w))) = self.waiters[r].peek() {
            if index >= now {
                break;
            }
            self.waiters[r].pop();
            work.push(w);
        }
        Ok(())
    }

    /// The first call (not yet issued) that the call `index` of rank `r`
    /// waits for before it can complete, or `None` when it can.
    fn unmet(&self, r: usize, index: usize) -> Result<Option<OpId>, Unknown> {
        let id = OpId { rank: r, index };
        let rec = &self.ops[r][index];
        let needs = match &rec.kind {
            Kind::Send { dst, .. } | Kind::Recv { src: dst, .. } | Kind::Probe { src: dst, .. } => {
                match dst {
                    Peer::Null => None,
                    // Its partner: without buffering a send completes once
                    // its receive is posted, a receive once its send is.
                    Peer::Rank(_) => Some(rec.matched.ok_or(Unknown)?),
                    Peer::Any => return Err(Unknown),
                }
            }
            Kind::Wait {
                kind: WaitKind::One | WaitKind::All,
                ops,
                test: false,
            } => {
                for &o in ops {
                    if let Some(on) = self.unmet(r, o)? {
                        return Ok(Some(on));
                    }
                }
                None
            }
            Kind::Coll { .. } | Kind::Finalize => {
                let set = self.sets[*self.set_of.get(&id).ok_or(Unknown)?];
                return Ok(set.iter().copied().find(|&m| !self.has_issued(m)));
            }
            Kind::CommFree { .. } | Kind::RequestFree { .. } | Kind::RequestInit { .. } => None,
            _ => return Err(Unknown),
        };
        Ok(needs.filter(|&m| !self.has_issued(m)))
    }

    fn has_issued(&self, id: OpId) -> bool {
        self.issued[id.rank] > id.index
    }
}

/// Whether a rank that made this call waits until it completes, with no
/// send buffered.
fn waits(kind: &Kind) -> bool {
    match kind {
        Kind::Send { req, .. } | Kind::Coll { req, .. } => req.is_none(),
        Kind::Recv { blocking, .. } | Kind::Probe { blocking, .. } => *blocking,
        Kind::Wait { .. } | Kind::Finalize => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use fib_wire::{Op, SendMode, Site, COMM_WORLD};

    use super::completes;
    use crate::engine::{Config, RunEnd};
    use crate::sim::rerun_calls;

    fn send(mode: SendMode, dest: i32, req: Option<u32>) -> Op {
        Op::Send {
            mode,
            dest,
            tag: 0,
            comm: COMM_WORLD,
            req,
        }
    }

    fn recv(src: i32, req: u32, blocking: bool) -> Op {
        Op::Recv {
            src,
            tag: 0,
            comm: COMM_WORLD,
            req,
            blocking,
        }
    }

    fn wait_all(reqs: &[u32]) -> Op {
        Op::Wait {
            kind: fib_wire::WaitKind::All,
            reqs: reqs.to_vec(),
        }
    }

    /// The check's answer on the trace of a buffered run of `calls`, and
    /// the engine's rerun of them without buffering.
    fn both(calls: Vec<Vec<Op>>) -> (bool, RunEnd) {
        let n = calls.len();
        let calls: Vec<Vec<(Site, Op)>> = calls
            .into_iter()
            .map(|rank| {
                rank.into_iter()
                    .chain([Op::Finalize])
                    .enumerate()
                    .map(|(i, op)| (Site::Table(i as u32), op))
                    .collect()
            })
            .collect();
        let cfg = |zero_buffer| Config {
            nprocs: n,
            zero_buffer,
            exchange: false,
        };
        let run = rerun_calls(&calls, cfg(false));
        assert_eq!(run.end, RunEnd::Completed);
        (
            completes(&run.ops, &run.fired),
            rerun_calls(&calls, cfg(true)).end,
        )
    }

    #[test]
    fn a_ping_pong_completes_without_buffering() {
        let (check, rerun) = both(vec![
            vec![send(SendMode::Standard, 1, None), recv(1, 0, true)],
            vec![recv(0, 0, true), send(SendMode::Standard, 0, None)],
        ]);
        assert!(check);
        assert_eq!(rerun, RunEnd::Completed);
    }

    #[test]
    fn two_ranks_that_send_before_they_receive_deadlock_without_buffering() {
        let (check, rerun) = both(vec![
            vec![send(SendMode::Standard, 1, None), recv(1, 0, true)],
            vec![send(SendMode::Standard, 0, None), recv(0, 0, true)],
        ]);
        assert!(!check);
        assert!(matches!(rerun, RunEnd::Deadlock { .. }));
    }

    #[test]
    fn nonblocking_sends_waited_after_the_receive_complete_without_buffering() {
        let (check, rerun) = both(vec![
            vec![
                send(SendMode::Standard, 1, Some(7)),
                recv(1, 0, true),
                wait_all(&[7]),
            ],
            vec![
                send(SendMode::Standard, 0, Some(7)),
                recv(0, 0, true),
                wait_all(&[7]),
            ],
        ]);
        assert!(check);
        assert_eq!(rerun, RunEnd::Completed);
    }

    #[test]
    fn a_send_nobody_receives_never_completes_without_buffering() {
        let (check, rerun) = both(vec![vec![send(SendMode::Standard, 1, None)], vec![]]);
        assert!(!check);
        assert!(matches!(rerun, RunEnd::Deadlock { .. }));
    }

    #[test]
    fn a_buffered_mode_send_is_taken_as_synchronous_so_the_rerun_decides() {
        // MPI buffers `MPI_Bsend` in any library: the rerun completes, and
        // the check, which cannot tell it from a standard send, says no.
        let (check, rerun) = both(vec![
            vec![send(SendMode::Buffered, 1, None), recv(1, 0, true)],
            vec![send(SendMode::Buffered, 0, None), recv(0, 0, true)],
        ]);
        assert!(!check);
        assert_eq!(rerun, RunEnd::Completed);
    }
}
