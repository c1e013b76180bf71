//! Compiler flags for the parser: the preprocessor and language flags of the
//! MPI compiler wrapper (`mpicc -show`) and of a compile database
//! (`compile_commands.json`, the CMake and Bear convention).

use crate::InstrumentError;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// One entry of a `compile_commands.json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileCommand {
    /// The source file, absolute (resolved against `directory`).
    pub file: PathBuf,
    /// The directory the command runs in.
    pub directory: PathBuf,
    /// The whole command line, compiler first.
    pub args: Vec<String>,
}

impl CompileCommand {
    /// The flags of this command that matter to a parser (include paths,
    /// macros, language standard, language), with relative include paths
    /// made absolute against [`CompileCommand::directory`], and its
    /// optimisation level (the last `-O` it gives), which the program is
    /// then built with too: fib compiles with `-g -O0` unless the
    /// program's own build says otherwise, and a compute-heavy program runs
    /// once per interleaving. (The parser sees it as the compiler does:
    /// `__OPTIMIZE__` and the headers that depend on it.)
    pub fn parser_flags(&self) -> Vec<String> {
        let mut out = parser_flags(self.args.iter().skip(1).cloned());
        if let Some(level) = self.args.iter().skip(1).rfind(|w| w.starts_with("-O")) {
            out.push(level.clone());
        }
        for flag in &mut out {
            for prefix in ["-I", "-isystem", "-iquote", "-include"] {
                if let Some(rest) = flag.strip_prefix(prefix) {
                    if !rest.is_empty() && Path::new(rest).is_relative() {
                        *flag = format!("{prefix}{}", self.directory.join(rest).display());
                    }
                    break;
                }
            }
        }
        out
    }
}

/// The flags `mpicc -show` passes that a parser needs: `-I`, `-D`, `-U`,
/// `-std=`, `-isystem` and the like. The compiler's name, link flags (`-l`,
/// `-L`, `-Wl,...`) and everything else are dropped.
pub fn mpi_flags(mpicc: &str) -> Result<Vec<String>, InstrumentError> {
    let text = wrapper_show(mpicc)?;
    let words = split_command(text.trim());
    if words.is_empty() {
        return Err(InstrumentError::Flags(format!(
            "`{mpicc} -show` printed nothing"
        )));
    }
    Ok(parser_flags(words.into_iter().skip(1)))
}

/// What `mpicc -show` prints: the compile line the wrapper would run. Run
/// once per wrapper and process (the wrapper is a script that takes a few
/// milliseconds, and both the parser's flags and the interposition
/// library's fingerprint need it).
pub fn wrapper_show(mpicc: &str) -> Result<String, InstrumentError> {
    static SHOWN: Mutex<BTreeMap<String, String>> = Mutex::new(BTreeMap::new());
    if let Some(text) = SHOWN.lock().unwrap_or_else(|e| e.into_inner()).get(mpicc) {
        return Ok(text.clone());
    }
    let out = Command::new(mpicc)
        .arg("-show")
        .output()
        .map_err(|e| InstrumentError::Flags(format!("cannot run `{mpicc} -show`: {e}")))?;
    if !out.status.success() {
        return Err(InstrumentError::Flags(format!(
            "`{mpicc} -show` failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    SHOWN
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(mpicc.to_string(), text.clone());
    Ok(text)
}

/// Keeps the parser-relevant flags of a compiler command line (without the
/// compiler itself); joins a flag and its separate value into one word.
fn parser_flags(words: impl Iterator<Item = String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut words = words.peekable();
    while let Some(w) = words.next() {
        // Flags whose value may follow as the next word.
        let joinable = [
            "-I",
            "-D",
            "-U",
            "-isystem",
            "-iquote",
            "-include",
            "-idirafter",
        ];
        if joinable.contains(&w.as_str()) {
            if let Some(v) = words.next() {
                if w == "-isystem" || w == "-iquote" || w == "-include" || w == "-idirafter" {
                    out.push(w.clone());
                    out.push(v);
                } else {
                    out.push(format!("{w}{v}"));
                }
            }
            continue;
        }
        if w == "-x" {
            if let Some(v) = words.next() {
                out.push(w);
                out.push(v);
            }
            continue;
        }
        let keep = w.starts_with("-I")
            || w.starts_with("-D")
            || w.starts_with("-U")
            || w.starts_with("-std=")
            || w.starts_with("-isystem")
            || w.starts_with("-iquote")
            || w.starts_with("-idirafter")
            || w == "-pthread"
            || w.starts_with("-f") && (w.starts_with("-fopenmp") || w.starts_with("-fno-"));
        if keep {
            out.push(w);
        }
    }
    out
}

/// Reads a `compile_commands.json`, accepting both the `arguments` (a list)
/// and the `command` (one shell string) form of each entry.
pub fn compile_db(path: &Path) -> Result<Vec<CompileCommand>, InstrumentError> {
    let text = std::fs::read_to_string(path).map_err(|e| InstrumentError::Io(path.into(), e))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| InstrumentError::Flags(format!("{}: {e}", path.display())))?;
    let entries = value
        .as_array()
        .ok_or_else(|| InstrumentError::Flags(format!("{}: not a JSON array", path.display())))?;
    let base = path.parent().unwrap_or(Path::new("."));
    let mut out = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let bad =
            |what: &str| InstrumentError::Flags(format!("{}: entry {i}: {what}", path.display()));
        let directory = e
            .get("directory")
            .and_then(|d| d.as_str())
            .ok_or_else(|| bad("no `directory`"))?;
        let directory = base.join(directory);
        let file = e
            .get("file")
            .and_then(|d| d.as_str())
            .ok_or_else(|| bad("no `file`"))?;
        let args = if let Some(a) = e.get("arguments") {
            a.as_array()
                .ok_or_else(|| bad("`arguments` is not a list"))?
                .iter()
                .map(|w| {
                    w.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| bad("non-string argument"))
                })
                .collect::<Result<Vec<_>, _>>()?
        } else if let Some(c) = e.get("command").and_then(|c| c.as_str()) {
            split_command(c)
        } else {
            return Err(bad("neither `arguments` nor `command`"));
        };
        out.push(CompileCommand {
            file: directory.join(file),
            directory,
            args,
        });
    }
    Ok(out)
}

/// Splits a shell command line into words, honouring single and double
/// quotes and backslash escapes (what compile databases and `mpicc -show`
/// produce; no expansions).
fn split_command(s: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    cur.push(c);
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => {
                            if let Some(n) = chars.next() {
                                if !matches!(n, '"' | '\\' | '$' | '`') {
                                    cur.push('\\');
                                }
                                cur.push(n);
                            }
                        }
                        _ => cur.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_honours_quotes() {
        assert_eq!(
            split_command(r#"gcc -DX="a b" 'c d' e\ f"#),
            vec!["gcc", "-DX=a b", "c d", "e f"]
        );
    }

    #[test]
    fn keeps_only_parser_flags() {
        let words = "-Wl,-z,relro -I/usr/include/mpich -L/usr/lib -lmpich -D FOO=1 -std=c99 -O2 -c x.c -o x.o";
        let got = parser_flags(split_command(words).into_iter());
        assert_eq!(got, vec!["-I/usr/include/mpich", "-DFOO=1", "-std=c99"]);
    }
}
