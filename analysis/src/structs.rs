//! FIB041: struct datatypes against the C structs they describe. A rank
//! reports the blocks of each struct datatype a call uses
//! ([`fib_wire::Up::StructType`]); the site table knows the layout of the
//! C struct in that call's buffer ([`fib_sites::CallSite::structs`]). Each
//! block of a predefined datatype must start at a field's offset, cover
//! that field's elements (and those of the fields of the same type right
//! after it, with no padding between), and be of the field's C type.
//!
//! Not compared: MPI_BYTE, MPI_PACKED and character datatypes (raw
//! bytes), blocks of a derived datatype, fields that are no scalars
//! (nested structs, enums), unions (fields that share an offset), and the
//! fields no block names (a datatype for some of the fields, or a prefix
//! of the struct). A call with several struct buffers is reported only
//! when the datatype matches none of them.

use std::collections::BTreeMap;

use fib_report::codes::{LayoutFault, Rule, StructLayout};
use fib_report::Finding;
use fib_sites::{Field, StructBuffer};
use fib_wire::Site;

use crate::buffers::{datatype, fits};
use crate::record::RunRecord;
use crate::sites::Resolver;

/// The first block of `blocks` (byte displacement, blocklength, datatype)
/// that does not describe `s`'s fields, with what is wrong with it.
pub(crate) fn mismatch(
    blocks: &[(i64, i64, String)],
    s: &StructBuffer,
) -> Option<(usize, LayoutFault)> {
    let fields = &s.fields;
    // A union, or a struct whose fields share offsets: nothing to compare.
    if fields.is_empty() || fields.windows(2).any(|w| w[0].offset >= w[1].offset) {
        return None;
    }
    for (k, (disp, len, dtype)) in blocks.iter().enumerate() {
        let Some((kind, bytes, _)) = datatype(dtype) else {
            continue;
        };
        if *disp < 0 || *disp as u64 >= s.size {
            return Some((
                k,
                LayoutFault::Outside {
                    disp: *disp,
                    size: s.size,
                },
            ));
        }
        let d = *disp as u64;
        let Some(i) = fields.iter().position(|f| f.offset == d) else {
            // The field it falls in, else the block's field by order.
            let f = fields
                .iter()
                .rev()
                .find(|f| f.offset < d)
                .filter(|f| d < f.offset + f.count * f.element_size)
                .or_else(|| fields.get(k))
                .unwrap_or(&fields[0]);
            return Some((
                k,
                LayoutFault::Displacement {
                    disp: *disp,
                    field: f.name.clone(),
                    offset: f.offset,
                },
            ));
        };
        let f = &fields[i];
        if f.element.is_none() {
            continue;
        }
        let same = |g: &Field| {
            g.element.is_some_and(|e| fits(e, kind, bytes)) && g.element_size == bytes as u64
        };
        if !same(f) {
            return Some((
                k,
                LayoutFault::Type {
                    dtype: dtype.clone(),
                    field: f.name.clone(),
                    c_type: f.c_type.clone(),
                },
            ));
        }
        // The elements the block covers: this field's, then those of the
        // next fields of its type that follow with no padding.
        let mut left = *len;
        let mut at = i;
        let mut end = f.offset;
        while left > 0 {
            let Some(g) = fields.get(at).filter(|g| g.offset == end && same(g)) else {
                break;
            };
            left -= g.count as i64;
            end = g.offset + g.count * g.element_size;
            at += 1;
        }
        if left != 0 {
            return Some((
                k,
                LayoutFault::Blocklength {
                    len: *len,
                    field: f.name.clone(),
                    count: f.count,
                },
            ));
        }
    }
    None
}

/// The FIB041 findings of one run: one per site and fault, over the ranks
/// that showed it.
pub fn findings(sites: &Resolver, rec: &RunRecord) -> Vec<Finding> {
    let mut found: BTreeMap<(Site, usize, String), (StructLayout, Vec<usize>)> = BTreeMap::new();
    for u in &rec.struct_types {
        let Site::Table(id) = u.site else {
            continue;
        };
        let Some(s) = sites.by_id(id) else {
            continue;
        };
        if s.structs.is_empty() {
            continue;
        }
        let faults: Vec<_> = s
            .structs
            .iter()
            .map(|b| (b, mismatch(&u.blocks, b)))
            .collect();
        if faults.iter().any(|(_, f)| f.is_none()) {
            continue;
        }
        let Some((b, Some((block, fault)))) = faults.into_iter().next() else {
            continue;
        };
        let datatype = s.args.get(b.datatype.index).cloned().unwrap_or_default();
        let entry = found
            .entry((u.site, block, datatype.clone()))
            .or_insert_with(|| {
                (
                    StructLayout {
                        call: s.callee.clone(),
                        datatype,
                        struct_name: b.name.clone(),
                        block,
                        fault,
                        ranks: Vec::new(),
                        place: sites.placed(&s),
                    },
                    Vec::new(),
                )
            });
        if !entry.1.contains(&u.rank) {
            entry.1.push(u.rank);
        }
    }
    found
        .into_values()
        .map(|(mut f, mut ranks)| {
            ranks.sort_unstable();
            f.ranks = ranks;
            f.finding()
        })
        .collect()
}

