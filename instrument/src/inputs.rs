//! Which MPI calls run only for some inputs ([`crate::Facts::inputs`]).
//!
//! For every variable and function result, the inputs its value may come
//! from: the command line, the environment, files (and the standard
//! input), the clock, random numbers, the process id. Data received from
//! another rank and what a function fib cannot see returns are *open*:
//! they may carry any input, so a call they decide is never taken for one
//! that runs whatever the input. Then, for every MPI communication site,
//! the conditions on the way from `main` (its own, and those around the
//! calls of its function, up the callers) that read an input.
//!
//! The run side (`analysis`) compares the calls one match set joins: a
//! call that runs only for some values of an input, matched with a call
//! of another rank that runs whatever that input is, is a hazard
//! (FIB040). Inputs flow as in the rest of the static facts: through
//! assignments, calls and their results, flow-insensitively.

use crate::ir::{CallInfo, Def, Expr, Guard, Ir, SiteKey};
use crate::library::{ALLOCATORS, LOCAL_MPI, PURE, SOURCES, STATUS_READERS};
use crate::{Input, InputGuards, InputReason};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::path::PathBuf;

/// The inputs kept apart, and the open bit.
const INPUTS: [Input; 6] = [
    Input::Arguments,
    Input::Environment,
    Input::File,
    Input::Clock,
    Input::Random,
    Input::ProcessId,
];
const OPEN: usize = INPUTS.len();

/// What a value may come from: for each input (and open), the first
/// source found, as a reader names it.
#[derive(Clone, Debug, Default)]
struct Taint([Option<String>; OPEN + 1]);

impl Taint {
    fn is_empty(&self) -> bool {
        self.0.iter().all(Option::is_none)
    }

    /// Adds what `other` has and `self` does not; whether anything was new.
    fn join(&mut self, other: &Taint) -> bool {
        let mut changed = false;
        for (mine, theirs) in self.0.iter_mut().zip(&other.0) {
            if mine.is_none() && theirs.is_some() {
                *mine = theirs.clone();
                changed = true;
            }
        }
        changed
    }

    fn one(slot: usize, source: String) -> Taint {
        let mut t = Taint::default();
        t.0[slot] = Some(source);
        t
    }
}

fn slot(input: Input) -> usize {
    INPUTS.iter().position(|i| *i == input).unwrap_or(OPEN)
}

/// The input a library source function reads, or `None` for one whose
/// result is only what its arguments make it.
fn source_input(name: &str) -> Option<Input> {
    Some(match name {
        "getenv" | "secure_getenv" => Input::Environment,
        "time" | "clock" | "gettimeofday" | "clock_gettime" | "MPI_Wtime" | "MPI_Wtick" => {
            Input::Clock
        }
        "rand" | "random" | "rand_r" | "drand48" | "erand48" | "lrand48" | "nrand48"
        | "mrand48" | "jrand48" => Input::Random,
        "getpid" => Input::ProcessId,
        "sscanf" => return None,
        _ => Input::File,
    })
}

/// A variable or a function's result, by USR.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Node<'a> {
    Var(&'a str),
    Func(&'a str),
}

/// Records what `user`'s value is made of through `e`: the variables and
/// function results it reads (as edges into `users`) and the inputs its
/// own calls bring (into `own`), as [`Inputs::expr`] reads them.
fn depends<'a>(
    ir: &'a Ir,
    e: &'a Expr,
    user: Node<'a>,
    own: &mut Taint,
    users: &mut HashMap<Node<'a>, Vec<Node<'a>>>,
) {
    for r in &e.reads {
        users.entry(Node::Var(r)).or_default().push(user);
    }
    for call in &e.calls {
        match call_kind(ir, call) {
            CallKind::Source(t) => {
                own.join(&t);
            }
            CallKind::Nothing => {}
            CallKind::Args => {
                for a in &call.args {
                    depends(ir, a, user, own, users);
                }
            }
            CallKind::Function(u) => users.entry(Node::Func(u)).or_default().push(user),
        }
    }
}

/// What a call in an expression brings to its value.
enum CallKind<'a> {
    /// Inputs of its own (a library source, a function fib cannot see).
    Source(Taint),
    /// Nothing (an allocator's new memory).
    Nothing,
    /// What its arguments bring (MPI, pure functions).
    Args,
    /// What the program's function returns.
    Function(&'a str),
}

