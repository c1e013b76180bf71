//! FIB034: what the ranks touched of the memory MPI owned. One finding per
//! (access site, owning call's site, kind of access), over the ranks and
//! interleavings that showed it; the first one's size and offset are
//! shown.

use std::collections::BTreeMap;

use fib_report::codes::{BufferInUse, Rule, Touch};
use fib_report::Finding;
use fib_wire::{Access, Site};

use fib_report::timeline::Role;
use poe::engine::OpId;

use crate::record::RunRecord;
use crate::sites::Resolver;
use crate::timeline::{self, Touched};

/// The ranks that touched owned memory at one (access site, owner site,
/// kind), and the first one's size, offset, owning call, rank and place in
/// that rank's calls, and its threads when it came after a completion on
/// another thread that nothing ordered before it.
type Group<'a> = (
    Vec<usize>,
    u64,
    u64,
    &'a str,
    (usize, u64),
    Option<fib_wire::Unordered>,
);

/// The findings for the owned memory `rec`'s ranks touched; `token` is its
/// replay token.
pub fn findings(sites: &Resolver, rec: &RunRecord, token: &str) -> Vec<Finding> {
    let mut groups: BTreeMap<(Site, Site, &Access), Group> = BTreeMap::new();
    for a in &rec.owned {
        let g = groups
            .entry((a.site, a.owner, &a.access))
            .or_insert_with(|| {
                (
                    Vec::new(),
                    a.size,
                    a.offset,
                    &a.call,
                    (a.rank, a.calls),
                    a.unordered,
                )
            });
        if !g.0.contains(&a.rank) {
            g.0.push(a.rank);
        }
    }
    groups
        .into_iter()
        .map(
            |((site, owner, access), (ranks, size, offset, call, first, unordered))| {
                let (touch, callee) = match access {
                    Access::Load => (Touch::Load, ""),
                    Access::Store => (Touch::Store, ""),
                    Access::Call { name, writes } => (
                        Touch::Call {
                            name: sites.call_name(site, name, &rec.files),
                            writes: *writes,
                        },
                        name.as_str(),
                    ),
                };
                let place = sites.place(site, callee, &rec.files);
                let picture = picture(sites, rec, first, owner, access, &place);
                BufferInUse {
                    ranks,
                    touch,
                    size,
                    offset,
                    owner_call: sites.call_name(owner, call, &rec.files),
                    owner_place: sites.place(owner, call, &rec.files),
                    place,
                    replay: token.to_string(),
                    unordered: unordered.map(|u| fib_report::codes::Unordered {
                        thread: u.thread,
                        other: u.other,
                        before_call: u.before_call,
                    }),
                }
                .finding()
                .with_timeline(picture)
            },
        )
        .collect()
}

/// The picture of the first such access, by `rank` after its first
/// `calls` calls: the call that made the pending operation (its latest
/// call at `owner` before) and the access, a load or store drawn as a mark
/// of its own before the call it preceded, or the new call.
fn picture(
    sites: &Resolver,
    rec: &RunRecord,
    (rank, calls): (usize, u64),
    owner: Site,
    access: &Access,
    place: &fib_report::Place,
) -> Option<fib_report::timeline::Timeline> {
    let ops = rec.ops.get(rank)?;
    let calls = (calls as usize).min(ops.len());
    let new_call = matches!(access, Access::Call { .. })
        .then(|| calls.checked_sub(1))
        .flatten();
    let before = new_call.unwrap_or(calls);
    let made = (0..before).rev().find(|&i| ops[i].site == owner)?;
    let mut marks = vec![(OpId { rank, index: made }, Role::RaceAccess)];
    let mut touches = Vec::new();
    match new_call {
        Some(index) => marks.push((OpId { rank, index }, Role::RaceAccess)),
        None => touches.push(Touched {
            rank,
            before: calls,
            store: matches!(access, Access::Store),
            file: place.file.clone(),
            line: place.line,
        }),
    }
    Some(timeline::race(
        sites, &rec.files, &rec.ops, &rec.fired, &marks, &touches,
    ))
}

/// Whether two FIB034 findings are the same (from different runs).
pub fn same(a: &Finding, b: &Finding) -> bool {
    a.code == b.code
        && a.file == b.file
        && a.line == b.line
        && a.column == b.column
        && a.message == b.message
        && a.labels.first().map(|l| (&l.file, l.line))
            == b.labels.first().map(|l| (&l.file, l.line))
}
