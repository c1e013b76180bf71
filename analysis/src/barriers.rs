//! Barrier verdicts for one program: groups the barrier sites that matched
//! each other in any interleaving (a group is what a user deletes), runs the
//! Fib pass on every interleaving with those groups, and gives each group
//! its verdict and witness.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use fib::Node;
use fib_report::codes::{
    barrier_finding, BarrierNeverRuns, BarrierNotCovered, BarrierNotReached, BarrierUndecided,
    Inputs, RelevantByRemoval, Rule,
};
use fib_report::{BarrierReport, Finding, Verdict, Witness};
use poe::engine::{Fired, OpId};

use crate::ordering::{self, MemoryFact, RunMemory, Shown};
use crate::sites::Resolver;
use crate::trace::{Instance, RunTrace};
use fib::memory::{Access, Node as MemNode, Removed};

/// A barrier match set's group in one run's Fib pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum GroupKey {
    /// The group of the sites, named by its smallest site id.
    Sites(u32),
    /// A match set none of whose calls could be placed: a group of its own.
    Unplaced(OpId),
}

/// One barrier group and what the fast method concluded about it.
#[derive(Clone, Debug)]
pub struct GroupVerdict {
    /// Its site ids, sorted.
    pub sites: Vec<u32>,
    /// The verdict, its witness and the group's sites, as reported.
    pub report: BarrierReport,
    /// Why the sites' control flow depends on input (empty when it does
    /// not).
    pub reasons: Vec<String>,
    /// How many ranks and barrier calls the runs covered.
    pub ranks: usize,
    pub instances: usize,
    /// Every site is in code the program never runs
    /// ([`fib_sites::Facts::dead`]).
    pub never_runs: bool,
    /// The conditions on the way to its sites ([`fib_sites::Facts::gates`]),
    /// for a group no run reached.
    pub gates: Vec<fib_report::Gate>,
}

/// A group being built: its sites, the instances that ran, and the first
/// relevant match set found (with the index of the run that showed it).
#[derive(Default)]
struct Group {
    sites: Vec<u32>,
    instances: HashSet<Instance>,
    relevant: Option<(fib::Relevant, usize)>,
    /// What the runs' memory could do without the group and did not do
    /// with it in the run that showed it, each with the first run that
    /// showed it, what showed it and the group's match sets and calls
    /// there. Whether it is new to the program is known once every run
    /// is in.
    memory: BTreeMap<MemoryFact, Candidate>,
    /// Conflicting accesses on both sides of the group that something
    /// else orders: the run, the pair and the path without the group.
    ordered: Option<(usize, Access, Access, Vec<MemNode>)>,
}

/// What shows a group relevant through memory in one run.
struct Candidate {
    run: usize,
    shown: Shown,
    removed: Removed,
    calls: Vec<OpId>,
}

/// Union-find over site ids, the smaller id the root.
#[derive(Default)]
struct Sets(BTreeMap<u32, u32>);

impl Sets {
    fn find(&mut self, x: u32) -> u32 {
        let p = *self.0.entry(x).or_insert(x);
        if p == x {
            return x;
        }
        let r = self.find(p);
        self.0.insert(x, r);
        r
    }

    fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.0.insert(ra.max(rb), ra.min(rb));
        }
    }
}

/// The site ids of each barrier match set of a run, by its position in the
/// run's fired list.
fn barrier_sites(sites: &Resolver, run: &RunTrace) -> HashMap<usize, Vec<u32>> {
    let mut per_set = HashMap::new();
    for (k, f) in run.fired.iter().enumerate() {
        let Fired::Collective { ops } = f else {
            continue;
        };
        if !fib::is_barrier(&run.ops, ops) {
            continue;
        }
        let ids: Vec<u32> = ops
            .iter()
            .filter_map(|o| {
                let op = &run.ops[o.rank][o.index];
                sites.id(op.site, op.name, &run.files)
            })
            .collect();
        per_set.insert(k, ids);
    }
    per_set
}

