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

fib compiles the program with the MPI compiler wrappers (mpicc.mpich for C,
mpicxx.mpich for C++, or Open MPI's) before running it, each source to an
object, then links the objects with the C++ wrapper when a source is C++.
That step failed; the finding's notes hold the compiler's or the linker's
output, on your own files: when the instrumented build fails, fib builds
your sources as they are, and what that build says is what is shown.

Only when your sources build as they are and fib's instrumented copies do
not is the failure fib's (a bug in fib): the notes then show both command
lines and the instrumented build's output.

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
the MPI development files are installed (`bash scripts/setup.sh`). A
function the linker does not find is in a library the program must be
linked with (`link = [\"-lfoo\"]` in fib.toml, or `/* fib: -lfoo */` in the
main source; libm's `-lm` is always linked), or in a source that is not
linked: without a compile database a program links the sources of its
directory that define what it uses.
",
};

/// Which step of the build failed, and whose failure it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildStage {
    /// A source did not compile.
    Compile,
    /// The objects did not link; the symbols the linker found no
    /// definition of.
    Link { undefined: Vec<String> },
    /// The sources build as they are, but not as fib instrumented them.
    Instrumented,
}

/// A program that did not compile or link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildFailed {
    /// The program's main source file, as the user named it.
    pub program: String,
    pub stage: BuildStage,
    /// Where the compiler's first error is, when it said.
    pub file: Option<String>,
    pub line: Option<u32>,
    /// The compiler's output; its first 40 lines become notes.
    pub output: String,
}

impl Rule for BuildFailed {
    const CODE: &'static Code = &FIB007;

    fn finding(&self) -> Finding {
        let p = &self.program;
        let message = match &self.stage {
            BuildStage::Compile => format!("{p} does not compile"),
            BuildStage::Link { undefined } if undefined.is_empty() => format!("{p} does not link"),
            BuildStage::Link { undefined } => {
                let names: Vec<String> = undefined.iter().map(|u| format!("`{u}`")).collect();
                let s = if names.len() == 1 { "" } else { "s" };
                format!(
                    "{p} does not link: undefined reference{s} to {}",
                    names.join(", ")
                )
            }
            BuildStage::Instrumented => {
                format!("{p} builds, but not instrumented by fib (a bug in fib)")
            }
        };
        let mut f = Finding::new(Self::CODE, message);
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
            stage: BuildStage::Compile,
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

    #[test]
    fn a_link_failure_names_what_is_undefined() {
        let mut b = BuildFailed {
            program: "a.c".into(),
            stage: BuildStage::Link {
                undefined: vec!["missing".into()],
            },
            file: Some("a.c".into()),
            line: Some(5),
            output: String::new(),
        };
        assert_eq!(
            b.finding().message,
            "a.c does not link: undefined reference to `missing`"
        );
        b.stage = BuildStage::Link {
            undefined: vec!["f".into(), "g".into()],
        };
        assert_eq!(
            b.finding().message,
            "a.c does not link: undefined references to `f`, `g`"
        );
        b.stage = BuildStage::Instrumented;
        assert!(b.finding().message.contains("a bug in fib"));
    }
}
