//! The source rewriter: the instrumented copy of one file, in which every
//! MPI call written directly in the file names its site id.
//!
//! `MPI_Send(buf, ...)` becomes `(fib__site(3), MPI_Send)(buf, ...)`. The
//! comma expression calls the header's `fib__site` hook first and then
//! yields the real function; since the name is no longer followed by `(`,
//! the header's function-like `__FILE__`/`__LINE__` macro does not expand.
//! Calls produced by the program's own macros are left alone: the header's
//! macros attribute them to the macro's use. No newline is added or
//! removed, so every line keeps its number and compiler diagnostics point at
//! the user's lines.
//!
//! A buffer argument that points into a variable of known size
//! ([`fib_sites::Bound`]) adds `fib__bound(ID, ARG, &(v), sizeof(v))` to
//! the comma expression: the variable's address and size, for the check of
//! the call's extents. It evaluates nothing the call does not: taking an
//! address and `sizeof` have no effect. A call inside an OpenMP `single`
//! construct any thread of the team may run ([`fib_sites::CallSite::any_thread`]:
//! `single`, `sections`, `task`) adds `fib__any_thread(ID)`.

use crate::text::ident_is;
use crate::CallSite;

/// The instrumented text of a file, given the sites attributed to it. A site
/// whose callee is not written at its line and column (a stale table) is
/// left alone.
pub fn rewrite(text: &str, sites: &[&CallSite]) -> String {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let mut edits: Vec<(usize, &CallSite)> = sites
        .iter()
        .filter(|s| s.macro_name.is_none())
        .filter_map(|s| {
            let line_start = *starts.get((s.line as usize).checked_sub(1)?)?;
            let at = line_start + (s.column as usize).checked_sub(1)?;
            ident_is(text, at, &s.callee).then_some((at, *s))
        })
        .collect();
    edits.sort_by_key(|(at, _)| *at);
    edits.dedup_by_key(|(at, _)| *at);
    let mut out = String::with_capacity(text.len() + edits.len() * 24);
    let mut last = 0;
    for (at, site) in edits {
        out.push_str(&text[last..at]);
        out.push_str(&format!("(fib__site({}), ", site.id));
        if site.any_thread.is_some() {
            out.push_str(&format!("fib__any_thread({}), ", site.id));
        }
        for b in &site.bounds {
            out.push_str(&format!(
                "fib__bound({}, {}, &({v}), sizeof({v})), ",
                site.id,
                b.arg,
                v = b.variable
            ));
        }
        out.push_str(&format!("{})", site.callee));
        last = at + site.callee.len();
    }
    out.push_str(&text[last..]);
    out
}
