//! FIB039: a buffer whose count and datatype run past the memory it
//! points into.

use super::fib035_rma_epoch::label;
use super::{Code, Rule};
use crate::finding::{Finding, Place, Severity};

/// A call's buffer that covers more bytes than its array, variable or
/// heap block holds.
pub const FIB039: Code = Code {
    code: "FIB039",
    name: "buffer-overflow",
    severity: Severity::Error,
    tool_failure: false,
    summary: "A buffer's count times its datatype's extent runs past the array, variable or heap block the buffer points into.",
    explanation: "\
## What it means

An MPI call was given a buffer whose count of elements of its datatype
covers more bytes than the memory the buffer points into holds: MPI would
read (a send) or write (a receive) past the end of an array, of a
variable whose address was taken, or of a block the program allocated,
or before its start. fib checks this at every call, on every rank, just
before the call reaches MPI, with the count and datatype the call was
given at run time:

- the bytes a buffer covers are `count` elements of its datatype, from
  the true lower bound of the first to the true end of the last (the
  gaps of a derived datatype count); a gather's or scatter's root buffer
  holds one block per rank (`size × count`); the blocks of the `v` and
  `w` forms are placed at their displacements; `MPI_IN_PLACE` covers
  nothing;
- the memory is the variable the buffer expression names when the
  compiler knows its size (an array `a`, `&a[i]`, `a + i`, a struct or a
  member of one reached with `.`, `&x` of a scalar), or else the heap
  block the pointer lies in, when the program allocated it with
  `malloc`, `calloc`, `realloc`, `posix_memalign`, `aligned_alloc`,
  `memalign` or C++'s `new` (fib links the program so that it sees its
  own allocations). A pointer into other memory is not checked.

The first such call ends the run, before MPI sees it: the finding names
the call, the bytes it needs (count, datatype, extent), the size of the
memory and where it was declared or allocated. A program run with `fib
run` (a binary fib did not build) is not checked: fib cannot see its
allocations or its arrays.

## Why it matters

MPI does not know how large a buffer is. A receive past the end of its
buffer overwrites whatever lies after it (other variables, the heap's
own bookkeeping) and the program fails later, somewhere else, or only
with larger messages; a send past the end reads and delivers bytes the
program never meant to send, or faults. Such bugs often hide for years
behind a generous allocator.

## Example

    int *buf = malloc(10 * sizeof(int));
    /* 20 ints into room for 10. */
    MPI_Recv(buf, 20, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    int x;
    MPI_Send(&x, 2, MPI_INT, 1, 0, MPI_COMM_WORLD);   /* one int, sent as two */

    int all[4];
    /* At 8 processes the root receives 8 ints into room for 4. */
    MPI_Gather(&x, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);

## What to do

Make the buffer as large as the count times the datatype's extent (for a
root, the number of processes times the count; for a `v` form, the
largest displacement plus its count), or pass a smaller count. When the
buffer is meant to span several variables (consecutive struct members,
say), describe them with a derived datatype built on one object.
",
};

/// The facts of a buffer that runs past its memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferOverflow {
    pub rank: usize,
    /// The MPI function, such as `MPI_Recv`.
    pub call: String,
    /// The buffer argument as written, when the site table has it.
    pub buffer: Option<String>,
    /// Whether MPI writes the buffer (a receive) or reads it.
    pub writes: bool,
    /// The elements handed over there (for a root, every rank's).
    pub count: u64,
    /// How many ranks' blocks `count` holds (0: a plain buffer).
    pub ranks: u32,
    /// The rank whose block of a `v` or `w` form runs past.
    pub block: Option<u32>,
    /// The datatype's name (empty: derived).
    pub datatype: String,
    pub extent: u64,
    /// The bytes covered, `[start, end)`, from the start of the memory.
    pub start: i64,
    pub end: i64,
    /// The memory: its size and what it is in words ("the array `a`
    /// (double [10])", "the block malloc returned").
    pub size: u64,
    pub memory: String,
    /// Where the memory was declared or allocated, with what to say there.
    pub made: Option<(Place, String)>,
    pub place: Place,
    pub replay: String,
}

