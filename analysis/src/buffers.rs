//! Buffers whose C type does not match the predefined datatype that
//! describes them, found in the site table before running
//! ([`fib_sites::CallSite::buffers`]), as FIB032 findings.
//!
//! What counts as a mismatch: the bytes would be read as something else.
//! An integer buffer against a floating or complex datatype (or the
//! reverse), or element and datatype of different sizes, or a buffer of
//! pointers against anything but a 64-bit integer. Not a mismatch: a sign
//! difference (`unsigned` as MPI_INT), integers of one size under another
//! name (`long` as MPI_LONG_LONG, `int64_t` as MPI_LONG), `bool` as a
//! one-byte integer, a floating buffer as the complex datatype of its
//! precision and the reverse (interleaved parts). Not compared at all:
//! `char` buffers (raw storage), MPI_BYTE, MPI_PACKED and the character
//! datatypes (raw bytes), and every datatype this table does not name
//! (derived datatypes in variables, pair types such as MPI_2INT, Fortran
//! types). Sizes are those of the LP64 Linux targets fib runs on.

use fib_report::codes::{BufferTypeMismatch, Rule};
use fib_report::{Finding, Place};
use fib_sites::{ArgPlace, BufferArg, CallSite, Element};

use crate::sites::Resolver;

/// What a predefined datatype's elements are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Integer,
    Bool,
    Floating,
    Complex,
}

/// The predefined datatype `name`: its kind, its size in bytes (of each
/// part, for a complex type) and the C type it describes; `None` for the
/// datatypes that are not compared.
pub(crate) fn datatype(name: &str) -> Option<(Kind, u32, &'static str)> {
    use Kind::*;
    Some(match name {
        "MPI_SHORT" => (Integer, 2, "short"),
        "MPI_UNSIGNED_SHORT" => (Integer, 2, "unsigned short"),
        "MPI_INT" => (Integer, 4, "int"),
        "MPI_UNSIGNED" => (Integer, 4, "unsigned int"),
        "MPI_LONG" => (Integer, 8, "long"),
        "MPI_UNSIGNED_LONG" => (Integer, 8, "unsigned long"),
        "MPI_LONG_LONG" | "MPI_LONG_LONG_INT" => (Integer, 8, "long long"),
        "MPI_UNSIGNED_LONG_LONG" => (Integer, 8, "unsigned long long"),
        "MPI_WCHAR" => (Integer, 4, "wchar_t"),
        "MPI_INT8_T" => (Integer, 1, "int8_t"),
        "MPI_UINT8_T" => (Integer, 1, "uint8_t"),
        "MPI_INT16_T" => (Integer, 2, "int16_t"),
        "MPI_UINT16_T" => (Integer, 2, "uint16_t"),
        "MPI_INT32_T" => (Integer, 4, "int32_t"),
        "MPI_UINT32_T" => (Integer, 4, "uint32_t"),
        "MPI_INT64_T" => (Integer, 8, "int64_t"),
        "MPI_UINT64_T" => (Integer, 8, "uint64_t"),
        "MPI_AINT" => (Integer, 8, "MPI_Aint"),
        "MPI_OFFSET" => (Integer, 8, "MPI_Offset"),
        "MPI_COUNT" => (Integer, 8, "MPI_Count"),
        "MPI_C_BOOL" => (Bool, 1, "_Bool"),
        "MPI_CXX_BOOL" => (Bool, 1, "bool"),
        "MPI_FLOAT" => (Floating, 4, "float"),
        "MPI_DOUBLE" => (Floating, 8, "double"),
        "MPI_LONG_DOUBLE" => (Floating, 16, "long double"),
        "MPI_C_COMPLEX" | "MPI_C_FLOAT_COMPLEX" => (Complex, 4, "float _Complex"),
        "MPI_C_DOUBLE_COMPLEX" => (Complex, 8, "double _Complex"),
        "MPI_C_LONG_DOUBLE_COMPLEX" => (Complex, 16, "long double _Complex"),
        "MPI_CXX_FLOAT_COMPLEX" => (Complex, 4, "std::complex<float>"),
        "MPI_CXX_DOUBLE_COMPLEX" => (Complex, 8, "std::complex<double>"),
        "MPI_CXX_LONG_DOUBLE_COMPLEX" => (Complex, 16, "std::complex<long double>"),
        _ => return None,
    })
}

/// Whether a buffer of `element`s may be described by a datatype of
/// `kind` and `bytes`.
pub(crate) fn fits(element: Element, kind: Kind, bytes: u32) -> bool {
    let integer = |n: u32| matches!(kind, Kind::Integer | Kind::Bool) && bytes == n;
    let floating = |n: u32| matches!(kind, Kind::Floating | Kind::Complex) && bytes == n;
    match element {
        Element::Char => true,
        Element::Bool => integer(1),
        Element::Integer { bytes: n } => integer(n),
        Element::Floating { bytes: n } | Element::Complex { bytes: n } => floating(n),
        Element::Pointer => kind == Kind::Integer && bytes == 8,
    }
}

