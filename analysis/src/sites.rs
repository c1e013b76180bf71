//! The one place where a [`Site`] a rank reported becomes a place in the
//! user's files: a site-table id names its call directly; a file id and a
//! line (a call made through the program's own macro) are looked up in the
//! site table by file and line, the callee telling apart two calls of one
//! line; a return address in a module (a program fib did not build) is
//! given an id of its own after the table's, and placed by what the
//! module's debug information or symbol table says ([`Symbols`]; the driver
//! reads the files). Everything that shows a call to the user, or counts
//! instances of a site, goes through [`Resolver`].

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use fib_report::{Place, SiteRef};
use fib_sites::{Analysis, CallSite, Dependence};
use fib_wire::Site;

/// The file names a run's ranks announced, by file id.
pub type FileNames = HashMap<u32, String>;

/// What a module's debug information and symbol table say of one
/// instruction in it. The driver implements it over the files; the
/// resolver decides how a place shows.
pub trait Symbols {
    /// The instruction `offset` bytes from the load base of the module at
    /// `module` (as the rank named it).
    fn locate(&self, module: &str, offset: u64) -> Located;
}

/// What [`Symbols::locate`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Located {
    /// The module as shown to the user.
    pub module: String,
    /// The source line, from debug information.
    pub source: Option<SourceLine>,
    /// The function holding the instruction, from the symbol table (or
    /// the debug information): its name and its offset from the load
    /// base.
    pub symbol: Option<(String, u64)>,
}

/// A source line of an instruction, as shown to the user.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceLine {
    pub file: String,
    pub line: u32,
    pub column: Option<u32>,
    /// Byte offsets `[start, end)` of the call in the file, when its text
    /// could be read.
    pub span: Option<(usize, usize)>,
    /// The function the line is in (the innermost one, when inlined).
    pub function: Option<String>,
    /// The file relative to the root of the analysed sources, when the
    /// program's sources were analysed and the file is one of theirs: the
    /// site table's call on that line is then the site.
    pub rel: Option<PathBuf>,
}

/// A site known by its return address, with the id it was given.
struct AddrSite {
    module: u32,
    offset: u32,
    /// The site as the rest of the analysis sees it (no span; line 0 when
    /// the module has no line for it).
    call: CallSite,
    place: Place,
}

/// The sites known by return address, in the order they were met.
#[derive(Default)]
struct AddrSites {
    ids: HashMap<(u32, u32), u32>,
    sites: Vec<AddrSite>,
}

/// A call of the analysed sources that the debug information placed on a
/// line where the site table has no such call: the parse does not see the
/// program the binary was built from (other compile flags, or an edited
/// source).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unmatched {
    /// The file as shown to the user.
    pub file: String,
    pub line: u32,
    /// The MPI function the rank called.
    pub callee: String,
}

/// Resolves the sites of one program's runs against its site table.
pub struct Resolver<'a> {
    analysis: &'a Analysis,
    /// How the checked tree's root is shown to the user (see [`Self::show`]).
    shown_root: &'a Path,
    /// The current directory, absolute (empty when not given).
    cwd: &'a Path,
    /// Site-table ids of (file id, line, callee) already looked up.
    cache: RefCell<HashMap<(u32, u32, String), Option<u32>>>,
    /// The modules' symbols, for sites by return address.
    symbols: Option<&'a dyn Symbols>,
    addrs: RefCell<AddrSites>,
    /// Calls by return address in analysed files that the site table does
    /// not have, in the order they were met.
    unmatched: RefCell<Vec<Unmatched>>,
}

