//! The static facts: barrier inventory, wildcard receives (also through a
//! variable that evidently holds the wildcard), and for each barrier and
//! wildcard site whether the conditions that decide if it runs read only
//! clean values (rank, size, constants, what is computed from them) or also
//! data (received buffers, the command line, files, `rand`, time).
//!
//! Cleanliness is a greatest fixpoint over the program model: every
//! variable starts clean and becomes data-dependent when one of its
//! definitions reads something data-dependent. Loop counters (`i = 0`,
//! `i++`) thus stay clean, and a parameter is clean when every call passes
//! a clean argument. Where fib cannot see (an unknown function's result, a
//! variable passed by address to one), it assumes data.

mod gates;
mod purposes;

use crate::flow::{Flow, Nodes, Use, FILES};
use crate::ir::{CallInfo, Def, Expr, Guard, Ir, SiteKey};
use crate::library::{
    data_out_root, ALLOCATORS, COPIERS, EXITS, FILE_READERS, FILE_WRITERS, MPI_DATA_OUT, NO_WRITE,
    PURE, READERS, SOURCES, STATUS_READERS,
};
use crate::{Dependence, Facts, Wildcard};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// What `main`'s parameters hold: data for the facts about inputs, but the
/// same in every run of one check, so they steer no run differently.
pub(crate) const COMMAND_LINE: &str = "the command line (`argc`/`argv`)";

