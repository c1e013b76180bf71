//! The one place where a [`Site`] a rank reported becomes a place in the
//! user's files: a site-table id names its call directly; a file id and a
//! line (a call made through the program's own macro) are looked up in the
//! site table by file and line, the callee telling apart two calls of one
//! line. Everything that shows a call to the user, or counts instances of a
//! site, goes through [`Resolver`].

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;

use fib_report::{Place, SiteRef};
use fib_wire::Site;
use instrument::{Analysis, CallSite, Dependence};

/// The file names a run's ranks announced, by file id.
pub type FileNames = HashMap<u32, String>;

/// Resolves the sites of one program's runs against its site table.
pub struct Resolver<'a> {
    analysis: &'a Analysis,
    /// How the checked tree's root is shown to the user (see [`Self::show`]).
    shown_root: &'a Path,
    /// Site-table ids of (file id, line, callee) already looked up.
    cache: RefCell<HashMap<(u32, u32, String), Option<u32>>>,
}

impl<'a> Resolver<'a> {
    /// A resolver for the program whose static analysis is `analysis`, in a
    /// tree whose root is shown as `shown_root`.
    pub fn new(analysis: &'a Analysis, shown_root: &'a Path) -> Resolver<'a> {
        Resolver {
            analysis,
            shown_root,
            cache: RefCell::new(HashMap::new()),
        }
    }

    /// The program's static analysis.
    pub fn analysis(&self) -> &'a Analysis {
        self.analysis
    }

    /// How a path of the tree (relative to its root) is shown to the user.
    pub fn show(&self, rel: &Path) -> String {
        self.shown_root.join(rel).display().to_string()
    }

    /// The site-table entry with id `id`.
    pub fn by_id(&self, id: u32) -> Option<&'a CallSite> {
        self.analysis.sites.sites.get(id as usize)
    }

    /// The site-table entry of a reported site, when it has one. `callee`
    /// tells apart two calls on one line produced by one macro use.
    pub fn call_site(&self, site: Site, callee: &str, files: &FileNames) -> Option<&'a CallSite> {
        match site {
            Site::Unknown => None,
            Site::Table(id) => self.by_id(id),
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
                    .copied()
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
            Some(s) => s.callee.clone(),
            None => op_name.to_string(),
        }
    }

    /// The site-table id of a reported site (cached: runs repeat sites).
    pub fn id(&self, site: Site, callee: &str, files: &FileNames) -> Option<u32> {
        let Site::Line { file, line } = site else {
            return self.call_site(site, callee, files).map(|s| s.id);
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
            return self.placed(s);
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

    /// A site-table entry as shown to the user.
    pub fn placed(&self, s: &CallSite) -> Place {
        Place {
            file: Some(self.show(&s.file)),
            line: Some(s.line),
            column: Some(s.column),
            span: Some(s.span),
        }
    }

    /// A site-table entry as a report's site reference.
    pub fn site_ref(&self, s: &CallSite) -> SiteRef {
        SiteRef {
            file: self.show(&s.file),
            line: s.line,
            column: s.column,
            span: Some(s.span),
        }
    }

    /// What decides whether site `id` runs: `None` when only rank, size
    /// and constants do, the reasons otherwise.
    pub fn input_reasons(&self, id: u32) -> Option<Vec<String>> {
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

    use instrument::{Facts, SiteTable};

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

    #[test]
    fn input_reasons_name_what_a_site_depends_on() {
        let a = analysis();
        let r = Resolver::new(&a, Path::new(""));
        assert_eq!(r.input_reasons(0), None);
        assert_eq!(r.input_reasons(1), Some(vec!["argv".to_string()]));
        assert_eq!(r.input_reasons(2), Some(vec!["not analysed".to_string()]));
    }
}