/// Groups the barrier sites, runs the Fib pass on every run, and gives
/// every group its verdict. `interleavings` is how many runs the
/// exploration made (the verdict of an irrelevant group says so).
pub fn classify(sites: &Resolver, runs: &[RunTrace], interleavings: usize) -> Vec<GroupVerdict> {
    let mut sets = Sets::default();
    for &b in &sites.analysis().facts.barriers {
        sets.find(b);
    }
    // Barrier sites that matched each other in any run form one group.
    let per_run: Vec<HashMap<usize, Vec<u32>>> =
        runs.iter().map(|run| barrier_sites(sites, run)).collect();
    for ids in per_run.iter().flat_map(HashMap::values) {
        for w in ids.windows(2) {
            sets.union(w[0], w[1]);
        }
        if let Some(&first) = ids.first() {
            sets.find(first);
        }
    }
    let mut groups: BTreeMap<u32, Group> = BTreeMap::new();
    let all: Vec<u32> = sets.0.keys().copied().collect();
    for s in all {
        let root = sets.find(s);
        groups.entry(root).or_default().sites.push(s);
    }
    // What the runs' memory did, over every run.
    let mut seen: BTreeSet<MemoryFact> = BTreeSet::new();
    for (i, (run, per_set)) in runs.iter().zip(&per_run).enumerate() {
        run_pass(sites, &mut sets, &mut groups, i, run, per_set);
        memory_pass(sites, &mut sets, &mut groups, i, run, per_set, &mut seen);
    }
    groups
        .into_values()
        .filter_map(|g| verdict(sites, runs, g, interleavings, &seen))
        .collect()
}

/// Adds one run to the groups: the barrier instances it ran, and the
/// groups the Fib pass finds relevant in it.
fn run_pass(
    sites: &Resolver,
    sets: &mut Sets,
    groups: &mut BTreeMap<u32, Group>,
    index: usize,
    run: &RunTrace,
    per_set: &HashMap<usize, Vec<u32>>,
) {
    let inst = run.instances(sites);
    // The group of each barrier match set of this run, by its first member.
    let mut keys: HashMap<OpId, GroupKey> = HashMap::new();
    for (k, ids) in per_set {
        let (Some(&s), Fired::Collective { ops }) = (ids.first(), &run.fired[*k]) else {
            continue;
        };
        let root = sets.find(s);
        keys.insert(ops[0], GroupKey::Sites(root));
        let g = groups
            .get_mut(&root)
            .expect("every placed site has a group");
        g.instances
            .extend(ops.iter().filter_map(|o| inst[o.rank][o.index]));
    }
    let key_of = |members: &[OpId]| -> GroupKey {
        keys.get(&members[0])
            .copied()
            .unwrap_or(GroupKey::Unplaced(members[0]))
    };
    for rel in fib::analyze_exchanged(&run.ops, &run.fired, &run.exchanges, &key_of).relevant {
        let Some(&s) = per_set.get(&rel.barrier).and_then(|ids| ids.first()) else {
            continue;
        };
        let g = groups.get_mut(&sets.find(s)).expect("placed above");
        g.relevant.get_or_insert((rel, index));
    }
}