/// Whether two FIB041 findings are the same (of another interleaving).
pub fn same(a: &Finding, b: &Finding) -> bool {
    a.code == b.code && a.file == b.file && a.line == b.line && a.message == b.message
}

#[cfg(test)]
mod tests {
    use super::*;

    use fib_sites::{ArgPlace, Element};

    fn field(name: &str, offset: u64, count: u64, element: Element, size: u64, c: &str) -> Field {
        Field {
            name: name.into(),
            offset,
            count,
            element_size: size,
            element: Some(element),
            c_type: c.into(),
        }
    }

    /// `struct { char c; double d; double v[3]; int n; }`.
    fn cell() -> StructBuffer {
        let at = ArgPlace {
            index: 0,
            line: 1,
            column: 1,
            span: (0, 1),
        };
        StructBuffer {
            buffer: at,
            datatype: at,
            name: "struct cell".into(),
            size: 48,
            fields: vec![
                field("c", 0, 1, Element::Char, 1, "char"),
                field("d", 8, 1, Element::Floating { bytes: 8 }, 8, "double"),
                field("v", 16, 3, Element::Floating { bytes: 8 }, 8, "double [3]"),
                field("n", 40, 1, Element::Integer { bytes: 4 }, 4, "int"),
            ],
        }
    }

    fn b(disp: i64, len: i64, t: &str) -> (i64, i64, String) {
        (disp, len, t.into())
    }

    #[test]
    fn offsets_lengths_and_types_of_the_fields_are_quiet() {
        let s = cell();
        let right = [
            b(0, 1, "MPI_CHAR"),
            b(8, 1, "MPI_DOUBLE"),
            b(16, 3, "MPI_DOUBLE"),
            b(40, 1, "MPI_INT"),
        ];
        assert_eq!(mismatch(&right, &s), None);
        // d and v in one block of four doubles; a prefix of the struct.
        assert_eq!(
            mismatch(&[b(0, 1, "MPI_CHAR"), b(8, 4, "MPI_DOUBLE")], &s),
            None
        );
        assert_eq!(mismatch(&[b(0, 1, "MPI_CHAR")], &s), None);
        // The struct as bytes.
        assert_eq!(mismatch(&[b(0, 48, "MPI_BYTE")], &s), None);
    }

    #[test]
    fn a_displacement_inside_a_field_or_in_padding_is_reported() {
        let s = cell();
        assert_eq!(
            mismatch(&[b(0, 1, "MPI_CHAR"), b(4, 1, "MPI_DOUBLE")], &s),
            Some((
                1,
                LayoutFault::Displacement {
                    disp: 4,
                    field: "d".into(),
                    offset: 8
                }
            ))
        );
        assert_eq!(
            mismatch(&[b(64, 1, "MPI_INT")], &s),
            Some((0, LayoutFault::Outside { disp: 64, size: 48 }))
        );
    }

    #[test]
    fn a_blocklength_or_type_not_the_fields_is_reported() {
        let s = cell();
        assert_eq!(
            mismatch(&[b(16, 2, "MPI_DOUBLE")], &s),
            Some((
                0,
                LayoutFault::Blocklength {
                    len: 2,
                    field: "v".into(),
                    count: 3
                }
            ))
        );
        // Past v into n, of another type.
        assert!(matches!(
            mismatch(&[b(16, 4, "MPI_DOUBLE")], &s),
            Some((0, LayoutFault::Blocklength { .. }))
        ));
        assert_eq!(
            mismatch(&[b(40, 1, "MPI_FLOAT")], &s),
            Some((
                0,
                LayoutFault::Type {
                    dtype: "MPI_FLOAT".into(),
                    field: "n".into(),
                    c_type: "int".into()
                }
            ))
        );
    }
}
