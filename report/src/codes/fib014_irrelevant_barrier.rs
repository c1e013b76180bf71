//! FIB014: a barrier group that can be deleted.

use super::common::{barrier_group, group_lines, Inputs};
use super::{Code, Rule};
use crate::finding::{Finding, Severity};
use crate::model::{Purpose, SiteRef};

/// Deleting every site of the barrier group changes nothing.
pub const FIB014: Code = Code {
    code: "FIB014",
    name: "irrelevant-barrier",
    severity: Severity::Warning,
    tool_failure: false,
    summary: "These barrier sites can be deleted together: they order nothing the program's messages depend on.",
    explanation: "\
## What it means

The finding names a barrier group: the `MPI_Barrier` call sites that match
each other in some run (one site in every rank for aligned code, several for
barriers called from different branches). In every interleaving fib
explored, no wildcard receive or probe relied on the group to keep out a send
that could otherwise match it, so the program's messages can match in exactly
the same ways without it. In a program with one-sided windows, deleting it
also lets no two accesses to window memory race and no two lock epochs with
conflicting accesses go in another order. The notes say how many
interleavings and ranks the verdict covers, whether it holds for every
input or only for the one tested (when a branch on input decides whether a
site is reached), and, when conflicting accesses of two ranks lie on both
sides of it, which other synchronisation (a fence, a message, a lock)
already orders them.

## Why it matters

A barrier stops every rank of its communicator until the slowest one
arrives. One that orders nothing costs that wait on every call, which in a
time loop is every iteration, and hides the real synchronisation the program
needs. Deleting only some sites of a group is wrong: the remaining ones no
longer match and the program deadlocks.

## Example

    /* Every message names its source, so nothing depends on the barrier. */
    if (rank == 0) {
        MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);  /* one site of the group */
    } else {
        MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &st);
        MPI_Barrier(MPI_COMM_WORLD);  /* the other site */
    }

## What to do

Delete every site of the group together, as the `help:` line lists them, or
keep the group if it orders something outside MPI (files, timing, output).
When the first call after one of its sites (before the next MPI call) reads
a clock (`MPI_Wtime`, `clock_gettime`, ...) or writes output (`printf`,
`fwrite`, `<<`, ...), the `help:` line names it: such a barrier often times
a phase or orders the output, which fib does not judge. When the barrier is
the last MPI call of its function (a wrapper such as `barrier_all()`), what
follows each call of that function in its callers counts too, and the
`help:` line names that call. A called function's clock reading or output
counts only when it comes before that function's own MPI calls and can run
(output under `if (DEBUG)` with `DEBUG` defined as 0 never does).
Under `fib run`,
when the binary's debug information names no source fib could read for
a site, the `help:` line says that fib does not know what follows it.
Run `fib check --confirm` to have fib re-explore the program with the group
removed and compare. If the verdict holds only for the input tested, check
the other inputs too.
",
};

/// A barrier group whose deletion changes nothing the program's messages
/// can do, in the interleavings explored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IrrelevantBarrier {
    /// The group's sites; the first is the finding's place. At least one.
    pub group: Vec<SiteRef>,
    pub inputs: Inputs,
    /// What the verdict covers: interleavings, ranks, barrier calls.
    pub interleavings: usize,
    pub ranks: usize,
    pub instances: usize,
    /// Exploration stopped at `--max-interleavings`: the verdict speaks
    /// only of the interleavings explored.
    pub cut: bool,
    /// A note added last (e.g. that the program fails).
    pub note: Option<String>,
    /// What the group may order besides messages: then the advice is to
    /// keep it if that needs it, not to delete it outright.
    pub purposes: Vec<Purpose>,
    /// Accesses on both sides of the group conflict, and this already
    /// orders them (a sentence).
    pub ordered_by: Option<String>,
}

impl Rule for IrrelevantBarrier {
    const CODE: &'static Code = &FIB014;

