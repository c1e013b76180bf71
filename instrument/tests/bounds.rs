//! Tests of the variables the parse records for the run-time check of a
//! call's extents (FIB039): which buffer expressions point into a
//! variable whose size the compiler knows, its name, size and declaration,
//! and what the rewrite hands the interposition library for them.

mod common;

use instrument::Analysis;

/// The (argument, variable, size, declaration line) of the bounds of the
/// call on `line`.
fn bounds(a: &Analysis, line: u32) -> Vec<(usize, String, u64, Option<u32>)> {
    a.sites
        .sites
        .iter()
        .find(|s| s.line == line)
        .unwrap_or_else(|| panic!("no call on line {line}"))
        .bounds
        .iter()
        .map(|b| {
            (
                b.arg,
                b.variable.clone(),
                b.size,
                b.declared.as_ref().map(|d| d.1),
            )
        })
        .collect()
}

fn one(var: &str, size: u64, decl: u32) -> Vec<(usize, String, u64, Option<u32>)> {
    vec![(0, var.to_string(), size, Some(decl))]
}

#[test]
fn arrays_scalars_and_members_are_bounded_by_their_variable() {
    let a = common::analyze("bounds", &["bounds.c"]);
    // `a`, `&a[8]`, `a + 3`: the array of ten doubles.
    for line in [17, 18, 19] {
        assert_eq!(bounds(&a, line), one("a", 80, 9), "line {line}");
    }
    // `&x` of an int.
    assert_eq!(bounds(&a, 20), one("x", 4, 11));
    // A member array and the whole struct: the struct.
    assert_eq!(bounds(&a, 21), one("s", 40, 12));
    assert_eq!(bounds(&a, 22), one("s", 40, 12));
    // A row and an element of a two-dimensional array: all of it.
    assert_eq!(bounds(&a, 23), one("grid", 256, 10));
    assert_eq!(bounds(&a, 24), one("grid", 256, 10));
    // A global, and through a cast.
    assert_eq!(bounds(&a, 29), one("global", 128, 5));
    assert_eq!(bounds(&a, 30), one("a", 80, 9));
    // Both buffers of a gather.
    assert_eq!(
        bounds(&a, 31),
        vec![
            (0, "x".to_string(), 4, Some(11)),
            (3, "a".to_string(), 80, Some(9))
        ]
    );
}

#[test]
fn pointers_and_macros_are_not_bounded() {
    let a = common::analyze("bounds", &["bounds.c"]);
    // Through a pointer, a heap pointer, an element of it, a macro, a
    // member through a pointer.
    for line in [25, 26, 27, 28, 32] {
        assert_eq!(bounds(&a, line), vec![], "line {line}");
    }
}

#[test]
fn the_rewrite_hands_over_the_address_and_size() {
    let a = common::analyze("bounds", &["bounds.c"]);
    let text = std::fs::read_to_string(common::fixtures().join("bounds/bounds.c")).unwrap();
    let sites: Vec<_> = a.sites.sites.iter().collect();
    let out = instrument::rewrite(&text, &sites);
    let line = |n: usize| out.lines().nth(n - 1).unwrap().trim().to_string();
    let id = |l: u32| a.sites.sites.iter().find(|s| s.line == l).unwrap().id;
    assert_eq!(
        line(18),
        format!(
            "(fib__site({0}), fib__bound({0}, 0, &(a), sizeof(a)), MPI_Send)(&a[8], 2, \
             MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);",
            id(18)
        )
    );
    assert_eq!(
        line(26),
        format!(
            "(fib__site({}), MPI_Send)(h, 8, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);",
            id(26)
        )
    );
    assert_eq!(out.lines().count(), text.lines().count());
}