/// The roots of the [`MPI_DATA_OUT`] outputs of `calls` whose kind (`the
/// status of`, `filled by`, ...) `keep` accepts.
fn out_roots<'c>(
    calls: impl IntoIterator<Item = &'c CallInfo>,
    keep: impl Fn(&str) -> bool,
) -> HashSet<String> {
    calls
        .into_iter()
        .flat_map(|c| {
            MPI_DATA_OUT
                .iter()
                .filter(|(n, _, what)| *n == c.callee && keep(what))
                .map(|(n, _, what)| data_out_root(what, n, &c.at))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Receives and probes that can take a wildcard: (function, source
/// argument, tag argument).
const WILDCARD_ARGS: &[(&str, usize, usize)] = &[
    ("MPI_Recv", 3, 4),
    ("MPI_Irecv", 3, 4),
    ("MPI_Recv_init", 3, 4),
    ("MPI_Probe", 0, 1),
    ("MPI_Iprobe", 0, 1),
    ("MPI_Mprobe", 0, 1),
    ("MPI_Improbe", 0, 1),
    ("MPI_Sendrecv", 8, 9),
    ("MPI_Sendrecv_replace", 5, 6),
];

/// Arguments of MPI calls that decide what the call matches: (function,
/// argument indices of peers, tags, roots, counts of requests, colours).
const STEERING_ARGS: &[(&str, &[usize])] = &[
    ("MPI_Send", &[3, 4]),
    ("MPI_Ssend", &[3, 4]),
    ("MPI_Bsend", &[3, 4]),
    ("MPI_Rsend", &[3, 4]),
    ("MPI_Isend", &[3, 4]),
    ("MPI_Issend", &[3, 4]),
    ("MPI_Ibsend", &[3, 4]),
    ("MPI_Irsend", &[3, 4]),
    ("MPI_Send_init", &[3, 4]),
    ("MPI_Ssend_init", &[3, 4]),
    ("MPI_Bsend_init", &[3, 4]),
    ("MPI_Rsend_init", &[3, 4]),
    ("MPI_Recv", &[3, 4]),
    ("MPI_Irecv", &[3, 4]),
    ("MPI_Recv_init", &[3, 4]),
    ("MPI_Sendrecv", &[3, 4, 8, 9]),
    ("MPI_Sendrecv_replace", &[3, 4, 5, 6]),
    ("MPI_Probe", &[0, 1]),
    ("MPI_Iprobe", &[0, 1]),
    ("MPI_Mprobe", &[0, 1]),
    ("MPI_Improbe", &[0, 1]),
    ("MPI_Bcast", &[3]),
    ("MPI_Reduce", &[5]),
    ("MPI_Gather", &[6]),
    ("MPI_Gatherv", &[7]),
    ("MPI_Scatter", &[6]),
    ("MPI_Scatterv", &[7]),
    ("MPI_Waitall", &[0]),
    ("MPI_Waitany", &[0]),
    ("MPI_Waitsome", &[0]),
    ("MPI_Testall", &[0]),
    ("MPI_Testany", &[0]),
    ("MPI_Testsome", &[0]),
    ("MPI_Startall", &[0]),
    ("MPI_Comm_split", &[1, 2]),
];

/// How many reasons [`Facts::steering`] keeps.
const STEERING_REASONS: usize = 5;

/// Adds the definitions that calls make: what MPI, the C library and the
/// program's own functions write through the places they are given, and
/// what each parameter receives.
pub(crate) fn apply_calls(ir: &mut Ir) {
    let calls = std::mem::take(&mut ir.calls);
    let mut called: HashSet<String> = HashSet::default();
    // A call of a member function may run any override of it (a virtual
    // call names the base's): what it passes reaches every member function
    // of that name and number of parameters.
    let unqualified = |name: &str| name.rsplit("::").next().unwrap_or(name).to_string();
    let mut members: HashMap<(String, usize), Vec<String>> = HashMap::default();
    for (u, f) in &ir.funcs {
        if is_member(u) {
            members
                .entry((unqualified(&f.name), f.params.len()))
                .or_default()
                .push(u.clone());
        }
    }
    for c in &calls {
        // What the program writes into a file it may read back.
        if FILE_WRITERS.contains(&c.callee.as_str()) && !to_terminal(c) {
            let mut e = Expr {
                text: format!("what {}() at {} writes into a file", c.callee, c.at),
                ..Expr::default()
            };
            for a in &c.args {
                e.reads.extend(a.reads.iter().cloned());
                e.calls.extend(a.calls.iter().cloned());
            }
            ir.def(FILES, "the files the program writes", Def::Expr(e));
        }
        let user = c.callee_usr.as_ref().and_then(|u| ir.funcs.get(u)).cloned();
        if let Some(f) = &user {
            let usr = c.callee_usr.clone().unwrap_or_default();
            let mut runs = vec![usr.clone()];
            if is_member(&usr) {
                runs.extend(
                    members
                        .get(&(unqualified(&f.name), f.params.len()))
                        .into_iter()
                        .flatten()
                        .filter(|o| **o != usr)
                        .cloned(),
                );
            }
            for u in runs {
                let params = ir.funcs[&u].params.clone();
                called.insert(u);
                for (i, a) in c.args.iter().enumerate() {
                    if let Some(p) = params.get(i) {
                        ir.def(p, "", Def::Expr(a.clone()));
                    }
                }
            }
        }
        for (i, keys) in &c.targets {
            let def = if c.callee.starts_with("MPI_") {
                if matches!(c.callee.as_str(), "MPI_Comm_rank" | "MPI_Comm_size") {
                    Some(Def::Clean)
                } else {
                    MPI_DATA_OUT
                        .iter()
                        .find(|(n, k, _)| *n == c.callee && k == i)
                        .map(|(n, _, what)| Def::Taint(data_out_root(what, n, &c.at)))
                }
            } else if let Some(f) = &user {
                f.params.get(*i).map(|p| {
                    Def::Expr(Expr {
                        text: format!("what {}() writes", f.name),
                        reads: vec![p.clone()],
                        ..Expr::default()
                    })
                })
            } else if READERS.contains(&c.callee.as_str()) {
                Some(Def::Taint(format!("read by {}() at {}", c.callee, c.at)))
            } else if COPIERS.contains(&c.callee.as_str()) {
                let mut e = Expr {
                    text: format!("what {}() copies", c.callee),
                    ..Expr::default()
                };
                for (k, a) in c.args.iter().enumerate() {
                    if k != *i {
                        e.reads.extend(a.reads.iter().cloned());
                        e.calls.extend(a.calls.iter().cloned());
                    }
                }
                Some(Def::Expr(e))
            } else if NO_WRITE.contains(&c.callee.as_str()) {
                None
            } else {
                Some(Def::Taint(format!(
                    "passed to {}() at {}, which fib cannot see and may write it",
                    c.callee, c.at
                )))
            };
            if let Some(def) = def {
                for k in keys {
                    ir.def(k, "", def.clone());
                }
            }
            if FILE_READERS.contains(&c.callee.as_str()) {
                let read = Expr {
                    text: format!("what {}() at {} reads from a file", c.callee, c.at),
                    reads: vec![FILES.to_string()],
                    ..Expr::default()
                };
                for k in keys {
                    ir.def(k, "", Def::Expr(read.clone()));
                }
            }
            if STATUS_READERS.contains(&c.callee.as_str()) {
                if let Some(status) = c.args.first() {
                    for k in keys {
                        ir.def(k, "", Def::Expr(status.clone()));
                    }
                }
            }
        }
    }
    let mains: HashSet<&String> = ir.mains.iter().collect();
    let uncalled: Vec<(String, Vec<String>)> = ir
        .funcs
        .iter()
        .filter(|(u, _)| !called.contains(*u) && !mains.contains(u))
        .map(|(_, f)| (f.name.clone(), f.params.clone()))
        .collect();
    for (name, params) in uncalled {
        for p in params {
            ir.def(
                &p,
                "",
                Def::Taint(format!(
                    "a parameter of `{name}`, which has no visible caller"
                )),
            );
        }
    }
    ir.calls = calls;
}

/// Whether a call writes to the standard output or error, which the
/// program does not read back.
fn to_terminal(c: &CallInfo) -> bool {
    c.args.iter().any(|a| {
        matches!(
            a.text.as_str(),
            "stdout" | "stderr" | "STDOUT_FILENO" | "STDERR_FILENO"
        )
    }) || matches!(c.callee.as_str(), "write" | "pwrite")
        && c.args
            .first()
            .is_some_and(|a| matches!(a.value, Some(1 | 2)))
}

/// Why something is data-dependent: the root source, and whether the
/// variable is that source itself.
#[derive(Clone, Debug)]
struct Dirt {
    root: String,
    direct: bool,
}

/// Cleanliness of every variable and function result.
struct Clean<'a> {
    ir: &'a Ir,
    vars: HashMap<&'a str, Dirt>,
    funcs: HashMap<&'a str, String>,
    /// The command line and the environment count as clean.
    fixed_input: bool,
}

impl<'a> Clean<'a> {
    /// `fixed_input`: the command line counts as clean (it is the same in
    /// every run of a check).
    fn compute(ir: &'a Ir, fixed_input: bool) -> Clean<'a> {
        let mut c = Clean {
            ir,
            vars: HashMap::default(),
            funcs: HashMap::default(),
            fixed_input,
        };
        // In a fixed order, so that the reasons are the same every time.
        let mut vars: Vec<(&String, &crate::ir::Var)> = ir.vars.iter().collect();
        vars.sort_unstable_by_key(|(k, _)| *k);
        let mut funcs: Vec<(&String, &crate::ir::Func)> = ir.funcs.iter().collect();
        funcs.sort_unstable_by_key(|(k, _)| *k);
        loop {
            let mut changed = false;
            for &(k, v) in &vars {
                if c.vars.contains_key(k.as_str()) {
                    continue;
                }
                for d in &v.defs {
                    let dirt = match d {
                        Def::Clean => None,
                        Def::Taint(why) if fixed_input && why == COMMAND_LINE => None,
                        Def::Taint(why) => Some(Dirt {
                            root: format!("`{}`, {why}", v.name),
                            direct: true,
                        }),
                        Def::Expr(e) => c.expr(e).map(|(_, root)| Dirt {
                            root,
                            direct: false,
                        }),
                    };
                    if let Some(d) = dirt {
                        c.vars.insert(k, d);
                        changed = true;
                        break;
                    }
                }
            }
            for &(k, f) in &funcs {
                if c.funcs.contains_key(k.as_str()) {
                    continue;
                }
                if let Some((_, root)) = f.returns.iter().find_map(|e| c.expr(e)) {
                    c.funcs.insert(k, root);
                    changed = true;
                }
            }
            if !changed {
                return c;
            }
        }
    }

    /// Whether an expression is data-dependent: what it reads that is, and
    /// the root source.
    fn expr(&self, e: &Expr) -> Option<(String, String)> {
        for r in &e.reads {
            if let Some(d) = self.vars.get(r.as_str()) {
                let name = self.ir.vars.get(r).map_or("?", |v| v.name.as_str());
                return Some(if d.direct {
                    (format!("reads {}", d.root), d.root.clone())
                } else {
                    (
                        format!("reads `{name}`, which depends on {}", d.root),
                        d.root.clone(),
                    )
                });
            }
        }
        for call in &e.calls {
            let what = format!("the result of {}() at {}", call.name, call.at);
            if SOURCES.contains(&call.name.as_str()) {
                let environment = matches!(call.name.as_str(), "getenv" | "secure_getenv");
                if self.fixed_input && environment {
                    continue;
                }
                return Some((format!("uses {what}"), what));
            }
            if ALLOCATORS.contains(&call.name.as_str()) {
                continue;
            }
            let mpi = call.name.starts_with("MPI_") || call.name.starts_with("PMPI_");
            if mpi || PURE.contains(&call.name.as_str()) {
                if let Some(x) = call.args.iter().find_map(|a| self.expr(a)) {
                    return Some(x);
                }
                continue;
            }
            match call.usr.as_ref().filter(|u| self.ir.funcs.contains_key(*u)) {
                Some(u) => {
                    if let Some(root) = self.funcs.get(u.as_str()) {
                        return Some((
                            format!("uses {what}, which depends on {root}"),
                            root.clone(),
                        ));
                    }
                }
                None => {
                    let root = format!("{what}, a function fib cannot see");
                    return Some((format!("uses {root}"), root));
                }
            }
        }
        None
    }
}

/// Computes the facts for the sites, given each site's id by key.
pub(crate) fn facts(ir: &Ir, ids: &HashMap<SiteKey, u32>) -> Facts {
    let clean = Clean::compute(ir, false);
    let mut by_site: HashMap<u32, Vec<&CallInfo>> = HashMap::default();
    for c in &ir.calls {
        if let Some(id) = c.site.as_ref().and_then(|k| ids.get(k)) {
            by_site.entry(*id).or_default().push(c);
        }
    }
    // Calls from code that never runs decide nothing: what decides whether
    // a call runs is looked for among the calls of live functions only.
    let live = live_functions(ir);
    let runs = |c: &CallInfo| c.caller.as_deref().is_none_or(|f| live.contains(f));
    let mut by_callee: HashMap<&str, Vec<usize>> = HashMap::default();
    for (i, c) in ir.calls.iter().enumerate() {
        if let Some(u) = c.callee_usr.as_ref().filter(|_| runs(c)) {
            by_callee.entry(u.as_str()).or_default().push(i);
        }
    }
    let mut site_ids: Vec<u32> = by_site.keys().copied().collect();
    site_ids.sort_unstable();
    let mut f = Facts::default();
    for id in site_ids {
        let calls = &by_site[&id];
        let callee = calls[0].callee.as_str();
        let mut interesting = false;
        if callee == "MPI_Barrier" || callee == "MPI_Ibarrier" {
            f.barriers.push(id);
            interesting = true;
        }
        if let Some(&(_, s, t)) = WILDCARD_ARGS.iter().find(|(n, _, _)| *n == callee) {
            let any_source = calls.iter().any(|c| {
                c.args
                    .get(s)
                    .is_some_and(|a| is_wild(ir, a, "MPI_ANY_SOURCE", ir.any_source, 0))
            });
            let any_tag = calls.iter().any(|c| {
                c.args
                    .get(t)
                    .is_some_and(|a| is_wild(ir, a, "MPI_ANY_TAG", ir.any_tag, 0))
            });
            if any_source || any_tag {
                f.wildcards.push(Wildcard {
                    site: id,
                    any_source,
                    any_tag,
                });
                interesting = true;
            }
        }
        if interesting {
            let mut reasons = Vec::new();
            for c in calls {
                dependence(
                    ir,
                    &by_callee,
                    &clean,
                    c,
                    &mut HashSet::default(),
                    &mut reasons,
                );
            }
            let mut seen = HashSet::default();
            reasons.retain(|r| seen.insert(r.clone()));
            let dep = if reasons.is_empty() {
                Dependence::InputIndependent
            } else {
                Dependence::DataDependent { reasons }
            };
            f.control.push((id, dep));
        }
    }
    f.purposes = purposes::purposes(ir, ids, &f.barriers);
    f.gates = gates::gates(ir, ids, &f.barriers, &clean);
    f.steering = steering(ir, &by_callee, &Clean::compute(ir, true), &live);
    let free = Free::new(ir, ids, live);
    f.free_waits = free.sites(
        &by_site,
        by_site.keys(),
        &["MPI_Waitany"],
        &HashSet::default(),
    );
    // What a wait or test says of a nonblocking receive it completes.
    let statuses = out_roots(
        ir.calls
            .iter()
            .filter(|c| c.callee.starts_with("MPI_Wait") || c.callee.starts_with("MPI_Test")),
        |what| what.starts_with("the status"),
    );
    // Only receives from `MPI_ANY_SOURCE` can stand for each other.
    let any: Vec<u32> = f
        .wildcards
        .iter()
        .filter(|w| w.any_source)
        .map(|w| w.site)
        .collect();
    f.free_receives = free.sites(&by_site, &any, &["MPI_Recv"], &HashSet::default());
    f.free_receives
        .extend(free.sites(&by_site, &any, &["MPI_Irecv"], &statuses));
    // A matched probe takes its message for the `MPI_Mrecv` that receives
    // it: what any of those gets counts as the probe's.
    let mrecvs = out_roots(ir.calls.iter().filter(|c| c.callee == "MPI_Mrecv"), |_| {
        true
    });
    f.free_receives
        .extend(free.sites(&by_site, &any, &["MPI_Mprobe"], &mrecvs));
    f.free_receives.sort_unstable();
    f.free_probes = free_probes(ir, &free, &by_site, &any);
    f.free_probes
        .extend(sized_mprobes(ir, &free, &by_site, &any, &mrecvs));
    f.free_probes.sort_unstable_by_key(|x| (x.probe, x.recv));
    f.dead = by_site
        .iter()
        .filter(|(_, calls)| {
            calls.iter().all(|c| {
                c.caller
                    .as_deref()
                    .is_some_and(|caller| !free.live.contains(caller))
            })
        })
        .map(|(&id, _)| id)
        .collect();
    f.dead.sort_unstable();
    f
}

/// Why the MPI calls a rank makes may depend on data ([`Facts::steering`]).
fn steering(
    ir: &Ir,
    by_callee: &HashMap<&str, Vec<usize>>,
    clean: &Clean<'_>,
    live: &HashSet<&str>,
) -> Vec<String> {
    let mut reasons = Vec::new();
    let mut seen = HashSet::default();
    for c in &ir.calls {
        if reasons.len() >= STEERING_REASONS {
            break;
        }
        // A call in a function that never runs steers nothing.
        if c.caller.as_deref().is_some_and(|f| !live.contains(f)) {
            continue;
        }
        let mpi = c.callee.starts_with("MPI_") || c.callee.starts_with("PMPI_");
        if !mpi && !EXITS.contains(&c.callee.as_str()) {
            continue;
        }
        let mut why = Vec::new();
        dependence(ir, by_callee, clean, c, &mut HashSet::default(), &mut why);
        let name = c.callee.trim_start_matches('P');
        if let Some((_, args)) = STEERING_ARGS.iter().find(|(n, _)| *n == name) {
            for &i in *args {
                if let Some((what, _)) = c.args.get(i).and_then(|a| clean.expr(a)) {
                    let text = &c.args[i].text;
                    why.push(format!(
                        "argument `{text}` of {} at {} {what}",
                        c.callee, c.at
                    ));
                }
            }
        }
        for w in why {
            if seen.insert(w.clone()) {
                reasons.push(w);
            }
        }
    }
    reasons.truncate(STEERING_REASONS);
    reasons
}

/// What a function's USR holds, before its parameter types (after `#`),
/// when it is a member of a struct, class or union (a template's too, or an
/// anonymous one's, such as a lambda's call operator).
const MEMBER_USR: &[&str] = &["@S@", "@ST>", "@SP>", "@Sa@", "@U@", "@UT>"];

/// Whether the function with this USR is a C++ member function.
fn is_member(usr: &str) -> bool {
    let head = usr.split('#').next().unwrap_or(usr);
    MEMBER_USR.iter().any(|k| head.contains(k))
}

/// Sites whose outputs, followed alone, reach nothing MPI sees.
struct Free<'a> {
    ir: &'a Ir,
    flow: Flow<'a>,
    /// Each MPI call's site id, by its index in [`Ir::calls`].
    site_of: Vec<Option<u32>>,
    /// The functions `main` calls, directly or not, and those the program
    /// takes the address of (and what they call).
    live: HashSet<&'a str>,
    /// The variables that hold one value through a run, computed from the
    /// rank, the size and constants ([`fixed_vars`]).
    fixed: HashSet<&'a str>,
}

/// The functions that may run: `main`, those the program takes the address
/// of (a call through a pointer may run them), every C++ member function
/// (a virtual override runs through its base's name, a destructor at the
/// end of a scope, neither named by a call), and what they call, directly
/// or not. Code outside them is never run.
pub(crate) fn live_functions(ir: &Ir) -> HashSet<&str> {
    let mut calls_of: HashMap<&str, Vec<&str>> = HashMap::default();
    for c in &ir.calls {
        if let (Some(f), Some(u)) = (c.caller.as_deref(), c.callee_usr.as_deref()) {
            calls_of.entry(f).or_default().push(u);
        }
    }
    let mut live: HashSet<&str> = ir
        .mains
        .iter()
        .chain(&ir.address_taken)
        .chain(ir.funcs.keys().filter(|u| is_member(u)))
        .map(String::as_str)
        .collect();
    let mut todo: Vec<&str> = live.iter().copied().collect();
    while let Some(f) = todo.pop() {
        for &u in calls_of.get(f).into_iter().flatten() {
            if live.insert(u) {
                todo.push(u);
            }
        }
    }
    live
}

impl<'a> Free<'a> {
    fn new(ir: &'a Ir, ids: &HashMap<SiteKey, u32>, live: HashSet<&'a str>) -> Free<'a> {
        let flow = Flow::new(ir, &|c| {
            c.caller.as_deref().is_none_or(|f| live.contains(f))
        });
        let site_of = ir
            .calls
            .iter()
            .map(|c| c.site.as_ref().and_then(|k| ids.get(k)).copied())
            .collect();
        let fixed = fixed_vars(ir);
        Free {
            ir,
            flow,
            site_of,
            live,
            fixed,
        }
    }

    /// The sites among `ids` whose calls are all to one of `callees` and
    /// whose outputs (their [`MPI_DATA_OUT`] roots, and `more`) reach
    /// nothing MPI sees.
    fn sites<'s>(
        &self,
        by_site: &HashMap<u32, Vec<&CallInfo>>,
        ids: impl IntoIterator<Item = &'s u32>,
        callees: &[&str],
        more: &HashSet<String>,
    ) -> Vec<u32> {
        // What the sites share is looked at once.
        let more = self.flow.roots(more);
        let shared = self.flow.summary(&more);
        let mut out: Vec<u32> = ids
            .into_iter()
            .filter_map(|id| by_site.get_key_value(id))
            .filter(|(_, calls)| calls.iter().all(|c| callees.contains(&c.callee.as_str())))
            .filter(|(_, calls)| {
                let roots = self.flow.roots(&out_roots(calls.iter().copied(), |_| true));
                !self.flow.escapes(self.flow.summary(&roots) | shared)
            })
            .map(|(&id, _)| id)
            .collect();
        out.sort_unstable();
        out
    }

    /// Whether the taints `roots` reach nothing MPI sees but the places
    /// `exempt` takes: not directly, nor through a value sent, followed on
    /// through the data it becomes where it is received.
    fn reaches_nothing_but(&self, roots: &HashSet<String>, exempt: &dyn Fn(Use) -> bool) -> bool {
        !self.flow.escapes_but(&self.flow.roots(roots), exempt)
    }

    /// The calls at index `ci` of [`Ir::calls`].
    fn call(&self, ci: usize) -> &'a CallInfo {
        &self.ir.calls[ci]
    }
}