    fn finding(&self) -> Finding {
        let mut f = Finding::new(Self::CODE, "irrelevant barrier: deleting this barrier group changes nothing the program's messages can do");
        if self.ordered_by.is_some() {
            f.message = "irrelevant barrier: deleting this barrier group changes nothing the program's messages or memory can do".into();
        }
        barrier_group(&mut f, &self.group);
        let (interleavings, ranks, instances) = (self.interleavings, self.ranks, self.instances);
        f.notes = vec![
            self.inputs.note(),
            format!(
                "checked over {interleavings} interleaving{}, {instances} barrier call{} on {ranks} rank{}",
                if interleavings == 1 { "" } else { "s" },
                if instances == 1 { "" } else { "s" },
                if ranks == 1 { "" } else { "s" },
            ),
        ];
        f.notes.extend(self.ordered_by.clone());
        f.notes.extend(self.note.clone());
        let delete = if self.group.len() == 1 {
            format!("delete {}", group_lines(&self.group))
        } else {
            format!("delete {} together", group_lines(&self.group))
        };
        if self.cut {
            // Only the explored interleavings showed no use for the group;
            // one left out might.
            f.message = "irrelevant barrier in the interleavings explored, which are not all of them (--max-interleavings)".into();
            f.help = Some(format!(
                "explore every interleaving (raise --max-interleavings) before deciding; then {delete}"
            ));
        } else if let Some(p) = self.purposes.first() {
            f.help = Some(format!("{}; otherwise {delete}", keep_for(p)));
        } else {
            f.help = Some(delete);
        }
        f
    }
}

