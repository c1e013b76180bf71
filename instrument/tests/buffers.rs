//! Tests of the buffer types the parse records for the check of buffers
//! against their datatypes (FIB032): the type of each buffer argument, as
//! written and through typedefs, what its elements are, where it and its
//! datatype argument are written, and the MPI name of the datatype.

mod common;

use instrument::{Analysis, BufferArg, Element};

/// The buffers recorded for the call to `callee` on `line` of `file`.
fn buffers<'a>(a: &'a Analysis, file: &str, line: u32, callee: &str) -> &'a [BufferArg] {
    &a.sites
        .sites
        .iter()
        .find(|s| s.file.to_str() == Some(file) && s.line == line && s.callee == callee)
        .unwrap_or_else(|| panic!("no {callee} at {file}:{line}"))
        .buffers
}

/// The one buffer of a call: (spelled, canonical, element, datatype).
fn one<'a>(a: &'a Analysis, file: &str, line: u32) -> (&'a str, &'a str, Element, &'a str) {
    match buffers(a, file, line, "MPI_Send") {
        [b] => (
            b.spelled.as_str(),
            b.canonical.as_str(),
            b.element,
            b.datatype_name.as_str(),
        ),
        other => panic!("{file}:{line}: {other:?}"),
    }
}

#[test]
fn a_buffer_has_the_type_of_its_elements_however_written() {
    let a = common::analyze("buffers", &["types.c"]);
    let f = Element::Floating { bytes: 8 };
    // An array, `&a[i]`, `a + i`, a two-dimensional array, a pointer.
    let b = &buffers(&a, "types.c", 29, "MPI_Send")[0];
    assert_eq!(
        (b.spelled.as_str(), b.element, b.datatype_name.as_str()),
        ("double *", f, "MPI_INT")
    );
    assert_eq!(
        one(&a, "types.c", 39),
        ("double *", "double *", f, "MPI_DOUBLE")
    );
    assert_eq!(
        one(&a, "types.c", 40),
        ("double *", "double *", f, "MPI_DOUBLE")
    );
    assert_eq!(
        one(&a, "types.c", 36),
        ("double *", "double *", f, "MPI_DOUBLE")
    );
    // `&x` of a float, received.
    let b = &buffers(&a, "types.c", 30, "MPI_Recv")[0];
    assert_eq!(
        (b.spelled.as_str(), b.element, b.datatype_name.as_str()),
        ("float *", Element::Floating { bytes: 4 }, "MPI_DOUBLE")
    );
    // A struct's member.
    assert_eq!(
        one(&a, "types.c", 31),
        ("int *", "int *", Element::Integer { bytes: 4 }, "MPI_LONG")
    );
}

#[test]
fn typedefs_are_seen_through() {
    let a = common::analyze("buffers", &["types.c"]);
    assert_eq!(
        one(&a, "types.c", 34),
        (
            "int32_t *",
            "int *",
            Element::Integer { bytes: 4 },
            "MPI_INT32_T"
        )
    );
    assert_eq!(
        one(&a, "types.c", 35),
        (
            "size_t *",
            "unsigned long *",
            Element::Integer { bytes: 8 },
            "MPI_UNSIGNED_LONG"
        )
    );
    let b = &buffers(&a, "types.c", 46, "MPI_Allreduce");
    assert_eq!(b.len(), 1, "MPI_IN_PLACE has no element type");
    assert_eq!(
        (
            b[0].buffer.index,
            b[0].spelled.as_str(),
            b[0].canonical.as_str()
        ),
        (1, "real_t *", "double *")
    );
}

#[test]
fn chars_bools_complex_numbers_and_pointers_are_told_apart() {
    let a = common::analyze("buffers", &["types.c"]);
    assert_eq!(one(&a, "types.c", 42).2, Element::Char);
    assert_eq!(one(&a, "types.c", 43).2, Element::Bool);
    assert_eq!(one(&a, "types.c", 41).2, Element::Complex { bytes: 8 });
    assert_eq!(
        one(&a, "types.c", 44),
        ("int **", "int **", Element::Pointer, "MPI_INT")
    );
}

#[test]
fn what_has_no_scalar_element_or_no_named_datatype_is_not_recorded() {
    let a = common::analyze("buffers", &["types.c"]);
    // A struct, a union, a `void *`, a datatype in a variable, a cast to
    // `void *`, a call a macro makes, `MPI_Get_count`.
    for line in [32, 33, 37, 38, 45, 48] {
        assert_eq!(buffers(&a, "types.c", line, "MPI_Send"), [], "line {line}");
    }
    assert_eq!(buffers(&a, "types.c", 49, "MPI_Get_count"), []);
}

#[test]
fn the_datatype_is_seen_through_the_trees_macros() {
    let a = common::analyze("buffers", &["types.c"]);
    // `REAL` and `REAL2`, defined as `MPI_DOUBLE` and `(REAL)`.
    assert_eq!(one(&a, "types.c", 36).3, "MPI_DOUBLE");
    assert_eq!(one(&a, "types.c", 39).3, "MPI_DOUBLE");
}

#[test]
fn both_buffers_of_a_collective_are_placed_where_written() {
    let a = common::analyze("buffers", &["types.c"]);
    let text = std::fs::read_to_string(common::fixtures().join("buffers/types.c")).unwrap();
    let b = buffers(&a, "types.c", 47, "MPI_Gather");
    let shown: Vec<(usize, &str, u32, &str, &str)> = b
        .iter()
        .map(|b| {
            (
                b.buffer.index,
                &text[b.buffer.span.0..b.buffer.span.1],
                b.buffer.column,
                &text[b.datatype.span.0..b.datatype.span.1],
                b.spelled.as_str(),
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            (0, "&x", 16, "MPI_INT", "float *"),
            (3, "a", 32, "MPI_INT", "double *")
        ]
    );
    assert!(b
        .iter()
        .all(|b| b.buffer.line == 47 && b.datatype.line == 47));
}

#[test]
fn cxx_complex_and_containers_are_classified_and_templates_left_alone() {
    let a = common::analyze("buffers", &["types.cpp"]);
    assert_eq!(
        one(&a, "types.cpp", 12),
        (
            "std::complex<double> *",
            "std::complex<double> *",
            Element::Complex { bytes: 8 },
            "MPI_CXX_DOUBLE_COMPLEX"
        )
    );
    assert_eq!(one(&a, "types.cpp", 13).0, "float *");
    // `T *` in a template: nothing known.
    assert_eq!(buffers(&a, "types.cpp", 6, "MPI_Send"), []);
}
