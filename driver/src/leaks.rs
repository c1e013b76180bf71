//! Findings for what a completed run left behind: requests never completed,
//! communicators never freed, messages never received. One finding per
//! call site and kind, over every rank and instance that leaked there, and
//! over every interleaving that showed it.

use std::collections::BTreeMap;

use fib_report::{Finding, ProgramReport, Severity};
use poe::engine::{Kind, OpRec};
use poe::Leak;

use crate::verify::Sites;

/// One site's leaks of one kind.
#[derive(Default)]
struct Group {
    ranks: Vec<usize>,
    count: usize,
    /// Destinations of unreceived messages (world ranks).
    dests: Vec<usize>,
}

/// Adds the findings for `leaks` of one run to `report`, unless an earlier
/// interleaving already reported the same site and kind.
pub(crate) fn report(
    at: &Sites,
    ops: &[Vec<OpRec>],
    leaks: &[Leak],
    token: &str,
    report: &mut ProgramReport,
) {
    let mut groups: BTreeMap<(&'static str, fib_wire::Site, &'static str), Group> = BTreeMap::new();
    for leak in leaks {
        let (code, op) = match leak {
            Leak::Request { op } => ("FIB018", op),
            Leak::Comm { op, .. } => ("FIB019", op),
            Leak::Message { op } => ("FIB020", op),
        };
        let rec = &ops[op.rank][op.index];
        let g = groups.entry((code, rec.site, rec.name)).or_default();
        if !g.ranks.contains(&op.rank) {
            g.ranks.push(op.rank);
        }
        g.count += 1;
        if let Kind::Send {
            dst: poe::engine::Peer::Rank(d),
            ..
        } = rec.kind
        {
            if !g.dests.contains(&d) {
                g.dests.push(d);
            }
        }
    }
    for ((code, site, name), mut g) in groups {
        g.ranks.sort_unstable();
        g.dests.sort_unstable();
        let ranks = list("rank", &g.ranks);
        let times = if g.count > 1 {
            format!(" ({} times)", g.count)
        } else {
            String::new()
        };
        let (message, help) = match code {
            "FIB018" => (
                format!("{ranks}: the request of this {name} is never completed by a wait or test{times}"),
                "complete it with MPI_Wait or MPI_Waitall before MPI_Finalize",
            ),
            "FIB019" => (
                format!("{ranks}: the communicator this {name} creates is never freed{times}"),
                "call MPI_Comm_free on it once it is no longer used",
            ),
            _ => (
                format!(
                    "{ranks}: the message this {name} sends to {} is never received{times}",
                    list("rank", &g.dests)
                ),
                "post a matching receive on every path, or check the tag and communicator",
            ),
        };
        let mut f = Finding::new(code, Severity::Warning, message);
        (f.file, f.line, f.column) = at.place(site, name);
        f.span = at.call_site(site, name).map(|s| s.span);
        f.rank = (g.ranks.len() == 1).then(|| g.ranks[0]);
        f.replay = Some(token.to_string());
        f.help = Some(help.into());
        let known = report.findings.iter().any(|o| {
            o.code == f.code
                && o.file == f.file
                && o.line == f.line
                && o.column == f.column
                && o.message == f.message
        });
        if !known {
            report.findings.push(f);
        }
    }
}

/// "rank 3" or "ranks 0, 1, 2".
fn list(word: &str, items: &[usize]) -> String {
    let joined: Vec<String> = items.iter().map(usize::to_string).collect();
    if items.len() == 1 {
        format!("{word} {}", joined[0])
    } else {
        format!("{word}s {}", joined.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::list;

    #[test]
    fn rank_lists_read_naturally() {
        assert_eq!(list("rank", &[3]), "rank 3");
        assert_eq!(list("rank", &[0, 1, 2]), "ranks 0, 1, 2");
    }
}
