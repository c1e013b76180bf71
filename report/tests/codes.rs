//! Tests of the finding codes: every code is documented in full, codes are
//! unique and well formed, and lookup ignores case.

use std::collections::HashSet;

use fib_report::codes::{self, SECTIONS};

#[test]
fn every_code_has_all_four_sections_in_order() {
    for code in codes::ALL {
        let mut from = 0;
        for section in SECTIONS {
            let heading = format!("{section}\n");
            let at = code.explanation[from..].find(&heading).unwrap_or_else(|| {
                panic!("{} lacks '{section}' (or it is out of order)", code.code)
            });
            from += at + heading.len();
        }
        assert!(
            code.explanation.contains("\n    "),
            "{} has no indented example",
            code.code
        );
        assert!(
            !code.summary.is_empty() && !code.name.is_empty(),
            "{}",
            code.code
        );
    }
}

#[test]
fn codes_are_unique_and_numbered_in_order() {
    let mut seen = HashSet::new();
    for (i, code) in codes::ALL.iter().enumerate() {
        assert!(seen.insert(code.code), "{} appears twice", code.code);
        assert_eq!(code.code, format!("FIB{:03}", i + 1));
    }
    assert_eq!(codes::ALL.len(), 23);
    let names: HashSet<_> = codes::ALL.iter().map(|c| c.name).collect();
    assert_eq!(names.len(), codes::ALL.len(), "names are unique");
}

#[test]
fn lookup_ignores_case() {
    assert_eq!(codes::lookup("fib001").unwrap().name, "deadlock");
    assert_eq!(codes::lookup("FIB010").unwrap().name, "polling-livelock");
    assert!(codes::lookup("FIB000").is_none());
    assert!(codes::lookup("deadlock").is_none());
}

#[test]
fn explain_prints_the_header_and_the_text() {
    let text = fib_report::explain("fib009").unwrap();
    assert!(text.starts_with("FIB009 collective-mismatch (error)\n\nRanks of one communicator"));
    assert!(text.contains("## What to do\n"));
    assert!(fib_report::explain("nope").is_none());
}
