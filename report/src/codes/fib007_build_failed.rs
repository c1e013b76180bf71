//! FIB007: the program did not compile or link.

use super::{Code, Rule};
use crate::finding::{Finding, Severity};

/// The program could not be built.
pub const FIB007: Code = Code {
    code: "FIB007",
    name: "build-failed",
    severity: Severity::Error,
    tool_failure: false,
    summary: "The program did not compile or link with the MPI compiler.",
    explanation: "\
## What it means

fib compiles the program with the MPI compiler wrapper (mpicc.mpich) before
running it. That step failed; the finding's notes hold the compiler's output.

## Why it matters

Nothing was verified. fib exits with code 2.

## Example

    #include <mpi.h>
    int main(int argc, char **argv) {
        MPI_Init(&argc, &argv)      /* missing semicolon */
        MPI_Finalize();
    }

## What to do

Read the compiler's messages in the notes and fix the program, or make sure
the MPI development files are installed (`bash scripts/setup.sh`).
",
};

/// A program that did not compile or link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildFailed {
    /// The program's main source file, as the user named it.
    pub program: String,
    /// Where the compiler's first error is, when it said.
    pub file: Option<String>,
    pub line: Option<u32>,
    /// The compiler's output; its first 40 lines become notes.
    pub output: String,
}

impl Rule for BuildFailed {
    const CODE: &'static Code = &FIB007;

    fn finding(&self) -> Finding {
        let mut f = Finding::new(Self::CODE, format!("{} does not compile", self.program));
        f.file = self.file.clone();
        f.line = self.line;
        f.notes = self.output.lines().take(40).map(str::to_string).collect();
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_the_compiler_output() {
        let output: String = (0..50).map(|i| format!("error {i}\n")).collect();
        let f = BuildFailed {
            program: "a.c".into(),
            file: Some("a.c".into()),
            line: Some(3),
            output,
        }
        .finding();
        assert_eq!(f.message, "a.c does not compile");
        assert_eq!(
            (f.line, f.column, f.rank, f.replay),
            (Some(3), None, None, None)
        );
        assert_eq!(f.notes.len(), 40);
        assert_eq!(f.notes[39], "error 39");
    }
}
