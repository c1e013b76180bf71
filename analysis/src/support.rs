//! The MPI calls of a program that fib does not model, found in its site
//! table before running ([`fib_wire::support`] decides), as FIB006
//! findings: one per call site, whether or not a run would reach it.

use fib_report::codes::{Rule, Scope, Unsupported, FIB006};
use fib_report::Finding;
use fib_sites::CallSite;
use fib_wire::{Support, Why};

use crate::sites::Resolver;

/// Why fib does not model the function `name`, as a finding says it.
pub(crate) fn scope(name: &str) -> Scope {
    if name == fib_wire::THREAD_MULTIPLE {
        return Scope::Threads;
    }
    match fib_wire::support(name) {
        Support::Unsupported { why: Why::OneSided } => Scope::OneSided,
        Support::Unsupported {
            why: Why::DynamicProcesses,
        } => Scope::DynamicProcesses,
        _ => Scope::NotYet,
    }
}

/// The call sites of the program whose function fib does not model, in
/// site-table order; those in code the program never runs
/// ([`fib_sites::Facts::dead`]) are left out.
pub fn unmodelled_calls<'a>(sites: &Resolver<'a>) -> Vec<&'a CallSite> {
    sites
        .analysis()
        .live_sites()
        .filter(|s| matches!(fib_wire::support(&s.callee), Support::Unsupported { .. }))
        .collect()
}

/// One FIB006 finding per call of `calls`. `runs` is `None` when the
/// program was not run because of them, and the runs' findings when it was
/// run anyway: a call a run reached is left to the run's own FIB006, which
/// has its rank and replay token.
pub fn unmodelled_findings(
    sites: &Resolver,
    calls: &[&CallSite],
    runs: Option<&[Finding]>,
) -> Vec<Finding> {
    let reached = |s: &CallSite| {
        let place = sites.placed(s);
        runs.unwrap_or_default().iter().any(|f| {
            *f.code == FIB006
                && f.rank.is_some()
                && (&f.file, f.line, f.column) == (&place.file, place.line, place.column)
        })
    };
    calls
        .iter()
        .filter(|s| !reached(s))
        .map(|s| {
            Unsupported::Listed {
                call: s.callee.clone(),
                place: sites.placed(s),
                scope: scope(&s.callee),
                ran: runs.is_some(),
            }
            .finding()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use fib_sites::{Analysis, Facts, SiteTable};

    use super::*;

    fn call(id: u32, line: u32, callee: &str) -> CallSite {
        CallSite {
            id,
            file: PathBuf::from("a.c"),
            line,
            column: 9,
            span: (10 * id as usize, 10 * id as usize + 8),
            callee: callee.into(),
            args: Vec::new(),
            function: Some("main".into()),
            macro_name: None,
            buffers: Vec::new(),
            bounds: Vec::new(),
            structs: Vec::new(),
            any_thread: None,
        }
    }

    fn analysis() -> Analysis {
        Analysis {
            sites: SiteTable {
                sites: vec![
                    call(0, 3, "MPI_Init"),
                    call(1, 4, "MPI_Comm_rank"),
                    call(2, 6, "MPI_Iscan_c"),
                    call(3, 8, "MPI_Put_c"),
                    call(4, 9, "MPI_Comm_spawn"),
                    call(5, 10, "MPI_Finalize"),
                ],
            },
            facts: Facts {
                steering: Vec::new(),
                free_waits: Vec::new(),
                free_receives: Vec::new(),
                free_probes: Vec::new(),
                dead: Vec::new(),
                inputs: Vec::new(),
                gates: Vec::new(),
                purposes: Vec::new(),
                barriers: Vec::new(),
                wildcards: Vec::new(),
                control: Vec::new(),
            },
            units: Vec::new(),
            files: Vec::new(),
            read: None,
        }
    }

    #[test]
    fn every_call_fib_does_not_model_is_one_finding_at_its_site() {
        let a = analysis();
        let r = Resolver::new(&a, Path::new("src"));
        let calls = unmodelled_calls(&r);
        let names: Vec<&str> = calls.iter().map(|s| s.callee.as_str()).collect();
        assert_eq!(names, ["MPI_Iscan_c", "MPI_Put_c", "MPI_Comm_spawn"]);
        let found = unmodelled_findings(&r, &calls, None);
        let shown: Vec<(&str, Option<u32>)> =
            found.iter().map(|f| (f.message.as_str(), f.line)).collect();
        assert_eq!(
            shown,
            [
                ("MPI_Iscan_c is not supported by fib yet", Some(6)),
                (
                    "MPI_Put_c is not supported by fib yet: the large-count forms of one-sided communication are out of scope for now",
                    Some(8)
                ),
                (
                    "MPI_Comm_spawn is not supported by fib yet: dynamic process management is out of scope for now",
                    Some(9)
                ),
            ]
        );
        assert!(found.iter().all(|f| *f.code == FIB006 && f.rank.is_none()));
        assert_eq!(found[0].file.as_deref(), Some("src/a.c"));
    }

    /// A call in code the program never runs (a header's helper nothing
    /// calls) does not stop the check.
    #[test]
    fn a_call_in_code_never_run_is_not_listed() {
        let mut a = analysis();
        a.facts.dead = vec![1, 3];
        let r = Resolver::new(&a, Path::new("src"));
        let names: Vec<&str> = unmodelled_calls(&r)
            .iter()
            .map(|s| s.callee.as_str())
            .collect();
        assert_eq!(names, ["MPI_Iscan_c", "MPI_Comm_spawn"]);
    }

    #[test]
    fn a_call_a_run_reached_is_left_to_the_runs_finding() {
        let a = analysis();
        let r = Resolver::new(&a, Path::new("src"));
        let calls = unmodelled_calls(&r);
        let run = Unsupported::Reached {
            rank: 1,
            call: "MPI_Put".into(),
            place: r.placed(&a.sites.sites[3]),
            scope: Scope::OneSided,
            replay: "0".into(),
        }
        .finding();
        let found = unmodelled_findings(&r, &calls, Some(&[run]));
        let lines: Vec<Option<u32>> = found.iter().map(|f| f.line).collect();
        assert_eq!(lines, [Some(6), Some(9)]);
        assert!(found[0].notes[0].contains("no run reached this call"));
    }

    #[test]
    fn the_report_knows_the_nonblocking_collectives_the_wire_models() {
        let wire: Vec<&str> = fib_wire::CollKind::ALL
            .iter()
            .filter(|k| k.is_nonblocking())
            .map(|k| k.mpi_name())
            .chain(["MPI_Comm_idup", "MPI_Comm_idup_with_info"])
            .collect();
        assert_eq!(wire, fib_report::NONBLOCKING_COLLECTIVES);
    }
}
