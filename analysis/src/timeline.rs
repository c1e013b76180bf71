//! The space-time pictures of runs ([`Timeline`]): from a run's operations
//! and match sets, one lane per rank with a window of its calls around the
//! ones the picture is about, the match sets between drawn calls, and the
//! roles of the calls at issue: where a deadlock's ranks were blocked, a
//! relevant barrier's witness (wildcard receive, barrier, rival send).

use std::collections::{HashMap, HashSet};

use fib::Node;
use fib_report::timeline::{self, At, Lane, Link, LinkKind, Mark, Role, Timeline};
use poe::engine::{Fired, FiredList, Kind, OpId, Ops, Peer, RankView};

use crate::sites::{FileNames, Resolver};
use crate::trace::RunTrace;

/// At most this many calls of each rank are drawn.
pub const CALLS_PER_RANK: usize = 40;

/// One run's record, as the pictures need it.
struct Run<'r> {
    ops: &'r [Ops],
    fired: &'r FiredList,
    files: &'r FileNames,
}

/// The picture of a run that ended with its ranks stuck (a deadlock or a
/// polling livelock): each rank's blocking call marked (`MPI_Finalize` as
/// waiting), the calls before it drawn.
pub fn stuck(
    sites: &Resolver,
    files: &FileNames,
    ops: &[Ops],
    fired: &FiredList,
    views: &[RankView],
) -> Timeline {
    let mut roles = HashMap::new();
    for v in views {
        let Some(call) = v.call else { continue };
        let Some(index) = ops
            .get(v.rank)
            .and_then(|list| list.iter().rposition(|o| o.name == call))
        else {
            continue;
        };
        let role = if call == "MPI_Finalize" {
            Role::Waiting
        } else {
            Role::Blocked
        };
        roles.insert(
            OpId {
                rank: v.rank,
                index,
            },
            role,
        );
    }
    let run = Run { ops, fired, files };
    build(sites, &run, &roles, &HashSet::new(), None)
}

/// The picture of a run whose ranks called different collectives on one
/// communicator: those calls marked as blocked.
pub fn mismatch(
    sites: &Resolver,
    files: &FileNames,
    ops: &[Ops],
    fired: &FiredList,
    calls: &[OpId],
) -> Timeline {
    let roles = calls.iter().map(|&id| (id, Role::Blocked)).collect();
    let run = Run { ops, fired, files };
    build(sites, &run, &roles, &HashSet::new(), None)
}

/// The picture of a relevant barrier's witness run: the wildcard receive,
/// the barrier's calls and the rival send marked, the ordering path's
/// match sets highlighted, and the match the barrier prevents drawn as a
/// rival link from the send to the receive.
pub fn witness(sites: &Resolver, trace: &RunTrace, rel: &fib::Relevant) -> Timeline {
    let mut roles: HashMap<OpId, Role> = HashMap::new();
    let mut sets: HashSet<usize> = HashSet::new();
    sets.insert(rel.barrier);
    for n in &rel.path {
        match *n {
            Node::Op(id) => {
                roles.insert(id, Role::OnPath);
            }
            Node::Collective(k) => {
                sets.insert(k);
            }
        }
    }
    for &k in &sets {
        if let Some(Fired::Collective { ops }) = trace.fired.get(k) {
            let role = if k == rel.barrier {
                Role::WitnessBarrier
            } else {
                Role::OnPath
            };
            for &id in ops {
                roles.insert(id, role);
            }
        }
    }
    roles.insert(rel.recv, Role::WitnessRecv);
    roles.insert(rel.send, Role::WitnessSend);
    let run = Run {
        ops: &trace.ops,
        fired: &trace.fired,
        files: &trace.files,
    };
    let mut t = build(sites, &run, &roles, &sets, Some((rel.send, rel.recv)));
    t.path = path(&trace.fired, &rel.path)
        .into_iter()
        .map(|id| At {
            rank: id.rank,
            index: id.index,
        })
        .collect();
    t
}

/// The calls of an ordering path, in order: each operation, and for a
/// collective its call on the rank the path comes from and its call on the
/// rank the path goes on to.
fn path(fired: &FiredList, nodes: &[Node]) -> Vec<OpId> {
    let mut out: Vec<OpId> = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        match *n {
            Node::Op(id) => out.push(id),
            Node::Collective(k) => {
                let Some(Fired::Collective { ops }) = fired.get(k) else {
                    continue;
                };
                let from = out.last().map(|o| o.rank);
                let to = nodes[i + 1..].iter().find_map(|n| match n {
                    Node::Op(id) => Some(id.rank),
                    Node::Collective(_) => None,
                });
                for rank in [from, to].into_iter().flatten() {
                    if let Some(&m) = ops.iter().find(|o| o.rank == rank) {
                        out.push(m);
                    }
                }
            }
        }
    }
    out.dedup();
    out
}