/// The predefined datatype of a canonical C element type, for the help.
fn datatype_of(canonical: &str) -> Option<&'static str> {
    let mut t = canonical.trim_end_matches('*').trim();
    for q in ["const ", "volatile "] {
        t = t.strip_prefix(q).unwrap_or(t);
    }
    Some(match t {
        "short" => "MPI_SHORT",
        "unsigned short" => "MPI_UNSIGNED_SHORT",
        "int" => "MPI_INT",
        "unsigned int" => "MPI_UNSIGNED",
        "long" => "MPI_LONG",
        "unsigned long" => "MPI_UNSIGNED_LONG",
        "long long" => "MPI_LONG_LONG",
        "unsigned long long" => "MPI_UNSIGNED_LONG_LONG",
        "wchar_t" => "MPI_WCHAR",
        "_Bool" => "MPI_C_BOOL",
        "bool" => "MPI_CXX_BOOL",
        "float" => "MPI_FLOAT",
        "double" => "MPI_DOUBLE",
        "long double" => "MPI_LONG_DOUBLE",
        "_Complex float" => "MPI_C_FLOAT_COMPLEX",
        "_Complex double" => "MPI_C_DOUBLE_COMPLEX",
        "_Complex long double" => "MPI_C_LONG_DOUBLE_COMPLEX",
        "std::complex<float>" => "MPI_CXX_FLOAT_COMPLEX",
        "std::complex<double>" => "MPI_CXX_DOUBLE_COMPLEX",
        "std::complex<long double>" => "MPI_CXX_LONG_DOUBLE_COMPLEX",
        _ => return None,
    })
}

/// What the check of buffers against datatypes found in a program.
#[derive(Clone, Debug, Default)]
pub struct BufferCheck {
    /// How many buffer arguments were compared with their datatype.
    pub compared: usize,
    /// One FIB032 finding per mismatch, in site-table order.
    pub findings: Vec<Finding>,
}

/// Compares every buffer of the program's site table whose datatype is a
/// predefined one fib knows with that datatype; sites in code the program
/// never runs ([`fib_sites::Facts::dead`]) are left out.
pub fn buffer_mismatches(sites: &Resolver) -> BufferCheck {
    let mut out = BufferCheck::default();
    for s in sites.analysis().live_sites() {
        for b in &s.buffers {
            let Some((kind, bytes, describes)) = datatype(&b.datatype_name) else {
                continue;
            };
            out.compared += 1;
            if !fits(b.element, kind, bytes) {
                out.findings.push(mismatch(sites, s, b, describes));
            }
        }
    }
    out
}

