//! The proof by removal (`--confirm`): what a whole exploration could do —
//! every (wildcard receive instance, matched send instance) pair and every
//! kind of error — and the comparison of the program with and without a
//! barrier group, which is the definition of relevance.

use std::collections::BTreeSet;

use fib_report::codes::{Code, ConfirmDisagreement, Observed, Rule};
use fib_report::{Finding, Verdict, Witness};
use poe::engine::{Fired, Kind, Peer};

use crate::barriers::GroupVerdict;
use crate::ordering::MemoryFact;
use crate::sites::Resolver;
use crate::trace::{Instance, RunTrace};

/// What a whole exploration could do.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Signature {
    pub pairs: BTreeSet<(Instance, Instance)>,
    /// The codes of the errors its runs ended with.
    pub errors: BTreeSet<&'static str>,
    /// Its races on window memory and the orders its conflicting lock
    /// epochs were granted in.
    pub memory: BTreeSet<MemoryFact>,
}

impl Signature {
    /// Adds one run, which ended with the error `error` if any.
    pub fn add(&mut self, sites: &Resolver, run: &RunTrace, error: Option<&'static Code>) {
        if let Some(e) = error {
            self.errors.insert(e.code);
        }
        let inst = run.instances(sites);
        for f in &run.fired {
            let (recv, send) = match f {
                Fired::SendRecv {
                    send,
                    recv,
                    wildcard: true,
                } => (*recv, *send),
                Fired::Probe { probe, send }
                    if matches!(
                        run.ops[probe.rank][probe.index].kind,
                        Kind::Probe { src: Peer::Any, .. }
                    ) =>
                {
                    (*probe, *send)
                }
                _ => continue,
            };
            if let (Some(r), Some(s)) = (inst[recv.rank][recv.index], inst[send.rank][send.index]) {
                self.pairs.insert((r, s));
            }
        }
        self.memory.extend(crate::ordering::facts(sites, run));
        // The orders of its exchangeable blocks that the run stands for.
        for (recv, send) in run.exchanges.iter().flat_map(|x| x.pairs()) {
            if let (Some(r), Some(s)) = (inst[recv.rank][recv.index], inst[send.rank][send.index]) {
                self.pairs.insert((r, s));
            }
        }
    }

    /// Whether `other` (the program without some barriers) shows something
    /// this one does not: another wildcard pairing, a new kind of error, a
    /// new race on window memory or a new order of conflicting lock epochs.
    pub fn differs(&self, other: &Signature) -> bool {
        self.pairs != other.pairs
            || !other.errors.is_subset(&self.errors)
            || !other.memory.is_subset(&self.memory)
    }

    /// Whether `other`, even if it is only part of an exploration, already
    /// shows a wildcard pairing or a kind of error this one does not: the
    /// whole exploration it is part of then [`Signature::differs`].
    pub fn lacks_some_of(&self, other: &Signature) -> bool {
        !other.pairs.is_subset(&self.pairs)
            || !other.errors.is_subset(&self.errors)
            || !other.memory.is_subset(&self.memory)
    }
}

/// The verdict removal gives a group: relevant when the program without it
/// (`without`) could do something the program with it (`with`) could not.
fn removal_verdict(with: &Signature, without: &Signature) -> Verdict {
    if with.differs(without) {
        Verdict::Relevant
    } else {
        Verdict::Irrelevant
    }
}

/// Settles a group's verdict with what removal showed, which is the
/// definition: the group takes removal's verdict. When the fast method
/// disagreed on a program without failures (where it should be exact), the
/// disagreement is itself a finding. `with` is the signature of the
/// program's exploration (of `interleavings` runs), `without` the one of
/// the program without the group.
pub fn settle(
    program: &str,
    g: &mut GroupVerdict,
    failing: bool,
    interleavings: usize,
    with: &Signature,
    without: &Signature,
) -> Option<Finding> {
    let removal = removal_verdict(with, without);
    let b = &mut g.report;
    let disagreement = (b.verdict != removal && !failing).then(|| {
        ConfirmDisagreement {
            program: program.to_string(),
            group: b.group.clone(),
            fast: b.verdict,
            removal,
            with: observed(with),
            without: observed(without),
        }
        .finding()
    });
    if b.verdict != removal {
        b.verdict = removal;
        b.witness = match removal {
            Verdict::Irrelevant => Some(Witness::Irrelevant {
                interleavings,
                ranks: g.ranks,
                instances: g.instances,
                ordered_by: None,
            }),
            _ => None,
        };
        // The picture showed the fast method's witness, which is gone.
        b.timeline = None;
    }
    b.confirmed = true;
    disagreement
}

fn observed(s: &Signature) -> Observed {
    Observed {
        pairs: s.pairs.len(),
        errors: s.errors.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inst(rank: usize, site: u32) -> Instance {
        Instance {
            rank,
            site,
            occurrence: 0,
        }
    }

    #[test]
    fn part_of_an_exploration_shows_a_difference_once_it_has_something_new() {
        let mut with = Signature::default();
        with.pairs.insert((inst(0, 1), inst(1, 2)));
        with.pairs.insert((inst(0, 1), inst(2, 2)));
        let mut part = Signature::default();
        part.pairs.insert((inst(0, 1), inst(1, 2)));
        assert!(with.differs(&part), "the whole would differ");
        assert!(!with.lacks_some_of(&part), "but the part shows nothing new");
        part.errors.insert(fib_report::codes::FIB001.code);
        assert!(with.lacks_some_of(&part), "a new kind of error");
        part.errors.clear();
        part.pairs.insert((inst(0, 1), inst(3, 2)));
        assert!(with.lacks_some_of(&part), "a new pairing");
    }

    #[test]
    fn removal_differs_on_a_new_pair_or_a_new_kind_of_error_only() {
        let mut with = Signature::default();
        with.pairs.insert((inst(0, 1), inst(1, 2)));
        with.errors.insert(fib_report::codes::FIB001.code);
        let mut without = with.clone();
        assert!(!with.differs(&without));
        without.errors.clear();
        assert!(!with.differs(&without), "fewer errors is no difference");
        without.errors.insert(fib_report::codes::FIB002.code);
        assert!(with.differs(&without));
        let mut without = with.clone();
        without.pairs.insert((inst(0, 1), inst(2, 2)));
        assert!(with.differs(&without));
    }
}