/// The variables that hold the same value wherever a run reads them (once
/// set): each has one definition, which reads only constants and such
/// variables, through functions whose result depends only on their
/// arguments, or is the rank or size from MPI.
/// `int left = (rank + size - 1) % size;` is one; a loop counter, a
/// variable assigned in two places, and anything a call writes are not.
fn fixed_vars(ir: &Ir) -> HashSet<&str> {
    fn fixed_expr(e: &Expr, fixed: &HashSet<&str>) -> bool {
        e.reads.iter().all(|r| fixed.contains(r.as_str()))
            && e.calls.iter().all(|c| {
                PURE.contains(&c.name.as_str()) && c.args.iter().all(|a| fixed_expr(a, fixed))
            })
    }
    let mut fixed: HashSet<&str> = HashSet::default();
    loop {
        let before = fixed.len();
        for (k, v) in &ir.vars {
            if fixed.contains(k.as_str()) || v.defs.len() != 1 {
                continue;
            }
            let ok = match &v.defs[0] {
                Def::Clean => true,
                Def::Expr(e) => fixed_expr(e, &fixed),
                Def::Taint(_) => false,
            };
            if ok {
                fixed.insert(k);
            }
        }
        if fixed.len() == before {
            return fixed;
        }
    }
}

/// The receive sites whose calls all read a probe's status at one argument
/// ([`status_readers`]).
struct StatusReaders<'a> {
    /// The sites, sorted, and their calls.
    recvs: Vec<(u32, Vec<&'a CallInfo>)>,
    /// What the probe's status reaches.
    status: Nodes,
    /// The status's taints: the probe's outputs (`roots`), and what
    /// `MPI_Get_count` and the like read from it.
    taints: HashSet<String>,
}

