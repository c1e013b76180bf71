//! What a barrier may be there for besides messages ([`crate::Purpose`]):
//! the first clock reading or output after it, before the next MPI call.
//!
//! The calls after a barrier are those of its function; a function's own
//! calls count only when no MPI call of that function comes first, and
//! only when they are live (no condition around them is a constant that
//! rules them out, such as `if (DEBUG)` with `#define DEBUG 0`). A barrier
//! with nothing after it in its function (a wrapper such as
//! `barrier_all()`) is followed by what follows each call of that function
//! in its callers, a few calls up.

use super::gates::constant;
use super::{inside, is_loop};
use crate::ir::{CallInfo, Guard, Ir, SiteKey};
use crate::{Purpose, PurposeKind, Via};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// Calls that read a clock: a barrier right before one times a phase.
const CLOCKS: &[&str] = &[
    "MPI_Wtime",
    "PMPI_Wtime",
    "clock",
    "clock_gettime",
    "gettimeofday",
    "time",
    "omp_get_wtime",
    "now",
    "__rdtsc",
];

/// Calls that write output: a barrier right before one orders what the
/// ranks print or write.
const OUTPUTS: &[&str] = &[
    "printf",
    "fprintf",
    "vprintf",
    "vfprintf",
    "puts",
    "fputs",
    "putchar",
    "fputc",
    "putc",
    "fwrite",
    "write",
    "fflush",
    "perror",
    "operator<<",
];

/// How many functions deep a called function's calls are looked into.
const DOWN: u32 = 2;

/// How many callers up the calls after a barrier wrapper's calls are looked
/// at.
const UP: u32 = 3;

/// What the calls after a barrier hold ([`Calls::scan`]).
enum Scan<'a> {
    /// A clock reading or an output, found by this call.
    Found(PurposeKind, &'a CallInfo),
    /// An MPI call (other than a clock reading) comes first.
    Blocked,
    /// Neither: the calls ran out.
    Open,
}

fn is_mpi(name: &str) -> bool {
    (name.starts_with("MPI_") || name.starts_with("PMPI_")) && !CLOCKS.contains(&name)
}

/// Whether a call can run: no guard around it is a constant that rules its
/// branch out.
pub(super) fn live(ir: &Ir, call: &CallInfo) -> bool {
    !call.guards.iter().any(|g| rules_out(ir, g))
}

/// Whether a guard's condition is a constant under which the code it
/// guards never runs.
fn rules_out(ir: &Ir, g: &Guard) -> bool {
    match (g.when, constant(ir, g)) {
        (Some(when), Some(value)) => when != value,
        _ => false,
    }
}

/// The program's calls, by function.
struct Calls<'a> {
    ir: &'a Ir,
    /// Each function's calls, in source order (the first copy of a
    /// function several units define).
    body: HashMap<&'a str, std::ops::Range<usize>>,
    /// The calls of each function of the program.
    callers: HashMap<&'a str, Vec<usize>>,
}

impl<'a> Calls<'a> {
    fn new(ir: &'a Ir) -> Self {
        let mut body: HashMap<&str, std::ops::Range<usize>> = HashMap::default();
        let mut callers: HashMap<&str, Vec<usize>> = HashMap::default();
        let mut start = 0;
        for (i, c) in ir.calls.iter().enumerate() {
            if let Some(u) = c.callee_usr.as_deref() {
                callers.entry(u).or_default().push(i);
            }
            let last = ir.calls.get(i + 1).is_none_or(|n| n.caller != c.caller);
            if last {
                if let Some(f) = c.caller.as_deref() {
                    body.entry(f).or_insert(start..i + 1);
                }
                start = i + 1;
            }
        }
        Calls { ir, body, callers }
    }