/// Adds one run's memory to the groups: for each group with a match set in
/// the run and no relevance found yet, what the run's memory could do
/// without the group ([`ordering`]).
fn memory_pass(
    sites: &Resolver,
    sets: &mut Sets,
    groups: &mut BTreeMap<u32, Group>,
    index: usize,
    run: &RunTrace,
    per_set: &HashMap<usize, Vec<u32>>,
    seen: &mut BTreeSet<MemoryFact>,
) {
    let Some(mem) = RunMemory::of(sites, run) else {
        return;
    };
    seen.extend(mem.facts.iter().copied());
    // Each group's match sets in the run, as the rules' input names them,
    // and its calls.
    let mut removed: BTreeMap<u32, (Removed, Vec<OpId>)> = BTreeMap::new();
    for (k, ids) in per_set {
        let (Some(&s), Fired::Collective { ops }) = (ids.first(), &run.fired[*k]) else {
            continue;
        };
        let (r, calls) = removed.entry(sets.find(s)).or_default();
        if let Some(&set) = mem.input().set_at.get(k) {
            r.sets.insert(set);
        }
        if let Some(m) = mem.input().msgs_at.get(k) {
            r.msgs.extend(m.iter().copied());
        }
        calls.extend(ops.iter().copied());
    }
    for (root, (r, calls)) in removed {
        let Some(g) = groups.get_mut(&root) else {
            continue;
        };
        if g.relevant.is_some() || r.is_empty() {
            continue;
        }
        let w = mem.without(&r);
        for (f, shown) in w.new {
            g.memory.entry(f).or_insert_with(|| Candidate {
                run: index,
                shown,
                removed: r.clone(),
                calls: calls.clone(),
            });
        }
        if g.ordered.is_none() {
            g.ordered = w.ordered.map(|(a, b, p)| (index, a, b, p));
        }
    }
}

/// A finished group's verdict; `None` when none of its sites is in the
/// site table. `seen` is what the runs' memory did.
fn verdict(
    sites: &Resolver,
    runs: &[RunTrace],
    g: Group,
    interleavings: usize,
    seen: &BTreeSet<MemoryFact>,
) -> Option<GroupVerdict> {
    let group: Vec<_> = g
        .sites
        .iter()
        .filter_map(|&i| sites.by_id(i))
        .map(|s| sites.site_ref(&s))
        .collect();
    if group.is_empty() {
        return None;
    }
    let reasons: Vec<String> = g
        .sites
        .iter()
        .filter_map(|&i| sites.input_reasons(i))
        .flatten()
        .collect();
    let ranks = g
        .instances
        .iter()
        .map(|i| i.rank)
        .collect::<HashSet<_>>()
        .len();
    let instances = g.instances.len();
    let covered = instances > 0;
    // Something the program's memory could do without the group and does
    // in no run with it.
    let memory = g.memory.iter().find(|(f, _)| !seen.contains(f));
    let (verdict, witness, timeline) = match (&g.relevant, memory) {
        (Some((rel, i)), _) => (
            Verdict::Relevant,
            Some(relevant_witness(sites, &runs[*i], rel)),
            Some(crate::timeline::witness(sites, &runs[*i], rel)),
        ),
        (None, Some((_, c))) => {
            match ordering::witness(sites, &runs[c.run], &c.shown, &c.removed, &c.calls) {
                Some((w, t)) => (Verdict::Relevant, Some(w), Some(t)),
                None => (Verdict::Relevant, None, None),
            }
        }
        (None, None) if covered => (
            Verdict::Irrelevant,
            Some(Witness::Irrelevant {
                interleavings,
                ranks,
                instances,
                ordered_by: g
                    .ordered
                    .as_ref()
                    .and_then(|(i, a, b, path)| ordering::ordered_by(sites, &runs[*i], a, b, path)),
            }),
            None,
        ),
        (None, None) => (Verdict::NotCovered, None, None),
    };
    Some(GroupVerdict {
        report: BarrierReport {
            group,
            verdict,
            confirmed: false,
            all_inputs: reasons.is_empty(),
            witness,
            purposes: purposes(sites, &g.sites),
            timeline,
        },
        never_runs: !covered && g.sites.iter().all(|i| sites.analysis().is_dead(*i)),
        gates: if covered {
            Vec::new()
        } else {
            gates(sites, &g.sites)
        },
        sites: g.sites,
        reasons,
        ranks,
        instances,
    })
}