impl BufferOverflow {
    /// "20 × MPI_INT", "2 × MPI_INT from each of 4 ranks", "rank 3's
    /// block of 2 × a derived datatype of extent 12".
    fn elements(&self) -> String {
        let dt = if self.datatype.is_empty() {
            format!("a derived datatype of extent {}", self.extent)
        } else {
            self.datatype.clone()
        };
        match (self.ranks, self.block) {
            (0, None) => format!("{} × {dt}", self.count),
            (0, Some(b)) => format!("rank {b}'s block, {} × {dt}", self.count),
            (r, _) => format!(
                "{} × {dt} from each of {r} ranks",
                self.count / u64::from(r)
            ),
        }
    }
}

impl Rule for BufferOverflow {
    const CODE: &'static Code = &FIB039;

    fn finding(&self) -> Finding {
        let verb = if self.writes { "writes" } else { "reads" };
        let len = self.end - self.start;
        let whose = match &self.buffer {
            Some(b) => format!(" of `{b}`"),
            None => String::new(),
        };
        let (excess, side) = if self.end > self.size as i64 {
            (self.end - self.size as i64, "past its end")
        } else {
            (-self.start, "before its start")
        };
        let from = if self.start == 0 {
            "from the start".to_string()
        } else {
            format!("from byte {}", self.start)
        };
        let mut f = Finding::new(
            Self::CODE,
            format!(
                "{} {verb} {len} bytes{whose} ({}) {from} of {}, {} bytes long: {excess} bytes {side}",
                self.call,
                self.elements(),
                self.memory,
                self.size
            ),
        )
        .at(&self.place);
        f.rank = Some(self.rank);
        f.replay = Some(self.replay.clone());
        if let Some(l) = self.made.as_ref().and_then(|(p, m)| label(p, m)) {
            f.labels.push(l);
        }
        if !self.datatype.is_empty() && self.ranks == 0 && self.block.is_none() {
            f.notes.push(format!(
                "found at run time, before the call reached MPI: {} {} of {} bytes each is {} bytes",
                self.count,
                self.datatype,
                self.extent,
                self.count.saturating_mul(self.extent)
            ));
        } else {
            f.notes
                .push("found at run time, before the call reached MPI".into());
        }
        f.help = Some(if self.ranks > 0 {
            "a root's buffer holds one block per process: make it as large as the number of \
             processes times the count"
                .into()
        } else if self.block.is_some() {
            "keep every block's displacement plus its count within the buffer".into()
        } else {
            "make the buffer as large as the count times the datatype's extent, or pass a \
             smaller count"
                .into()
        });
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: u32) -> Place {
        Place {
            file: Some("a.c".into()),
            line: Some(line),
            column: Some(5),
            span: None,
        }
    }

    fn overflow() -> BufferOverflow {
        BufferOverflow {
            rank: 1,
            call: "MPI_Recv".into(),
            buffer: Some("buf".into()),
            writes: true,
            count: 20,
            ranks: 0,
            block: None,
            datatype: "MPI_INT".into(),
            extent: 4,
            start: 0,
            end: 80,
            size: 40,
            memory: "the block malloc returned".into(),
            made: Some((at(7), "allocated here".into())),
            place: at(9),
            replay: "0".into(),
        }
    }

    #[test]
    fn names_the_bytes_the_memory_and_the_excess() {
        let f = overflow().finding();
        assert_eq!(
            f.message,
            "MPI_Recv writes 80 bytes of `buf` (20 × MPI_INT) from the start of the block malloc \
             returned, 40 bytes long: 40 bytes past its end"
        );
        assert_eq!(f.labels[0].line, 7);
        assert_eq!((f.line, f.rank), (Some(9), Some(1)));
        assert!(f.notes[0].ends_with("20 MPI_INT of 4 bytes each is 80 bytes"));
    }

    #[test]
    fn a_root_buffer_and_a_block_say_whose() {
        let mut o = overflow();
        o.call = "MPI_Gather".into();
        o.count = 8;
        o.ranks = 4;
        o.end = 32;
        o.size = 16;
        assert!(o
            .finding()
            .message
            .contains("(2 × MPI_INT from each of 4 ranks)"));
        let mut o = overflow();
        o.block = Some(3);
        o.count = 2;
        o.start = 40;
        o.end = 48;
        o.datatype = String::new();
        assert!(o
            .finding()
            .message
            .contains("(rank 3's block, 2 × a derived datatype of extent 4) from byte 40"));
        let mut o = overflow();
        o.start = -8;
        o.end = 8;
        assert!(o.finding().message.ends_with("8 bytes before its start"));
    }
}