impl<'a> Resolver<'a> {
    /// A resolver for the program whose static analysis is `analysis`, in a
    /// tree whose root is shown as `shown_root`.
    pub fn new(analysis: &'a Analysis, shown_root: &'a Path) -> Resolver<'a> {
        Resolver {
            analysis,
            shown_root,
            cwd: Path::new(""),
            cache: RefCell::new(HashMap::new()),
            symbols: None,
            addrs: RefCell::default(),
            unmatched: RefCell::default(),
        }
    }

    /// The same resolver, placing sites by return address with `symbols`
    /// (without, they show as `module(+0xOFFSET)`).
    pub fn with_symbols(mut self, symbols: &'a dyn Symbols) -> Resolver<'a> {
        self.symbols = Some(symbols);
        self
    }

    /// The same resolver, showing paths as seen from the current
    /// directory `cwd` (absolute, symlinks resolved): see
    /// [`crate::shown_path`].
    pub fn seen_from(mut self, cwd: &'a Path) -> Resolver<'a> {
        self.cwd = cwd;
        self
    }

    /// The program's static analysis.
    pub fn analysis(&self) -> &'a Analysis {
        self.analysis
    }

    /// How a path of the tree (relative to its root) is shown to the user.
    pub fn show(&self, rel: &Path) -> String {
        crate::shown_path(self.shown_root, rel, self.cwd)
            .display()
            .to_string()
    }

    /// The site with id `id`: a site-table entry, or a site met by return
    /// address.
    pub fn by_id(&self, id: u32) -> Option<Cow<'a, CallSite>> {
        let table = &self.analysis.sites.sites;
        match table.get(id as usize) {
            Some(s) => Some(Cow::Borrowed(s)),
            None => {
                let addrs = self.addrs.borrow();
                let a = addrs.sites.get(id as usize - table.len())?;
                Some(Cow::Owned(a.call.clone()))
            }
        }
    }

    /// The module and offset of a site met by return address.
    pub fn addr_of(&self, id: u32) -> Option<(u32, u32)> {
        let k = (id as usize).checked_sub(self.analysis.sites.sites.len())?;
        let addrs = self.addrs.borrow();
        addrs.sites.get(k).map(|a| (a.module, a.offset))
    }

    /// Every return address (module, offset) the runs placed at site `id`,
    /// in order: one for a site of its own, those of the calls the debug
    /// information puts at a site-table site.
    pub fn addrs_of(&self, id: u32) -> Vec<(u32, u32)> {
        let mut out: Vec<(u32, u32)> = self
            .addrs
            .borrow()
            .ids
            .iter()
            .filter(|(_, &i)| i == id)
            .map(|(&k, _)| k)
            .collect();
        out.sort_unstable();
        out
    }

    /// The id of a site by return address, given it the first time: the
    /// site table's id when the debug information places it on a line of
    /// the analysed sources where the table has the call
    /// ([`SourceLine::rel`]), else an id of its own after the table's.
    fn addr_id(&self, module: u32, offset: u32, callee: &str, files: &FileNames) -> Option<u32> {
        let mut addrs = self.addrs.borrow_mut();
        if let Some(&id) = addrs.ids.get(&(module, offset)) {
            let Some(k) = (id as usize).checked_sub(self.analysis.sites.sites.len()) else {
                return Some(id);
            };
            let call = &mut addrs.sites[k].call;
            if call.callee.is_empty() {
                call.callee = callee.to_string();
            }
            return Some(id);
        }
        let path = files.get(&module)?;
        let id = (self.analysis.sites.sites.len() + addrs.sites.len()) as u32;
        let located = match self.symbols {
            Some(s) => s.locate(path, u64::from(offset).saturating_sub(1)),
            None => Located {
                module: path.clone(),
                ..Located::default()
            },
        };
        if let Some(src) = &located.source {
            if let Some(rel) = &src.rel {
                match self.table_call(rel, src.line, src.column, callee) {
                    Some(table) => {
                        addrs.ids.insert((module, offset), table);
                        return Some(table);
                    }
                    None => self.unmatched.borrow_mut().push(Unmatched {
                        file: src.file.clone(),
                        line: src.line,
                        callee: callee.to_string(),
                    }),
                }
            }
        }
        let (call, place) = addr_site(id, offset, callee, located);
        addrs.ids.insert((module, offset), id);
        addrs.sites.push(AddrSite {
            module,
            offset,
            call,
            place,
        });
        Some(id)
    }

    /// The site-table id of the call of `callee` on `line` of the analysed
    /// file `rel`: the one call of the line, or of those the callee names
    /// (all of them when none does; a call the library carries out as
    /// another, such as `MPI_Sendrecv`'s send, is reported under the other's
    /// name) the last that starts at or before `column` (compilers place a
    /// call at its name or at its parenthesis), else the first.
    fn table_call(&self, rel: &Path, line: u32, column: Option<u32>, callee: &str) -> Option<u32> {
        let on_line: Vec<&CallSite> = self
            .analysis
            .sites
            .sites
            .iter()
            .filter(|s| s.file == rel && s.line == line)
            .collect();
        let named: Vec<&CallSite> = on_line
            .iter()
            .copied()
            .filter(|s| s.callee == callee)
            .collect();
        let pool = if named.is_empty() { on_line } else { named };
        let before = column.and_then(|c| pool.iter().rev().find(|s| s.column <= c));
        before.or(pool.first()).map(|s| s.id)
    }

    /// The calls by return address that the debug information placed in
    /// the analysed sources on lines where the site table has no call:
    /// empty when the parse saw the program the binary was built from.
    pub fn unmatched(&self) -> Vec<Unmatched> {
        self.unmatched.borrow().clone()
    }

    /// The site of a reported site, when it has one. `callee` tells apart
    /// two calls on one line produced by one macro use.
    pub fn call_site(
        &self,
        site: Site,
        callee: &str,
        files: &FileNames,
    ) -> Option<Cow<'a, CallSite>> {
        match site {
            Site::Unknown => None,
            Site::Table(id) => self.by_id(id),
            Site::Addr { module, offset } => {
                let id = self.addr_id(module, offset, callee, files)?;
                self.by_id(id)
            }
            Site::Line { file, line } => {
                let path = Path::new(files.get(&file)?);
                let on_line: Vec<&CallSite> = self
                    .analysis
                    .sites
                    .sites
                    .iter()
                    .filter(|s| s.file == path && s.line == line)
                    .collect();
                on_line
                    .iter()
                    .find(|s| s.callee == callee)
                    .or_else(|| on_line.first())
                    .map(|s| Cow::Borrowed(*s))
            }
        }
    }

    /// The MPI function the user called at a reported site: the site
    /// table's callee when the site is in it, else the operation's own name
    /// (`op_name`). A call fib carries out as several operations, such as
    /// `MPI_Sendrecv` (a send, a receive and a wait), shows as the call the
    /// user wrote.
    pub fn call_name(&self, site: Site, op_name: &str, files: &FileNames) -> String {
        match self.call_site(site, op_name, files) {
            Some(s) if !s.callee.is_empty() => s.callee.clone(),
            _ => op_name.to_string(),
        }
    }

    /// The site-table id of a reported site (cached: runs repeat sites).
    pub fn id(&self, site: Site, callee: &str, files: &FileNames) -> Option<u32> {
        let (file, line) = match site {
            Site::Line { file, line } => (file, line),
            Site::Addr { module, offset } => return self.addr_id(module, offset, callee, files),
            _ => return self.call_site(site, callee, files).map(|s| s.id),
        };
        let key = (file, line, callee.to_string());
        if let Some(v) = self.cache.borrow().get(&key) {
            return *v;
        }
        let v = self.call_site(site, callee, files).map(|s| s.id);
        self.cache.borrow_mut().insert(key, v);
        v
    }

    /// Where a reported site is, as shown to the user. A site outside the
    /// site table (a macro use in a file fib did not analyse) has a file
    /// and line but no column or span; an unknown site has nothing.
    pub fn place(&self, site: Site, callee: &str, files: &FileNames) -> Place {
        if let Some(s) = self.call_site(site, callee, files) {
            return self.placed(&s);
        }
        match (site, site_file(site, files)) {
            (Site::Line { line, .. }, Some(f)) => Place {
                file: Some(self.show(Path::new(f))),
                line: Some(line),
                column: None,
                span: None,
            },
            _ => Place::default(),
        }
    }

    /// Line `line` of the tree's file `rel`, from its first character that
    /// is not blank to its end, as shown to the user (a condition the
    /// static facts name by line).
    pub fn line_place(&self, rel: &Path, line: u32) -> Place {
        let mut place = Place {
            file: Some(self.show(rel)),
            line: Some(line),
            column: None,
            span: None,
        };
        let Some((_, text)) = self.analysis.files.iter().find(|(p, _)| p == rel) else {
            return place;
        };
        let mut start = 0;
        for (i, l) in text.split_inclusive('\n').enumerate() {
            if i + 1 == line as usize {
                let body = l.trim_end();
                let lead = body.len() - body.trim_start().len();
                if lead < body.len() {
                    place.column = Some(lead as u32 + 1);
                    place.span = Some((start + lead, start + body.len()));
                }
                break;
            }
            start += l.len();
        }
        place
    }

    /// A site as shown to the user.
    pub fn placed(&self, s: &CallSite) -> Place {
        if let Some(k) = (s.id as usize).checked_sub(self.analysis.sites.sites.len()) {
            if let Some(a) = self.addrs.borrow().sites.get(k) {
                return a.place.clone();
            }
        }
        Place {
            file: Some(self.show(&s.file)),
            line: Some(s.line),
            column: Some(s.column),
            span: Some(s.span),
        }
    }

    /// A site as a report's site reference (a site by return address
    /// without a source line has line 0).
    pub fn site_ref(&self, s: &CallSite) -> SiteRef {
        let p = self.placed(s);
        SiteRef {
            file: p.file.unwrap_or_default(),
            line: p.line.unwrap_or(0),
            column: p.column.unwrap_or(0),
            span: p.span,
        }
    }

    /// What decides whether site `id` runs: `None` when only rank, size
    /// and constants do, the reasons otherwise.
    pub fn input_reasons(&self, id: u32) -> Option<Vec<String>> {
        if self.addr_of(id).is_some() {
            return Some(vec![
                "fib did not analyse the program's sources (a prebuilt binary)".to_string(),
            ]);
        }
        let dep = self
            .analysis
            .facts
            .control
            .iter()
            .find(|(s, _)| *s == id)
            .map(|(_, d)| d);
        match dep {
            Some(Dependence::InputIndependent) => None,
            Some(Dependence::DataDependent { reasons }) => Some(reasons.clone()),
            None => Some(vec!["not analysed".to_string()]),
        }
    }
}