/// What the group's sites may order besides messages, from the static
/// facts: one clock reading or output per site at most. When there is none
/// and a site has no static facts (a call of a prebuilt binary whose source
/// fib did not analyse), that site as an `unread` purpose: what it orders
/// is unknown.
fn purposes(sites: &Resolver, group: &[u32]) -> Vec<fib_report::Purpose> {
    let known: Vec<fib_report::Purpose> = sites
        .analysis()
        .facts
        .purposes
        .iter()
        .filter(|p| group.contains(&p.site))
        .map(|p| fib_report::Purpose {
            kind: match p.kind {
                fib_sites::PurposeKind::Timing => "timing",
                fib_sites::PurposeKind::Output => "output",
            },
            call: p.callee.clone(),
            file: sites.show(&p.file),
            line: p.line,
            via: p.via.as_ref().map(|v| fib_report::Via {
                function: v.function.clone(),
                file: sites.show(&v.file),
                line: v.line,
            }),
        })
        .collect();
    if !known.is_empty() {
        return known;
    }
    group
        .iter()
        .filter(|&&id| sites.addr_of(id).is_some())
        .filter_map(|&id| sites.by_id(id))
        .take(1)
        .map(|s| {
            let at = sites.site_ref(&s);
            fib_report::Purpose {
                kind: "unread",
                call: s.callee.clone(),
                file: at.file,
                line: at.line,
                via: None,
            }
        })
        .collect()
}

/// The conditions on the way to the group's sites, from the static facts,
/// each once.
fn gates(sites: &Resolver, group: &[u32]) -> Vec<fib_report::Gate> {
    use fib_report::GateKind;
    let mut out: Vec<fib_report::Gate> = Vec::new();
    for g in sites
        .analysis()
        .facts
        .gates
        .iter()
        .filter(|g| group.contains(&g.site))
    {
        let file = sites.show(&g.file);
        if out
            .iter()
            .any(|x| x.file == file && x.line == g.line && x.text == g.text)
        {
            continue;
        }
        let kind = match &g.by {
            fib_sites::GateKind::Off {
                why,
                macro_def,
                left_out,
            } => GateKind::Off {
                why: why.clone(),
                macro_def: macro_def
                    .as_ref()
                    .map(|(m, f, l)| (m.clone(), format!("{}:{l}", sites.show(f)))),
                left_out: left_out.as_ref().map(|l| fib_report::LeftOut {
                    at: format!("{}:{}", sites.show(&l.file), l.line),
                    directive: l.directive.clone(),
                    flag: l.flag.clone(),
                }),
            },
            fib_sites::GateKind::Input { reason } => GateKind::Input {
                reason: reason.clone(),
            },
            fib_sites::GateKind::Count => GateKind::Count,
            fib_sites::GateKind::Fixed => GateKind::Fixed,
        };
        out.push(fib_report::Gate {
            text: g.text.clone(),
            file,
            line: g.line,
            kind,
        });
    }
    out
}

fn relevant_witness(sites: &Resolver, run: &RunTrace, rel: &fib::Relevant) -> Witness {
    Witness::Relevant {
        recv: run.witness_op(sites, rel.recv),
        send: run.witness_op(sites, rel.send),
        path: path(sites, run, &rel.path),
        replay: run.token.clone(),
    }
}

/// A witness's ordering path, one step per call the user wrote (the
/// operations of one call, such as `MPI_Sendrecv`'s send and wait, are one
/// step).
fn path(sites: &Resolver, run: &RunTrace, nodes: &[Node]) -> Vec<String> {
    let mut steps: Vec<String> = Vec::new();
    for n in nodes {
        let step = describe(sites, run, *n);
        if steps.last() != Some(&step) {
            steps.push(step);
        }
    }
    steps
}

/// One step of a witness's ordering path.
fn describe(sites: &Resolver, run: &RunTrace, n: Node) -> String {
    match n {
        Node::Collective(_) => "all ranks meet in the barrier".to_string(),
        Node::Op(id) => {
            let w = run.witness_op(sites, id);
            match (w.file, w.line) {
                (Some(f), Some(l)) => format!("rank {} {} at {f}:{l}", w.rank, w.call),
                _ => format!("rank {} {}", w.rank, w.call),
            }
        }
    }
}

