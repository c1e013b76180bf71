//! Calls that run only for some inputs, met by calls that run whatever the
//! input (FIB040), from the static facts' [`fib_sites::Facts::inputs`] and
//! the match sets of a run that passed.
//!
//! A match set (a collective's members, a send and the receive that took
//! it) joins calls of different ranks. When one member's site runs only
//! where a condition on input `I` holds, and another member's site has no
//! condition that reads `I` nor any that is *open* (reads data another
//! rank sent, or what fib cannot see, which may carry `I`), another input
//! makes the first rank skip its call while the other still makes its own.

use std::collections::BTreeMap;

use fib_report::codes::{InputDependentCall, Rule};
use fib_report::Finding;
use fib_sites::{Input, InputGuards};
use poe::engine::{Fired, OpId};

use crate::record::RunRecord;
use crate::sites::Resolver;

/// One member of a match set, as this check sees it.
struct Member<'a> {
    rank: usize,
    site: u32,
    guards: Option<&'a InputGuards>,
}

impl Member<'_> {
    /// Whether the member's call runs whatever `input` is: no condition on
    /// its way reads it or anything that may carry it.
    fn runs_whatever(&self, input: Input) -> bool {
        match self.guards {
            None => true,
            Some(g) => !g.open && !g.reasons.iter().any(|r| r.input == input),
        }
    }
}

/// The FIB040 findings of one run that passed: one per (site, input).
pub(crate) fn findings(sites: &Resolver, rec: &RunRecord, token: &str) -> Vec<Finding> {
    let analysis = sites.analysis();
    if analysis.facts.inputs.is_empty() {
        return Vec::new();
    }
    let member = |id: &OpId| -> Option<Member> {
        let op = rec.ops.get(id.rank)?.get(id.index)?;
        let site = sites.id(op.site, op.name, &rec.files)?;
        Some(Member {
            rank: id.rank,
            site,
            guards: analysis.input_guards(site),
        })
    };
    // (site, input) -> the ranks there, and the other members by site.
    type Others = BTreeMap<u32, Vec<usize>>;
    let mut found: BTreeMap<(u32, Input), (Vec<usize>, Others)> = BTreeMap::new();
    for fired in rec.fired.iter() {
        let ids: Vec<OpId> = match fired {
            Fired::SendRecv { send, recv, .. } => vec![*send, *recv],
            Fired::Collective { ops } => ops.clone(),
            _ => continue,
        };
        let members: Vec<Member> = ids.iter().filter_map(member).collect();
        for m in &members {
            let Some(g) = m.guards else { continue };
            for r in &g.reasons {
                let others: Vec<&Member> = members
                    .iter()
                    .filter(|o| o.rank != m.rank && o.runs_whatever(r.input))
                    .collect();
                if others.is_empty() {
                    continue;
                }
                let entry = found.entry((m.site, r.input)).or_default();
                if !entry.0.contains(&m.rank) {
                    entry.0.push(m.rank);
                }
                for o in others {
                    let ranks = entry.1.entry(o.site).or_default();
                    if !ranks.contains(&o.rank) {
                        ranks.push(o.rank);
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    for ((site, input), (mut ranks, others)) in found {
        let Some(g) = analysis.input_guards(site) else {
            continue;
        };
        let Some(reason) = g.reasons.iter().find(|r| r.input == input) else {
            continue;
        };
        let Some(call) = sites.by_id(site) else {
            continue;
        };
        ranks.sort_unstable();
        let others = others
            .into_iter()
            .filter_map(|(s, mut r)| {
                let c = sites.by_id(s)?;
                r.sort_unstable();
                Some((c.callee.clone(), sites.placed(&c), r))
            })
            .collect();
        out.push(
            InputDependentCall {
                call: call.callee.clone(),
                place: sites.placed(&call),
                ranks,
                condition: reason.condition.clone(),
                condition_place: sites.line_place(&reason.file, reason.line),
                input: input.describe().to_string(),
                source: reason.source.clone(),
                others,
                replay: token.to_string(),
            }
            .finding(),
        );
    }
    out
}

/// Whether two FIB040 findings are about the same call and input (the
/// message names the input).
pub(crate) fn same(a: &Finding, b: &Finding) -> bool {
    a.code == b.code
        && a.file == b.file
        && a.line == b.line
        && a.column == b.column
        && a.labels.first().map(|l| &l.message) == b.labels.first().map(|l| &l.message)
}