/// A site by return address as the analysis sees it and as it shows: its
/// source line when the module's debug information has one, else its
/// function and the offset in it (`prog(main+0x2b)`), else the module and
/// the offset (`prog(+0x1189)`), as glibc's backtraces show them.
fn addr_site(id: u32, offset: u32, callee: &str, located: Located) -> (CallSite, Place) {
    let function = located
        .source
        .as_ref()
        .and_then(|s| s.function.clone())
        .or_else(|| located.symbol.as_ref().map(|(name, _)| name.clone()));
    let place = match (&located.source, &located.symbol) {
        (Some(src), _) => Place {
            file: Some(src.file.clone()),
            line: Some(src.line),
            column: src.column,
            span: src.span,
        },
        (None, Some((name, start))) => Place {
            file: Some(format!(
                "{}({name}+{:#x})",
                located.module,
                u64::from(offset).saturating_sub(*start)
            )),
            ..Place::default()
        },
        (None, None) => Place {
            file: Some(format!("{}(+{offset:#x})", located.module)),
            ..Place::default()
        },
    };
    let call = CallSite {
        id,
        file: PathBuf::from(place.file.clone().unwrap_or_default()),
        line: place.line.unwrap_or(0),
        column: place.column.unwrap_or(0),
        span: place.span.unwrap_or_default(),
        callee: callee.to_string(),
        args: Vec::new(),
        function,
        macro_name: None,
        buffers: Vec::new(),
        bounds: Vec::new(),
        structs: Vec::new(),
        any_thread: None,
    };
    (call, place)
}