impl<'a> StatusReaders<'a> {
    /// Whether argument `i` of `c` reads the probe's status.
    fn reads(&self, free: &Free<'a>, c: &'a CallInfo, i: usize) -> bool {
        c.args
            .get(i)
            .is_some_and(|a| free.flow.reads(a, &self.status))
    }

    /// Whether `c` is a call of one of the sites.
    fn has(&self, c: &CallInfo) -> bool {
        self.recvs
            .iter()
            .any(|(_, calls)| calls.iter().any(|rc| std::ptr::eq(*rc, c)))
    }
}

/// The sites of calls to `recv` whose argument `arg` reads the status a
/// probe's outputs `roots` make, in every call of the site; `None` when
/// none does, or one does in some of its calls only.
fn status_readers<'a>(
    free: &Free<'a>,
    by_site: &HashMap<u32, Vec<&'a CallInfo>>,
    roots: &HashSet<String>,
    recv: &str,
    arg: usize,
) -> Option<StatusReaders<'a>> {
    let status = free.flow.reach(roots);
    let mut ids: Vec<u32> = Vec::new();
    let mut readers: Vec<&CallInfo> = Vec::new();
    for u in free.flow.uses_of(&status) {
        let Use::Arg(ci, i) = u else { continue };
        let c = free.call(ci);
        if c.callee == recv && i == arg {
            ids.extend(free.site_of[ci]);
        } else if i == 0 && STATUS_READERS.contains(&c.callee.as_str()) {
            readers.push(c);
        }
    }
    ids.sort_unstable();
    ids.dedup();
    if ids.is_empty() {
        return None;
    }
    let mut found = StatusReaders {
        recvs: Vec::new(),
        status,
        taints: roots
            .iter()
            .cloned()
            .chain(out_roots(readers, |_| true))
            .collect(),
    };
    for id in ids {
        let calls = by_site.get(&id)?;
        if !calls.iter().all(|c| c.callee == recv) {
            return None;
        }
        found.recvs.push((id, calls.clone()));
    }
    if !found
        .recvs
        .iter()
        .all(|(_, calls)| calls.iter().all(|c| found.reads(free, c, arg)))
    {
        return None;
    }
    Some(found)
}