/// What the barrier findings need to know of the exploration.
#[derive(Clone, Copy, Debug, Default)]
pub struct Context {
    /// Some interleaving of the program fails.
    pub failing: bool,
    /// Removal (`--confirm`) decided the verdicts.
    pub confirmed: bool,
    /// Exploration stopped at the interleaving limit.
    pub cut: bool,
    /// How every interleaving ended, when none completed (see
    /// [`Explored::all_failed`](crate::Explored::all_failed)).
    pub all_failed: Option<&'static str>,
    /// The interleavings run before the user interrupted the check, when
    /// they did (see [`undecided`]).
    pub interrupted: Option<usize>,
}

/// The verdicts an interrupted exploration can give: a group a run showed
/// relevant keeps its verdict and witness (a witness is a proof), every
/// other one is [`Verdict::Undecided`], since a run not made could show it
/// relevant (or, for one not covered, reach it). Relevance found by removal
/// stands too: removal found a difference in runs that were made.
pub fn undecided(groups: &mut [GroupVerdict]) {
    for g in groups {
        let b = &mut g.report;
        if b.verdict != Verdict::Relevant {
            b.verdict = Verdict::Undecided;
            b.witness = None;
            b.timeline = None;
            b.confirmed = false;
        }
    }
}

/// The findings that show every group's verdict on its sites.
pub fn findings(groups: &[GroupVerdict], cx: Context) -> Vec<Finding> {
    let note = match (cx.failing, cx.confirmed) {
        (true, true) => Some("the program fails in some interleaving; these verdicts come from removal (--confirm), since the fast method assumes a program without deadlocks or crashes"),
        (true, false) => Some("the program fails in some interleaving and the fast method assumes one that does not: check again with --confirm to decide by removal"),
        _ => None,
    };
    groups
        .iter()
        .map(|g| {
            let r = &g.report;
            match (r.verdict, &r.witness, cx.all_failed) {
                // No failure, interrupt or other input would have run it.
                (Verdict::NotCovered | Verdict::Undecided, _, _) if g.never_runs => {
                    BarrierNeverRuns {
                        group: r.group.clone(),
                    }
                    .finding()
                }
                (Verdict::Undecided, _, _) => BarrierUndecided {
                    group: r.group.clone(),
                    interleavings: cx.interrupted.unwrap_or_default(),
                }
                .finding(),
                (Verdict::NotCovered, _, Some(failure)) => BarrierNotReached {
                    group: r.group.clone(),
                    failure,
                }
                .finding(),
                // Removal does not judge a group that never ran: no note
                // sends the user there.
                (Verdict::NotCovered, _, None) => BarrierNotCovered {
                    group: r.group.clone(),
                    inputs: None,
                    note: None,
                    gates: g.gates.clone(),
                }
                .finding(),
                (Verdict::Relevant, None, _) => RelevantByRemoval {
                    group: r.group.clone(),
                    inputs: Inputs::of(r.all_inputs, &g.reasons),
                    note: note.map(str::to_string),
                }
                .finding(),
                _ => barrier_finding(r, &g.reasons, note, cx.cut).with_timeline(r.timeline.clone()),
            }
        })
        .collect()
}

/// The `FIB_ELIDE` value that deletes a group's sites in the ranks: site
/// ids, and for a call produced by a macro also the macro use's file and
/// line (the rank reports those); every return address the runs placed at
/// a site (a prebuilt binary's calls, whose ranks report those).
pub fn elide_spec(sites: &Resolver, group: &[u32]) -> String {
    let mut parts = Vec::new();
    for &id in group {
        for (module, offset) in sites.addrs_of(id) {
            parts.push(format!("@{module:x}+{offset:x}"));
        }
        if sites.addr_of(id).is_some() {
            continue;
        }
        parts.push(format!("#{id}"));
        if let Some(s) = sites.by_id(id) {
            if s.macro_name.is_some() {
                parts.push(format!("{}:{}", s.file.display(), s.line));
            }
        }
    }
    parts.join(",")
}
