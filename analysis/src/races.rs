//! FIB038: races on window memory in one run. The run's record becomes the
//! input of the race rules ([`crate::memrun`]); the races they find become
//! findings, one per pair of sites.

use std::collections::BTreeSet;

use fib::memory::{self, AccessKind, Loc, RaceRule, Side};
use fib_report::codes::{RaceAccess, Rule, WindowRace};
use fib_report::Finding;
use fib_wire::Site;
use poe::engine::{OpId, Ops};

use crate::memrun::{From, Input};
use crate::record::{RunRecord, WatchedAccesses};
use crate::sites::{FileNames, Resolver};
use crate::timeline::{self, Touched};
use fib_report::timeline::Role;

/// How many pairs of sites one run reports at most.
const MAX_PAIRS: usize = 100;

/// One access of a race as the findings name it, with the site that made
/// it: `ops`, `files` and `watched` are its run's, `input` the rules' input
/// built from them.
pub(crate) fn access(
    sites: &Resolver,
    files: &FileNames,
    ops: &[Ops],
    input: &Input,
    watched: &[WatchedAccesses],
    a: &memory::Access,
) -> (RaceAccess, Site) {
    let r = a.event.rank;
    let target = match a.loc {
        Loc::Window(_, t) | Loc::Buffer(t) => t,
    };
    let (site, what, callee): (Site, String, &str) = match input.from[r][a.event.index] {
        From::Call(i) => {
            let o = &ops[r][i];
            (o.site, sites.call_name(o.site, o.name, files), o.name)
        }
        From::Touch(i) => {
            let w = &watched[i];
            let what = if matches!(a.kind, AccessKind::Store) {
                "store"
            } else {
                "load"
            };
            (w.site, what.to_string(), "")
        }
    };
    let completed_by = match (a.side, a.end) {
        (Side::Target, Some(end)) | (Side::Message, Some(end)) if end != a.event => {
            match input.from[end.rank][end.index] {
                From::Call(i) => {
                    let o = &ops[end.rank][i];
                    Some((
                        sites.call_name(o.site, o.name, files),
                        sites.place(o.site, o.name, files),
                    ))
                }
                From::Touch(_) => None,
            }
        }
        _ => None,
    };
    (
        RaceAccess {
            rank: r,
            what,
            target,
            offset: a.bytes.offset,
            len: a.bytes.len,
            place: sites.place(site, callee, files),
            completed_by,
            buffer: match a.kind {
                AccessKind::Message { write } => Some(write),
                _ => None,
            },
        },
        site,
    )
}

/// The findings for the races on window memory in `rec`, whose input to
/// the rules is `input` ([`crate::memrun::input`]); `token` is its replay
/// token. The rules refuse only an input that contradicts itself, which the
/// engine's record never is: such a run has no findings here.
pub fn findings(sites: &Resolver, rec: &RunRecord, input: &Input, token: &str) -> Vec<Finding> {
    let Ok(races) = memory::races(&input.run).map(|r| r.races) else {
        return Vec::new();
    };
    let access = |a: &memory::Access| access(sites, &rec.files, &rec.ops, input, &rec.watched, a);
    let mut seen: BTreeSet<(Site, Site, String, String)> = BTreeSet::new();
    let mut out = Vec::new();
    for race in &races {
        if !matches!(race.rule, RaceRule::Window | RaceRule::SameOrigin) {
            continue;
        }
        // Point at the program's load or store when there is one.
        let (a, b) = if race.second.side == Side::Program && race.first.side != Side::Program {
            (&race.second, &race.first)
        } else {
            (&race.first, &race.second)
        };
        let (first, fs) = access(a);
        let (second, ss) = access(b);
        if !seen.insert((fs, ss, first.what.clone(), second.what.clone())) {
            continue;
        }
        // The picture: both accesses, and the calls that complete the
        // one-sided ones at their target.
        let mut calls = Vec::new();
        let mut touches = Vec::new();
        for (acc, facts) in [(a, &first), (b, &second)] {
            match input.from[acc.event.rank][acc.event.index] {
                From::Call(i) => calls.push((
                    OpId {
                        rank: acc.event.rank,
                        index: i,
                    },
                    Role::RaceAccess,
                )),
                From::Touch(i) => touches.push(Touched {
                    rank: acc.event.rank,
                    before: rec.watched[i].calls as usize,
                    store: rec.watched[i].store,
                    file: facts.place.file.clone(),
                    line: facts.place.line,
                }),
            }
            if let (Side::Target | Side::Message, Some(end)) = (acc.side, acc.end) {
                // A blocking call's buffer is over at the call itself.
                if end == acc.event {
                    continue;
                }
                if let From::Call(i) = input.from[end.rank][end.index] {
                    calls.push((
                        OpId {
                            rank: end.rank,
                            index: i,
                        },
                        Role::Completes,
                    ));
                }
            }
        }
        let picture = timeline::race(sites, &rec.files, &rec.ops, &rec.fired, &calls, &touches);
        out.push(
            WindowRace {
                first,
                second,
                same_origin: race.rule == RaceRule::SameOrigin,
                replay: token.to_string(),
            }
            .finding()
            .with_timeline(Some(picture)),
        );
        if out.len() == MAX_PAIRS {
            break;
        }
    }
    out
}

/// Whether two FIB038 findings are the same (from different runs or
/// iterations): the same two places.
pub fn same(a: &Finding, b: &Finding) -> bool {
    a.code == b.code
        && a.file == b.file
        && a.line == b.line
        && a.column == b.column
        && a.labels.first().map(|l| (&l.file, l.line))
            == b.labels.first().map(|l| (&l.file, l.line))
}