/// The innermost loop around `c` in its function, if any.
fn innermost_loop(c: &CallInfo) -> Option<&Guard> {
    c.guards.iter().rev().find(|g| is_loop(g))
}

/// The conditions that dispatch a probe's message (`if (st.MPI_SOURCE ==
/// left && st.MPI_TAG == TAG_R)`): those around calls in the probe's
/// function, inside its innermost loop but not around the probe, that read
/// the status and otherwise only constants, [`fixed_vars`] and what nothing
/// defines (the fields of the status, which its variable stands for). Which of
/// them hold is then a function of the message alone, the same whichever
/// probe of the row finds it.
fn dispatching(free: &Free<'_>, probe: &CallInfo, status: &Nodes, u: Use) -> bool {
    let Use::Guard(ci, gi) = u else {
        return false;
    };
    let c = free.call(ci);
    let g = &c.guards[gi];
    let Some(head) = innermost_loop(probe) else {
        return false;
    };
    if c.caller != probe.caller || !inside(c, head) {
        return false;
    }
    if probe
        .guards
        .iter()
        .any(|p| p.at == g.at && p.text == g.text)
    {
        return false;
    }
    fn only_pure(e: &Expr) -> bool {
        e.calls
            .iter()
            .all(|c| PURE.contains(&c.name.as_str()) && c.args.iter().all(only_pure))
    }
    let mut atoms = Vec::new();
    free.flow.atoms(&g.expr, &mut atoms);
    only_pure(&g.expr)
        && atoms.iter().any(|a| free.flow.has(status, a))
        && atoms.iter().all(|a| {
            free.flow.has(status, a)
                || free.fixed.contains(a)
                || free.ir.vars.get(*a).is_none_or(|v| v.defs.is_empty())
        })
}

