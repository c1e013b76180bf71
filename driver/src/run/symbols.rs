//! The modules' debug information and symbol tables, read for the sites
//! ranks report by return address ([`fib_analysis::Symbols`]): a source
//! line from DWARF (through `addr2line`), else the function from the ELF
//! symbol table. Each module is read once, when its first site is placed.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use fib_analysis::{Located, SourceLine, Symbols};
use object::{Object, ObjectSegment};

/// A module opened for lookups.
struct Module {
    loader: addr2line::Loader,
    /// The address the module's first segment asks for, page-aligned: what
    /// its load base (the start of its first mapping) stands for in its own
    /// addresses (0 for PIE executables and shared libraries).
    image_base: u64,
}

/// The symbols of the modules of one program's runs. Paths under the
/// current directory are shown relative to it.
pub struct ModuleSymbols {
    cwd: Option<PathBuf>,
    /// The directory the program's sources were analysed under
    /// (canonical), when they were.
    root: Option<PathBuf>,
    /// Each source file as the debug information names it, relative to
    /// `root` when it is under it.
    rels: RefCell<HashMap<String, Option<PathBuf>>>,
    modules: RefCell<HashMap<String, Option<Module>>>,
    /// The source files read to find the calls' spans.
    sources: RefCell<HashMap<String, Option<String>>>,
}

impl Default for ModuleSymbols {
    fn default() -> Self {
        ModuleSymbols {
            cwd: std::env::current_dir().ok(),
            root: None,
            rels: RefCell::default(),
            modules: RefCell::default(),
            sources: RefCell::default(),
        }
    }
}

impl ModuleSymbols {
    /// The same symbols, naming the files under `root` (the directory the
    /// program's sources were analysed under) relative to it
    /// ([`SourceLine::rel`]).
    pub fn with_root(mut self, root: Option<PathBuf>) -> Self {
        self.root = root;
        self
    }

    /// `file` relative to the analysed sources' root, when under it.
    fn rel(&self, file: &str) -> Option<PathBuf> {
        let root = self.root.as_deref()?;
        self.rels
            .borrow_mut()
            .entry(file.to_string())
            .or_insert_with(|| {
                let abs = std::fs::canonicalize(file).ok()?;
                abs.strip_prefix(root).ok().map(Path::to_path_buf)
            })
            .clone()
    }

