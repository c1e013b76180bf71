//! A buffer that runs past the memory it points into
//! ([`Up::Overflow`](crate::Up::Overflow)): the bytes a call's buffer
//! argument covers (its count of elements of its datatype, placed by a
//! `v` form's displacement) against the heap block or the variable the
//! buffer pointer lies in. Found by the rank before the call reaches MPI.

use crate::site::Site;

/// One buffer of a call that runs past its memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Overflow {
    /// The buffer's position in the call's argument list, from 0.
    pub arg: u32,
    /// Whether MPI writes the buffer (a receive) or only reads it.
    pub writes: bool,
    /// The elements the call hands MPI there: for a gather's or scatter's
    /// root, every rank's block together.
    pub count: u64,
    /// How many ranks' blocks `count` stands for (a root's `size × count`),
    /// or 0 for a plain buffer.
    pub ranks: u32,
    /// The rank whose block of a `v` or `w` collective runs past, if the
    /// buffer has one block per rank.
    pub block: Option<u32>,
    /// The datatype's name (`MPI_INT`), or an empty string for a derived
    /// datatype.
    pub datatype: String,
    /// The datatype's extent, in bytes.
    pub extent: u64,
    /// The bytes the call touches, `[start, end)`, relative to the buffer
    /// pointer (a displacement or a negative lower bound may start them
    /// before it).
    pub start: i64,
    pub end: i64,
    /// Where the buffer pointer lies in its memory, in bytes from its start.
    pub offset: i64,
    /// The memory's size in bytes.
    pub size: u64,
    /// What the memory is.
    pub memory: Memory,
}

/// The memory a buffer pointer lies in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Memory {
    /// A block the program allocated with `allocator` (`malloc`,
    /// `operator new[]`, ...) at `site` (its return address).
    Heap { allocator: String, site: Site },
    /// The variable the site table names for this buffer argument (an
    /// array, a struct or a scalar whose address is taken).
    Variable,
}
