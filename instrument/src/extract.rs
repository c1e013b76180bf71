//! Walks one libclang translation unit: lists its MPI call sites (attributed
//! to the user's files, macro uses included) and extracts the program model
//! of [`crate::ir`] from its function bodies.

use crate::ir::{CallInfo, CallRef, Def, Expr, Func, Guard, Ir, SiteKey};
use crate::text::{arg_spans_at, call_at, ident_at, ident_is, normalize, skip_blank};
use crate::CallSite;
use clang::{Entity, EntityKind, EvaluationResult, TranslationUnit, TypeKind};
use fib_sites::{ArgPlace, Bound, BufferArg, StructBuffer};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A file some location of the analysed units is in.
#[derive(Debug)]
pub(crate) struct FileInfo {
    /// Relative to the root when inside it.
    pub rel: Option<PathBuf>,
    pub abs: PathBuf,
    pub text: String,
    /// Byte offset of each line's start.
    pub lines: Vec<usize>,
    /// Whether it is one of the tree's files that should be listed in the
    /// analysis (parsed, included, or holding a site).
    pub listed: bool,
}

impl FileInfo {
    /// The 1-based line of a byte offset.
    pub(crate) fn line_of(&self, off: usize) -> usize {
        self.lines.partition_point(|&s| s <= off)
    }

    /// The 1-based line and (byte) column of a byte offset.
    pub(crate) fn line_col(&self, off: usize) -> (u32, u32) {
        let line = self.line_of(off);
        (line as u32, (off - self.lines[line - 1] + 1) as u32)
    }
}

/// State shared by every translation unit of one analysis.
pub(crate) struct Global {
    pub root: PathBuf,
    pub files: Vec<FileInfo>,
    by_path: HashMap<PathBuf, usize>,
    pub ir: Ir,
    /// Call sites, numbered later (`id` is 0 until then).
    pub sites: Vec<CallSite>,
}

impl Global {
    pub(crate) fn new(root: PathBuf) -> Global {
        Global {
            root,
            files: Vec::new(),
            by_path: HashMap::new(),
            ir: Ir::default(),
            sites: Vec::new(),
        }
    }

    /// The index of the file at `path` (canonicalised), reading it if new.
    pub(crate) fn file(&mut self, path: &Path, text: Option<String>) -> usize {
        let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        if let Some(&i) = self.by_path.get(&abs) {
            return i;
        }
        let rel = abs.strip_prefix(&self.root).ok().map(Path::to_path_buf);
        let text = text
            .or_else(|| crate::text::read_source(&abs).ok())
            .unwrap_or_default();
        let lines = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        self.files.push(FileInfo {
            rel,
            abs: abs.clone(),
            text,
            lines,
            listed: false,
        });
        self.by_path.insert(abs, self.files.len() - 1);
        self.files.len() - 1
    }
}

/// Functions whose call ends the program (or jumps out of the function).
const EXITS: &[&str] = &[
    "exit",
    "_exit",
    "_Exit",
    "abort",
    "quick_exit",
    "MPI_Abort",
    "longjmp",
];

/// The OpenMP construct whose block is the statement that follows `gap`
/// (the text between two statements of a block): `Some(Some(name))` for
/// one whose block any thread of the team may run (`single`, `sections`
/// and its `section`s, `task` and `taskloop` without an `if` clause,
/// which may make them run at once on the encountering thread; also
/// combined with `parallel`), `Some(None)` for `master` or `masked`,
/// `None` for any other or none. The parse reads a unit sequentially (OpenMP's
/// directives are not in its tree), so the pragma is read from the text:
/// the last `#pragma omp` line of the gap (an `#endif` may follow it).
fn omp_construct(gap: &str) -> Option<Option<&'static str>> {
    fn directive(l: &str) -> Option<std::str::SplitWhitespace<'_>> {
        let mut words = l.strip_prefix('#')?.split_whitespace();
        ((words.next(), words.next()) == (Some("pragma"), Some("omp"))).then_some(words)
    }
    let mut words = gap.lines().map(str::trim).rev().find_map(directive)?;
    let mut name = words.next()?.split('(').next()?;
    if name == "parallel" {
        name = words
            .next()
            .map_or("parallel", |w| w.split('(').next().unwrap_or(w));
    }
    let mut conditional = || words.any(|w| w == "if" || w.starts_with("if("));
    match name {
        "single" => Some(Some("single")),
        "sections" | "section" => Some(Some("sections")),
        "task" | "taskloop" if !conditional() => Some(Some("task")),
        "master" | "masked" => Some(None),
        _ => None,
    }
}

/// Where jumps out of the current block were seen: the guards active at
/// each `return`/`goto`/exit and at each `break`/`continue`.
#[derive(Default)]
struct Jumps {
    ret: Vec<Guard>,
    brk: Vec<Guard>,
}

/// The walker over one translation unit.
pub(crate) struct Unit<'g, 'tu> {
    g: &'g mut Global,
    files: HashMap<clang::source::File<'tu>, usize>,
    /// Macro definitions in the tree's files: name → (file, start, end).
    macros: HashMap<String, (usize, usize, usize)>,
    func: Option<String>,
    func_name: Option<String>,
    guards: Vec<Guard>,
    jumps: Jumps,
    /// The OpenMP constructs the walk is inside, innermost last: those any
    /// thread of the team may run by name, `master` and `masked` as none.
    omp: Vec<Option<&'static str>>,
    /// The file of the unit itself.
    main_file: PathBuf,
    pub has_main: bool,
}

impl<'g, 'tu> Unit<'g, 'tu> {
    pub(crate) fn new(g: &'g mut Global, main_file: PathBuf) -> Self {
        Unit {
            g,
            files: HashMap::new(),
            macros: HashMap::new(),
            func: None,
            func_name: None,
            guards: Vec::new(),
            jumps: Jumps::default(),
            omp: Vec::new(),
            main_file,
            has_main: false,
        }
    }

    /// The construct any thread may run whose block holds a call here, if
    /// no `master` construct within it does.
    fn any_thread(&self) -> Option<String> {
        self.omp.last().copied().flatten().map(str::to_string)
    }

