//! What decides whether a barrier site runs ([`crate::Gate`]): the
//! conditions on the way to it, each with what can change it (the input,
//! the process count, or only the build), so that a barrier that never ran
//! can be reached on purpose.
//!
//! A condition keeps a barrier away in every run of a build when it is a
//! constant that rules the barrier's branch out: as libclang evaluates it
//! (`if (DEBUG)` with `#define DEBUG 0`), or a variable (or its negation)
//! whose every definition is a constant of the same truth (`int debug =
//! 0;`). A definition of that variable in a region the preprocessor left
//! out (`#ifdef DEBUG int debug = 1; #else ...`) names the compile
//! definition that would bring it in.

use super::Clean;
use crate::ir::{CallInfo, Def, Guard, Ir, SiteKey, Var};
use crate::{Gate, GateKind, LeftOut};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// Calls that give a rank or a process count.
const COUNTS: &[&str] = &[
    "MPI_Comm_rank",
    "MPI_Comm_size",
    "MPI_Group_rank",
    "MPI_Group_size",
    "MPI_Comm_remote_size",
];

/// How many callers up the conditions of the calls that reach a barrier's
/// function are collected.
const UP: u32 = 4;

/// How many conditions are kept per barrier site.
const KEEP: usize = 8;

/// The truth of a guard's condition when it is a constant in this build:
/// libclang's value, or a variable (alone or negated) every definition of
/// which is a constant of one truth.
pub(super) fn constant(ir: &Ir, g: &Guard) -> Option<bool> {
    if let Some(v) = g.expr.value {
        return Some(v != 0);
    }
    let (v, negated) = variable(ir, g)?;
    let (truth, _) = var_constant(v)?;
    Some(truth != negated)
}

/// The variable a guard's condition is, alone or negated (`debug`,
/// `!debug`).
fn variable<'a>(ir: &'a Ir, g: &Guard) -> Option<(&'a Var, bool)> {
    if g.expr.reads.len() != 1 || !g.expr.calls.is_empty() {
        return None;
    }
    let v = ir.vars.get(&g.expr.reads[0])?;
    let t = g.expr.text.trim();
    let (t, negated) = match t.strip_prefix('!') {
        Some(rest) => (rest.trim(), true),
        None => (t, false),
    };
    let t = t.trim_start_matches('(').trim_end_matches(')').trim();
    (t == v.name).then_some((v, negated))
}

/// A variable's truth when every definition of it is a constant of the
/// same truth, with the value when they are all one.
fn var_constant(v: &Var) -> Option<(bool, Option<i64>)> {
    let mut values: Vec<i64> = Vec::new();
    for d in &v.defs {
        let Def::Expr(e) = d else { return None };
        values.push(e.value?);
    }
    let first = *values.first()?;
    let truth = first != 0;
    if values.iter().any(|&x| (x != 0) != truth) {
        return None;
    }
    let one = values.iter().all(|&x| x == first).then_some(first);
    Some((truth, one))
}

/// The variables that hold a rank or a process count, or values computed
/// from one.
fn count_vars(ir: &Ir) -> HashSet<&str> {
    let mut readers: HashMap<&str, Vec<&str>> = HashMap::default();
    for (k, v) in &ir.vars {
        for d in &v.defs {
            if let Def::Expr(e) = d {
                for r in &e.reads {
                    readers.entry(r.as_str()).or_default().push(k.as_str());
                }
            }
        }
    }
    let mut todo: Vec<&str> = ir
        .calls
        .iter()
        .filter(|c| COUNTS.contains(&c.callee.as_str()))
        .flat_map(|c| {
            c.targets
                .iter()
                .flat_map(|(_, t)| t.iter().map(String::as_str))
        })
        .collect();
    let mut set: HashSet<&str> = HashSet::default();
    while let Some(v) = todo.pop() {
        if set.insert(v) {
            todo.extend(readers.get(v).into_iter().flatten().copied());
        }
    }
    set
}

/// `file:line` split.
fn place(at: &str) -> Option<(&str, u32)> {
    let (file, line) = at.rsplit_once(':')?;
    Some((file, line.parse().ok()?))
}

/// The compiler flag that brings in a region a directive leaves out:
/// `#ifdef X`, `#if X` and `#if defined(X)` want `-DX`.
fn flag(directive: &str) -> Option<String> {
    let d = directive.trim().strip_prefix('#')?.trim_start();
    let d = d.split("//").next()?.split("/*").next()?.trim();
    let (kind, rest) = d.split_once(char::is_whitespace)?;
    let rest = rest.trim();
    let name = match kind {
        "ifdef" => rest,
        "if" => {
            let r = rest.strip_prefix("defined").map_or(rest, str::trim);
            r.trim_start_matches('(').trim_end_matches(')').trim()
        }
        _ => return None,
    };
    let ident = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    ident.then(|| format!("-D{name}"))
}