    /// The column where the name of the function called at
    /// `line`:`column` of `file` starts: compilers place a call at its name
    /// (clang) or at the parenthesis that opens its arguments (GCC).
    fn callee_column(&self, file: &str, line: u32, column: Option<u32>) -> Option<u32> {
        let column = column?;
        let mut sources = self.sources.borrow_mut();
        let text = sources
            .entry(file.to_string())
            .or_insert_with(|| instrument::read_source(std::path::Path::new(file)).ok())
            .as_deref();
        Some(
            text.and_then(|t| callee_start(t, line, column))
                .unwrap_or(column),
        )
    }
    /// How a path is shown: relative to the current directory when inside
    /// it.
    fn show(&self, path: &Path) -> String {
        match self.cwd.as_deref().and_then(|c| path.strip_prefix(c).ok()) {
            Some(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
            _ => path.display().to_string(),
        }
    }

    /// The span of the call at `line`:`column` of the source `file`.
    fn span(&self, file: &str, line: u32, column: Option<u32>) -> Option<(usize, usize)> {
        let mut sources = self.sources.borrow_mut();
        let text = sources
            .entry(file.to_string())
            .or_insert_with(|| instrument::read_source(std::path::Path::new(file)).ok())
            .as_deref()?;
        call_span(text, line, column?)
    }
}

/// The column (1-based) where the name of the function called at
/// `line`:`column` of `text` starts: `column` itself when it is on a name
/// (`ns::f` and `obj.f` count from the last part), else, when it is on the
/// parenthesis that opens the arguments, the name before it (spaces
/// between them skipped). `None` when neither is there.
fn callee_start(text: &str, line: u32, column: u32) -> Option<u32> {
    let line_start = if line <= 1 {
        0
    } else {
        text.match_indices('\n').nth(line as usize - 2)?.0 + 1
    };
    let bytes = text.as_bytes();
    let at = line_start + column.checked_sub(1)? as usize;
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut end = match *bytes.get(at)? {
        b'(' => at,
        b if ident(b) => return Some(column),
        _ => return None,
    };
    while end > line_start && bytes[end - 1] == b' ' {
        end -= 1;
    }
    let mut start = end;
    while start > line_start && ident(bytes[start - 1]) {
        start -= 1;
    }
    (start < end).then(|| (start - line_start) as u32 + 1)
}

/// The byte span of the call whose callee starts at `line`:`column`
/// (1-based) of `text`: from there to the parenthesis that closes its
/// arguments (string and character literals and comments skipped). `None`
/// when no such call is there.
fn call_span(text: &str, line: u32, column: u32) -> Option<(usize, usize)> {
    let line_start = if line <= 1 {
        0
    } else {
        text.match_indices('\n').nth(line as usize - 2)?.0 + 1
    };
    let start = line_start + column.checked_sub(1)? as usize;
    let line_end = text[line_start..]
        .find('\n')
        .map_or(text.len(), |k| line_start + k);
    if start >= line_end {
        return None;
    }
    let bytes = text.as_bytes();
    let open = start
        + bytes
            .get(start..)?
            .iter()
            .position(|&b| b == b'(' || b == b';')?;
    if bytes[open] != b'(' {
        return None;
    }
    let (mut depth, mut i) = (0usize, open);
    while i < bytes.len() {
        match bytes[i] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some((start, i + 1));
                }
            }
            q @ (b'"' | b'\'') => {
                i += 1;
                while i < bytes.len() && bytes[i] != q {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += text[i..].find("*/").map_or(bytes.len(), |k| k + 1);
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i += text[i..].find('\n').unwrap_or(bytes.len());
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The lowest address of an ELF file's loaded segments, page-aligned.
fn image_base(path: &Path) -> Option<u64> {
    let data = std::fs::read(path).ok()?;
    let file = object::File::parse(&*data).ok()?;
    let lowest = file.segments().map(|s| s.address()).min()?;
    Some(lowest & !0xfff)
}

fn open(path: &str) -> Option<Module> {
    let loader = addr2line::Loader::new(path).ok()?;
    let image_base = image_base(Path::new(path))?;
    Some(Module { loader, image_base })
}

/// The function the debug information puts the instruction at `probe` in
/// (the innermost one, when it was inlined).
fn function(loader: &addr2line::Loader, probe: u64) -> Option<String> {
    let mut frames = loader.find_frames(probe).ok()?;
    let frame = frames.next().ok()??;
    let name = frame.function?;
    name.demangle().ok().map(|n| n.into_owned())
}

impl Symbols for ModuleSymbols {
    fn locate(&self, module: &str, offset: u64) -> Located {
        let mut located = Located {
            module: self.show(Path::new(module)),
            ..Located::default()
        };
        let mut modules = self.modules.borrow_mut();
        let Some(m) = modules
            .entry(module.to_string())
            .or_insert_with(|| open(module))
        else {
            return located;
        };
        let probe = m.image_base + offset;
        if let Ok(Some(loc)) = m.loader.find_location(probe) {
            if let (Some(file), Some(line)) = (loc.file, loc.line) {
                let column = self.callee_column(file, line, loc.column.filter(|&c| c > 0));
                located.source = Some(SourceLine {
                    file: self.show(Path::new(file)),
                    line,
                    column,
                    span: self.span(file, line, column),
                    function: function(&m.loader, probe),
                    rel: self.rel(file),
                });
            }
        }
        if let Some(sym) = m.loader.find_symbol_info(probe) {
            let name = addr2line::demangle_auto(sym.name().into(), None).into_owned();
            located.symbol = Some((name, sym.address().saturating_sub(m.image_base)));
        }
        located
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_spans_from_its_callee_to_the_parenthesis_closing_its_arguments() {
        let text = "int f(void) {\n    MPI_Send(buf, g(1), \")\", ')', /* ) */ comm);\n}\n";
        let (s, e) = call_span(text, 2, 5).unwrap();
        assert_eq!(&text[s..e], "MPI_Send(buf, g(1), \")\", ')', /* ) */ comm)");
        assert_eq!(call_span(text, 2, 60), None, "past the line's end");
        assert_eq!(call_span("x = 1;\n", 1, 1), None, "no call there");
        assert_eq!(call_span(text, 9, 1), None, "no such line");
    }

    #[test]
    fn a_call_placed_at_its_parenthesis_starts_at_its_name() {
        let text = "int main(void) {\n   MPI_Barrier(MPI_COMM_WORLD);\n   t = MPI_Wtime ();\n}\n";
        assert_eq!(callee_start(text, 2, 15), Some(4), "GCC: the parenthesis");
        assert_eq!(callee_start(text, 2, 4), Some(4), "clang: the name");
        assert_eq!(callee_start(text, 2, 9), Some(9), "inside the name");
        assert_eq!(callee_start(text, 3, 18), Some(8), "a space before it");
        assert_eq!(callee_start(text, 3, 6), None, "the `=`");
        assert_eq!(callee_start(text, 7, 1), None, "no such line");
    }
}
