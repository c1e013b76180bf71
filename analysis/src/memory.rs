//! FIB034: what the ranks touched of the memory MPI owned. One finding per
//! (access site, owning call's site, kind of access), over the ranks and
//! interleavings that showed it; the first one's size and offset are
//! shown.

use std::collections::BTreeMap;

use fib_report::codes::{BufferInUse, Rule, Touch};
use fib_report::Finding;
use fib_wire::{Access, Site};

use crate::record::RunRecord;
use crate::sites::Resolver;

/// The ranks that touched owned memory at one (access site, owner site,
/// kind), and the first one's size, offset and owning call.
type Group<'a> = (Vec<usize>, u64, u64, &'a str);

/// The findings for the owned memory `rec`'s ranks touched; `token` is its
/// replay token.
pub fn findings(sites: &Resolver, rec: &RunRecord, token: &str) -> Vec<Finding> {
    let mut groups: BTreeMap<(Site, Site, &Access), Group> = BTreeMap::new();
    for a in &rec.owned {
        let g = groups
            .entry((a.site, a.owner, &a.access))
            .or_insert_with(|| (Vec::new(), a.size, a.offset, &a.call));
        if !g.0.contains(&a.rank) {
            g.0.push(a.rank);
        }
    }
    groups
        .into_iter()
        .map(|((site, owner, access), (ranks, size, offset, call))| {
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
            BufferInUse {
                ranks,
                touch,
                size,
                offset,
                owner_call: sites.call_name(owner, call, &rec.files),
                owner_place: sites.place(owner, call, &rec.files),
                place: sites.place(site, callee, &rec.files),
                replay: token.to_string(),
            }
            .finding()
        })
        .collect()
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