fn mismatch(sites: &Resolver, s: &CallSite, b: &BufferArg, describes: &str) -> Finding {
    let at = |a: &ArgPlace| Place {
        file: Some(sites.show(&s.file)),
        line: Some(a.line),
        column: Some(a.column),
        span: Some(a.span),
    };
    BufferTypeMismatch {
        call: s.callee.clone(),
        buffer: b.spelled.clone(),
        canonical: b.canonical.clone(),
        datatype: b.datatype_name.clone(),
        describes: describes.to_string(),
        suggest: datatype_of(&b.canonical).map(str::to_string),
        place: at(&b.buffer),
        datatype_place: at(&b.datatype),
    }
    .finding()
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::path::{Path, PathBuf};

    use fib_sites::{Analysis, SiteTable};

    fn int(bytes: u32) -> Element {
        Element::Integer { bytes }
    }

    fn float(bytes: u32) -> Element {
        Element::Floating { bytes }
    }

    /// Whether a buffer of `element` is reported against `datatype`.
    fn flagged(element: Element, datatype_name: &str) -> bool {
        datatype(datatype_name).is_some_and(|(k, n, _)| !fits(element, k, n))
    }

    #[test]
    fn kinds_and_sizes_that_differ_are_mismatches() {
        assert!(flagged(float(8), "MPI_INT"));
        assert!(flagged(float(4), "MPI_DOUBLE"));
        assert!(flagged(int(4), "MPI_LONG"));
        assert!(flagged(int(4), "MPI_FLOAT"));
        assert!(flagged(int(2), "MPI_INT"));
        assert!(flagged(int(8), "MPI_DOUBLE"));
        assert!(flagged(Element::Complex { bytes: 8 }, "MPI_INT"));
        assert!(flagged(
            Element::Complex { bytes: 4 },
            "MPI_C_DOUBLE_COMPLEX"
        ));
        assert!(flagged(Element::Pointer, "MPI_INT"));
        assert!(flagged(Element::Pointer, "MPI_DOUBLE"));
        assert!(flagged(Element::Bool, "MPI_INT"));
        assert!(flagged(float(16), "MPI_DOUBLE"));
    }

    #[test]
    fn the_same_bytes_under_another_name_are_left_alone() {
        // Sign, and the names of one size.
        assert!(!flagged(int(4), "MPI_UNSIGNED"));
        assert!(!flagged(int(4), "MPI_INT32_T"));
        assert!(!flagged(int(8), "MPI_LONG_LONG"));
        assert!(!flagged(int(8), "MPI_UNSIGNED_LONG"));
        assert!(!flagged(int(8), "MPI_INT64_T"));
        assert!(!flagged(int(4), "MPI_WCHAR"));
        assert!(!flagged(Element::Bool, "MPI_C_BOOL"));
        assert!(!flagged(Element::Bool, "MPI_UINT8_T"));
        assert!(!flagged(int(1), "MPI_C_BOOL"));
        // Interleaved complex numbers.
        assert!(!flagged(float(8), "MPI_C_DOUBLE_COMPLEX"));
        assert!(!flagged(Element::Complex { bytes: 8 }, "MPI_DOUBLE"));
        assert!(!flagged(
            Element::Complex { bytes: 8 },
            "MPI_CXX_DOUBLE_COMPLEX"
        ));
        assert!(!flagged(float(16), "MPI_LONG_DOUBLE"));
        assert!(!flagged(Element::Pointer, "MPI_AINT"));
    }

    #[test]
    fn raw_bytes_and_unknown_datatypes_are_not_compared() {
        for dt in [
            "MPI_BYTE",
            "MPI_PACKED",
            "MPI_CHAR",
            "MPI_SIGNED_CHAR",
            "MPI_UNSIGNED_CHAR",
            "MPI_2INT",
            "MPI_DOUBLE_INT",
            "MPI_INTEGER",
            "MPI_MYTYPE",
        ] {
            assert!(!flagged(float(8), dt), "{dt}");
        }
        // A char buffer is raw storage.
        assert!(!flagged(Element::Char, "MPI_DOUBLE"));
        assert!(!flagged(Element::Char, "MPI_INT"));
    }

    fn arg(index: usize, column: u32) -> ArgPlace {
        ArgPlace {
            index,
            line: 5,
            column,
            span: (100 + column as usize, 101 + column as usize),
        }
    }

    fn site(id: u32, buffers: Vec<BufferArg>) -> CallSite {
        CallSite {
            id,
            file: PathBuf::from("a.c"),
            line: 5,
            column: 5,
            span: (104, 150),
            callee: "MPI_Send".into(),
            args: Vec::new(),
            function: Some("main".into()),
            macro_name: None,
            buffers,
            bounds: Vec::new(),
            structs: Vec::new(),
            any_thread: None,
        }
    }

    fn buffer(spelled: &str, canonical: &str, element: Element, dt: &str) -> BufferArg {
        BufferArg {
            buffer: arg(0, 14),
            datatype: arg(2, 20),
            datatype_name: dt.into(),
            spelled: spelled.into(),
            canonical: canonical.into(),
            element,
        }
    }

    #[test]
    fn a_mismatch_is_a_finding_at_the_buffer_labelling_the_datatype() {
        let mut a = Analysis {
            sites: SiteTable {
                sites: vec![
                    site(0, vec![buffer("double *", "double *", float(8), "MPI_INT")]),
                    site(
                        1,
                        vec![buffer(
                            "size_t *",
                            "unsigned long *",
                            int(8),
                            "MPI_UNSIGNED_LONG",
                        )],
                    ),
                    site(
                        2,
                        vec![buffer("real_t *", "double *", float(8), "MPI_FLOAT")],
                    ),
                    site(
                        3,
                        vec![buffer("double *", "double *", float(8), "MPI_BYTE")],
                    ),
                ],
            },
            ..Analysis::default()
        };
        let r = Resolver::new(&a, Path::new("src"));
        let found = buffer_mismatches(&r);
        assert_eq!(found.compared, 3);
        let shown: Vec<&str> = found.findings.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(
            shown,
            [
                "the buffer is `double *` but the datatype is MPI_INT",
                "the buffer is `real_t *` (`double *`) but the datatype is MPI_FLOAT"
            ]
        );
        let f = &found.findings[0];
        assert_eq!(f.file.as_deref(), Some("src/a.c"));
        assert_eq!(
            (f.line, f.column, f.span),
            (Some(5), Some(14), Some((114, 115)))
        );
        assert_eq!(f.labels[0].column, 20);
        assert_eq!(f.labels[0].message, "MPI_INT describes `int`");
        assert!(f.help.as_deref().unwrap().starts_with("use MPI_DOUBLE"));

        // Code the program never runs is left out.
        a.facts.dead = vec![0];
        let r = Resolver::new(&a, Path::new("src"));
        assert_eq!(buffer_mismatches(&r).findings.len(), 1);
    }
}
