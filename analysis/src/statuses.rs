//! Status arguments written as a null pointer, found in the site table
//! before running ([`fib_sites::status_arg`] says which argument of which
//! call is a status), as FIB033 findings.
//!
//! Only the text of the argument as written is read: `NULL`, `0`,
//! `nullptr` and `__null`, in parentheses or cast to a pointer type
//! (`(MPI_Status *)0`, `((void *)0)`). `MPI_STATUS_IGNORE` is a null
//! pointer in Open MPI and `(MPI_Status *)1` in MPICH, so at run time a
//! null status cannot be told from it everywhere; the text can. A null
//! pointer held in a variable is not found, nor are calls produced by the
//! program's macros (their arguments are the macro's).

use fib_report::codes::{NullStatus, Rule};
use fib_report::{Finding, Place};

use crate::sites::Resolver;

/// Whether an argument written as `text` is a null pointer constant.
fn is_null(text: &str) -> bool {
    let mut t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    loop {
        // Outer parentheses around the whole argument.
        if let Some(inner) = t.strip_prefix('(').and_then(|x| x.strip_suffix(')')) {
            if balanced(inner) {
                t = inner.to_string();
                continue;
            }
        }
        // A cast to a pointer type: `(MPI_Status*)` before the rest.
        if t.starts_with('(') {
            if let Some(close) = t.find(')') {
                let cast = &t[1..close];
                if cast.ends_with('*')
                    && cast
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '*')
                    && close + 1 < t.len()
                {
                    t = t[close + 1..].to_string();
                    continue;
                }
            }
        }
        break;
    }
    matches!(
        t.as_str(),
        "NULL" | "0" | "0L" | "0UL" | "0LL" | "nullptr" | "__null"
    )
}

/// Whether the parentheses of `s` pair up (so that `(a)*(b)` is not taken
/// for one parenthesised expression).
fn balanced(s: &str) -> bool {
    let mut depth = 0i32;
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0
}

/// Every status argument of the program's site table written as a null
/// pointer; sites in code the program never runs
/// ([`fib_sites::Facts::dead`]) are left out.
pub fn null_statuses(sites: &Resolver) -> Vec<Finding> {
    let mut out = Vec::new();
    for s in sites.analysis().live_sites() {
        if s.macro_name.is_some() {
            continue;
        }
        let Some((index, array)) = fib_sites::status_arg(&s.callee) else {
            continue;
        };
        let Some(arg) = s.args.get(index) else {
            continue;
        };
        if !is_null(arg) {
            continue;
        }
        out.push(
            NullStatus {
                call: s.callee.clone(),
                arg: arg.trim().to_string(),
                array,
                place: Place {
                    file: Some(sites.show(&s.file)),
                    line: Some(s.line),
                    column: Some(s.column),
                    span: Some(s.span),
                },
            }
            .finding(),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::path::{Path, PathBuf};

    use fib_sites::{Analysis, CallSite, SiteTable};

    fn site(id: u32, callee: &str, args: &[&str], macro_name: Option<&str>) -> CallSite {
        CallSite {
            id,
            file: PathBuf::from("a.c"),
            line: 7 + id,
            column: 5,
            span: (100, 150),
            callee: callee.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            function: Some("main".into()),
            macro_name: macro_name.map(str::to_string),
            buffers: Vec::new(),
            bounds: Vec::new(),
            structs: Vec::new(),
            any_thread: None,
        }
    }

    #[test]
    fn finds_null_statuses_in_the_site_table() {
        let recv = ["&x", "1", "MPI_INT", "0", "0", "MPI_COMM_WORLD"];
        let with = |status: &str| {
            let mut a: Vec<&str> = recv.to_vec();
            a.push(status);
            a.iter().map(|s| s.to_string()).collect::<Vec<_>>()
        };
        let mut a = Analysis {
            sites: SiteTable {
                sites: vec![
                    CallSite {
                        args: with("NULL"),
                        ..site(0, "MPI_Recv", &[], None)
                    },
                    CallSite {
                        args: with("MPI_STATUS_IGNORE"),
                        ..site(1, "MPI_Recv", &[], None)
                    },
                    site(2, "MPI_Waitall", &["2", "reqs", "0"], None),
                    site(3, "MPI_Wait", &["&req", "&st"], None),
                    // A macro's arguments are the macro's.
                    site(4, "MPI_Wait", &["&req", "NULL"], Some("WAIT")),
                    // Not a status: MPI_Send has none.
                    site(
                        5,
                        "MPI_Send",
                        &["NULL", "0", "MPI_INT", "1", "0", "c"],
                        None,
                    ),
                ],
            },
            ..Analysis::default()
        };
        let r = Resolver::new(&a, Path::new("src"));
        let found = null_statuses(&r);
        let shown: Vec<&str> = found.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(
            shown,
            [
                "MPI_Recv's status is a null pointer (`NULL`), not MPI_STATUS_IGNORE",
                "MPI_Waitall's array of statuses is a null pointer (`0`), not MPI_STATUSES_IGNORE"
            ]
        );
        assert_eq!(found[0].file.as_deref(), Some("src/a.c"));
        assert_eq!((found[0].line, found[1].line), (Some(7), Some(9)));

        // Code the program never runs is left out.
        a.facts.dead = vec![0];
        let r = Resolver::new(&a, Path::new("src"));
        assert_eq!(null_statuses(&r).len(), 1);
    }

    #[test]
    fn null_pointer_constants_are_null() {
        for t in [
            "NULL",
            "0",
            "nullptr",
            "(MPI_Status *)0",
            "(MPI_Status*) NULL",
            "((void *)0)",
            "( NULL )",
            "(MPI_Status *)(0)",
        ] {
            assert!(is_null(t), "{t}");
        }
    }

    #[test]
    fn statuses_and_ignore_values_are_not() {
        for t in [
            "MPI_STATUS_IGNORE",
            "MPI_STATUSES_IGNORE",
            "&status",
            "&st[0]",
            "statuses",
            "(MPI_Status *)1",
            "(0)+(1)",
            "p",
            "(a)*(b)",
        ] {
            assert!(!is_null(t), "{t}");
        }
    }
}
