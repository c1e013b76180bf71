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
    modules: RefCell<HashMap<String, Option<Module>>>,
}

impl Default for ModuleSymbols {
    fn default() -> Self {
        ModuleSymbols {
            cwd: std::env::current_dir().ok(),
            modules: RefCell::default(),
        }
    }
}

impl ModuleSymbols {
    /// How a path is shown: relative to the current directory when inside
    /// it.
    fn show(&self, path: &Path) -> String {
        match self.cwd.as_deref().and_then(|c| path.strip_prefix(c).ok()) {
            Some(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
            _ => path.display().to_string(),
        }
    }
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
                located.source = Some(SourceLine {
                    file: self.show(Path::new(file)),
                    line,
                    column: loc.column.filter(|&c| c > 0),
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