/// The probes among the sites `any` (with `MPI_ANY_SOURCE`) whose status
/// reaches only the source, count and tag of the `MPI_Recv` sites that take
/// the probed message in a row of probes ([`crate::ProbeRow`]), and the
/// conditions that pick one of them ([`dispatching`]); what those receives
/// get (their data and status) must reach nothing MPI sees, and their
/// source, count and tag nothing received but the probe's status.
fn free_probes(
    ir: &Ir,
    free: &Free<'_>,
    by_site: &HashMap<u32, Vec<&CallInfo>>,
    any: &[u32],
) -> Vec<crate::ProbeRow> {
    const COUNT: usize = 1;
    const SOURCE: usize = 3;
    const TAG: usize = 4;
    let all_outs = out_roots(&ir.calls, |_| true);
    let mut rows = Vec::new();
    let mut probes: Vec<u32> = any
        .iter()
        .copied()
        .filter(|id| {
            by_site
                .get(id)
                .is_some_and(|calls| calls.iter().all(|c| c.callee == "MPI_Probe"))
        })
        .collect();
    probes.sort_unstable();
    for p in probes {
        let pcalls = &by_site[&p];
        let roots = out_roots(pcalls.iter().copied(), |_| true);
        let Some(found) = status_readers(free, by_site, &roots, "MPI_Recv", SOURCE) else {
            continue;
        };
        // Nothing else received decides a receive's source, count or tag.
        let rcalls = || {
            found
                .recvs
                .iter()
                .flat_map(|(_, calls)| calls.iter().copied())
        };
        let mine: HashSet<String> = found
            .taints
            .iter()
            .cloned()
            .chain(out_roots(rcalls(), |_| true))
            .collect();
        let steered = rcalls().any(|c| {
            [COUNT, SOURCE, TAG].iter().any(|&i| {
                c.args.get(i).is_some_and(|a| {
                    free.flow
                        .sources(a)
                        .iter()
                        .any(|s| all_outs.contains(*s) && !mine.contains(*s))
                })
            })
        });
        if steered {
            continue;
        }
        // Several receives, or conditions on the status: a dispatch, from
        // one probe site in a loop.
        let single = pcalls.len() == 1;
        let dispatch = |u: Use| single && dispatching(free, pcalls[0], &found.status, u);
        let exempt = |u: Use| match u {
            Use::Arg(ci, i) => [COUNT, SOURCE, TAG].contains(&i) && found.has(free.call(ci)),
            Use::Guard(..) => dispatch(u),
        };
        if !free.reaches_nothing_but(&mine, &exempt) {
            continue;
        }
        let guarded = free
            .flow
            .uses_of(&found.status)
            .any(|u| matches!(u, Use::Guard(..)) && free.flow.matters(u, false));
        let several = found.recvs.len() > 1 || guarded;
        for (r, calls) in &found.recvs {
            rows.push(crate::ProbeRow {
                probe: p,
                recv: *r,
                sized: calls.iter().all(|c| found.reads(free, c, COUNT)),
                tagged: calls.iter().all(|c| found.reads(free, c, TAG)),
                dispatch: several,
            });
        }
    }
    rows
}