/// Where the preprocessor left out a definition of `name` (`name = ...`),
/// preferring the file `near`.
fn left_out(ir: &Ir, name: &str, near: &str) -> Option<LeftOut> {
    let mut regions: Vec<&crate::ir::Skipped> = ir.skipped.iter().collect();
    regions.sort_by_key(|s| s.file.to_str() != Some(near));
    for s in regions {
        let t = &s.text;
        for (at, _) in t.match_indices(name) {
            let before = t[..at].chars().next_back();
            let after = &t[at + name.len()..];
            let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
            if before.is_some_and(ident) || after.starts_with(ident) {
                continue;
            }
            let rest = after.trim_start();
            if !rest.starts_with('=') || rest.starts_with("==") {
                continue;
            }
            let directive = t.lines().next().unwrap_or("").trim().to_string();
            return Some(LeftOut {
                file: s.file.clone(),
                line: s.line + t[..at].matches('\n').count() as u32,
                flag: flag(&directive),
                directive,
            });
        }
    }
    None
}

/// What keeps a guard's code away in every run of this build, when it is
/// a constant that rules it out.
fn off(ir: &Ir, g: &Guard) -> Option<GateKind> {
    let when = g.when?;
    if constant(ir, g)? == when {
        return None;
    }
    if let Some(v) = g.expr.value {
        let macro_def = g
            .expr
            .text
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .find_map(|w| {
                let (file, line) = place(ir.macros.get(w)?)?;
                Some((w.to_string(), file.into(), line))
            });
        return Some(GateKind::Off {
            why: format!("its condition is the constant {v} in this build"),
            macro_def,
            left_out: None,
        });
    }
    let (v, _) = variable(ir, g)?;
    let (truth, one) = var_constant(v)?;
    let value = match one {
        Some(x) => x.to_string(),
        None if truth => "never 0".to_string(),
        None => "0".to_string(),
    };
    let near = place(&g.at).map_or("", |(f, _)| f);
    Some(GateKind::Off {
        why: format!("`{}` is {value} wherever it is set", v.name),
        macro_def: None,
        left_out: left_out(ir, &v.name, near),
    })
}

/// Whether a condition reads a rank or a process count.
fn reads_count(g: &Guard, counts: &HashSet<&str>) -> bool {
    g.expr.reads.iter().any(|r| counts.contains(r.as_str()))
        || g.expr
            .calls
            .iter()
            .any(|c| COUNTS.contains(&c.name.as_str()))
}

/// The guards of a call and, up to `up` callers up, those of the calls
/// that reach its function.
fn guards_of<'a>(
    ir: &'a Ir,
    callers: &HashMap<&str, Vec<&'a CallInfo>>,
    call: &'a CallInfo,
    up: u32,
    seen: &mut HashSet<&'a str>,
    out: &mut Vec<&'a Guard>,
) {
    out.extend(&call.guards);
    let Some(f) = call.caller.as_deref() else {
        return;
    };
    if up == 0 || ir.mains.iter().any(|m| m == f) || !seen.insert(f) {
        return;
    }
    for c in callers.get(f).into_iter().flatten() {
        guards_of(ir, callers, c, up - 1, seen, out);
    }
}

/// For each barrier site, the conditions on the way to it that can keep it
/// from running, each with what decides it.
pub(super) fn gates(
    ir: &Ir,
    ids: &HashMap<SiteKey, u32>,
    barriers: &[u32],
    clean: &Clean<'_>,
) -> Vec<Gate> {
    let counts = count_vars(ir);
    let mut callers: HashMap<&str, Vec<&CallInfo>> = HashMap::default();
    for c in &ir.calls {
        if let Some(u) = c.callee_usr.as_deref() {
            callers.entry(u).or_default().push(c);
        }
    }
    let mut out: Vec<Gate> = Vec::new();
    let mut kept: HashMap<u32, usize> = HashMap::default();
    for c in &ir.calls {
        let Some(&id) = c.site.as_ref().and_then(|k| ids.get(k)) else {
            continue;
        };
        if !barriers.contains(&id) {
            continue;
        }
        let mut guards = Vec::new();
        guards_of(ir, &callers, c, UP, &mut HashSet::default(), &mut guards);
        for g in guards {
            let n = kept.entry(id).or_default();
            if *n >= KEEP {
                break;
            }
            let Some((file, line)) = place(&g.at) else {
                continue;
            };
            if out.iter().any(|x| {
                x.site == id
                    && x.line == line
                    && x.text == g.text
                    && x.file.as_path() == std::path::Path::new(file)
            }) {
                continue;
            }
            // A constant that lets the code through keeps nothing away.
            if g.when.is_some_and(|w| constant(ir, g) == Some(w)) {
                continue;
            }
            let by = if let Some(k) = off(ir, g) {
                k
            } else if let Some((what, _)) = clean.expr(&g.expr) {
                GateKind::Input {
                    reason: format!("`{}` at {} {what}", g.text, g.at),
                }
            } else if reads_count(g, &counts) {
                GateKind::Count
            } else {
                GateKind::Fixed
            };
            *n += 1;
            out.push(Gate {
                site: id,
                text: g.text.clone(),
                file: file.into(),
                line,
                by,
            });
        }
    }
    out.sort_by_key(|g| g.site);
    out
}