    fn file_idx(&mut self, f: clang::source::File<'tu>) -> usize {
        if let Some(&i) = self.files.get(&f) {
            return i;
        }
        // Read here rather than through libclang, which cannot hand over a
        // file that is not valid UTF-8.
        let i = self.g.file(&f.get_path(), None);
        self.files.insert(f, i);
        i
    }

    /// File index and offset of a location after `clang_getFileLocation`
    /// (a macro argument's spelling, else the macro use).
    fn floc(&mut self, loc: clang::source::SourceLocation<'tu>) -> Option<(usize, usize)> {
        let l = loc.get_file_location();
        let f = self.file_idx(l.file?);
        Some((f, l.offset as usize))
    }

    fn in_tree(&self, f: usize) -> bool {
        self.g.files[f].rel.is_some()
    }

    /// Whether `loc`, in the file `f`, comes from a file outside the tree
    /// by the line markers of a source the preprocessor already expanded
    /// (`# 1 "/usr/include/mpi.h"`; a relative name is taken from `f`'s
    /// directory).
    fn expanded_from_outside(&self, loc: clang::source::SourceLocation<'tu>, f: usize) -> bool {
        self.expanded_from(loc, f)
            .is_some_and(|p| !p.starts_with(&self.g.root))
    }

    /// The file the line markers of `f`, a source the preprocessor
    /// already expanded, place `loc` in, when it is another file (a
    /// relative name taken from `f`'s directory). Only such a source: a
    /// path the compiler was given otherwise than fib reads it (through a
    /// symbolic link) is no other file.
    fn expanded_from(&self, loc: clang::source::SourceLocation<'tu>, f: usize) -> Option<PathBuf> {
        let file = &self.g.files[f];
        if !crate::header::preprocessed(&file.text) {
            return None;
        }
        let presumed = PathBuf::from(loc.get_presumed_location().0);
        if presumed.as_os_str().is_empty() {
            return None;
        }
        let abs = match file.abs.parent() {
            Some(dir) if presumed.is_relative() => dir.join(&presumed),
            _ => presumed,
        };
        (abs != file.abs).then_some(abs)
    }

    /// `file:line` of an entity, for reasons.
    fn at(&mut self, e: Entity<'tu>) -> String {
        let Some(loc) = e.get_location() else {
            return "?".into();
        };
        let Some((f, off)) = self.floc(loc) else {
            return "?".into();
        };
        let fi = &self.g.files[f];
        let name = fi.rel.as_ref().unwrap_or(&fi.abs).display().to_string();
        format!("{name}:{}", fi.line_of(off))
    }

    /// The file text between two source locations, when both are in one
    /// file in that order (not inside a macro expansion).
    fn between(
        &mut self,
        from: clang::source::SourceLocation<'tu>,
        to: clang::source::SourceLocation<'tu>,
    ) -> Option<&str> {
        let ((f1, a), (f2, b)) = (self.floc(from)?, self.floc(to)?);
        let t = &self.g.files[f1].text;
        (f1 == f2 && a <= b && b <= t.len()).then(|| &t[a..b])
    }

    /// The source text of an entity, when its extent is in one file.
    fn text(&mut self, e: Entity<'tu>) -> String {
        e.get_range()
            .and_then(|r| self.between(r.get_start(), r.get_end()))
            .map(normalize)
            .unwrap_or_default()
    }

    /// Walks the whole translation unit.
    pub(crate) fn run(&mut self, tu: &'tu TranslationUnit<'tu>) {
        let top = tu.get_entity();
        for c in top.get_children() {
            self.top(c);
        }
        self.skipped(tu);
    }

    /// Records the regions of the tree's files the preprocessor left out,
    /// once each (a header's come with every unit that includes it).
    fn skipped(&mut self, tu: &'tu TranslationUnit<'tu>) {
        for r in tu.get_skipped_ranges() {
            let (Some((f, a)), Some((f2, b))) = (self.floc(r.get_start()), self.floc(r.get_end()))
            else {
                continue;
            };
            let fi = &self.g.files[f];
            let Some(rel) = fi.rel.clone() else { continue };
            if f != f2 || a > b || b > fi.text.len() {
                continue;
            }
            let line = fi.line_of(a) as u32;
            if self
                .g
                .ir
                .skipped
                .iter()
                .any(|s| s.file == rel && s.line == line)
            {
                continue;
            }
            let text = fi.text[a..b].to_string();
            self.g.ir.skipped.push(crate::ir::Skipped {
                file: rel,
                line,
                text,
            });
        }
    }

    fn top(&mut self, c: Entity<'tu>) {
        match c.get_kind() {
            EntityKind::MacroDefinition => self.macro_def(c),
            EntityKind::InclusionDirective => {
                if let Some(f) = c.get_file() {
                    let i = self.file_idx(f);
                    if self.in_tree(i) {
                        self.g.files[i].listed = true;
                    }
                }
            }
            EntityKind::MacroExpansion => {}
            _ => {
                let Some(loc) = c.get_location() else { return };
                let Some((f, _)) = self.floc(loc) else { return };
                // A source the preprocessor already expanded holds the
                // headers from outside the tree too (MPI's C++ bindings,
                // the standard library's templates): not the program's.
                if !self.in_tree(f) || self.expanded_from_outside(loc, f) {
                    return;
                }
                self.decl(c);
            }
        }
    }

    fn macro_def(&mut self, c: Entity<'tu>) {
        let name = c.get_name().unwrap_or_default();
        let (Some(r), Some(_)) = (c.get_range(), c.get_location()) else {
            return;
        };
        let (Some((f, a)), Some((_, b))) = (self.floc(r.get_start()), self.floc(r.get_end()))
        else {
            return;
        };
        if name == "MPI_ANY_SOURCE" || name == "MPI_ANY_TAG" {
            let t = &self.g.files[f].text;
            let body = t.get(a..b).unwrap_or("").trim_start_matches(name.as_str());
            let v = parse_int(body);
            if name == "MPI_ANY_SOURCE" {
                self.g.ir.any_source = v.or(self.g.ir.any_source);
            } else {
                self.g.ir.any_tag = v.or(self.g.ir.any_tag);
            }
        } else if self.in_tree(f) {
            let fi = &self.g.files[f];
            let at = format!(
                "{}:{}",
                fi.rel.as_ref().unwrap_or(&fi.abs).display(),
                fi.line_of(a)
            );
            self.g.ir.macros.entry(name.clone()).or_insert(at);
            self.macros.insert(name, (f, a, b));
        }
    }

