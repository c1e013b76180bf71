//! FIB030: a message received as another datatype than it was sent as.

use super::{Code, Rule};
use crate::finding::{Finding, Label, Place, Severity};

/// A send and its receive whose datatypes differ.
pub const FIB030: Code = Code {
    code: "FIB030",
    name: "type-mismatch",
    severity: Severity::Error,
    tool_failure: false,
    summary: "A message is received as another datatype than it was sent as (an MPI_INT send received as MPI_FLOAT).",
    explanation: "\
## What it means

A send and the receive that took its message name different datatypes:
the predefined datatype the send's data is made of is not the one the
receive expects. A derived datatype counts as the predefined datatype it
is built from (an MPI_Type_vector of MPI_DOUBLE is MPI_DOUBLE). One that
mixes several predefined datatypes (MPI_Type_create_struct of two ints
and a double) is compared by its whole type signature, the sequence of
predefined datatypes its type map holds, shown run-length encoded:
[(MPI_INT,2),(MPI_DOUBLE,1)], times the count when it is not one, and
shortened to its first runs when long. The message's signature must
begin the receive's (a receive may be given room for more than it
gets), whatever the constructors (contiguous, vector, indexed, struct,
subarray, resized ...) and their displacements: two structs sent as two
elements of the struct type may be received as one contiguous type of
two. MPI_BYTE and MPI_PACKED, and signatures holding them, match
anything; a signature of more than 64 runs, or of an
MPI_Type_create_darray, is not compared. The finding points at the
receive and labels the send. fib stops the interleaving there.

## Why it matters

MPI requires the type signatures of a send and its receive to match. MPI
libraries do not check it: the bytes arrive and are read as the wrong
type, so an MPI_INT received as MPI_FLOAT gives nonsense numbers without
any error, and a type of another size gives a truncation error or reads
past the data.

## Example

    if (rank == 0)
        MPI_Send(&n, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    else
        MPI_Recv(&x, 1, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

A struct received with its members in another order:

    /* struct cell { int id[2]; double v; } sent as [(MPI_INT,2),(MPI_DOUBLE,1)] */
    MPI_Send(&c, 1, cell_type, 1, 0, MPI_COMM_WORLD);
    /* received as [(MPI_DOUBLE,1),(MPI_INT,2)] */
    MPI_Recv(&d, 1, other_type, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

## What to do

Receive with the datatype the message was sent with (and convert after
receiving if the program needs another type).
",
};

/// A send and its receive whose datatypes differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeMismatch {
    pub send_rank: usize,
    pub send_call: String,
    pub send_type: String,
    pub send_place: Place,
    pub recv_rank: usize,
    pub recv_call: String,
    pub recv_type: String,
    pub place: Place,
    pub replay: String,
}

impl Rule for TypeMismatch {
    const CODE: &'static Code = &FIB030;

    fn finding(&self) -> Finding {
        let mut f = Finding::new(
            Self::CODE,
            format!(
                "rank {} receives as {} a message rank {} sent as {}",
                self.recv_rank, self.recv_type, self.send_rank, self.send_type
            ),
        )
        .at(&self.place);
        f.rank = Some(self.recv_rank);
        f.replay = Some(self.replay.clone());
        if let (Some(file), Some(line)) = (&self.send_place.file, self.send_place.line) {
            f.labels.push(Label {
                file: file.clone(),
                line,
                column: self.send_place.column.unwrap_or(1),
                span: self.send_place.span,
                message: format!(
                    "rank {}: this {} sends {}",
                    self.send_rank, self.send_call, self.send_type
                ),
            });
        }
        f.help = Some(format!(
            "receive with {} in this {}, as the message was sent",
            self.send_type, self.recv_call
        ));
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_both_types_and_labels_the_send() {
        let at = |line| Place {
            file: Some("a.c".into()),
            line: Some(line),
            column: Some(9),
            span: None,
        };
        let f = TypeMismatch {
            send_rank: 0,
            send_call: "MPI_Send".into(),
            send_type: "MPI_INT".into(),
            send_place: at(4),
            recv_rank: 1,
            recv_call: "MPI_Recv".into(),
            recv_type: "MPI_FLOAT".into(),
            place: at(6),
            replay: "0".into(),
        }
        .finding();
        assert_eq!(
            f.message,
            "rank 1 receives as MPI_FLOAT a message rank 0 sent as MPI_INT"
        );
        assert_eq!((f.line, f.rank), (Some(6), Some(1)));
        assert_eq!(f.labels[0].message, "rank 0: this MPI_Send sends MPI_INT");
    }
}
