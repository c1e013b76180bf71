//! FIB028: a group, datatype, reduction operation, info object or error
//! handler made by the program and never freed.

use super::common::{leak_message, leak_rank};
use super::{Code, Rule};
use crate::finding::{Finding, Place, Severity};

/// An MPI object other than a request or communicator still allocated at
/// `MPI_Finalize`.
pub const FIB028: Code = Code {
    code: "FIB028",
    name: "leaked-handle",
    severity: Severity::Note,
    tool_failure: false,
    summary:
        "A group, derived datatype, user operation, info object or error handler was never freed.",
    explanation: "\
## What it means

A rank made an MPI object and reached MPI_Finalize without freeing it:
a group (MPI_Comm_group, MPI_Group_incl, MPI_Group_excl,
MPI_Group_range_incl, MPI_Group_range_excl, MPI_Group_union,
MPI_Group_intersection, MPI_Group_difference) not freed with
MPI_Group_free; a derived datatype (MPI_Type_contiguous, MPI_Type_vector,
MPI_Type_create_hvector, MPI_Type_indexed, MPI_Type_create_hindexed,
MPI_Type_create_indexed_block, MPI_Type_create_hindexed_block,
MPI_Type_create_struct, MPI_Type_create_subarray,
MPI_Type_create_resized, MPI_Type_dup) not freed with MPI_Type_free; an
operation from MPI_Op_create not freed with MPI_Op_free; an info object
from MPI_Info_create or MPI_Info_dup not freed with MPI_Info_free; an
error handler from MPI_Comm_create_errhandler not freed with
MPI_Errhandler_free. The finding points at the call that made it, once
per call site, with the ranks and how many objects leaked there.

This is a note by default: the objects are released when the process ends,
so the leak harms only a program that makes them over and over. A project
that wants every leak fixed makes it fail the check with
`FIB028 = \"warning\"` (or `\"error\"`) under `[severity]` in `fib.toml`.

## Why it matters

Each object holds library memory, and MPI libraries keep their objects in
tables of limited size. A datatype built in every iteration of a time loop
and never freed grows the process until MPI fails far from the cause.

## Example

    MPI_Datatype column;
    MPI_Type_vector(n, 1, n, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);
    MPI_Send(a, 1, column, 1, 0, MPI_COMM_WORLD);
    MPI_Finalize();        /* column is never freed */

## What to do

Free the object with its free call (MPI_Group_free, MPI_Type_free,
MPI_Op_free, MPI_Info_free, MPI_Errhandler_free) once the rank no longer
needs it. A datatype may be freed as soon as the last call that uses it
has been made, an error handler as soon as it is set on its
communicators, a group as soon as the communicator it describes is made.
",
};

/// Objects one call site made and nothing freed, over the ranks and
/// instances that leaked there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeakedHandle {
    /// The ranks that leaked there.
    pub ranks: Vec<usize>,
    /// How many objects leaked there.
    pub count: usize,
    /// The MPI function that made them, such as `MPI_Type_vector`.
    pub call: String,
    /// What they are, such as `datatype`.
    pub noun: String,
    /// The call that frees them, such as `MPI_Type_free`.
    pub free_call: String,
    pub place: Place,
    pub replay: String,
}

impl Rule for LeakedHandle {
    const CODE: &'static Code = &FIB028;

    fn finding(&self) -> Finding {
        let what = format!("the {} this {} makes is never freed", self.noun, self.call);
        let mut f =
            Finding::new(Self::CODE, leak_message(&self.ranks, &what, self.count)).at(&self.place);
        f.rank = leak_rank(&self.ranks);
        f.replay = Some(self.replay.clone());
        f.help = Some(format!(
            "call {} on it once it is no longer used, before MPI_Finalize",
            self.free_call
        ));
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_object_and_its_free_call() {
        let f = LeakedHandle {
            ranks: vec![1, 0],
            count: 4,
            call: "MPI_Type_vector".into(),
            noun: "datatype".into(),
            free_call: "MPI_Type_free".into(),
            place: Place::default(),
            replay: "0".into(),
        }
        .finding();
        assert_eq!(
            f.message,
            "ranks 0, 1: the datatype this MPI_Type_vector makes is never freed (4 times)"
        );
        assert_eq!(
            f.help.as_deref(),
            Some("call MPI_Type_free on it once it is no longer used, before MPI_Finalize")
        );
        assert_eq!(f.severity(), Severity::Note);
    }
}
