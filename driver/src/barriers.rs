//! Barrier verdicts for one program: groups the `MPI_Barrier` sites that
//! matched each other in any interleaving, runs the Fib pass on every
//! interleaving, and, for `--confirm`, compares what the program's
//! communication can do with and without each group.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use fib::Node;
use fib_report::{BarrierReport, Finding, Label, Severity, SiteRef, Verdict, Witness, WitnessOp};
use fib_wire::Site;
use instrument::{CallSite, Dependence};
use poe::engine::{Fired, Kind, OpId, OpRec, Peer};

use crate::program::{Program, Tree};

/// An operation instance across interleavings: rank, site id, and how many
/// times the rank made that call before (DESIGN §4).
pub type Instance = (usize, u32, usize);

/// What one interleaving contributes to the barrier verdicts.
pub struct RunTrace {
    pub token: String,
    pub ops: Vec<Vec<OpRec>>,
    pub fired: Vec<Fired>,
    /// File ids the ranks named.
    pub files: HashMap<u32, String>,
}

/// Maps a run's operations to the program's site table.
pub struct SiteMap<'a> {
    program: &'a Program,
    cache: HashMap<(u32, u32, &'static str), Option<u32>>,
}

impl<'a> SiteMap<'a> {
    pub fn new(program: &'a Program) -> SiteMap<'a> {
        SiteMap {
            program,
            cache: HashMap::new(),
        }
    }

    /// The site-table id of an operation, if it can be placed.
    pub fn site(&mut self, files: &HashMap<u32, String>, op: &OpRec) -> Option<u32> {
        let Site { file, line } = op.site;
        if file == fib_wire::SITE_TABLE {
            return Some(line);
        }
        if file == 0 {
            return None;
        }
        let key = (file, line, op.name);
        if let Some(v) = self.cache.get(&key) {
            return *v;
        }
        let v = self
            .program
            .resolve(files.get(&file).map(String::as_str), line, None, op.name)
            .map(|s| s.id);
        self.cache.insert(key, v);
        v
    }

    /// Every operation's instance in a run (None when it cannot be placed).
    pub fn instances(
        &mut self,
        files: &HashMap<u32, String>,
        ops: &[Vec<OpRec>],
    ) -> Vec<Vec<Option<Instance>>> {
        ops.iter()
            .enumerate()
            .map(|(rank, list)| {
                let mut seen: HashMap<u32, usize> = HashMap::new();
                list.iter()
                    .map(|op| {
                        self.site(files, op).map(|s| {
                            let n = seen.entry(s).or_insert(0);
                            *n += 1;
                            (rank, s, *n - 1)
                        })
                    })
                    .collect()
            })
            .collect()
    }
}

/// What a whole exploration could do, for the proof by removal: every
/// (wildcard receive instance, matched send instance) pair, and every
/// finding code.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Signature {
    pub pairs: BTreeSet<(Instance, Instance)>,
    pub errors: BTreeSet<&'static str>,
}

impl Signature {
    /// Adds one run.
    pub fn add(&mut self, map: &mut SiteMap, run: &RunTrace, error: Option<&'static str>) {
        if let Some(e) = error {
            self.errors.insert(e);
        }
        let inst = map.instances(&run.files, &run.ops);
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
    }

    /// Whether `other` (the program without some barriers) shows something
    /// this one does not: another wildcard pairing, or a new kind of error.
    pub fn differs(&self, other: &Signature) -> bool {
        self.pairs != other.pairs || !other.errors.is_subset(&self.errors)
    }
}

/// A barrier group: its site ids (sorted), and what the runs showed.
struct Group {
    sites: Vec<u32>,
    instances: HashSet<Instance>,
    relevant: Option<(fib::Relevant, String, Vec<Vec<OpRec>>)>,
}

fn find(parent: &mut BTreeMap<u32, u32>, x: u32) -> u32 {
    let p = *parent.entry(x).or_insert(x);
    if p == x {
        return x;
    }
    let r = find(parent, p);
    parent.insert(x, r);
    r
}

fn union(parent: &mut BTreeMap<u32, u32>, a: u32, b: u32) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    if ra != rb {
        let (lo, hi) = (ra.min(rb), ra.max(rb));
        parent.insert(hi, lo);
    }
}

