//! FIB041: a struct datatype that does not describe the C struct it is
//! used with.

use super::{Code, Rule};
use crate::finding::{Finding, Place, Severity};

/// A struct datatype whose blocks do not match the fields of the C struct
/// in the buffer of a call that uses it.
pub const FIB041: Code = Code {
    code: "FIB041",
    name: "struct-layout",
    severity: Severity::Error,
    tool_failure: false,
    summary: "A datatype made by MPI_Type_create_struct does not match the C struct it describes (a displacement, blocklength or type that is not the field's).",
    explanation: "\
## What it means

A call sends or receives a buffer of C structs (its buffer argument is a
`struct particle *`, an array of them, or `&p`) with a datatype that
MPI_Type_create_struct made (directly, or resized or duplicated from
one), and a block of that datatype does not describe the struct's field
at its place, as the compiler lays the struct out:

- its displacement is not the offset of any field: hand-written
  displacements such as {0, 4} for `struct { char c; double d; }`, whose
  `d` is at offset 8 once padded;
- its blocklength is not the field's number of elements (a block of 3
  MPI_DOUBLE for `double x[2]`), where consecutive fields of one type
  with no padding between them may share one block;
- its predefined datatype is not the field's C type (MPI_INT for a
  `double`; integers of another name but the same size, and character
  fields, are not compared).

The finding names the call, the struct, the block (numbered from 0 in
the order the program gave the blocks) and the field. Displacements
taken with MPI_Get_address or offsetof are the fields' offsets and stay
quiet; so do MPI_BYTE blocks (raw bytes of the struct), blocks of a
derived datatype or of a nested struct, unions and structs with
bit-fields, and a datatype built for only some of the fields, or for a
prefix of the struct on purpose. The call runs on; each site and
datatype is reported once.

## Why it matters

MPI moves exactly the bytes the datatype's type map names. A wrong
displacement reads padding or half of another field, a short blocklength
leaves elements out, and a wrong type converts the bytes wrongly between
machines: the received struct holds garbage, and no MPI library says so.

## Example

    struct cell { char c; double d; } x;
    int lengths[2] = {1, 1};
    MPI_Aint displs[2] = {0, 4};          /* d is at 8, not 4 */
    MPI_Datatype types[2] = {MPI_CHAR, MPI_DOUBLE}, t;
    MPI_Type_create_struct(2, lengths, displs, types, &t);
    MPI_Type_commit(&t);
    MPI_Send(&x, 1, t, 1, 0, MPI_COMM_WORLD);

## What to do

Take each displacement with offsetof(struct cell, d) (or MPI_Get_address
of the field minus that of the struct), give each block the field's
element count and the MPI datatype of its C type, and resize the datatype
to sizeof(struct cell) with MPI_Type_create_resized when arrays of the
struct are sent.
",
};

/// What is wrong with one block of the datatype.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayoutFault {
    /// The block's displacement is no field's offset; `field` is the field
    /// it falls in (or the block's field by order), at `offset`.
    Displacement {
        disp: i64,
        field: String,
        offset: u64,
    },
    /// The block's displacement is outside the struct of `size` bytes.
    Outside { disp: i64, size: u64 },
    /// The block's blocklength is not the field's element count (with the
    /// fields of its type right after it).
    Blocklength { len: i64, field: String, count: u64 },
    /// The block's datatype is not the field's C type.
    Type {
        dtype: String,
        field: String,
        c_type: String,
    },
}

/// A struct datatype used with a buffer of C structs it does not match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StructLayout {
    /// The call, such as `MPI_Send`.
    pub call: String,
    /// The datatype argument as written.
    pub datatype: String,
    /// The C struct, such as `struct cell`.
    pub struct_name: String,
    /// The block, from 0, in the program's order.
    pub block: usize,
    pub fault: LayoutFault,
    /// The ranks whose call used it.
    pub ranks: Vec<usize>,
    pub place: Place,
}

impl Rule for StructLayout {
    const CODE: &'static Code = &FIB041;

    fn finding(&self) -> Finding {
        let b = self.block;
        let (what, help) = match &self.fault {
            LayoutFault::Displacement {
                disp,
                field,
                offset,
            } => (
                format!("block {b}'s displacement {disp} is not the offset of field `{field}` ({offset})"),
                format!(
                    "take the displacement with offsetof({}, {field})",
                    self.struct_name
                ),
            ),
            LayoutFault::Outside { disp, size } => (
                format!("block {b}'s displacement {disp} is past the struct's {size} bytes"),
                "take each displacement with offsetof on a field of the struct".to_string(),
            ),
            LayoutFault::Blocklength { len, field, count } => (
                format!(
                    "block {b}'s blocklength {len} is not the {count} element{} of field `{field}`",
                    if *count == 1 { "" } else { "s" }
                ),
                format!("give block {b} the blocklength {count}"),
            ),
            LayoutFault::Type {
                dtype,
                field,
                c_type,
            } => (
                format!("block {b} is {dtype} but field `{field}` is {c_type}"),
                format!("give block {b} the MPI datatype of {c_type}"),
            ),
        };
        let mut f = Finding::new(
            Self::CODE,
            format!(
                "the datatype {} of this {} does not match {}: {what}",
                self.datatype, self.call, self.struct_name
            ),
        )
        .at(&self.place);
        f.rank = self.ranks.first().copied();
        f.help = Some(help);
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_block_and_the_field() {
        let f = StructLayout {
            call: "MPI_Send".into(),
            datatype: "t".into(),
            struct_name: "struct cell".into(),
            block: 1,
            fault: LayoutFault::Displacement {
                disp: 4,
                field: "d".into(),
                offset: 8,
            },
            ranks: vec![0],
            place: Place {
                file: Some("a.c".into()),
                line: Some(12),
                column: Some(5),
                span: None,
            },
        }
        .finding();
        assert_eq!(
            f.message,
            "the datatype t of this MPI_Send does not match struct cell: block 1's displacement 4 is not the offset of field `d` (8)"
        );
        assert_eq!(
            f.help.as_deref(),
            Some("take the displacement with offsetof(struct cell, d)")
        );
        assert_eq!((f.line, f.rank), (Some(12), Some(0)));
    }
}