    /// A declaration in the tree: functions are walked, classes and
    /// namespaces searched for functions, globals' initialisers recorded.
    fn decl(&mut self, c: Entity<'tu>) {
        match c.get_kind() {
            EntityKind::FunctionDecl
            | EntityKind::Method
            | EntityKind::Constructor
            | EntityKind::Destructor
            | EntityKind::ConversionFunction
            | EntityKind::FunctionTemplate
                if c.is_definition() =>
            {
                self.function(c);
            }
            EntityKind::Namespace
            | EntityKind::LinkageSpec
            | EntityKind::ClassDecl
            | EntityKind::StructDecl
            | EntityKind::UnionDecl
            | EntityKind::ClassTemplate => {
                for k in c.get_children() {
                    self.decl(k);
                }
            }
            EntityKind::VarDecl => {
                self.func = None;
                self.func_name = None;
                self.walk(c);
            }
            _ => {}
        }
    }

    fn function(&mut self, f: Entity<'tu>) {
        let usr = usr_of(f);
        let name = qualified_name(f);
        let is_main = f.get_kind() == EntityKind::FunctionDecl
            && f.get_name().as_deref() == Some("main")
            && f.get_semantic_parent().map(|p| p.get_kind()) == Some(EntityKind::TranslationUnit);
        if is_main {
            self.g.ir.mains.push(usr.clone());
            if let Some(l) = f.get_location().map(|l| l.get_file_location()) {
                if let Some(file) = l.file {
                    let p = std::fs::canonicalize(file.get_path()).unwrap_or(file.get_path());
                    if p == self.main_file {
                        self.has_main = true;
                    }
                }
            }
        }
        let mut params = Vec::new();
        for p in f.get_arguments().unwrap_or_default() {
            let key = usr_of(p);
            let pname = p.get_name().unwrap_or_default();
            self.g
                .ir
                .vars
                .entry(key.clone())
                .or_default()
                .name
                .clone_from(&pname);
            if is_main {
                self.g
                    .ir
                    .def(&key, &pname, Def::Taint(crate::facts::COMMAND_LINE.into()));
            }
            params.push(key);
        }
        let func = self.g.ir.funcs.entry(usr.clone()).or_insert_with(|| Func {
            name: name.clone(),
            params: params.clone(),
            returns: Vec::new(),
        });
        if func.params.is_empty() {
            func.params = params;
        }
        let (old_f, old_n) = (self.func.take(), self.func_name.take());
        self.func = Some(usr);
        self.func_name = Some(name);
        let guards = std::mem::take(&mut self.guards);
        let jumps = std::mem::take(&mut self.jumps);
        for c in f.get_children() {
            if matches!(
                c.get_kind(),
                EntityKind::CompoundStmt | EntityKind::MemberRef | EntityKind::CallExpr
            ) || c.is_expression()
            {
                self.walk(c);
            }
        }
        self.guards = guards;
        self.jumps = jumps;
        self.func = old_f;
        self.func_name = old_n;
    }

