//! FIB042 to FIB047: what the ranks found wrong with the way their
//! threads call MPI ([`fib_wire::Up::Thread`]). One finding per fault kind
//! and site (and, for two unordered calls, the other call's site), over the
//! ranks and interleavings that showed it.

use std::collections::BTreeMap;

use fib_report::codes::{
    CollectivesTwoThreads, RequestReusedThreads, RequestTwoThreads, Rule, ThreadLevelUnchecked,
    ThreadNotMain, ThreadsConcurrent,
};
use fib_report::Finding;
use fib_wire::{Site, ThreadFault};

use crate::record::RunRecord;
use crate::sites::Resolver;

/// The name a call at an unknown site goes by.
const SOME_CALL: &str = "an MPI call";

/// The findings for the thread faults `rec`'s ranks reported; `token` is
/// its replay token.
pub fn findings(sites: &Resolver, rec: &RunRecord, token: &str) -> Vec<Finding> {
    // Faults grouped by kind and sites, with the ranks that showed them;
    // the first one's details are shown.
    let mut groups: BTreeMap<(u8, Site, Site), (Vec<usize>, &ThreadFault)> = BTreeMap::new();
    for t in &rec.threads {
        let key = match &t.fault {
            ThreadFault::NotMain { site, .. } => (0, *site, Site::Unknown),
            ThreadFault::Concurrent {
                site, other_site, ..
            } => (1, (*site).min(*other_site), (*site).max(*other_site)),
            ThreadFault::Unchecked { site, .. } => (2, *site, Site::Unknown),
            ThreadFault::SharedRequest {
                site, other_site, ..
            } => (3, (*site).min(*other_site), (*site).max(*other_site)),
            ThreadFault::Collectives {
                site, other_site, ..
            } => (4, (*site).min(*other_site), (*site).max(*other_site)),
            // The reusing call is the one at fault, whatever the sources'
            // order.
            ThreadFault::ReusedRequest {
                site, other_site, ..
            } => (5, *site, *other_site),
        };
        let g = groups.entry(key).or_insert_with(|| (Vec::new(), &t.fault));
        if !g.0.contains(&t.rank) {
            g.0.push(t.rank);
        }
    }
    let files = &rec.files;
    let call = |site: Site| sites.call_name(site, SOME_CALL, files);
    let place = |site: Site| sites.place(site, "", files);
    // Of two calls nothing orders, which came second is the run's
    // timing: a finding goes to the one later in the source.
    let later_first = |a: (Site, u32), b: (Site, u32)| {
        let key = |s: Site| {
            let p = place(s);
            (p.file, p.line, p.column)
        };
        if key(a.0) < key(b.0) {
            (b, a)
        } else {
            (a, b)
        }
    };
    groups
        .into_values()
        .map(|(ranks, fault)| match fault {
            ThreadFault::SharedRequest {
                site,
                thread,
                other_site,
                other,
            } => {
                let (a, b) = later_first((*site, *thread), (*other_site, *other));
                RequestTwoThreads {
                    ranks,
                    thread: a.1,
                    call: call(a.0),
                    place: place(a.0),
                    other: b.1,
                    other_call: call(b.0),
                    other_place: place(b.0),
                    replay: token.to_string(),
                }
                .finding()
            }
            ThreadFault::Collectives {
                site,
                thread,
                other_site,
                other,
            } => {
                let (a, b) = later_first((*site, *thread), (*other_site, *other));
                CollectivesTwoThreads {
                    ranks,
                    thread: a.1,
                    call: call(a.0),
                    place: place(a.0),
                    other: b.1,
                    other_call: call(b.0),
                    other_place: place(b.0),
                    replay: token.to_string(),
                }
                .finding()
            }
            ThreadFault::ReusedRequest {
                site,
                thread,
                other_site,
                other,
            } => RequestReusedThreads {
                ranks,
                thread: *thread,
                call: call(*site),
                place: place(*site),
                other: *other,
                other_call: call(*other_site),
                other_place: place(*other_site),
                replay: token.to_string(),
            }
            .finding(),
            ThreadFault::NotMain {
                site,
                thread,
                level,
                init,
                any_thread,
            } => ThreadNotMain {
                ranks,
                thread: *thread,
                // The construct, as the parse named it.
                construct: match site {
                    Site::Table(id) if *any_thread => sites
                        .by_id(*id)
                        .and_then(|c| c.any_thread.clone())
                        .or_else(|| Some("single".into())),
                    _ => None,
                },
                call: call(*site),
                place: place(*site),
                level: level.name().into(),
                init_call: sites.call_name(*init, "MPI_Init", files),
                init_place: place(*init),
                replay: token.to_string(),
            }
            .finding(),
            ThreadFault::Concurrent {
                site,
                thread,
                other_site,
                other,
                overlapped,
                ..
            } => {
                let (a, b) = later_first((*site, *thread), (*other_site, *other));
                ThreadsConcurrent {
                    ranks,
                    thread: a.1,
                    call: call(a.0),
                    place: place(a.0),
                    other: b.1,
                    other_call: call(b.0),
                    other_place: place(b.0),
                    overlapped: *overlapped,
                    replay: token.to_string(),
                }
                .finding()
            }
            ThreadFault::Unchecked {
                site,
                thread,
                init,
                required,
                level,
            } => ThreadLevelUnchecked {
                ranks,
                thread: *thread,
                call: call(*site),
                place: place(*site),
                required: required.name().into(),
                level: level.name().into(),
                init_place: place(*init),
                replay: token.to_string(),
            }
            .finding(),
        })
        .collect()
}

/// Whether two thread findings are the same (of another interleaving):
/// the same code at the same place saying the same, and the same other
/// call labelled.
pub fn same(a: &Finding, b: &Finding) -> bool {
    a.code == b.code
        && a.file == b.file
        && a.line == b.line
        && a.labels.first().map(|l| l.line) == b.labels.first().map(|l| l.line)
}