/// The advice for a group that orders something besides messages.
fn keep_for(p: &Purpose) -> String {
    let at = format!("line {} of {}", p.line, p.file);
    // A wrapper's barrier: the call after which the purpose comes.
    let via = p.via.as_ref().map_or(String::new(), |v| {
        format!(
            ", which follows the call of {} at line {} of {}",
            v.function, v.line, v.file
        )
    });
    match p.kind {
        // The source of a prebuilt binary's call, not analysed.
        "unread" if p.line == 0 => format!(
            "fib did not read the source of the call at {}, so it does not know whether a clock read or output after it needs every rank there: keep it if one does",
            p.file
        ),
        "unread" => format!(
            "fib did not read the source of {at}, so it does not know whether a clock read or output after it needs every rank there: keep it if one does"
        ),
        "timing" => format!(
            "it synchronises the timing at {at} ({}{via}): keep it if that measurement needs every rank to start together",
            p.call
        ),
        _ => format!(
            "it orders the output at {at} ({}{via}) after every rank got here: keep it if that output needs it",
            p.call
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::common::tests::site;

    fn sample() -> IrrelevantBarrier {
        IrrelevantBarrier {
            purposes: vec![],
            group: vec![site("a.c", 13, 9), site("a.c", 17, 9), site("b.c", 8, 5)],
            inputs: Inputs::Every,
            interleavings: 1,
            ranks: 3,
            instances: 3,
            cut: false,
            note: None,
            ordered_by: None,
        }
    }

    #[test]
    fn a_group_before_a_clock_or_output_is_kept_for_it() {
        let mut b = sample();
        b.purposes = vec![Purpose {
            kind: "timing",
            call: "MPI_Wtime".into(),
            file: "a.c".into(),
            line: 14,
            via: None,
        }];
        assert_eq!(
            b.finding().help.as_deref(),
            Some("it synchronises the timing at line 14 of a.c (MPI_Wtime): keep it if that measurement needs every rank to start together; otherwise delete lines 13, 17 of a.c and line 8 of b.c together")
        );
        b.purposes[0].kind = "output";
        b.purposes[0].call = "printf".into();
        assert_eq!(
            b.finding().help.as_deref(),
            Some("it orders the output at line 14 of a.c (printf) after every rank got here: keep it if that output needs it; otherwise delete lines 13, 17 of a.c and line 8 of b.c together")
        );
    }

    #[test]
    fn a_wrappers_barrier_names_the_call_its_purpose_follows() {
        let mut b = sample();
        b.group.truncate(1);
        b.purposes = vec![Purpose {
            kind: "output",
            call: "printf".into(),
            file: "t.c".into(),
            line: 31,
            via: Some(crate::model::Via {
                function: "barrier_all".into(),
                file: "t.c".into(),
                line: 30,
            }),
        }];
        assert_eq!(
            b.finding().help.as_deref(),
            Some("it orders the output at line 31 of t.c (printf, which follows the call of barrier_all at line 30 of t.c) after every rank got here: keep it if that output needs it; otherwise delete line 13 of a.c")
        );
        b.purposes[0].kind = "timing";
        b.purposes[0].call = "MPI_Wtime".into();
        assert_eq!(
            b.finding().help.as_deref(),
            Some("it synchronises the timing at line 31 of t.c (MPI_Wtime, which follows the call of barrier_all at line 30 of t.c): keep it if that measurement needs every rank to start together; otherwise delete line 13 of a.c")
        );
    }

    #[test]
    fn a_site_whose_source_fib_did_not_read_is_not_simply_deleted() {
        let mut b = sample();
        b.group.truncate(1);
        b.purposes = vec![Purpose {
            kind: "unread",
            call: "MPI_Barrier".into(),
            file: "a.c".into(),
            line: 13,
            via: None,
        }];
        assert_eq!(
            b.finding().help.as_deref(),
            Some("fib did not read the source of line 13 of a.c, so it does not know whether a clock read or output after it needs every rank there: keep it if one does; otherwise delete line 13 of a.c")
        );
        b.purposes[0].file = "prog(main+0x2b)".into();
        b.purposes[0].line = 0;
        assert!(b.finding().help.is_some_and(
            |h| h.starts_with("fib did not read the source of the call at prog(main+0x2b),")
        ));
    }

    #[test]
    fn lists_the_sites_to_delete_together() {
        let f = sample().finding();
        assert_eq!(f.message, "irrelevant barrier: deleting this barrier group changes nothing the program's messages can do");
        assert_eq!(
            (f.file.as_deref(), f.line, f.column, f.span),
            (Some("a.c"), Some(13), Some(9), Some((1309, 1350)))
        );
        assert_eq!(
            f.help.as_deref(),
            Some("delete lines 13, 17 of a.c and line 8 of b.c together")
        );
        assert_eq!(f.labels.len(), 2);
        assert_eq!(f.labels[1].message, "also part of this barrier group");
        assert_eq!((f.labels[1].line, f.labels[1].span), (8, Some((805, 850))));
        assert_eq!(
            f.notes,
            vec![
                "the verdict holds for every input: only rank, size and constants decide whether these sites run".to_string(),
                "checked over 1 interleaving, 3 barrier calls on 3 ranks".to_string(),
            ]
        );
        assert_eq!((f.rank, f.replay), (None, None));
    }

    #[test]
    fn one_site_singular_counts_and_a_cut() {
        let mut b = sample();
        b.group.truncate(1);
        b.interleavings = 2;
        b.ranks = 1;
        b.instances = 1;
        b.inputs = Inputs::Tested {
            reason: "`if (argc > 1)` reads `argc`".into(),
        };
        b.cut = true;
        b.note = Some("the program fails".into());
        let f = b.finding();
        assert_eq!(f.message, "irrelevant barrier in the interleavings explored, which are not all of them (--max-interleavings)");
        assert_eq!(
            f.help.as_deref(),
            Some("explore every interleaving (raise --max-interleavings) before deciding; then delete line 13 of a.c")
        );
        assert_eq!(
            f.notes,
            vec![
                "the verdict holds for the input tested: `if (argc > 1)` reads `argc`".to_string(),
                "checked over 2 interleavings, 1 barrier call on 1 rank".to_string(),
                "the program fails".to_string(),
            ]
        );
        assert!(f.labels.is_empty());
    }
}
