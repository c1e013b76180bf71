//! FIB017: `--confirm` and the fast method disagree about a barrier group.

use super::Code;
use crate::model::Severity;

/// Proof by removal contradicts the completes-before verdict.
pub const FIB017: Code = Code {
    code: "FIB017",
    name: "confirm-disagreement",
    severity: Severity::Error,
    summary: "`--confirm`'s proof by removal disagrees with the fast method about a barrier group: an internal error of fib.",
    explanation: "\
## What it means

With `--confirm`, fib re-explores the program with the sites of each barrier
group removed and compares the (wildcard receive, matched send) pairs and
the errors it finds with those of the program as written. That is the
definition of a relevant barrier. For this group the result contradicts the
verdict of the fast method, which reads relevance off the completes-before
graph of each interleaving. The two must agree, so one of them is wrong.

## Why it matters

This is a fault in fib, not in the program. Until it is fixed, neither
verdict on this group can be trusted; the finding reports the confirmed one.

## Example

    fib check prog.c -n 3 --confirm
    error[FIB017]: --confirm says the barrier group at prog.c:16 is relevant,
                   the fast method said irrelevant

## What to do

Report it to fib's developers with the program, the process count and the
command line. Meanwhile trust the verdict by removal: it is the definition.
",
};