/// The file a [`Site::Line`] names, when the run announced it.
fn site_file(site: Site, files: &FileNames) -> Option<&str> {
    match site {
        Site::Line { file, .. } => files.get(&file).map(String::as_str),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use fib_sites::{Facts, SiteTable};

    use super::*;

    fn call(id: u32, file: &str, line: u32, callee: &str) -> CallSite {
        CallSite {
            id,
            file: PathBuf::from(file),
            line,
            column: 5,
            span: (10 * id as usize, 10 * id as usize + 8),
            callee: callee.into(),
            args: Vec::new(),
            function: Some("main".into()),
            macro_name: None,
            buffers: Vec::new(),
            bounds: Vec::new(),
            structs: Vec::new(),
            any_thread: None,
        }
    }

    fn analysis() -> Analysis {
        Analysis {
            sites: SiteTable {
                sites: vec![
                    call(0, "a.c", 3, "MPI_Send"),
                    call(1, "a.c", 7, "MPI_Isend"),
                    call(2, "a.c", 7, "MPI_Irecv"),
                ],
            },
            facts: Facts {
                steering: Vec::new(),
                free_waits: Vec::new(),
                free_receives: Vec::new(),
                free_probes: Vec::new(),
                dead: Vec::new(),
                inputs: Vec::new(),
                gates: Vec::new(),
                purposes: Vec::new(),
                barriers: Vec::new(),
                wildcards: Vec::new(),
                control: vec![
                    (0, Dependence::InputIndependent),
                    (
                        1,
                        Dependence::DataDependent {
                            reasons: vec!["argv".into()],
                        },
                    ),
                ],
            },
            units: Vec::new(),
            files: Vec::new(),
            read: None,
        }
    }

    #[test]
    fn table_ids_name_their_call_and_file_lines_find_it_by_callee() {
        let a = analysis();
        let r = Resolver::new(&a, Path::new("src"));
        let files: FileNames = [(1, "a.c".to_string()), (2, "gen.h".to_string())].into();
        assert_eq!(r.id(Site::Table(1), "", &files), Some(1));
        let line = Site::Line { file: 1, line: 7 };
        assert_eq!(r.id(line, "MPI_Irecv", &files), Some(2));
        assert_eq!(r.id(line, "MPI_Irecv", &files), Some(2), "cached");
        assert_eq!(r.id(line, "MPI_Wait", &files), Some(1), "first of the line");
        assert_eq!(r.id(Site::Unknown, "MPI_Send", &files), None);
        let p = r.place(Site::Table(0), "", &files);
        assert_eq!(
            p,
            Place {
                file: Some("src/a.c".into()),
                line: Some(3),
                column: Some(5),
                span: Some((0, 8)),
            }
        );
        // A macro use in a file the analysis did not see: file and line only.
        let p = r.place(Site::Line { file: 2, line: 40 }, "MPI_Recv", &files);
        assert_eq!(
            (p.file.as_deref(), p.line, p.column),
            (Some("src/gen.h"), Some(40), None)
        );
        assert_eq!(r.place(Site::Unknown, "", &files), Place::default());
    }

    /// Symbols of one module: a line for offsets below 0x100, a function
    /// for those below 0x200, nothing beyond.
    struct Fake;

    impl Symbols for Fake {
        fn locate(&self, module: &str, offset: u64) -> Located {
            let source = (offset < 0x100).then(|| SourceLine {
                file: "prog.c".into(),
                line: 12,
                column: Some(9),
                span: Some((120, 150)),
                function: Some("exchange".into()),
                rel: None,
            });
            Located {
                module: module.trim_start_matches("/tmp/").into(),
                source,
                symbol: (offset < 0x200).then(|| ("main".to_string(), 0x80)),
            }
        }
    }

    #[test]
    fn return_addresses_get_ids_after_the_table_and_places_from_symbols() {
        let a = analysis();
        let fake = Fake;
        let r = Resolver::new(&a, Path::new("")).with_symbols(&fake);
        let m = fib_wire::module_id("/tmp/prog");
        let files: FileNames = [(m, "/tmp/prog".to_string())].into();
        let at = |offset| Site::Addr { module: m, offset };
        // The lookup is by the call instruction, one byte before the
        // return address.
        assert_eq!(r.id(at(0x40), "MPI_Recv", &files), Some(3));
        assert_eq!(r.id(at(0x180), "MPI_Barrier", &files), Some(4));
        assert_eq!(r.id(at(0x40), "MPI_Recv", &files), Some(3), "same id again");
        assert_eq!(r.id(at(0x300), "MPI_Send", &files), Some(5));
        assert_eq!(r.addr_of(4), Some((m, 0x180)));
        assert_eq!(r.addr_of(1), None);
        let place = |o| r.place(at(o), "", &files);
        assert_eq!(
            place(0x40),
            Place {
                file: Some("prog.c".into()),
                line: Some(12),
                column: Some(9),
                span: Some((120, 150)),
            }
        );
        assert_eq!(place(0x180).file.as_deref(), Some("prog(main+0x100)"));
        assert_eq!(place(0x180).line, None);
        assert_eq!(place(0x300).file.as_deref(), Some("prog(+0x300)"));
        assert_eq!(
            r.call_name(at(0x180), "MPI_Ibarrier", &files),
            "MPI_Barrier"
        );
        let s = r.by_id(4).unwrap();
        assert_eq!(s.function.as_deref(), Some("main"), "from the symbol table");
        assert_eq!(r.site_ref(&s).line, 0);
        let s = r.by_id(3).unwrap();
        assert_eq!(s.function.as_deref(), Some("exchange"), "from debug info");
        assert!(r
            .input_reasons(4)
            .is_some_and(|v| v[0].contains("prebuilt")));
        // A module the run never named has no place.
        let other = Site::Addr {
            module: fib_wire::module_id("/tmp/lib.so"),
            offset: 1,
        };
        assert_eq!(r.id(other, "MPI_Send", &files), None);
    }

    /// Symbols of a binary built from the analysed `a.c`: offsets below
    /// 0x100 at its line 7 (GCC's column: the parenthesis), 0x1xx at line
    /// 3, 0x2xx at line 5, where the table has no call.
    struct Built;

    impl Symbols for Built {
        fn locate(&self, module: &str, offset: u64) -> Located {
            let (line, column) = match offset {
                0..0x100 => (7, 30),
                0x100..0x200 => (3, 13),
                _ => (5, 5),
            };
            Located {
                module: module.into(),
                source: Some(SourceLine {
                    file: "src/a.c".into(),
                    line,
                    column: Some(column),
                    span: None,
                    function: Some("main".into()),
                    rel: Some(PathBuf::from("a.c")),
                }),
                symbol: None,
            }
        }
    }

    #[test]
    fn return_addresses_in_analysed_sources_are_the_table_sites() {
        let mut a = analysis();
        a.sites.sites[2].column = 25;
        let built = Built;
        let r = Resolver::new(&a, Path::new("src")).with_symbols(&built);
        let m = fib_wire::module_id("/tmp/prog");
        let files: FileNames = [(m, "/tmp/prog".to_string())].into();
        let at = |offset| Site::Addr { module: m, offset };
        assert_eq!(r.id(at(0x41), "MPI_Isend", &files), Some(1), "by callee");
        // Both calls of line 7 are waits' requests; the column tells them
        // apart when the callee names neither.
        assert_eq!(r.id(at(0x42), "MPI_Wait", &files), Some(2), "by column");
        assert_eq!(r.id(at(0x42), "MPI_Wait", &files), Some(2), "kept");
        assert_eq!(r.id(at(0x141), "MPI_Send", &files), Some(0));
        assert_eq!(r.addr_of(0), None, "a table site");
        assert_eq!(r.addrs_of(0), vec![(m, 0x141)], "what deletes it");
        assert_eq!(r.addrs_of(2), vec![(m, 0x42)]);
        let p = r.place(at(0x141), "MPI_Send", &files);
        assert_eq!(
            (p.line, p.column, p.span),
            (Some(3), Some(5), Some((0, 8))),
            "the table's column and span, not the debug information's"
        );
        assert_eq!(r.input_reasons(1), Some(vec!["argv".to_string()]));
        assert_eq!(r.unmatched(), Vec::new());
        // A line of a.c with no call in the table: the parse is not of the
        // program the binary was built from.
        assert_eq!(r.id(at(0x241), "MPI_Barrier", &files), Some(3));
        assert_eq!(
            r.unmatched(),
            vec![Unmatched {
                file: "src/a.c".into(),
                line: 5,
                callee: "MPI_Barrier".into(),
            }]
        );
    }

    #[test]
    fn input_reasons_name_what_a_site_depends_on() {
        let a = analysis();
        let r = Resolver::new(&a, Path::new(""));
        assert_eq!(r.input_reasons(0), None);
        assert_eq!(r.input_reasons(1), Some(vec!["argv".to_string()]));
        assert_eq!(r.input_reasons(2), Some(vec!["not analysed".to_string()]));
    }
}
