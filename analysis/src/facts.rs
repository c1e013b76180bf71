//! What fib knows of a program without running it, as the report shows it:
//! its MPI call sites, every barrier and wildcard receive, and whether
//! reaching each depends only on rank, size and constants.

use std::path::Path;

use fib_report::{SiteFact, StaticFacts};

use crate::sites::Resolver;

/// The static facts of the sites in the files `in_program` accepts (the
/// program's sources and the tree's headers).
pub fn static_facts(sites: &Resolver, in_program: &dyn Fn(&Path) -> bool) -> StaticFacts {
    let analysis = sites.analysis();
    let fact = |id: u32| -> Option<SiteFact> {
        let s = sites.by_id(id).filter(|s| in_program(&s.file))?;
        let reasons = sites.input_reasons(id);
        Some(SiteFact {
            file: sites.show(&s.file),
            line: s.line,
            column: s.column,
            callee: s.callee.clone(),
            all_inputs: reasons.is_none(),
            reasons: reasons.unwrap_or_default(),
            dead: analysis.is_dead(id),
        })
    };
    StaticFacts {
        sites: analysis
            .sites
            .sites
            .iter()
            .filter(|s| in_program(&s.file))
            .count(),
        barriers: analysis
            .facts
            .barriers
            .iter()
            .filter_map(|&b| fact(b))
            .collect(),
        wildcards: analysis
            .facts
            .wildcards
            .iter()
            .filter_map(|w| fact(w.site))
            .collect(),
        steering: analysis.facts.steering.clone(),
    }
}