    /// Builds a guard from the condition parts of a statement.
    fn guard(&mut self, stmt: Entity<'tu>, parts: &[Entity<'tu>], label: &str) -> Guard {
        let mut expr = Expr::default();
        let mut texts = Vec::new();
        for p in parts {
            // A lone condition is evaluated: a constant one (`if (DEBUG)`)
            // decides which of its branches never run.
            let e = self.expr(*p, parts.len() == 1);
            texts.push(e.text.clone());
            expr.reads.extend(e.reads);
            expr.calls.extend(e.calls);
            expr.value = e.value;
        }
        let cond = texts.join("; ");
        expr.text = cond.clone();
        if let Some(head) = self.header_text(stmt, label) {
            let at = self.at(stmt);
            return Guard {
                text: head,
                at,
                expr,
                when: None,
            };
        }
        let text = match label {
            "&&" | "||" => format!("{cond} {label}"),
            "?:" => format!("{cond} ?"),
            "do" => format!("do ... while ({cond})"),
            "for" => format!("for ({cond})"),
            _ => format!("{label} ({cond})"),
        };
        let at = self.at(stmt);
        Guard {
            text,
            at,
            expr,
            when: None,
        }
    }

    /// The head of an `if`, `while`, `for` or `switch` as written, up to
    /// its body: `for (i = 0; i < n; i++)`.
    fn header_text(&mut self, stmt: Entity<'tu>, label: &str) -> Option<String> {
        if !matches!(label, "if" | "while" | "for" | "switch") {
            return None;
        }
        let (f, a) = self.floc(stmt.get_range()?.get_start())?;
        let text = &self.g.files[f].text;
        if !ident_is(text, a, label) {
            return None;
        }
        let open = skip_blank(text, a + label.len());
        let close = crate::text::match_paren(text, open)?;
        Some(normalize(&text[a..close]))
    }

    fn push_guard(&mut self, g: Guard) {
        if !self.guards.iter().any(|x| x.at == g.at && x.text == g.text) {
            self.guards.push(g);
        }
    }

    /// Walks a statement or expression inside a function body.
    fn walk(&mut self, e: Entity<'tu>) {
        let kids = || e.get_children();
        match e.get_kind() {
            EntityKind::IfStmt => {
                let (decls, rest): (Vec<_>, Vec<_>) = kids().into_iter().partition(|c| {
                    matches!(c.get_kind(), EntityKind::VarDecl | EntityKind::DeclStmt)
                });
                let Some((cond, branches)) = rest.split_first() else {
                    return;
                };
                let mut parts = decls.clone();
                parts.push(*cond);
                for p in &parts {
                    self.walk(*p);
                }
                let g = self.guard(e, &parts, "if");
                let depth = self.guards.len();
                for (k, b) in branches.iter().enumerate() {
                    self.push_guard(Guard {
                        when: Some(k == 0),
                        ..g.clone()
                    });
                    self.walk(*b);
                    self.guards.truncate(depth);
                }
            }
            EntityKind::WhileStmt
            | EntityKind::ForStmt
            | EntityKind::ForRangeStmt
            | EntityKind::SwitchStmt
            | EntityKind::DoStmt => {
                let kind = e.get_kind();
                let mut children = kids();
                if children.is_empty() {
                    return;
                }
                let body = if kind == EntityKind::DoStmt {
                    children.remove(0)
                } else {
                    children.pop().unwrap()
                };
                let label = match kind {
                    EntityKind::WhileStmt => "while",
                    EntityKind::SwitchStmt => "switch",
                    EntityKind::DoStmt => "do",
                    _ => "for",
                };
                let mut g = self.guard(e, &children, label);
                if kind == EntityKind::WhileStmt {
                    g.when = Some(true);
                }
                let depth = self.guards.len();
                let brk = self.jumps.brk.len();
                if kind == EntityKind::SwitchStmt {
                    for c in &children {
                        self.walk(*c);
                    }
                    self.push_guard(g);
                } else {
                    self.push_guard(g);
                    for c in &children {
                        self.walk(*c);
                    }
                }
                self.walk(body);
                self.guards.truncate(depth);
                self.jumps.brk.truncate(brk);
            }
            EntityKind::ConditionalOperator => {
                let children = kids();
                let Some((cond, rest)) = children.split_first() else {
                    return;
                };
                self.walk(*cond);
                let g = self.guard(e, std::slice::from_ref(cond), "?:");
                let depth = self.guards.len();
                for (k, c) in rest.iter().enumerate() {
                    self.push_guard(Guard {
                        when: (rest.len() == 2).then_some(k == 0),
                        ..g.clone()
                    });
                    self.walk(*c);
                    self.guards.truncate(depth);
                }
            }
            EntityKind::CompoundStmt => {
                let depth = self.guards.len();
                // Where the text before the next statement starts: after
                // the brace, then after each statement.
                let mut after = e
                    .get_range()
                    .and_then(|r| self.floc(r.get_start()))
                    .map(|(f, o)| (f, o + 1));
                for c in kids() {
                    let (r, b) = (self.jumps.ret.len(), self.jumps.brk.len());
                    let range = c.get_range();
                    let start = range.and_then(|r| self.floc(r.get_start()));
                    let construct = match (after, start) {
                        (Some((f, a)), Some((g, s))) if f == g && a <= s => {
                            omp_construct(&self.g.files[f].text[a..s])
                        }
                        _ => None,
                    };
                    after = range.and_then(|r| self.floc(r.get_end()));
                    if let Some(any) = construct {
                        self.omp.push(any);
                    }
                    self.walk(c);
                    if construct.is_some() {
                        self.omp.pop();
                    }
                    // What follows a jump runs when the jump was not taken,
                    // whichever way its guards went.
                    let new: Vec<Guard> = self.jumps.ret[r..]
                        .iter()
                        .chain(&self.jumps.brk[b..])
                        .map(|g| Guard {
                            when: None,
                            ..g.clone()
                        })
                        .collect();
                    for g in new {
                        self.push_guard(g);
                    }
                }
                self.guards.truncate(depth);
            }
            EntityKind::BinaryOperator => {
                let children = kids();
                if children.len() != 2 {
                    children.into_iter().for_each(|c| self.walk(c));
                    return;
                }
                let (l, r) = (children[0], children[1]);
                let op = self.operator_between(l, r);
                match op.as_str() {
                    "&&" | "||" => {
                        self.walk(l);
                        let mut g = self.guard(e, &[l], &op);
                        g.when = Some(op == "&&");
                        let depth = self.guards.len();
                        self.push_guard(g);
                        self.walk(r);
                        self.guards.truncate(depth);
                    }
                    "=" => {
                        self.assign(l, r);
                        self.walk(l);
                        self.walk(r);
                    }
                    _ => {
                        self.walk(l);
                        self.walk(r);
                    }
                }
            }
            EntityKind::CompoundAssignOperator => {
                let children = kids();
                if children.len() == 2 {
                    self.assign(children[0], children[1]);
                }
                children.into_iter().for_each(|c| self.walk(c));
            }
            EntityKind::UnaryOperator => {
                let children = kids();
                if let Some(c) = children.first() {
                    let t = self.text(e);
                    if t.starts_with("++")
                        || t.starts_with("--")
                        || t.ends_with("++")
                        || t.ends_with("--")
                    {
                        let ex = self.guarded(Expr::default());
                        for (k, n) in self.targets_of(*c) {
                            self.g.ir.def(&k, &n, Def::Expr(ex.clone()));
                        }
                    }
                }
                children.into_iter().for_each(|c| self.walk(c));
            }
            EntityKind::VarDecl => {
                let inits: Vec<_> = kids().into_iter().filter(|c| c.is_expression()).collect();
                let key = usr_of(e);
                let name = e.get_name().unwrap_or_default();
                if let Some(init) = inits.last() {
                    let ex = self.expr(*init, true);
                    self.g.ir.def(&key, &name, Def::Expr(ex));
                    self.alias(&key, &name, *init);
                }
                inits.into_iter().for_each(|c| self.walk(c));
            }
            EntityKind::ReturnStmt => {
                let children = kids();
                if let (Some(c), Some(f)) = (children.first(), self.func.clone()) {
                    let ex = self.expr(*c, false);
                    if let Some(func) = self.g.ir.funcs.get_mut(&f) {
                        func.returns.push(ex);
                    }
                }
                children.into_iter().for_each(|c| self.walk(c));
                self.jumps.ret.extend(self.guards.iter().cloned());
            }
            EntityKind::GotoStmt => self.jumps.ret.extend(self.guards.iter().cloned()),
            EntityKind::BreakStmt | EntityKind::ContinueStmt => {
                self.jumps.brk.extend(self.guards.iter().cloned())
            }
            EntityKind::CallExpr => {
                self.call(e);
                let children = kids();
                // The function a call names is called, not taken.
                let skip = usize::from(callee_ref(e).is_some());
                children.into_iter().skip(skip).for_each(|c| self.walk(c));
            }
            EntityKind::DeclRefExpr => {
                if let Some(f) = e.get_reference().filter(|d| is_function(*d)) {
                    self.g.ir.address_taken.insert(usr_of(f));
                }
                kids().into_iter().for_each(|c| self.walk(c));
            }
            _ => kids().into_iter().for_each(|c| self.walk(c)),
        }
    }

    /// The operator written between two operands.
    fn operator_between(&mut self, l: Entity<'tu>, r: Entity<'tu>) -> String {
        let (Some(lr), Some(rr)) = (l.get_range(), r.get_range()) else {
            return String::new();
        };
        // Inside a macro expansion the operator is not in the file.
        let Some(s) = self.between(lr.get_end(), rr.get_start()) else {
            return String::new();
        };
        s[skip_blank(s, 0)..].trim().to_string()
    }

    /// Records `lhs = rhs` (or `lhs op= rhs`).
    fn assign(&mut self, lhs: Entity<'tu>, rhs: Entity<'tu>) {
        let ex = self.expr(rhs, true);
        let ex = self.guarded(ex);
        for (k, n) in self.targets_of(lhs) {
            self.g.ir.def(&k, &n, Def::Expr(ex.clone()));
            self.alias(&k, &n, rhs);
        }
    }

    /// What an assignment made here writes: its value, and what the guards
    /// around it read, since they decide whether it happens (`if (idx ==
    /// 0) first = 1;` makes `first` depend on `idx`).
    fn guarded(&self, mut ex: Expr) -> Expr {
        for g in &self.guards {
            ex.reads.extend(g.expr.reads.iter().cloned());
            ex.calls.extend(g.expr.calls.iter().cloned());
        }
        ex
    }

    /// `p = &x` or `p = buf`: a write through `p` may change `x`, so `x`
    /// also takes `p`'s values.
    fn alias(&mut self, key: &str, name: &str, rhs: Entity<'tu>) {
        let rhs = strip(rhs);
        let pointed = match rhs.get_kind() {
            EntityKind::UnaryOperator if self.text(rhs).starts_with('&') => {
                rhs.get_children().first().map(|c| self.targets_of(*c))
            }
            EntityKind::DeclRefExpr if is_pointer_like(rhs) => Some(self.targets_of(rhs)),
            _ => None,
        };
        for (k, n) in pointed.unwrap_or_default() {
            if k != key {
                let read = Expr {
                    text: name.to_string(),
                    reads: vec![key.to_string()],
                    ..Expr::default()
                };
                self.g.ir.def(&k, &n, Def::Expr(read));
            }
        }
    }

    /// The variables an lvalue names: `x`, `a[i]` → `a`, `*p` → `p`,
    /// `s.f` → `s` and the field `f`.
    fn targets_of(&mut self, e: Entity<'tu>) -> Vec<(String, String)> {
        let e = strip(e);
        match e.get_kind() {
            EntityKind::DeclRefExpr => match e.get_reference() {
                Some(d) if is_var(d) => vec![(usr_of(d), d.get_name().unwrap_or_default())],
                _ => vec![],
            },
            EntityKind::MemberRefExpr => {
                let mut out = Vec::new();
                if let Some(d) = e.get_reference() {
                    if is_var(d) {
                        out.push((usr_of(d), d.get_name().unwrap_or_default()));
                    }
                }
                if let Some(b) = e.get_children().first() {
                    out.extend(self.targets_of(*b));
                }
                out
            }
            EntityKind::ArraySubscriptExpr
            | EntityKind::UnaryOperator
            | EntityKind::BinaryOperator => e
                .get_children()
                .first()
                .map(|c| self.targets_of(*c))
                .unwrap_or_default(),
            _ => vec![],
        }
    }

    /// What an expression reads; `value` asks for its constant value too.
    fn expr(&mut self, e: Entity<'tu>, value: bool) -> Expr {
        let mut ex = Expr {
            text: self.text(e),
            ..Expr::default()
        };
        if value {
            ex.value = match e.evaluate() {
                Some(EvaluationResult::SignedInteger(v)) => Some(v),
                Some(EvaluationResult::UnsignedInteger(v)) => i64::try_from(v).ok(),
                _ => None,
            };
        }
        self.collect(e, &mut ex);
        ex
    }

    fn collect(&mut self, e: Entity<'tu>, ex: &mut Expr) {
        match e.get_kind() {
            EntityKind::DeclRefExpr => {
                if let Some(d) = e.get_reference() {
                    if is_var(d) {
                        ex.reads.push(usr_of(d));
                    }
                }
            }
            EntityKind::MemberRefExpr => {
                if let Some(d) = e.get_reference() {
                    if is_var(d) {
                        ex.reads.push(usr_of(d));
                    }
                }
                for c in e.get_children() {
                    self.collect(c, ex);
                }
            }
            EntityKind::CallExpr => {
                let (name, decl, _) = callee(e);
                let args = e
                    .get_arguments()
                    .unwrap_or_default()
                    .into_iter()
                    .map(|a| self.expr(a, false))
                    .collect();
                let at = self.at(e);
                ex.calls.push(CallRef {
                    name,
                    usr: decl.map(usr_of),
                    args,
                    at,
                });
            }
            EntityKind::UnaryExpr | EntityKind::LambdaExpr => {}
            _ => {
                for c in e.get_children() {
                    self.collect(c, ex);
                }
            }
        }
    }

    /// Records a call: its guards and what it may write, and the site when
    /// it calls MPI.
    fn call(&mut self, e: Entity<'tu>) {
        let (name, decl, name_loc) = callee(e);
        if name.is_empty() {
            return;
        }
        let args = e.get_arguments().unwrap_or_default();
        let param_types = decl
            .and_then(|d| d.get_type())
            .and_then(|t| t.get_argument_types())
            .unwrap_or_default();
        // A function: in C++, `MPI_Status st;` constructs an `MPI_Status`,
        // a call of the struct's implicit constructor that mpi.h declares.
        let is_mpi = name.starts_with("MPI_")
            && decl.is_some_and(|d| {
                d.get_kind() == EntityKind::FunctionDecl && self.declared_by_mpi(d)
            });
        let mut arg_exprs = Vec::new();
        let mut targets = Vec::new();
        for (i, a) in args.iter().enumerate() {
            arg_exprs.push(self.expr(*a, true));
            let writable = match param_types.get(i) {
                Some(t) => {
                    let t = t.get_canonical_type();
                    matches!(t.get_kind(), TypeKind::Pointer | TypeKind::LValueReference)
                        && t.get_pointee_type()
                            .is_some_and(|p| !p.is_const_qualified())
                }
                None => true,
            };
            if !writable {
                continue;
            }
            let reference = param_types
                .get(i)
                .is_some_and(|t| t.get_canonical_type().get_kind() == TypeKind::LValueReference);
            let s = strip(*a);
            let t = match s.get_kind() {
                EntityKind::UnaryOperator if self.text(s).starts_with('&') => s
                    .get_children()
                    .first()
                    .map(|c| self.targets_of(*c))
                    .unwrap_or_default(),
                EntityKind::DeclRefExpr | EntityKind::MemberRefExpr
                    if reference || is_pointer_like(s) =>
                {
                    self.targets_of(s)
                }
                EntityKind::ArraySubscriptExpr | EntityKind::MemberRefExpr if reference => {
                    self.targets_of(s)
                }
                EntityKind::BinaryOperator if is_pointer_like(s) => self.targets_of(s),
                _ => vec![],
            };
            if !t.is_empty() {
                for (k, n) in &t {
                    self.g
                        .ir
                        .vars
                        .entry(k.clone())
                        .or_default()
                        .name
                        .clone_from(n);
                }
                targets.push((i, t.into_iter().map(|(k, _)| k).collect()));
            }
        }
        let at = self.at(e);
        let site = if is_mpi {
            self.site(e, &name, name_loc, &arg_exprs, &args)
        } else {
            None
        };
        let jumps_out = EXITS.contains(&name.as_str());
        self.g.ir.calls.push(CallInfo {
            caller: self.func.clone(),
            callee: name,
            // A call of a template's instance is a call of the template,
            // whose body is what the analysis walked.
            callee_usr: decl.map(|d| d.get_template().map_or_else(|| usr_of(d), usr_of)),
            guards: self.guards.clone(),
            args: arg_exprs,
            targets,
            at,
            site,
        });
        if jumps_out {
            self.jumps.ret.extend(self.guards.iter().cloned());
        }
    }

    /// Whether a function declaration comes from MPI's headers rather than
    /// from the checked tree.
    fn declared_by_mpi(&mut self, d: Entity<'tu>) -> bool {
        let Some(loc) = d.get_location() else {
            return false;
        };
        let Some((f, _)) = self.floc(loc) else {
            return false;
        };
        let name = if self.in_tree(f) {
            // A source the preprocessor already expanded holds MPI's
            // declarations itself: its line markers say where each came
            // from.
            let Some(presumed) = self.expanded_from(loc, f) else {
                return false;
            };
            presumed
                .file_name()
                .map(|n| n.to_string_lossy().to_lowercase())
        } else {
            self.g.files[f]
                .abs
                .file_name()
                .map(|n| n.to_string_lossy().to_lowercase())
        }
        .unwrap_or_default();
        name.starts_with("mpi") || d.is_in_system_header()
    }

    /// Attributes an MPI call to a file of the tree and records the site.
    fn site(
        &mut self,
        call: Entity<'tu>,
        callee: &str,
        name_loc: Option<clang::source::SourceLocation<'tu>>,
        arg_exprs: &[Expr],
        arg_entities: &[Entity<'tu>],
    ) -> Option<SiteKey> {
        let loc = name_loc.or_else(|| call.get_location())?;
        let (f, off) = self.floc(loc)?;
        let function = self.func_name.clone();
        let raw = if self.in_tree(f) && ident_is(&self.g.files[f].text, off, callee) {
            let (line, column) = self.g.files[f].line_col(off);
            let text = &self.g.files[f].text;
            let (end, args) = call_at(text, off).unwrap_or_else(|| {
                (
                    off + callee.len(),
                    arg_exprs.iter().map(|a| a.text.clone()).collect(),
                )
            });
            let (buffers, structs) = self.buffers(f, off, callee, &args, arg_entities);
            let bounds = self.bounds(callee, arg_entities);
            CallSite {
                id: 0,
                file: self.g.files[f].rel.clone()?,
                line,
                column,
                span: (off, end),
                callee: callee.to_string(),
                args,
                function,
                macro_name: None,
                buffers,
                bounds,
                structs,
                any_thread: self.any_thread(),
            }
        } else {
            let xl = loc.get_expansion_location();
            let f = self.file_idx(xl.file?);
            if !self.in_tree(f) {
                return None;
            }
            let off = xl.offset as usize;
            let text = &self.g.files[f].text;
            let mname = ident_at(text, off)?.to_string();
            let function_like = self.macros.get(&mname).map(|&(df, a, b)| {
                let d = &self.g.files[df].text[a..b];
                d.as_bytes().get(mname.len()) == Some(&b'(')
            });
            let call = if function_like != Some(false) {
                call_at(text, off)
            } else {
                None
            };
            let (end, use_args) = call.unwrap_or((off + mname.len(), Vec::new()));
            let (line, column) = self.g.files[f].line_col(off);
            let text = &self.g.files[f].text;
            let use_text = normalize(&text[off..end]);
            let args = self
                .macro_args(&mname, &use_args, callee)
                .unwrap_or_else(|| vec![use_text]);
            CallSite {
                id: 0,
                file: self.g.files[f].rel.clone()?,
                line,
                column,
                span: (off, end),
                callee: callee.to_string(),
                args,
                function,
                macro_name: Some(mname),
                // A macro's arguments are not where the call's are written.
                buffers: Vec::new(),
                bounds: Vec::new(),
                structs: Vec::new(),
                any_thread: self.any_thread(),
            }
        };
        self.g.files[f].listed = true;
        let key = (raw.file.clone(), raw.span.0, raw.callee.clone());
        self.g.sites.push(raw);
        Some(key)
    }

    /// The buffer arguments of the call to `callee` written at `off` in file
    /// `f` (with its arguments' texts and entities) whose element type is
    /// a scalar and whose datatype argument names an MPI datatype; and
    /// those whose elements are a C struct, with its layout.
    fn buffers(
        &self,
        f: usize,
        off: usize,
        callee: &str,
        texts: &[String],
        entities: &[Entity<'tu>],
    ) -> (Vec<BufferArg>, Vec<StructBuffer>) {
        let pairs = fib_sites::buffer_args(callee);
        if pairs.is_empty() || texts.len() != entities.len() {
            return Default::default();
        }
        let file = &self.g.files[f];
        let Some(spans) = arg_spans_at(&file.text, off) else {
            return Default::default();
        };
        if spans.len() != entities.len() {
            return Default::default();
        }
        let place = |index: usize| {
            let span = spans[index];
            let (line, column) = file.line_col(span.0);
            ArgPlace {
                index,
                line,
                column,
                span,
            }
        };
        let mut out = Vec::new();
        let mut structs = Vec::new();
        for &(buf, dt) in pairs {
            let (Some(arg), Some(dt_text)) = (entities.get(buf), texts.get(dt)) else {
                continue;
            };
            if let Some((name, size, fields)) = crate::buffers::struct_layout(*arg) {
                structs.push(StructBuffer {
                    buffer: place(buf),
                    datatype: place(dt),
                    name,
                    size,
                    fields,
                });
                continue;
            }
            let Some(datatype_name) = self.datatype_name(dt_text) else {
                continue;
            };
            let Some((spelled, canonical, element)) = crate::buffers::buffer_type(*arg) else {
                continue;
            };
            out.push(BufferArg {
                buffer: place(buf),
                datatype: place(dt),
                datatype_name,
                spelled,
                canonical,
                element,
            });
        }
        (out, structs)
    }

    /// The buffer arguments of a call to `callee` that point into a
    /// variable of known size ([`Bound`]).
    fn bounds(&mut self, callee: &str, entities: &[Entity<'tu>]) -> Vec<Bound> {
        let mut out: Vec<Bound> = Vec::new();
        for &(buf, _) in fib_sites::buffer_args(callee) {
            if out.iter().any(|b| b.arg == buf) {
                continue;
            }
            if let Some(b) = entities.get(buf).and_then(|a| self.bound(buf, *a)) {
                out.push(b);
            }
        }
        out
    }

    /// The variable the buffer expression `arg` points into, when it is
    /// one the copy can name by itself: `a`, `a + i`, `&a[i]`, `s.m`,
    /// `&s.m`, `&x`, through parentheses and casts, with `a` an array, and
    /// never through a pointer (`p->m`, `p[i]`): a pointer's memory is the
    /// heap's check. The variable must be named as written at the call
    /// (not by a macro), have a size the compiler knows (no VLA, no
    /// incomplete or dependent type), not be a reference, and not be
    /// `register` (its address is taken).
    fn bound(&mut self, arg: usize, e: Entity<'tu>) -> Option<Bound> {
        let e = strip(e);
        let var = match e.get_kind() {
            EntityKind::UnaryOperator if self.text(e).starts_with('&') => {
                let inner = *e.get_children().first()?;
                object_of(strip(inner), false)?
            }
            _ => object_of(e, true)?,
        };
        let d = var.get_reference()?;
        if !matches!(d.get_kind(), EntityKind::VarDecl | EntityKind::ParmDecl) {
            return None;
        }
        if d.get_storage_class() == Some(clang::StorageClass::Register) {
            return None;
        }
        let name = d.get_name()?;
        if self.text(var) != name {
            return None;
        }
        let t = d.get_type()?;
        let c = t.get_canonical_type();
        if matches!(
            c.get_kind(),
            TypeKind::LValueReference
                | TypeKind::RValueReference
                | TypeKind::VariableArray
                | TypeKind::IncompleteArray
                | TypeKind::DependentSizedArray
        ) {
            return None;
        }
        let size = t.get_sizeof().ok().filter(|&n| n > 0)? as u64;
        let declared = d
            .get_location()
            .and_then(|l| self.floc(l))
            .and_then(|(f, off)| {
                let fi = &self.g.files[f];
                Some((fi.rel.clone()?, fi.line_of(off) as u32))
            });
        Some(Bound {
            arg,
            variable: name,
            size,
            type_name: t.get_display_name(),
            declared,
        })
    }

    /// The MPI name a datatype argument written as `text` stands for: the
    /// text itself when it is a name `MPI_...`, else what the tree's
    /// object-like macro of that name is defined as, a few levels deep.
    fn datatype_name(&self, text: &str) -> Option<String> {
        let mut name = text.trim();
        for _ in 0..8 {
            if ident_at(name, 0)?.len() != name.len() {
                return None;
            }
            if name.starts_with("MPI_") {
                return Some(name.to_string());
            }
            let &(df, a, b) = self.macros.get(name)?;
            let def = &self.g.files[df].text[a..b];
            let body = def.get(name.len()..)?;
            if body.starts_with('(') {
                return None;
            }
            let mut body = body.trim();
            while let Some(inner) = body.strip_prefix('(').and_then(|x| x.strip_suffix(')')) {
                body = inner.trim();
            }
            name = body;
        }
        None
    }

    /// The arguments of the call to `callee` written in the body of the
    /// tree's macro `name`, with the macro's parameters replaced by the
    /// use's arguments.
    fn macro_args(&self, name: &str, use_args: &[String], callee: &str) -> Option<Vec<String>> {
        let &(f, a, b) = self.macros.get(name)?;
        let def = self.g.files[f].text[a..b].replace("\\\n", " ");
        let rest = &def[name.len()..];
        let (params, body) = if rest.starts_with('(') {
            let close = rest.find(')')?;
            let params: Vec<String> = rest[1..close]
                .split(',')
                .map(|p| p.trim().to_string())
                .filter(|p| !p.is_empty())
                .collect();
            (params, &rest[close + 1..])
        } else {
            (Vec::new(), rest)
        };
        let at = (0..body.len()).find(|&i| ident_is(body, i, callee))?;
        let (_, args) = call_at(body, at)?;
        Some(
            args.iter()
                .map(|arg| substitute(arg, &params, use_args))
                .collect(),
        )
    }
}

/// Replaces a macro's parameters in `text` by the use's arguments.
fn substitute(text: &str, params: &[String], args: &[String]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < text.len() {
        if let Some(id) = ident_at(text, i) {
            let rep = if id == "__VA_ARGS__" {
                let from = params
                    .iter()
                    .position(|p| p == "...")
                    .unwrap_or(params.len());
                Some(args.get(from..).unwrap_or(&[]).join(", "))
            } else {
                params
                    .iter()
                    .position(|p| p == id)
                    .and_then(|k| args.get(k).cloned())
            };
            out.push_str(rep.as_deref().unwrap_or(id));
            i += id.len();
        } else {
            let c = text[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// Parses a macro body such as ` (-2)` as an integer.
fn parse_int(body: &str) -> Option<i64> {
    let s: String = body
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '(' && *c != ')')
        .collect();
    let s = s.trim_end_matches(['L', 'l', 'U', 'u']);
    s.parse().ok()
}

/// Strips parentheses and casts around an expression.
fn strip(mut e: Entity<'_>) -> Entity<'_> {
    loop {
        match e.get_kind() {
            EntityKind::ParenExpr
            | EntityKind::UnexposedExpr
            | EntityKind::CStyleCastExpr
            | EntityKind::StaticCastExpr => {
                let c = e.get_children();
                if c.len() == 1 {
                    e = c[0];
                } else {
                    return e;
                }
            }
            _ => return e,
        }
    }
}

/// The reference to the variable whose memory the lvalue `e` designates
/// (`decayed`: `e` is used as a pointer, so it must be an array): a
/// variable, an element of an array (not of a pointer), a member reached
/// with `.`, or, for a pointer, an array plus or minus an offset.
fn object_of(e: Entity<'_>, decayed: bool) -> Option<Entity<'_>> {
    let is_array = |x: Entity<'_>| {
        x.get_type()
            .is_some_and(|t| t.get_canonical_type().get_kind() == TypeKind::ConstantArray)
    };
    if decayed && !is_array(e) && e.get_kind() != EntityKind::BinaryOperator {
        return None;
    }
    match e.get_kind() {
        EntityKind::DeclRefExpr => Some(e),
        EntityKind::ArraySubscriptExpr => {
            let base = strip(*e.get_children().first()?);
            is_array(base).then_some(())?;
            object_of(base, true)
        }
        EntityKind::MemberRefExpr => {
            let base = strip(*e.get_children().first()?);
            let through_pointer = base
                .get_type()
                .is_none_or(|t| t.get_canonical_type().get_kind() == TypeKind::Pointer);
            if through_pointer || base.get_kind() == EntityKind::ThisExpr {
                return None;
            }
            object_of(base, false)
        }
        EntityKind::BinaryOperator if decayed => {
            let sides = e.get_children();
            let [l, r] = sides[..] else {
                return None;
            };
            let (l, r) = (strip(l), strip(r));
            match (is_array(l), is_array(r)) {
                (true, false) => object_of(l, true),
                (false, true) => object_of(r, true),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether an expression is an array or a pointer (so passing it lets the
/// callee write what it points to).
fn is_pointer_like(e: Entity<'_>) -> bool {
    e.get_type().is_some_and(|t| {
        let t = t.get_canonical_type();
        match t.get_kind() {
            TypeKind::Pointer => t
                .get_pointee_type()
                .is_some_and(|p| !p.is_const_qualified()),
            TypeKind::ConstantArray
            | TypeKind::IncompleteArray
            | TypeKind::VariableArray
            | TypeKind::DependentSizedArray => true,
            _ => false,
        }
    })
}

fn is_var(d: Entity<'_>) -> bool {
    matches!(
        d.get_kind(),
        EntityKind::VarDecl | EntityKind::ParmDecl | EntityKind::FieldDecl
    )
}

/// A USR, or a stand-in for entities that have none.
fn usr_of(e: Entity<'_>) -> String {
    e.get_usr().map(|u| u.0).unwrap_or_else(|| {
        let l = e.get_location().map(|l| l.get_expansion_location());
        format!(
            "{}@{}",
            e.get_name().unwrap_or_default(),
            l.map_or(0, |l| l.offset)
        )
    })
}

/// `ns::Class::method` for C++ methods, the plain name for functions.
fn qualified_name(f: Entity<'_>) -> String {
    let mut parts = vec![f.get_name().unwrap_or_default()];
    let mut p = f.get_semantic_parent();
    while let Some(e) = p {
        match e.get_kind() {
            EntityKind::ClassDecl
            | EntityKind::StructDecl
            | EntityKind::UnionDecl
            | EntityKind::ClassTemplate
            | EntityKind::Namespace => {
                if let Some(n) = e.get_name() {
                    parts.push(n);
                }
            }
            _ => break,
        }
        p = e.get_semantic_parent();
    }
    parts.reverse();
    parts.join("::")
}

/// The expression naming a call's callee directly (through casts and
/// parentheses), when the call names one: the callee is called there, not
/// its address taken.
fn callee_ref(call: Entity<'_>) -> Option<Entity<'_>> {
    let mut e = call.get_children().first().copied();
    while let Some(c) = e {
        match c.get_kind() {
            EntityKind::DeclRefExpr | EntityKind::OverloadedDeclRef | EntityKind::MemberRefExpr => {
                return Some(c)
            }
            EntityKind::UnexposedExpr | EntityKind::ParenExpr => {
                e = c.get_children().first().copied();
            }
            _ => return None,
        }
    }
    None
}

/// Whether `d` declares a function or method.
fn is_function(d: Entity<'_>) -> bool {
    matches!(
        d.get_kind(),
        EntityKind::FunctionDecl
            | EntityKind::Method
            | EntityKind::FunctionTemplate
            | EntityKind::ConversionFunction
    )
}

/// The callee of a call: its name, declaration and the location of the
/// name as written.
/// The one function a name left unresolved until a template is
/// instantiated can mean (a call whose arguments depend on a template
/// parameter: libclang then names the candidates). A C function such as an
/// MPI call has one.
fn only_overload<'tu>(e: Entity<'tu>) -> Option<Entity<'tu>> {
    let set = match e.get_kind() {
        EntityKind::OverloadedDeclRef => e,
        _ => e
            .get_reference()
            .filter(|r| r.get_kind() == EntityKind::OverloadedDeclRef)?,
    };
    match set.get_overloaded_declarations()?.as_slice() {
        [only] => Some(*only),
        _ => None,
    }
}

fn callee<'tu>(
    call: Entity<'tu>,
) -> (
    String,
    Option<Entity<'tu>>,
    Option<clang::source::SourceLocation<'tu>>,
) {
    let mut decl = call.get_reference();
    let mut name = call
        .get_name()
        .or_else(|| decl.and_then(|d| d.get_name()))
        .unwrap_or_default();
    let named = callee_ref(call);
    if let (None, Some(only)) = (decl, named.and_then(only_overload)) {
        decl = Some(only);
        if name.is_empty() {
            name = only.get_name().unwrap_or_default();
        }
    }
    (name, decl, named.and_then(|c| c.get_location()))
}