    /// The first of `calls` that reads a clock or writes output (itself,
    /// or up to `depth` functions down, such as a `wtime()` helper around
    /// `MPI_Wtime`), unless an MPI call (other than a clock reading) comes
    /// before it. Calls that cannot run are passed over.
    fn scan(&self, calls: impl IntoIterator<Item = &'a CallInfo>, depth: u32) -> Scan<'a> {
        for next in calls {
            if !live(self.ir, next) {
                continue;
            }
            let name = next.callee.as_str();
            if is_mpi(name) {
                return Scan::Blocked;
            }
            if CLOCKS.contains(&name) {
                return Scan::Found(PurposeKind::Timing, next);
            }
            if OUTPUTS.contains(&name) {
                return Scan::Found(PurposeKind::Output, next);
            }
            if depth == 0 {
                continue;
            }
            let Some(range) = next.callee_usr.as_deref().and_then(|u| self.body.get(u)) else {
                continue;
            };
            match self.scan(&self.ir.calls[range.clone()], depth - 1) {
                Scan::Found(kind, _) => return Scan::Found(kind, next),
                Scan::Blocked => return Scan::Blocked,
                Scan::Open => {}
            }
        }
        Scan::Open
    }

    /// What follows the call `i` in its function. A call that ends its
    /// innermost loop's body (no MPI call after it in the body) is followed
    /// by the body's start too: the next iteration's calls (a timed loop
    /// that starts with `MPI_Wtime`).
    fn after(&self, i: usize) -> Scan<'a> {
        let calls = &self.ir.calls;
        let c = &calls[i];
        // The function's calls around this one (a function's calls are
        // contiguous, in source order).
        let first = calls[..i]
            .iter()
            .rposition(|n| n.caller != c.caller)
            .map_or(0, |k| k + 1);
        let before = &calls[first..i];
        let after = calls[i + 1..].iter().take_while(|n| n.caller == c.caller);
        // The innermost loop: the one fewest of the function's calls are in.
        let inner = c.guards.iter().filter(|g| is_loop(g)).min_by_key(|g| {
            before
                .iter()
                .chain(after.clone())
                .filter(|n| inside(n, g))
                .count()
        });
        match inner {
            None => self.scan(after, DOWN),
            Some(head) => match self.scan(after.clone().take_while(|n| inside(n, head)), DOWN) {
                Scan::Open => match self.scan(before.iter().filter(|n| inside(n, head)), DOWN) {
                    Scan::Open => self.scan(after.skip_while(|n| inside(n, head)), DOWN),
                    s => s,
                },
                s => s,
            },
        }
    }

    /// What follows the call `i`: in its function, or when nothing there
    /// decides, after the calls of its function in their callers (up to
    /// `up` callers up, each function once). With a call of a caller's, the
    /// one after which the purpose is.
    fn around(
        &self,
        i: usize,
        up: u32,
        seen: &mut HashSet<&'a str>,
    ) -> (Scan<'a>, Option<&'a CallInfo>) {
        let s = self.after(i);
        if !matches!(s, Scan::Open) || up == 0 {
            return (s, None);
        }
        let Some(f) = self.ir.calls[i].caller.as_deref() else {
            return (s, None);
        };
        if self.ir.mains.iter().any(|m| m == f) || !seen.insert(f) {
            return (s, None);
        }
        for &j in self.callers.get(f).map_or(&[][..], Vec::as_slice) {
            if !live(self.ir, &self.ir.calls[j]) {
                continue;
            }
            if let (Scan::Found(kind, next), via) = self.around(j, up - 1, seen) {
                return (Scan::Found(kind, next), via.or(Some(&self.ir.calls[j])));
            }
        }
        (Scan::Open, None)
    }
}

/// `file:line` split.
fn place(at: &str) -> Option<(&str, u32)> {
    let (file, line) = at.rsplit_once(':')?;
    Some((file, line.parse().ok()?))
}

/// For each barrier site, the first clock reading or output after one of
/// its calls ([`Calls::around`]).
pub(super) fn purposes(ir: &Ir, ids: &HashMap<SiteKey, u32>, barriers: &[u32]) -> Vec<Purpose> {
    let calls = Calls::new(ir);
    let mut out: Vec<Purpose> = Vec::new();
    for (i, c) in ir.calls.iter().enumerate() {
        let Some(id) = c.site.as_ref().and_then(|k| ids.get(k)) else {
            continue;
        };
        if !barriers.contains(id) || out.iter().any(|p| p.site == *id) {
            continue;
        }
        let (Scan::Found(kind, next), via) = calls.around(i, UP, &mut HashSet::default()) else {
            continue;
        };
        let Some((file, line)) = place(&next.at) else {
            continue;
        };
        let via = via.and_then(|v| {
            let (file, line) = place(&v.at)?;
            Some(Via {
                function: v.callee.clone(),
                file: file.into(),
                line,
            })
        });
        out.push(Purpose {
            site: *id,
            kind,
            callee: next.callee.clone(),
            file: file.into(),
            line,
            via,
        });
    }
    out.sort_by_key(|p| p.site);
    out
}