fn call_kind<'a>(ir: &Ir, call: &'a crate::ir::CallRef) -> CallKind<'a> {
    let name = call.name.as_str();
    if SOURCES.contains(&name) {
        if let Some(input) = source_input(name) {
            return CallKind::Source(Taint::one(
                slot(input),
                format!("the result of {}() at {}", call.name, call.at),
            ));
        }
    }
    if ALLOCATORS.contains(&name) {
        return CallKind::Nothing;
    }
    let mpi = name.starts_with("MPI_") || name.starts_with("PMPI_");
    if mpi || PURE.contains(&name) || SOURCES.contains(&name) {
        return CallKind::Args;
    }
    match call.usr.as_deref().filter(|u| ir.funcs.contains_key(*u)) {
        Some(u) => CallKind::Function(u),
        None => CallKind::Source(Taint::one(
            OPEN,
            format!(
                "the result of {}() at {}, which fib cannot see",
                name, call.at
            ),
        )),
    }
}

/// The inputs of every variable and function result.
struct Inputs<'a> {
    ir: &'a Ir,
    vars: HashMap<&'a str, Taint>,
    funcs: HashMap<&'a str, Taint>,
}

impl<'a> Inputs<'a> {
    fn compute(ir: &'a Ir) -> Inputs<'a> {
        // A value's inputs are what its own sources give (a taint, a call
        // of a library source, a function fib cannot see) joined with the
        // inputs of every variable and function result it reads: a union
        // over a graph, spread along its edges, each edge at most once per
        // input a node gains.
        let mut own: HashMap<Node<'a>, Taint> = HashMap::default();
        let mut users: HashMap<Node<'a>, Vec<Node<'a>>> = HashMap::default();
        for (k, v) in &ir.vars {
            let n = Node::Var(k);
            let mut t = Taint::default();
            for d in &v.defs {
                match d {
                    Def::Clean => {}
                    Def::Taint(why) => {
                        t.join(&taint_of(why));
                    }
                    Def::Expr(e) => depends(ir, e, n, &mut t, &mut users),
                }
            }
            if k == crate::flow::FILES {
                t.join(&Taint::one(
                    slot(Input::File),
                    "what the program reads from files".into(),
                ));
            }
            own.insert(n, t);
        }
        for (k, f) in &ir.funcs {
            let n = Node::Func(k);
            let mut t = Taint::default();
            for e in &f.returns {
                depends(ir, e, n, &mut t, &mut users);
            }
            own.insert(n, t);
        }
        // In a fixed order, so that the sources named are the same each time.
        let mut todo: Vec<Node<'a>> = own
            .iter()
            .filter(|(_, t)| !t.is_empty())
            .map(|(n, _)| *n)
            .collect();
        todo.sort_unstable();
        todo.reverse();
        let mut taint = own;
        while let Some(n) = todo.pop() {
            let Some(mine) = taint.get(&n).cloned() else {
                continue;
            };
            for &u in users.get(&n).into_iter().flatten() {
                if taint.entry(u).or_default().join(&mine) {
                    todo.push(u);
                }
            }
        }
        let mut s = Inputs {
            ir,
            vars: HashMap::default(),
            funcs: HashMap::default(),
        };
        for (n, t) in taint {
            if t.is_empty() {
                continue;
            }
            match n {
                Node::Var(k) => s.vars.insert(k, t),
                Node::Func(k) => s.funcs.insert(k, t),
            };
        }
        s
    }

    /// The inputs an expression's value may come from.
    fn expr(&self, e: &Expr) -> Taint {
        let mut t = Taint::default();
        for r in &e.reads {
            if let Some(v) = self.vars.get(r.as_str()) {
                t.join(v);
            }
        }
        for call in &e.calls {
            match call_kind(self.ir, call) {
                CallKind::Source(c) => {
                    t.join(&c);
                }
                CallKind::Nothing => {}
                CallKind::Args => {
                    for a in &call.args {
                        t.join(&self.expr(a));
                    }
                }
                CallKind::Function(u) => {
                    if let Some(f) = self.funcs.get(u) {
                        t.join(f);
                    }
                }
            }
        }
        t
    }
}

/// The inputs a value from outside the program's control may come from:
/// the command line, what a library function read (a file or the
/// standard input); anything else (data another rank sent, what a
/// function fib cannot see wrote) is open.
fn taint_of(why: &str) -> Taint {
    if why == crate::facts::COMMAND_LINE {
        Taint::one(slot(Input::Arguments), why.to_string())
    } else if why.starts_with("read by ") {
        Taint::one(slot(Input::File), why.to_string())
    } else {
        Taint::one(OPEN, why.to_string())
    }
}

/// What the conditions on the way to a function's calls read.
#[derive(Clone, Debug, Default)]
struct Way {
    reasons: Vec<InputReason>,
    open: bool,
}

/// At most this many conditions per input are kept for one function: the
/// first ones name the hazard, and the lists stay small however many
/// callers a function has.
const KEEP: usize = 4;

impl Way {
    fn add_guard(&mut self, inputs: &Inputs<'_>, g: &Guard) {
        let t = inputs.expr(&g.expr);
        if t.is_empty() {
            return;
        }
        if t.0[OPEN].is_some() {
            self.open = true;
        }
        let Some((file, line)) = g.at.rsplit_once(':') else {
            return;
        };
        let Ok(line) = line.parse() else { return };
        for (k, input) in INPUTS.iter().enumerate() {
            if let Some(source) = &t.0[k] {
                self.push(InputReason {
                    input: *input,
                    condition: g.text.clone(),
                    file: PathBuf::from(file),
                    line,
                    source: source.clone(),
                });
            }
        }
    }

