//! What an exploration keeps of each run for the Fib pass and for the proof
//! by removal, and how a run's operations map to instances of the
//! program's sites.

use fib_report::WitnessOp;
use poe::engine::{Exchange, FiredList, OpId, Ops};

use crate::memrun::MemoryTrace;
use crate::sites::{FileNames, Resolver};

/// An operation instance across interleavings, the unit in which the proof
/// by removal compares explorations ([`crate::confirm::Signature`]): rank,
/// site-table id, and how many times the rank made that call before.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Instance {
    pub rank: usize,
    pub site: u32,
    pub occurrence: usize,
}

/// One interleaving, as the barrier verdicts need it.
#[derive(Clone, Debug)]
pub struct RunTrace {
    /// The replay token of the interleaving.
    pub token: String,
    pub ops: Vec<Ops>,
    pub fired: FiredList,
    /// Its exchangeable blocks: the run stands for their other orders.
    pub exchanges: Vec<Exchange>,
    /// File ids the ranks named.
    pub files: FileNames,
    /// What the memory rules need, when the run used windows.
    pub memory: Option<MemoryTrace>,
}

impl RunTrace {
    /// An operation of the run as a witness names it.
    pub(crate) fn witness_op(&self, sites: &Resolver, id: OpId) -> WitnessOp {
        let op = &self.ops[id.rank][id.index];
        let p = sites
            .call_site(op.site, op.name, &self.files)
            .map(|s| sites.placed(&s))
            .unwrap_or_default();
        WitnessOp {
            file: p.file,
            line: p.line,
            column: p.column,
            span: p.span,
            rank: id.rank,
            call: sites.call_name(op.site, op.name, &self.files),
        }
    }

    /// Every operation's instance (`None` when it cannot be placed).
    pub fn instances(&self, sites: &Resolver) -> Vec<Vec<Option<Instance>>> {
        self.ops
            .iter()
            .enumerate()
            .map(|(rank, list)| {
                let mut seen: std::collections::HashMap<u32, usize> = Default::default();
                list.iter()
                    .map(|op| {
                        sites.id(op.site, op.name, &self.files).map(|site| {
                            let n = seen.entry(site).or_insert(0);
                            *n += 1;
                            Instance {
                                rank,
                                site,
                                occurrence: *n - 1,
                            }
                        })
                    })
                    .collect()
            })
            .collect()
    }
}