/// The matched probes among the sites `any` (with `MPI_ANY_SOURCE`) whose
/// status reaches nothing MPI sees but the count of one `MPI_Mrecv` site
/// (`MPI_Get_count(&st, type, &n); MPI_Mrecv(buf, n, type, &msg, ...)`),
/// which nothing else received decides, and what every `MPI_Mrecv` gets
/// (`mrecvs`) reaches nothing: a row of them takes its messages as a row of
/// wildcard receives would, each `MPI_Mrecv` made for its message
/// ([`crate::ProbeRow`], `sized`).
fn sized_mprobes(
    ir: &Ir,
    free: &Free<'_>,
    by_site: &HashMap<u32, Vec<&CallInfo>>,
    any: &[u32],
    mrecvs: &HashSet<String>,
) -> Vec<crate::ProbeRow> {
    const COUNT: usize = 1;
    let all_outs = out_roots(&ir.calls, |_| true);
    let mut rows = Vec::new();
    for &p in any {
        let Some(pcalls) = by_site.get(&p) else {
            continue;
        };
        if !pcalls.iter().all(|c| c.callee == "MPI_Mprobe") {
            continue;
        }
        let roots = out_roots(pcalls.iter().copied(), |_| true);
        let Some(found) = status_readers(free, by_site, &roots, "MPI_Mrecv", COUNT) else {
            continue;
        };
        if found.recvs.len() != 1 {
            continue;
        }
        let (r, rcalls) = &found.recvs[0];
        // The count is made from the probe's status alone.
        let steered = rcalls.iter().any(|c| {
            c.args.get(COUNT).is_some_and(|a| {
                free.flow
                    .sources(a)
                    .iter()
                    .any(|s| all_outs.contains(*s) && !found.taints.contains(*s))
            })
        });
        let exempt =
            |u: Use| matches!(u, Use::Arg(ci, i) if i == COUNT && found.has(free.call(ci)));
        let mine: HashSet<String> = found.taints.iter().chain(mrecvs).cloned().collect();
        if steered || !free.reaches_nothing_but(&mine, &exempt) {
            continue;
        }
        rows.push(crate::ProbeRow {
            probe: p,
            recv: *r,
            sized: true,
            tagged: false,
            dispatch: false,
        });
    }
    rows
}

