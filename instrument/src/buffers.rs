//! The type of a buffer argument of an MPI call, for the check of a buffer
//! against the predefined datatype that describes it (FIB032): what the
//! buffer expression points to, through typedefs, when it is a scalar.
//!
//! The expression is read as the program wrote it, before the implicit
//! conversion to `void *` that passing it to MPI makes: `a` (an array of
//! `double`), `&x`, `&s.count`, `&a[i]`, `a + i`, `p` all give the type of
//! their elements. A buffer whose type is `void *` as written (an explicit
//! cast, `malloc`'s result, `MPI_IN_PLACE`, `MPI_BOTTOM`), or whose elements
//! are structs, unions, enums or a type that depends on a template
//! parameter, has no element type here: there is nothing to compare.

use clang::{Entity, EntityKind, Type, TypeKind};
use fib_sites::Element;

/// The type of the elements a buffer expression points to, as written:
/// down through the implicit conversions (and parentheses) to the
/// expression whose type is not `void *`, then through its pointer and
/// any array dimensions (`double a[4][4]` passed as `a` points to
/// `double [4]`: its elements are doubles).
fn element_type(arg: Entity<'_>) -> Option<Type<'_>> {
    let mut e = arg;
    while points_to_void(e.get_type()?) {
        match e.get_kind() {
            EntityKind::UnexposedExpr | EntityKind::ParenExpr => match e.get_children()[..] {
                [only] => e = only,
                _ => return None,
            },
            _ => return None,
        }
    }
    let t = e.get_type()?;
    let mut elem = pointee(t).or_else(|| pointee(t.get_canonical_type()))?;
    while is_array(elem.get_canonical_type()) {
        elem = elem
            .get_element_type()
            .or_else(|| elem.get_canonical_type().get_element_type())?;
    }
    Some(elem)
}

/// The buffer expression `arg`'s type as a pointer to its elements, as
/// written (`int32_t *`) and through typedefs (`int *`), and what its
/// elements are; `None` when they are no scalar fib classifies.
pub(crate) fn buffer_type(arg: Entity<'_>) -> Option<(String, String, Element)> {
    let elem = element_type(arg)?;
    let canonical = elem.get_canonical_type();
    let element = classify(canonical)?;
    Some((
        pointer_to(&elem.get_display_name()),
        pointer_to(&canonical.get_display_name()),
        element,
    ))
}

/// `int *` for `int`, `int **` for `int *`.
fn pointer_to(name: &str) -> String {
    match name.ends_with('*') {
        true => format!("{name}*"),
        false => format!("{name} *"),
    }
}

/// Whether `t` is a pointer to `void` (however qualified).
fn points_to_void(t: Type<'_>) -> bool {
    let c = t.get_canonical_type();
    c.get_kind() == TypeKind::Pointer
        && c.get_pointee_type()
            .is_some_and(|p| p.get_canonical_type().get_kind() == TypeKind::Void)
}

fn is_array(t: Type<'_>) -> bool {
    matches!(
        t.get_kind(),
        TypeKind::ConstantArray
            | TypeKind::IncompleteArray
            | TypeKind::VariableArray
            | TypeKind::DependentSizedArray
    )
}

/// What a pointer points to, or an array's elements.
fn pointee(t: Type<'_>) -> Option<Type<'_>> {
    match t.get_kind() {
        TypeKind::Pointer => t.get_pointee_type(),
        _ if is_array(t) => t.get_element_type(),
        _ => None,
    }
}

/// What a canonical element type is, when a scalar.
fn classify(t: Type<'_>) -> Option<Element> {
    let bytes = |t: Type<'_>| t.get_sizeof().ok().map(|n| n as u32);
    Some(match t.get_kind() {
        TypeKind::CharS | TypeKind::CharU | TypeKind::SChar | TypeKind::UChar => Element::Char,
        TypeKind::Bool => Element::Bool,
        TypeKind::Short
        | TypeKind::UShort
        | TypeKind::Int
        | TypeKind::UInt
        | TypeKind::Long
        | TypeKind::ULong
        | TypeKind::LongLong
        | TypeKind::ULongLong
        | TypeKind::Int128
        | TypeKind::UInt128
        | TypeKind::WChar
        | TypeKind::Char16
        | TypeKind::Char32 => Element::Integer { bytes: bytes(t)? },
        TypeKind::Half
        | TypeKind::Float16
        | TypeKind::Float
        | TypeKind::Double
        | TypeKind::LongDouble
        | TypeKind::Float128 => Element::Floating { bytes: bytes(t)? },
        // Two parts, each half its size.
        TypeKind::Complex => Element::Complex {
            bytes: bytes(t)? / 2,
        },
        TypeKind::Pointer | TypeKind::BlockPointer | TypeKind::ObjCObjectPointer => {
            Element::Pointer
        }
        TypeKind::Record => std_complex(t)?,
        // Some libclang versions do not expose C's complex types.
        TypeKind::Unexposed
            if matches!(
                t.get_display_name().as_str(),
                "_Complex float" | "_Complex double" | "_Complex long double"
            ) =>
        {
            Element::Complex {
                bytes: bytes(t)? / 2,
            }
        }
        _ => return None,
    })
}

/// `std::complex<T>` for a real floating `T`, as a complex element.
fn std_complex(t: Type<'_>) -> Option<Element> {
    let decl = t.get_declaration()?;
    if decl.get_name().as_deref() != Some("complex") {
        return None;
    }
    // In namespace `std`, or in an inline namespace of it (libc++'s `__1`).
    let mut parent = decl.get_semantic_parent()?;
    if parent.get_kind() == EntityKind::Namespace && parent.get_name().as_deref() != Some("std") {
        parent = parent.get_semantic_parent()?;
    }
    if parent.get_kind() != EntityKind::Namespace || parent.get_name().as_deref() != Some("std") {
        return None;
    }
    let arg = t.get_template_argument_types()?.into_iter().next()??;
    match classify(arg.get_canonical_type())? {
        Element::Floating { bytes } => Some(Element::Complex { bytes }),
        _ => None,
    }
}

/// The C struct (or union) the buffer expression `arg` points to, as its
/// name, size and fields (for FIB041); `None` when its elements are no
/// struct, or one whose layout libclang cannot give (incomplete,
/// dependent).
pub(crate) fn struct_layout(arg: Entity<'_>) -> Option<(String, u64, Vec<fib_sites::Field>)> {
    let elem = element_type(arg)?;
    let canonical = elem.get_canonical_type();
    if canonical.get_kind() != TypeKind::Record || std_complex(canonical).is_some() {
        return None;
    }
    let size = canonical.get_sizeof().ok()? as u64;
    let mut fields = Vec::new();
    for f in canonical.get_fields()? {
        let name = f.get_name()?;
        // Bit-fields have no byte offset of their own: no layout to compare.
        if f.is_bit_field() {
            return None;
        }
        let offset = f.get_offset_of_field().ok()? as u64 / 8;
        let ft = f.get_type()?.get_canonical_type();
        let mut count = 1u64;
        let mut el = ft;
        while is_array(el) {
            count = count.saturating_mul(el.get_size().unwrap_or(0) as u64);
            el = el.get_element_type()?.get_canonical_type();
        }
        fields.push(fib_sites::Field {
            name,
            offset,
            count,
            element_size: el.get_sizeof().ok().unwrap_or(0) as u64,
            element: classify(el),
            c_type: ft.get_display_name(),
        });
    }
    Some((elem.get_display_name(), size, fields))
}