    fn push(&mut self, r: InputReason) {
        let same_input = self.reasons.iter().filter(|o| o.input == r.input).count();
        if same_input < KEEP
            && !self
                .reasons
                .iter()
                .any(|o| o.input == r.input && o.file == r.file && o.line == r.line)
        {
            self.reasons.push(r);
        }
    }

    fn join(&mut self, other: &Way) {
        self.open |= other.open;
        for r in &other.reasons {
            self.push(r.clone());
        }
    }
}

/// The conditions on the way from `main` to the body of each function,
/// each function once (a recursion's way is what its other callers give).
struct Ways<'a> {
    ir: &'a Ir,
    inputs: &'a Inputs<'a>,
    callers: HashMap<&'a str, Vec<&'a CallInfo>>,
    done: HashMap<&'a str, Way>,
    busy: HashSet<&'a str>,
}

impl<'a> Ways<'a> {
    fn of_function(&mut self, f: &'a str) -> Way {
        if let Some(w) = self.done.get(f) {
            return w.clone();
        }
        if self.ir.mains.iter().any(|m| m == f) || !self.busy.insert(f) {
            return Way::default();
        }
        let mut way = Way::default();
        let callers = self.callers.get(f).cloned().unwrap_or_default();
        for c in callers {
            let w = self.of_call(c);
            way.join(&w);
        }
        self.busy.remove(f);
        self.done.insert(f, way.clone());
        way
    }

    fn of_call(&mut self, c: &'a CallInfo) -> Way {
        let mut way = match c.caller.as_deref() {
            Some(f) => self.of_function(f),
            None => Way::default(),
        };
        for g in &c.guards {
            way.add_guard(self.inputs, g);
        }
        way
    }
}

/// Whether an MPI call is an operation other ranks take part in.
fn communicates(callee: &str) -> bool {
    callee.starts_with("MPI_") && !LOCAL_MPI.contains(&callee) && !STATUS_READERS.contains(&callee)
}

/// [`crate::Facts::inputs`] for the program.
pub(crate) fn inputs(ir: &Ir, ids: &HashMap<SiteKey, u32>) -> Vec<InputGuards> {
    let inputs = Inputs::compute(ir);
    let live = crate::facts::live_functions(ir);
    let mut callers: HashMap<&str, Vec<&CallInfo>> = HashMap::default();
    for c in &ir.calls {
        let runs = c.caller.as_deref().is_none_or(|f| live.contains(f));
        if let Some(u) = c.callee_usr.as_deref().filter(|_| runs) {
            callers.entry(u).or_default().push(c);
        }
    }
    let mut ways = Ways {
        ir,
        inputs: &inputs,
        callers,
        done: HashMap::default(),
        busy: HashSet::default(),
    };
    let mut by_site: HashMap<u32, Way> = HashMap::default();
    for c in &ir.calls {
        if !communicates(&c.callee) {
            continue;
        }
        let Some(id) = c.site.as_ref().and_then(|k| ids.get(k)) else {
            continue;
        };
        let w = ways.of_call(c);
        by_site.entry(*id).or_default().join(&w);
    }
    let mut out: Vec<InputGuards> = by_site
        .into_iter()
        .filter(|(_, w)| w.open || !w.reasons.is_empty())
        .map(|(site, w)| InputGuards {
            site,
            reasons: w.reasons,
            open: w.open,
        })
        .collect();
    out.sort_unstable_by_key(|g| g.site);
    out
}