/// The verdicts of the fast method, before any confirmation.
pub struct Verdicts {
    pub reports: Vec<BarrierReport>,
    /// Per report: why its sites depend on input (empty when they do not).
    pub reasons: Vec<Vec<String>>,
    /// Per report: (ranks, instances) it covered.
    pub coverage: Vec<(usize, usize)>,
    /// Per report: its sites.
    pub sites: Vec<Vec<u32>>,
}

/// Groups the barrier sites, runs the Fib pass on every run, and builds the
/// reports and findings.
pub fn classify(
    tree: &Tree,
    program: &Program,
    runs: &[RunTrace],
    interleavings: usize,
) -> Verdicts {
    let mut map = SiteMap::new(program);
    let mut parent: BTreeMap<u32, u32> = BTreeMap::new();
    for &b in &program.analysis.facts.barriers {
        find(&mut parent, b);
    }
    // Barrier sites that matched each other in any run form one group.
    let mut run_sites: Vec<HashMap<usize, Vec<u32>>> = Vec::new();
    for run in runs {
        let mut per_set = HashMap::new();
        for (k, f) in run.fired.iter().enumerate() {
            let Fired::Collective { ops } = f else {
                continue;
            };
            if !is_barrier(&run.ops, ops) {
                continue;
            }
            let sites: Vec<u32> = ops
                .iter()
                .filter_map(|o| map.site(&run.files, &run.ops[o.rank][o.index]))
                .collect();
            for w in sites.windows(2) {
                union(&mut parent, w[0], w[1]);
            }
            if let Some(&first) = sites.first() {
                find(&mut parent, first);
            }
            per_set.insert(k, sites);
        }
        run_sites.push(per_set);
    }
    let mut groups: BTreeMap<u32, Group> = BTreeMap::new();
    let keys: Vec<u32> = parent.keys().copied().collect();
    for s in keys {
        let root = find(&mut parent, s);
        groups
            .entry(root)
            .or_insert_with(|| Group {
                sites: Vec::new(),
                instances: HashSet::new(),
                relevant: None,
            })
            .sites
            .push(s);
    }
    for (run, per_set) in runs.iter().zip(&run_sites) {
        let inst = map.instances(&run.files, &run.ops);
        for (k, f) in run.fired.iter().enumerate() {
            if let (Fired::Collective { ops }, Some(sites)) = (f, per_set.get(&k)) {
                if let Some(&s) = sites.first() {
                    let root = find(&mut parent, s);
                    let g = groups.get_mut(&root).unwrap();
                    for o in ops {
                        if let Some(i) = inst[o.rank][o.index] {
                            g.instances.insert(i);
                        }
                    }
                }
            }
        }
        // The group of each barrier match set of this run, keyed by its
        // first member: the sites were placed above.
        let mut roots: HashMap<OpId, u64> = HashMap::new();
        for (k, sites) in per_set {
            if let (Some(&s), Fired::Collective { ops }) = (sites.first(), &run.fired[*k]) {
                roots.insert(ops[0], find(&mut parent, s) as u64);
            }
        }
        let group_of = |members: &[OpId]| -> u64 {
            roots
                .get(&members[0])
                .copied()
                .unwrap_or(u64::MAX - members[0].rank as u64)
        };
        let analysis = fib::analyze_grouped(&run.ops, &run.fired, &group_of);
        for rel in analysis.relevant {
            let Some(sites) = per_set.get(&rel.barrier) else {
                continue;
            };
            let Some(&s) = sites.first() else { continue };
            let root = find(&mut parent, s);
            let g = groups.get_mut(&root).unwrap();
            if g.relevant.is_none() {
                g.relevant = Some((rel, run.token.clone(), run.ops.clone()));
            }
        }
    }

    let site = |id: u32| program.analysis.sites.sites.get(id as usize);
    let site_ref = |s: &CallSite| SiteRef {
        file: tree.show(&s.file),
        line: s.line,
        column: s.column,
        span: Some(s.span),
    };
    let mut out = Verdicts {
        reports: Vec::new(),
        reasons: Vec::new(),
        coverage: Vec::new(),
        sites: Vec::new(),
    };
    for g in groups.values() {
        let sites: Vec<&CallSite> = g.sites.iter().filter_map(|&i| site(i)).collect();
        if sites.is_empty() {
            continue;
        }
        let reasons: Vec<String> = g
            .sites
            .iter()
            .filter_map(|&i| match program.dependence(i) {
                Some(Dependence::DataDependent { reasons }) => Some(reasons.clone()),
                Some(Dependence::InputIndependent) => None,
                None => Some(vec!["not analysed".into()]),
            })
            .flatten()
            .collect();
        let all_inputs = reasons.is_empty();
        let covered = !g.instances.is_empty();
        let verdict = match (&g.relevant, covered) {
            (Some(_), _) => Verdict::Relevant,
            (None, true) => Verdict::Irrelevant,
            (None, false) => Verdict::NotCovered,
        };
        let witness = match &g.relevant {
            Some((rel, token, ops)) => Some(Witness::Relevant {
                recv: witness_op(tree, program, &mut map, runs, token, ops, rel.recv),
                send: witness_op(tree, program, &mut map, runs, token, ops, rel.send),
                path: rel
                    .path
                    .iter()
                    .map(|n| describe(tree, program, &mut map, runs, token, ops, *n))
                    .collect(),
                replay: token.clone(),
            }),
            None if covered => Some(Witness::Irrelevant {
                interleavings,
                ranks: g
                    .instances
                    .iter()
                    .map(|i| i.0)
                    .collect::<HashSet<_>>()
                    .len(),
                instances: g.instances.len(),
            }),
            None => None,
        };
        let report = BarrierReport {
            group: sites.iter().map(|s| site_ref(s)).collect(),
            verdict,
            confirmed: false,
            all_inputs,
            witness,
        };
        out.reasons.push(reasons);
        out.coverage.push((
            g.instances
                .iter()
                .map(|i| i.0)
                .collect::<HashSet<_>>()
                .len(),
            g.instances.len(),
        ));
        out.sites.push(g.sites.clone());
        out.reports.push(report);
    }
    out
}