/// Whether a guard is a loop's head (`for`, `while`, `do ... while`).
fn is_loop(g: &Guard) -> bool {
    ["for", "while", "do "]
        .iter()
        .any(|k| g.text.starts_with(k))
}

/// Whether `call` runs inside the loop `head`.
fn inside(call: &CallInfo, head: &Guard) -> bool {
    call.guards
        .iter()
        .any(|g| g.at == head.at && g.text == head.text)
}

/// Whether an argument is the wildcard constant `name` (spelled so, or with
/// its value), or a variable every definition of which is.
fn is_wild(ir: &Ir, e: &Expr, name: &str, value: Option<i64>, depth: u32) -> bool {
    if e.text == name || (e.value.is_some() && e.value == value) {
        return true;
    }
    if depth > 4 || e.reads.len() != 1 || !e.calls.is_empty() {
        return false;
    }
    let Some(v) = ir.vars.get(&e.reads[0]) else {
        return false;
    };
    if e.text != v.name && !e.text.is_empty() {
        return false;
    }
    !v.defs.is_empty()
        && v.defs.iter().all(|d| match d {
            Def::Expr(x) => is_wild(ir, x, name, value, depth + 1),
            _ => false,
        })
}

/// Collects the reasons a call's running depends on data: its own guards,
/// then (up to `main`) the guards of the calls to its function.
fn dependence(
    ir: &Ir,
    by_callee: &HashMap<&str, Vec<usize>>,
    clean: &Clean<'_>,
    call: &CallInfo,
    seen: &mut HashSet<String>,
    reasons: &mut Vec<String>,
) {
    for g in &call.guards {
        guard_reason(clean, g, reasons);
    }
    let Some(caller) = &call.caller else { return };
    if ir.mains.contains(caller) || !seen.insert(caller.clone()) {
        return;
    }
    let callers: Vec<&CallInfo> = by_callee
        .get(caller.as_str())
        .map(|v| v.iter().map(|&i| &ir.calls[i]).collect())
        .unwrap_or_default();
    if callers.is_empty() {
        let name = ir.funcs.get(caller).map_or("?", |f| f.name.as_str());
        reasons.push(format!(
            "`{name}` has no visible caller, so fib cannot tell what decides whether it runs"
        ));
    }
    for c in callers {
        dependence(ir, by_callee, clean, c, seen, reasons);
    }
}

fn guard_reason(clean: &Clean<'_>, g: &Guard, reasons: &mut Vec<String>) {
    if let Some((what, _)) = clean.expr(&g.expr) {
        reasons.push(format!("`{}` at {} {what}", g.text, g.at));
    }
}