/// The picture: per rank the window of calls around those with a role,
/// the match sets all of whose calls are drawn (those in `sets`, and
/// messages between two calls with a role, highlighted), and the `rival`
/// (send, receive) link.
fn build(
    sites: &Resolver,
    run: &Run,
    roles: &HashMap<OpId, Role>,
    sets: &HashSet<usize>,
    rival: Option<(OpId, OpId)>,
) -> Timeline {
    let lanes: Vec<Lane> = run
        .ops
        .iter()
        .enumerate()
        .map(|(rank, list)| {
            let focus: Vec<usize> = roles
                .keys()
                .filter(|id| id.rank == rank)
                .map(|id| id.index)
                .collect();
            let marks = timeline::window(list.len(), &focus, CALLS_PER_RANK)
                .into_iter()
                .map(|index| {
                    let op = &list[index];
                    let place = sites.place(op.site, op.name, run.files);
                    Mark {
                        index,
                        call: op.name.to_string(),
                        file: place.file,
                        line: place.line,
                        peer: peer(&op.kind),
                        role: roles
                            .get(&OpId { rank, index })
                            .copied()
                            .unwrap_or(Role::Plain),
                        touch: false,
                    }
                })
                .collect();
            Lane {
                rank,
                total: list.len(),
                marks,
            }
        })
        .collect();
    let at = |id: OpId| At {
        rank: id.rank,
        index: id.index,
    };
    let mut t = Timeline {
        lanes,
        links: Vec::new(),
        path: Vec::new(),
    };
    for (k, f) in run.fired.iter().enumerate() {
        let (kind, ends, on_path) = match f {
            Fired::SendRecv {
                send,
                recv,
                wildcard,
            } => (
                LinkKind::Message {
                    wildcard: *wildcard,
                },
                vec![*send, *recv],
                roles.contains_key(send) && roles.contains_key(recv),
            ),
            Fired::Probe { probe, send } => (
                LinkKind::Probe,
                vec![*send, *probe],
                roles.contains_key(send) && roles.contains_key(probe),
            ),
            Fired::Collective { ops } => (LinkKind::Collective, ops.clone(), sets.contains(&k)),
            Fired::Completion { .. } | Fired::Sync { .. } => continue,
        };
        let ends: Vec<At> = ends.into_iter().map(at).collect();
        if ends.iter().all(|&a| t.find(a).is_some()) {
            t.links.push(Link {
                kind,
                ends,
                highlight: on_path && !sets.is_empty(),
            });
        }
    }
    if let Some((send, recv)) = rival {
        let ends = vec![at(send), at(recv)];
        if ends.iter().all(|&a| t.find(a).is_some()) {
            t.links.push(Link {
                kind: LinkKind::Rival,
                ends,
                highlight: true,
            });
        }
    }
    t
}

/// A load or store of the program in a race picture: made by `rank` after
/// its call `before - 1` and before its call `before`, at `file:line`.
pub struct Touched {
    pub rank: usize,
    pub before: usize,
    pub store: bool,
    pub file: Option<String>,
    pub line: Option<u32>,
}

/// The picture of a race on window memory: the racing one-sided calls
/// (`calls` with [`Role::RaceAccess`]) and the calls that complete them at
/// their target ([`Role::Completes`]) marked among their ranks' calls, and
/// the racing loads and stores drawn as marks of their own, before the
/// call each preceded.
pub fn race(
    sites: &Resolver,
    files: &FileNames,
    ops: &[Ops],
    fired: &FiredList,
    calls: &[(OpId, Role)],
    touches: &[Touched],
) -> Timeline {
    memory(sites, files, ops, fired, calls, touches, &HashSet::new())
}

/// The picture of a barrier that orders memory: the two accesses (calls
/// and loads or stores, as in [`race`]), the calls on the path between
/// them with their roles, the match sets `sets` highlighted, and `path`,
/// the calls of the ordering path in order.
#[allow(clippy::too_many_arguments)]
pub fn memory_witness(
    sites: &Resolver,
    files: &FileNames,
    ops: &[Ops],
    fired: &FiredList,
    calls: &[(OpId, Role)],
    touches: &[Touched],
    sets: &HashSet<usize>,
    path: &[OpId],
) -> Timeline {
    let mut t = memory(sites, files, ops, fired, calls, touches, sets);
    t.path = path
        .iter()
        .map(|id| At {
            rank: id.rank,
            index: id.index,
        })
        .collect();
    t
}

fn memory(
    sites: &Resolver,
    files: &FileNames,
    ops: &[Ops],
    fired: &FiredList,
    calls: &[(OpId, Role)],
    touches: &[Touched],
    sets: &HashSet<usize>,
) -> Timeline {
    let mut roles: HashMap<OpId, Role> = calls.iter().copied().collect();
    for t in touches {
        let n = ops.get(t.rank).map_or(0, |o| o.len());
        for index in [t.before.checked_sub(1), Some(t.before)]
            .into_iter()
            .flatten()
        {
            if index < n {
                roles
                    .entry(OpId {
                        rank: t.rank,
                        index,
                    })
                    .or_insert(Role::Plain);
            }
        }
    }
    let run = Run { ops, fired, files };
    let mut picture = build(sites, &run, &roles, sets, None);
    for t in touches {
        let Some(lane) = picture.lanes.iter_mut().find(|l| l.rank == t.rank) else {
            continue;
        };
        let at = lane
            .marks
            .iter()
            .position(|m| m.index >= t.before)
            .unwrap_or(lane.marks.len());
        lane.marks.insert(
            at,
            Mark {
                index: t.before,
                call: if t.store { "store" } else { "load" }.to_string(),
                file: t.file.clone(),
                line: t.line,
                peer: None,
                role: Role::RaceAccess,
                touch: true,
            },
        );
    }
    picture
}

/// `to 2`, `from any`: the other end a point-to-point call names.
fn peer(kind: &Kind) -> Option<String> {
    let show = |p: &Peer| match p {
        Peer::Rank(r) => r.to_string(),
        Peer::Any => "any".to_string(),
        Peer::Null => "null".to_string(),
    };
    match kind {
        Kind::Send { dst, .. } => Some(format!("to {}", show(dst))),
        Kind::Recv { src, .. } | Kind::Probe { src, .. } => Some(format!("from {}", show(src))),
        _ => None,
    }
}