fn is_barrier(ops: &[Vec<OpRec>], members: &[OpId]) -> bool {
    members
        .first()
        .is_some_and(|m| ops[m.rank][m.index].name == "MPI_Barrier")
}

fn witness_op(
    tree: &Tree,
    program: &Program,
    map: &mut SiteMap,
    runs: &[RunTrace],
    token: &str,
    ops: &[Vec<OpRec>],
    id: OpId,
) -> WitnessOp {
    let op = &ops[id.rank][id.index];
    let files = runs
        .iter()
        .find(|r| r.token == token)
        .map(|r| r.files.clone())
        .unwrap_or_default();
    let s = map
        .site(&files, op)
        .and_then(|i| program.analysis.sites.sites.get(i as usize));
    WitnessOp {
        file: s.map(|s| tree.show(&s.file)),
        line: s.map(|s| s.line),
        column: s.map(|s| s.column),
        rank: id.rank,
        call: op.name.to_string(),
    }
}

fn describe(
    tree: &Tree,
    program: &Program,
    map: &mut SiteMap,
    runs: &[RunTrace],
    token: &str,
    ops: &[Vec<OpRec>],
    n: Node,
) -> String {
    match n {
        Node::Collective(_) => "all ranks meet in the barrier".to_string(),
        Node::Op(id) => {
            let w = witness_op(tree, program, map, runs, token, ops, id);
            match (w.file, w.line) {
                (Some(f), Some(l)) => format!("rank {} {} at {f}:{l}", w.rank, w.call),
                _ => format!("rank {} {}", w.rank, w.call),
            }
        }
    }
}

/// The findings that show every group's verdict on its sites; `note` is
/// added to each (e.g. that the program deadlocks).
pub fn group_findings(
    tree: &Tree,
    program: &Program,
    v: &Verdicts,
    note: Option<&str>,
    cut: bool,
) -> Vec<Finding> {
    let span_of = |w: &WitnessOp| -> Option<(usize, usize)> {
        program
            .analysis
            .sites
            .sites
            .iter()
            .find(|s| {
                Some(tree.show(&s.file)) == w.file
                    && Some(s.line) == w.line
                    && Some(s.column) == w.column
            })
            .map(|s| s.span)
    };
    v.reports
        .iter()
        .zip(&v.reasons)
        .map(|(r, reasons)| {
            let mut f = finding(r, reasons, &span_of);
            if let Some(n) = note {
                f.notes.push(n.to_string());
            }
            if cut && r.verdict == Verdict::Irrelevant {
                // Only the explored interleavings showed no use for the
                // group; one left out might.
                f.message = "irrelevant barrier in the interleavings explored, which are not all of them (--max-interleavings)".into();
                f.help = Some(format!(
                    "explore every interleaving (raise --max-interleavings) before deciding; then {}",
                    f.help.as_deref().unwrap_or("delete it")
                ));
            }
            f
        })
        .collect()
}

