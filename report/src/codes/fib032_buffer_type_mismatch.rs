//! FIB032: a buffer whose C type does not match its datatype argument.

use super::{Code, Rule};
use crate::finding::{Finding, Label, Place, Severity};

/// A buffer argument whose elements are not what its predefined datatype
/// describes.
pub const FIB032: Code = Code {
    code: "FIB032",
    name: "buffer-type-mismatch",
    severity: Severity::Error,
    tool_failure: false,
    summary: "A buffer's C type does not match the predefined datatype that describes it (a `double` array sent as MPI_INT).",
    explanation: "\
## What it means

An MPI call names a predefined datatype for a buffer whose elements are of
another kind or size in C: a `double` array sent as MPI_INT, a `float`
received as MPI_DOUBLE, an `int` member of a struct sent as MPI_LONG.
fib compares, before running anything, every buffer of the sends and
receives (blocking, nonblocking and persistent, MPI_Sendrecv, MPI_Mrecv)
and of the collectives (MPI_Bcast, MPI_Reduce, MPI_Allreduce, MPI_Scan,
MPI_Gather, MPI_Scatter, MPI_Allgather, MPI_Alltoall, their `v` and
nonblocking forms) with the datatype argument that describes it. The
finding points at the buffer argument and labels the datatype argument.
The program is still run and checked as usual.

fib reads the buffer's type as the program writes it (an array, a pointer,
`&x`, `&s.count`, `&a[i]`, `a + i`) through typedefs (`int32_t` is `int`,
`size_t` is `unsigned long`), and reports only what reads the bytes as
something else:

- an integer against a floating or complex datatype, or the reverse;
- types of different sizes (`int` against MPI_LONG, `float` against
  MPI_DOUBLE, `short` against MPI_INT);
- a buffer of pointers against any datatype but a 64-bit integer.

It leaves alone what is the same bytes under another name: a sign
difference (`unsigned` against MPI_INT), integers of one size under
different names (`long` against MPI_LONG_LONG or MPI_INT64_T), `bool`
against a one-byte integer, a floating buffer against the complex datatype
of its precision or the reverse (the interleaved real and imaginary parts).
It compares nothing when it cannot tell what the bytes are: MPI_BYTE,
MPI_PACKED and the character datatypes (often used for raw bytes), `char`
buffers (raw storage), `void *` buffers (`malloc`'s result, an explicit
cast to `void *`, MPI_IN_PLACE, MPI_BOTTOM), buffers of structs, unions
or enums, buffers in templates, derived datatypes and pair types such as
MPI_2INT, a datatype held in a variable or written through a macro that
is not the tree's own, and calls produced by the program's macros.

## Why it matters

MPI libraries do not check that a buffer's type matches the datatype
argument: they send and receive count times the datatype's size from the
address they are given. A `double` array sent as MPI_INT sends half its
bytes, cut in the middle of numbers, which the receiver reads as
nonsense; a `float` received as MPI_DOUBLE writes eight bytes into four
and overwrites whatever follows it. Nothing fails: the program computes
wrong results, or crashes later somewhere else.

## Example

    double a[4];
    MPI_Send(a, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);       /* buffer is double */

    float x;
    MPI_Recv(&x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

## What to do

Name the datatype of the buffer's elements (MPI_DOUBLE for `double`,
MPI_FLOAT for `float`, MPI_INT for `int`), or give the buffer the type
the datatype describes, on both sides of the message. When the mismatch
is what the program means (bytes reinterpreted on purpose), cast the
buffer to `void *` or send it as MPI_BYTE, or write `fib: allow FIB032`
in a comment on the line.
",
};

/// A buffer argument whose C type does not match its datatype.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferTypeMismatch {
    /// The MPI function, such as `MPI_Send`.
    pub call: String,
    /// The buffer's type as written, as a pointer (`real_t *`).
    pub buffer: String,
    /// The same through typedefs (`double *`).
    pub canonical: String,
    /// The datatype argument's name (`MPI_INT`).
    pub datatype: String,
    /// The C type that datatype describes (`int`).
    pub describes: String,
    /// The datatype that describes the buffer's elements, when there is
    /// one (`MPI_DOUBLE`).
    pub suggest: Option<String>,
    /// The buffer argument.
    pub place: Place,
    /// The datatype argument.
    pub datatype_place: Place,
}

impl Rule for BufferTypeMismatch {
    const CODE: &'static Code = &FIB032;

    fn finding(&self) -> Finding {
        let shown = if self.buffer == self.canonical {
            format!("`{}`", self.buffer)
        } else {
            format!("`{}` (`{}`)", self.buffer, self.canonical)
        };
        let mut f = Finding::new(
            Self::CODE,
            format!(
                "the buffer is {shown} but the datatype is {}",
                self.datatype
            ),
        )
        .at(&self.place);
        if let (Some(file), Some(line)) = (&self.datatype_place.file, self.datatype_place.line) {
            f.labels.push(Label {
                file: file.clone(),
                line,
                column: self.datatype_place.column.unwrap_or(1),
                span: self.datatype_place.span,
                message: format!("{} describes `{}`", self.datatype, self.describes),
            });
        }
        f.notes.push(format!(
            "found before running: MPI does not check {}'s buffer against its datatype",
            self.call
        ));
        f.help = Some(match &self.suggest {
            Some(d) => format!(
                "use {d}, the datatype of `{}`, or a buffer of `{}`",
                self.canonical.trim_end_matches(" *"),
                self.describes
            ),
            None => format!("use a buffer of `{}`", self.describes),
        });
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(column: u32, span: (usize, usize)) -> Place {
        Place {
            file: Some("a.c".into()),
            line: Some(7),
            column: Some(column),
            span: Some(span),
        }
    }

    #[test]
    fn names_both_types_and_labels_the_datatype() {
        let f = BufferTypeMismatch {
            call: "MPI_Send".into(),
            buffer: "double *".into(),
            canonical: "double *".into(),
            datatype: "MPI_INT".into(),
            describes: "int".into(),
            suggest: Some("MPI_DOUBLE".into()),
            place: at(14, (100, 101)),
            datatype_place: at(20, (106, 113)),
        }
        .finding();
        assert_eq!(
            f.message,
            "the buffer is `double *` but the datatype is MPI_INT"
        );
        assert_eq!(
            (f.line, f.column, f.span, f.rank),
            (Some(7), Some(14), Some((100, 101)), None)
        );
        assert_eq!(f.labels[0].column, 20);
        assert_eq!(f.labels[0].span, Some((106, 113)));
        assert_eq!(f.labels[0].message, "MPI_INT describes `int`");
        assert_eq!(
            f.help.as_deref(),
            Some("use MPI_DOUBLE, the datatype of `double`, or a buffer of `int`")
        );
    }

    #[test]
    fn a_typedef_shows_what_it_stands_for() {
        let f = BufferTypeMismatch {
            call: "MPI_Allreduce".into(),
            buffer: "real_t *".into(),
            canonical: "double *".into(),
            datatype: "MPI_FLOAT".into(),
            describes: "float".into(),
            suggest: None,
            place: at(1, (0, 1)),
            datatype_place: at(5, (4, 5)),
        }
        .finding();
        assert_eq!(
            f.message,
            "the buffer is `real_t *` (`double *`) but the datatype is MPI_FLOAT"
        );
        assert_eq!(f.help.as_deref(), Some("use a buffer of `float`"));
    }
}
