//! Findings for what a completed run left behind: requests never completed,
//! communicators, groups, datatypes, operations, info objects and error
//! handlers never freed, messages never received, requests of sends and
//! receives freed while active. One finding per call site and kind, over
//! every rank and instance that leaked there.

use std::collections::BTreeMap;

use fib_report::codes::{
    FreedActiveRequest, LeakedCommunicator, LeakedHandle, LeakedRequest, LeakedWindow, Rule,
    UnreceivedMessage,
};
use fib_report::Finding;
use poe::engine::{Kind, Peer};
use poe::Leak;

use crate::record::RunRecord;
use crate::sites::Resolver;

/// What a run can leak.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum What {
    Request,
    Persistent,
    Communicator,
    Message,
    /// An active receive's request freed: the site is `MPI_Request_free`'s.
    FreedReceive,
    /// An active send's request freed: the site is `MPI_Request_free`'s.
    FreedSend,
    /// An object a [`fib_wire::HANDLE_MAKERS`] call made.
    Handle,
    Window,
}

/// One site's leaks of one kind.
#[derive(Default)]
struct Group {
    ranks: Vec<usize>,
    count: usize,
    /// Destinations of unreceived messages (world ranks).
    dests: Vec<usize>,
    /// For messages: whether the program cancelled one of the sends.
    cancelled: bool,
    /// For freed receives and sends: the first operation's site and call;
    /// for messages a matched probe took, the first probe's.
    recv: Option<(fib_wire::Site, &'static str)>,
}

/// The findings for what `rec` left behind; `token` is its replay token.
pub fn findings(sites: &Resolver, rec: &RunRecord, token: &str) -> Vec<Finding> {
    let mut groups: BTreeMap<(What, fib_wire::Site, &'static str), Group> = BTreeMap::new();
    for h in &rec.handles {
        let Some(&(name, _)) = fib_wire::HANDLE_MAKERS.iter().find(|(n, _)| *n == h.call) else {
            continue;
        };
        let g = groups.entry((What::Handle, h.site, name)).or_default();
        if !g.ranks.contains(&h.rank) {
            g.ranks.push(h.rank);
        }
        g.count += h.count;
    }
    // Active sends whose request the program freed: the engine goes on
    // matching them (an unreceived one is still a leaked message), but
    // nothing tells the program when MPI is done with the buffer. Like
    // the engine's leaks, only of a run that completed.
    let completed = rec.ending.completed();
    for (rank, ops) in rec.ops.iter().enumerate().filter(|_| completed) {
        for o in ops {
            let Kind::RequestFree {
                op: Some(index), ..
            } = o.kind
            else {
                continue;
            };
            let s = &ops[index];
            if !matches!(s.kind, Kind::Send { dst, .. } if dst != Peer::Null) {
                continue;
            }
            let g = groups.entry((What::FreedSend, o.site, o.name)).or_default();
            if !g.ranks.contains(&rank) {
                g.ranks.push(rank);
            }
            g.count += 1;
            g.recv.get_or_insert((s.site, s.name));
        }
    }
    for leak in &rec.leaks {
        let (what, op) = match leak {
            Leak::Request { op } => (What::Request, op),
            Leak::Persistent { op } => (What::Persistent, op),
            Leak::Comm { op, .. } => (What::Communicator, op),
            Leak::Window { op, .. } => (What::Window, op),
            Leak::Message { op } | Leak::ProbedMessage { op, .. } => (What::Message, op),
            Leak::FreedReceive { op, .. } => (What::FreedReceive, op),
        };
        let o = &rec.ops[op.rank][op.index];
        let g = groups.entry((what, o.site, o.name)).or_default();
        if !g.ranks.contains(&op.rank) {
            g.ranks.push(op.rank);
        }
        g.count += 1;
        if let Leak::FreedReceive { recv, .. } | Leak::ProbedMessage { probe: recv, .. } = leak {
            let r = &rec.ops[recv.rank][recv.index];
            g.recv.get_or_insert((r.site, r.name));
        }
        if what == What::Message {
            // An MPI_Cancel of the send, which fib let fail.
            g.cancelled |= rec.ops[op.rank]
                .iter()
                .any(|c| matches!(c.kind, Kind::Cancel { op: i } if i == op.index));
        }
        if let Kind::Send {
            dst: Peer::Rank(d), ..
        } = o.kind
        {
            if !g.dests.contains(&d) {
                g.dests.push(d);
            }
        }
    }
    groups
        .into_iter()
        .map(|((what, site, name), mut g)| {
            g.ranks.sort_unstable();
            g.dests.sort_unstable();
            let place = sites.place(site, name, &rec.files);
            // The site's own callee where the table knows it (MPI_Start,
            // MPI_Startall for a started persistent request).
            let call = sites.call_name(site, name, &rec.files);
            let (ranks, count, replay) = (g.ranks, g.count, token.to_string());
            match what {
                What::Request | What::Persistent => LeakedRequest {
                    ranks,
                    count,
                    call,
                    persistent: what == What::Persistent,
                    place,
                    replay,
                }
                .finding(),
                What::Communicator => LeakedCommunicator {
                    ranks,
                    count,
                    call,
                    place,
                    replay,
                }
                .finding(),
                What::Window => LeakedWindow {
                    ranks,
                    count,
                    call,
                    place,
                    replay,
                }
                .finding(),
                What::FreedReceive | What::FreedSend => {
                    let (osite, oname) = g.recv.unwrap_or_default();
                    FreedActiveRequest {
                        ranks,
                        count,
                        send: what == What::FreedSend,
                        op_call: sites.call_name(osite, oname, &rec.files),
                        op_place: sites.place(osite, oname, &rec.files),
                        place,
                        replay,
                    }
                    .finding()
                }
                What::Handle => {
                    let kind = fib_wire::HandleKind::of(name).expect("a maker's name");
                    LeakedHandle {
                        ranks,
                        count,
                        call,
                        noun: kind.noun().into(),
                        free_call: kind.free_call().into(),
                        place,
                        replay,
                    }
                    .finding()
                }
                What::Message => UnreceivedMessage {
                    ranks,
                    count,
                    call,
                    place,
                    replay,
                    cancel_failed: g.cancelled,
                    dests: g.dests,
                    probe: g.recv.map(|(psite, pname)| {
                        (
                            sites.call_name(psite, pname, &rec.files),
                            sites.place(psite, pname, &rec.files),
                        )
                    }),
                }
                .finding(),
            }
        })
        .collect()
}

/// Whether two leak findings are the same (an earlier interleaving already
/// reported the site and kind).
pub fn same_leak(a: &Finding, b: &Finding) -> bool {
    a.code == b.code
        && a.file == b.file
        && a.line == b.line
        && a.column == b.column
        && a.message == b.message
}