/// The finding that shows a group's verdict on its sites.
pub fn finding(
    r: &BarrierReport,
    reasons: &[String],
    span_of: &dyn Fn(&WitnessOp) -> Option<(usize, usize)>,
) -> Finding {
    let first = &r.group[0];
    let mut labels: Vec<Label> = r.group[1..]
        .iter()
        .map(|s| Label {
            file: s.file.clone(),
            line: s.line,
            column: s.column,
            span: s.span,
            message: "also part of this barrier group".into(),
        })
        .collect();
    let mut notes = Vec::new();
    let inputs_note = if r.all_inputs {
        "the verdict holds for every input: only rank, size and constants decide whether these sites run".to_string()
    } else {
        format!(
            "the verdict holds for the input tested: {}",
            reasons.first().cloned().unwrap_or_default()
        )
    };
    let lines = |r: &BarrierReport| -> String {
        let mut by_file: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
        for s in &r.group {
            by_file.entry(&s.file).or_default().push(s.line);
        }
        by_file
            .iter()
            .map(|(f, ls)| {
                let ls: Vec<String> = ls.iter().map(u32::to_string).collect();
                format!(
                    "{} {} of {f}",
                    if ls.len() == 1 { "line" } else { "lines" },
                    ls.join(", ")
                )
            })
            .collect::<Vec<_>>()
            .join(" and ")
    };
    let (code, severity, message, help) = match (&r.verdict, &r.witness) {
        (
            Verdict::Relevant,
            Some(Witness::Relevant {
                recv,
                send,
                path,
                replay,
            }),
        ) => {
            for (op, what) in [
                (recv, format!("wildcard receive (rank {})", recv.rank)),
                (
                    send,
                    format!(
                        "send (rank {}) this receive could match without the barrier",
                        send.rank
                    ),
                ),
            ] {
                if let (Some(f), Some(l), Some(c)) = (&op.file, op.line, op.column) {
                    labels.push(Label {
                        file: f.clone(),
                        line: l,
                        column: c,
                        span: span_of(op),
                        message: what,
                    });
                }
            }
            notes.push(format!("ordering: {}", path.join(" → ")));
            notes.push(format!("shown in interleaving {replay}"));
            (
                "FIB015",
                Severity::Note,
                format!(
                    "relevant barrier: it keeps rank {}'s {} away from rank {}'s wildcard {}",
                    send.rank, send.call, recv.rank, recv.call
                ),
                None,
            )
        }
        (
            Verdict::Irrelevant,
            Some(Witness::Irrelevant {
                interleavings,
                ranks,
                instances,
            }),
        ) => {
            notes.push(format!(
                "checked over {interleavings} interleaving{}, {instances} barrier call{} on {ranks} rank{}",
                if *interleavings == 1 { "" } else { "s" },
                if *instances == 1 { "" } else { "s" },
                if *ranks == 1 { "" } else { "s" },
            ));
            (
                "FIB014",
                Severity::Warning,
                "irrelevant barrier: deleting this barrier group changes nothing the program's messages can do".to_string(),
                Some(if r.group.len() == 1 {
                    format!("delete {}", lines(r))
                } else {
                    format!("delete {} together", lines(r))
                }),
            )
        }
        _ => (
            "FIB016",
            Severity::Note,
            "barrier not covered: no interleaving ran it, so fib cannot say whether it is needed"
                .to_string(),
            Some(
                "check again with a process count or program arguments (after `--`) that reach it"
                    .to_string(),
            ),
        ),
    };
    if r.verdict != Verdict::NotCovered {
        notes.insert(0, inputs_note);
    }
    Finding {
        code,
        severity,
        message,
        file: Some(first.file.clone()),
        line: Some(first.line),
        column: Some(first.column),
        span: first.span,
        rank: None,
        replay: None,
        ranks: Vec::new(),
        notes,
        labels,
        help,
    }
}

/// The `FIB_ELIDE` value that deletes a group's sites in the ranks.
pub fn elide_spec(program: &Program, sites: &[u32]) -> String {
    let mut parts = Vec::new();
    for &id in sites {
        parts.push(format!("#{id}"));
        if let Some(s) = program.analysis.sites.sites.get(id as usize) {
            if s.macro_name.is_some() {
                parts.push(format!("{}:{}", s.file.display(), s.line));
            }
        }
    }
    parts.join(",")
}
