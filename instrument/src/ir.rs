//! The program model the static facts are computed on: variables with every
//! value assigned to them, functions with their return values and
//! parameters, and every call with the conditions that guard it. It is
//! extracted from libclang's syntax trees ([`crate::extract`]) and outlives
//! them, so that translation units can be merged.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

/// What a variable may hold, one assignment (or write) at a time.
#[derive(Clone, Debug)]
pub(crate) enum Def {
    /// The value of an expression.
    Expr(Expr),
    /// Data from outside the program's control; the text says where from,
    /// for example `filled by MPI_Recv at a.c:10`.
    Taint(String),
    /// A value that is the same in every run (the rank from
    /// `MPI_Comm_rank`, a handle from MPI).
    Clean,
}

/// What an expression reads.
#[derive(Clone, Debug, Default)]
pub(crate) struct Expr {
    /// Its source text, whitespace collapsed.
    pub text: String,
    /// The variables (and C++ fields) it reads, by USR.
    pub reads: Vec<String>,
    /// The calls whose results it uses.
    pub calls: Vec<CallRef>,
    /// Its value, when it is an integer constant expression.
    pub value: Option<i64>,
}

/// A call whose result an expression uses.
#[derive(Clone, Debug)]
pub(crate) struct CallRef {
    pub name: String,
    pub usr: Option<String>,
    pub args: Vec<Expr>,
    /// `file:line` of the call.
    pub at: String,
}

/// A variable, parameter or C++ field.
#[derive(Clone, Debug, Default)]
pub(crate) struct Var {
    pub name: String,
    pub defs: Vec<Def>,
}

/// A function definition.
#[derive(Clone, Debug, Default)]
pub(crate) struct Func {
    pub name: String,
    /// Its parameters' USRs, in order.
    pub params: Vec<String>,
    pub returns: Vec<Expr>,
}

/// A condition that decides whether some code runs: the condition of an
/// `if`, a loop, a `switch`, a `?:` or the left side of `&&`/`||`, or an
/// earlier condition that can leave the block early (`return`, `break`).
#[derive(Clone, Debug)]
pub(crate) struct Guard {
    /// How a reader recognises it, such as `if (buf[0] > 3)`.
    pub text: String,
    /// `file:line`.
    pub at: String,
    /// Its condition; `expr.value` is the condition's value when libclang
    /// evaluates it to a constant (`if (DEBUG)` with `#define DEBUG 0`).
    pub expr: Expr,
    /// The value the condition must have for the guarded code to run: true
    /// in an `if`'s first branch, a `while` body or right of `&&`, false in
    /// an `else` or right of `||`; `None` when the code may run either way
    /// (a `switch`, a `do` body, code after an early `return` under it).
    pub when: Option<bool>,
}

/// Identifies a site before ids are given: file (relative to the root),
/// span start, callee.
pub(crate) type SiteKey = (PathBuf, usize, String);

/// One call expression inside a function body.
#[derive(Clone, Debug)]
pub(crate) struct CallInfo {
    /// The USR of the function whose body contains it.
    pub caller: Option<String>,
    pub callee: String,
    pub callee_usr: Option<String>,
    /// The guards around it in its function, innermost first or in any
    /// order: all of them must hold for the call to run.
    pub guards: Vec<Guard>,
    pub args: Vec<Expr>,
    /// For each argument that gives the callee a place to write (`&x`, an
    /// array, a non-const pointer or reference): the variables written.
    pub targets: Vec<(usize, Vec<String>)>,
    /// `file:line`.
    pub at: String,
    /// Its key in the site table, when it is an MPI call site.
    pub site: Option<SiteKey>,
}

/// The program model of every translation unit analysed together.
#[derive(Debug, Default)]
pub(crate) struct Ir {
    pub vars: HashMap<String, Var>,
    pub funcs: HashMap<String, Func>,
    pub calls: Vec<CallInfo>,
    /// `MPI_ANY_SOURCE` and `MPI_ANY_TAG` as the parsed mpi.h defines them.
    pub any_source: Option<i64>,
    pub any_tag: Option<i64>,
    /// USRs of the `main` functions.
    pub mains: Vec<String>,
    /// USRs of the functions the program names other than as the callee of
    /// a call (`handlers[k] = reply;`, `qsort(..., cmp)`): what runs them
    /// runs through a pointer.
    pub address_taken: HashSet<String>,
    /// The macros the tree's files define: name → `file:line`.
    pub macros: HashMap<String, String>,
    /// The regions of the tree's files the preprocessor left out.
    pub skipped: Vec<Skipped>,
}

/// A region of a file of the tree that the preprocessor left out (`#ifdef
/// DEBUG` ... `#else` when `DEBUG` is not defined).
#[derive(Clone, Debug)]
pub(crate) struct Skipped {
    /// The file, relative to the root.
    pub file: PathBuf,
    /// The line the region starts on: its directive's.
    pub line: u32,
    /// The region's text, its directive first.
    pub text: String,
}

impl Ir {
    pub(crate) fn def(&mut self, key: &str, name: &str, def: Def) {
        let v = self.vars.entry(key.to_string()).or_default();
        if v.name.is_empty() {
            v.name = name.to_string();
        }
        v.defs.push(def);
    }
}
