//! The invariants ARCHITECTURE.md states about the code's shape, held by
//! tests instead of by review: the pure crates do no I/O and use no unsafe
//! code, the static analysis's plain data does not pull in libclang, and no
//! crate has a module import circle.
//!
//! The sources are read with `syn`: a module's references are the paths in
//! its `use` items, expressions, types and patterns (paths inside macro
//! invocations are not seen). Module `a` refers to module `b` when one of its
//! paths names `b` or an item inside it, however the path is written
//! (`crate::b::x`, `super::b::x`, `b::x` from `b`'s parent).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use syn::visit::Visit;

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One file of a crate's module tree: its module path from the crate root
/// (empty for the root) and its parsed contents.
struct ModFile {
    path: Vec<String>,
    file: PathBuf,
    ast: syn::File,
}

/// The crate's module tree, followed from its root file through every
/// `mod NAME;` declaration (inline modules stay part of their file).
fn module_files(root: &Path) -> Vec<ModFile> {
    let mut out = Vec::new();
    let mut todo = vec![(Vec::new(), root.to_path_buf())];
    while let Some((path, file)) = todo.pop() {
        let text =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        // The directory a file's child modules live in.
        let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
        let dir = if path.is_empty() || stem == "mod" {
            file.parent().unwrap().to_path_buf()
        } else {
            file.parent().unwrap().join(&stem)
        };
        let mut children = Vec::new();
        collect_mod_decls(&ast.items, &dir, &mut Vec::new(), &mut children);
        for (inline, name, child_file) in children {
            let mut p = path.clone();
            p.extend(inline);
            p.push(name);
            todo.push((p, child_file));
        }
        out.push(ModFile { path, file, ast });
    }
    out
}

/// The `mod NAME;` declarations of a file, with the inline modules they sit
/// in (whose files live in a subdirectory of the same name).
fn collect_mod_decls(
    items: &[syn::Item],
    dir: &Path,
    inline: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, String, PathBuf)>,
) {
    for item in items {
        let syn::Item::Mod(m) = item else { continue };
        let name = m.ident.to_string();
        if let Some((_, items)) = &m.content {
            inline.push(name.clone());
            collect_mod_decls(items, &dir.join(&name), inline, out);
            inline.pop();
            continue;
        }
        let explicit = m.attrs.iter().find_map(|a| {
            if !a.path().is_ident("path") {
                return None;
            }
            match &a.meta {
                syn::Meta::NameValue(nv) => match &nv.value {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }) => Some(s.value()),
                    _ => None,
                },
                _ => None,
            }
        });
        let file = match explicit {
            Some(p) => dir.join(p),
            None => {
                let flat = dir.join(format!("{name}.rs"));
                if flat.exists() {
                    flat
                } else {
                    dir.join(&name).join("mod.rs")
                }
            }
        };
        out.push((inline.clone(), name, file));
    }
}

/// Every path a file names, resolved to an absolute module path when it
/// starts with `crate`, `self`, `super` or a child module's name, with the
/// line it is on. Tests count: a test that reaches into a sibling module
/// makes the same tie as code does.
struct Paths<'a> {
    /// The module the visitor is in: the file's path, then inline modules.
    here: Vec<String>,
    /// Module names declared in each module (file or inline), for paths
    /// relative to it.
    children: &'a BTreeMap<Vec<String>, BTreeSet<String>>,
    found: Vec<Found>,
}

struct Found {
    segments: Vec<String>,
    line: usize,
    /// The path as written, for messages.
    written: String,
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.meta.require_list().is_ok_and(|l| {
                l.tokens
                    .to_string()
                    .split(|c: char| !c.is_alphanumeric() && c != '_')
                    .any(|w| w == "test")
            })
    }) || attrs.iter().any(|a| a.path().is_ident("test"))
}

/// Whether an item is test code: `#[cfg(test)]` or `#[test]`.
fn is_test_item(item: &syn::Item) -> bool {
    let attrs: &[syn::Attribute] = match item {
        syn::Item::Fn(f) => &f.attrs,
        syn::Item::Mod(m) => &m.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Use(u) => &u.attrs,
        _ => &[],
    };
    is_cfg_test(attrs)
}

/// The paths a `use` item names, one per leaf of its tree (`use a::{b,
/// c::*}` names `a::b` and `a::c`; `self` names its prefix).
fn use_paths(tree: &syn::UseTree) -> Vec<Vec<String>> {
    fn walk(prefix: &mut Vec<String>, t: &syn::UseTree, out: &mut Vec<Vec<String>>) {
        let leaf = |prefix: &Vec<String>, ident: &syn::Ident| {
            let mut p = prefix.clone();
            if ident != "self" {
                p.push(ident.to_string());
            }
            p
        };
        match t {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                walk(prefix, &p.tree, out);
                prefix.pop();
            }
            syn::UseTree::Name(n) => out.push(leaf(prefix, &n.ident)),
            syn::UseTree::Rename(r) => out.push(leaf(prefix, &r.ident)),
            syn::UseTree::Glob(_) => out.push(prefix.clone()),
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| walk(prefix, t, out)),
        }
    }
    let mut out = Vec::new();
    walk(&mut Vec::new(), tree, &mut out);
    out
}

impl Paths<'_> {
    fn record(&mut self, segments: Vec<String>, line: usize) {
        let written = segments.join("::");
        let mut abs = self.here.clone();
        let mut rest = segments.as_slice();
        match rest.first().map(String::as_str) {
            Some("crate") => {
                abs.clear();
                rest = &rest[1..];
            }
            Some("self") => rest = &rest[1..],
            Some("super") => {
                while rest.first().map(String::as_str) == Some("super") {
                    abs.pop();
                    rest = &rest[1..];
                }
            }
            Some(first) => {
                let is_child = self
                    .children
                    .get(&self.here)
                    .is_some_and(|c| c.contains(first));
                if !is_child {
                    return;
                }
            }
            None => return,
        }
        abs.extend(rest.iter().cloned());
        self.found.push(Found {
            segments: abs,
            line,
            written,
        });
    }
}

impl<'ast> Visit<'ast> for Paths<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if let syn::Item::Mod(m) = item {
            if let Some((_, items)) = &m.content {
                self.here.push(m.ident.to_string());
                for i in items {
                    self.visit_item(i);
                }
                self.here.pop();
            }
        } else {
            syn::visit::visit_item(self, item);
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let line = syn::spanned::Spanned::span(u).start().line;
        for p in use_paths(&u.tree) {
            self.record(p, line);
        }
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let line = syn::spanned::Spanned::span(p).start().line;
        let segments = p.segments.iter().map(|s| s.ident.to_string()).collect();
        self.record(segments, line);
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.visit_path(&m.path);
    }
}

/// A crate's files and the paths each names.
struct CrateSource {
    files: Vec<ModFile>,
    /// Per file (same order as `files`), the paths it names.
    paths: Vec<Vec<Found>>,
}

fn read_crate(root: &Path) -> CrateSource {
    let files = module_files(root);
    let mut children: BTreeMap<Vec<String>, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        if let Some((last, parent)) = f.path.split_last() {
            children
                .entry(parent.to_vec())
                .or_default()
                .insert(last.clone());
        }
        // Inline modules are children too.
        fn inline(
            items: &[syn::Item],
            here: &mut Vec<String>,
            out: &mut BTreeMap<Vec<String>, BTreeSet<String>>,
        ) {
            for item in items {
                if let syn::Item::Mod(m) = item {
                    if let Some((_, items)) = &m.content {
                        out.entry(here.clone())
                            .or_default()
                            .insert(m.ident.to_string());
                        here.push(m.ident.to_string());
                        inline(items, here, out);
                        here.pop();
                    }
                }
            }
        }
        inline(&f.ast.items, &mut f.path.clone(), &mut children);
    }
    let paths = files
        .iter()
        .map(|f| {
            let mut v = Paths {
                here: f.path.clone(),
                children: &children,
                found: Vec::new(),
            };
            for item in &f.ast.items {
                v.visit_item(item);
            }
            v.found
        })
        .collect();
    CrateSource { files, paths }
}

/// What `cargo metadata` says of the workspace: its packages alone, or
/// with the resolved dependency graph.
fn metadata(with_deps: bool) -> serde_json::Value {
    let mut args = vec!["metadata", "--format-version", "1", "--offline"];
    if !with_deps {
        args.push("--no-deps");
    }
    let out = Command::new(env!("CARGO"))
        .args(args)
        .current_dir(workspace())
        .output()
        .expect("cargo metadata");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The crates of the workspace: (package name, root source file).
fn crates() -> Vec<(String, PathBuf)> {
    let meta = metadata(false);
    let mut v = Vec::new();
    for p in meta["packages"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap().to_string();
        for t in p["targets"].as_array().unwrap() {
            let kinds: Vec<&str> = t["kind"]
                .as_array()
                .unwrap()
                .iter()
                .map(|k| k.as_str().unwrap())
                .collect();
            if kinds
                .iter()
                .any(|k| ["lib", "cdylib", "rlib", "bin"].contains(k))
            {
                v.push((name.clone(), PathBuf::from(t["src_path"].as_str().unwrap())));
            }
        }
    }
    v.sort();
    v.dedup();
    v
}

/// Sibling-module cycles the project accepts, each with its reason:
/// (crate, parent module path joined by `::`, the modules of the cycle,
/// sorted). Keep this list short; ARCHITECTURE.md names each entry.
const ACCEPTED_CYCLES: &[(&str, &str, &[&str])] = &[];

/// The edges between sibling modules that the paths of a crate make:
/// parent module → (from child, to child) → an example reference.
type SiblingEdges = BTreeMap<Vec<String>, BTreeMap<(String, String), String>>;

fn sibling_edges(src: &CrateSource) -> SiblingEdges {
    let modules: BTreeSet<&Vec<String>> = src.files.iter().map(|f| &f.path).collect();
    let mut edges: SiblingEdges = BTreeMap::new();
    for (f, paths) in src.files.iter().zip(&src.paths) {
        for p in paths {
            // The module the path lands in: its longest prefix that is a file.
            let target = (0..=p.segments.len())
                .rev()
                .map(|n| p.segments[..n].to_vec())
                .find(|prefix| modules.contains(prefix))
                .unwrap_or_default();
            let from = &f.path;
            if target.starts_with(from) || from.starts_with(&target) {
                continue; // itself, an ancestor or a descendant
            }
            let common = from.iter().zip(&target).take_while(|(a, b)| a == b).count();
            let parent = from[..common].to_vec();
            let key = (from[common].clone(), target[common].clone());
            let example = format!("{}:{}: `{}`", f.file.display(), p.line, p.written);
            edges
                .entry(parent)
                .or_default()
                .entry(key)
                .or_insert(example);
        }
    }
    edges
}

/// The strongly connected components of more than one node (Tarjan).
fn cycles(edges: &BTreeMap<(String, String), String>) -> Vec<Vec<String>> {
    let nodes: BTreeSet<&String> = edges.keys().flat_map(|(a, b)| [a, b]).collect();
    let nodes: Vec<&String> = nodes.into_iter().collect();
    let index_of = |n: &String| nodes.iter().position(|m| *m == n).unwrap();
    let mut adj = vec![Vec::new(); nodes.len()];
    for (a, b) in edges.keys() {
        adj[index_of(a)].push(index_of(b));
    }
    struct T {
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn strong(v: usize, adj: &[Vec<usize>], t: &mut T) {
        t.index[v] = Some(t.next);
        t.low[v] = t.next;
        t.next += 1;
        t.stack.push(v);
        t.on[v] = true;
        for &w in &adj[v] {
            match t.index[w] {
                None => {
                    strong(w, adj, t);
                    t.low[v] = t.low[v].min(t.low[w]);
                }
                Some(i) if t.on[w] => t.low[v] = t.low[v].min(i),
                _ => {}
            }
        }
        if Some(t.low[v]) == t.index[v] {
            let mut c = Vec::new();
            loop {
                let w = t.stack.pop().unwrap();
                t.on[w] = false;
                c.push(w);
                if w == v {
                    break;
                }
            }
            if c.len() > 1 {
                t.out.push(c);
            }
        }
    }
    let mut t = T {
        index: vec![None; nodes.len()],
        low: vec![0; nodes.len()],
        on: vec![false; nodes.len()],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..nodes.len() {
        if t.index[v].is_none() {
            strong(v, &adj, &mut t);
        }
    }
    let mut out: Vec<Vec<String>> = t
        .out
        .into_iter()
        .map(|c| {
            let mut c: Vec<String> = c.into_iter().map(|i| nodes[i].clone()).collect();
            c.sort();
            c
        })
        .collect();
    out.sort();
    out
}

/// Architecture Invariant: within every module of every crate, the child
/// modules form a DAG. Two modules that refer to each other, directly or
/// around a loop, are one module split in two places.
#[test]
fn no_crate_has_a_module_import_circle() {
    let mut problems = Vec::new();
    for (name, root) in crates() {
        let src = read_crate(&root);
        for (parent, edges) in sibling_edges(&src) {
            for cycle in cycles(&edges) {
                let parent_name = parent.join("::");
                let accepted = ACCEPTED_CYCLES.iter().any(|(c, p, m)| {
                    *c == name
                        && *p == parent_name
                        && m.iter().copied().eq(cycle.iter().map(String::as_str))
                });
                if accepted {
                    continue;
                }
                let mut msg = format!(
                    "{name}: the modules {} of `{}` refer to each other:",
                    cycle.join(", "),
                    if parent_name.is_empty() {
                        "the crate root"
                    } else {
                        &parent_name
                    }
                );
                for ((a, b), example) in &edges {
                    if cycle.contains(a) && cycle.contains(b) {
                        msg.push_str(&format!("\n    {a} -> {b}: {example}"));
                    }
                }
                problems.push(msg);
            }
        }
    }
    assert!(
        problems.is_empty(),
        "module import circles:\n{}",
        problems.join("\n")
    );
}

/// The crates that decide and never touch the outside world.
const PURE: &[&str] = &[
    "poe",
    "fib",
    "fib-analysis",
    "fib-report",
    "fib-wire",
    "fib-sites",
];

/// Paths whose use in a pure crate's non-test code is I/O: files,
/// processes, sockets, the environment, clocks and the standard streams.
/// (Threads are not on the list: the exploration may run a caller's run
/// function on worker threads, `poe::explore::parallel`.)
const OUTSIDE_WORLD: &[&[&str]] = &[
    &["std", "fs"],
    &["std", "process"],
    &["std", "net"],
    &["std", "os"],
    &["std", "env"],
    &["std", "time", "Instant"],
    &["std", "time", "SystemTime"],
    &["std", "io", "stdin"],
    &["std", "io", "stdout"],
    &["std", "io", "stderr"],
    &["print"],
    &["println"],
    &["eprint"],
    &["eprintln"],
    &["dbg"],
];

/// Every path of a file outside its tests, as written (not only those into
/// the crate), and the calls whose callee's name starts with `MPI_` (a call
/// of the MPI library itself, not of its profiling interface).
struct AllPaths {
    in_test: usize,
    found: Vec<(Vec<String>, usize)>,
    mpi_calls: Vec<(String, usize)>,
}

impl AllPaths {
    fn of(file: &syn::File) -> AllPaths {
        let mut v = AllPaths {
            in_test: 0,
            found: Vec::new(),
            mpi_calls: Vec::new(),
        };
        for item in &file.items {
            v.visit_item(item);
        }
        v
    }
}

impl<'ast> Visit<'ast> for AllPaths {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let test = is_test_item(item);
        self.in_test += usize::from(test);
        syn::visit::visit_item(self, item);
        self.in_test -= usize::from(test);
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        if self.in_test == 0 {
            let line = syn::spanned::Spanned::span(u).start().line;
            self.found
                .extend(use_paths(&u.tree).into_iter().map(|p| (p, line)));
        }
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        if self.in_test == 0 {
            let line = syn::spanned::Spanned::span(p).start().line;
            self.found.push((
                p.segments.iter().map(|s| s.ident.to_string()).collect(),
                line,
            ));
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.visit_path(&m.path);
    }

    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        if let syn::Expr::Path(p) = &*call.func {
            let name = p
                .path
                .segments
                .last()
                .map(|s| s.ident.to_string())
                .unwrap_or_default();
            if self.in_test == 0 && name.starts_with("MPI_") {
                let line = syn::spanned::Spanned::span(&p.path).start().line;
                self.mpi_calls.push((name, line));
            }
        }
        syn::visit::visit_expr_call(self, call);
    }
}

/// Architecture Invariant: the pure crates take events and return
/// decisions. They forbid unsafe code and name no API of files, processes,
/// sockets, the environment, clocks or the standard streams
/// outside their tests (a `use std::io` brought in for a path of this
/// list counts too). `libc` appears only for constants (signal numbers).
#[test]
fn pure_crates_do_no_io_and_no_unsafe() {
    let mut problems = Vec::new();
    for (name, root) in crates() {
        if !PURE.contains(&name.as_str()) {
            continue;
        }
        let text = std::fs::read_to_string(&root).unwrap();
        if !text.contains("#![forbid(unsafe_code)]") {
            problems.push(format!(
                "{name}: {} has no #![forbid(unsafe_code)]",
                root.display()
            ));
        }
        for f in module_files(&root) {
            for (segments, line) in AllPaths::of(&f.ast).found {
                let bad = OUTSIDE_WORLD.iter().any(|p| {
                    segments.len() >= p.len()
                        && segments[..p.len()]
                            .iter()
                            .zip(p.iter())
                            .all(|(a, b)| a == b)
                });
                let libc_call = segments.first().map(String::as_str) == Some("libc")
                    && segments
                        .last()
                        .is_some_and(|s| s.chars().any(|c| c.is_lowercase()));
                if bad || libc_call {
                    problems.push(format!(
                        "{name}: {}:{line}: `{}`",
                        f.file.display(),
                        segments.join("::")
                    ));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "the pure crates touch the outside world:\n{}",
        problems.join("\n")
    );
}

/// Architecture Invariant: the pure crates depend on no crate that
/// touches the outside world: not on libclang (through `instrument`,
/// `clang` or `clang-sys`), not on MPI (`mpi-sys`), not on the driver or
/// the interposition library. The analysis of runs reads the static facts
/// as plain data.
#[test]
fn pure_crates_do_not_depend_on_libclang_or_mpi() {
    let meta = metadata(true);
    let name_of: BTreeMap<&str, &str> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p["name"].as_str().unwrap()))
        .collect();
    // Normal (not dev, not build) dependencies of every package.
    let mut deps: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for node in meta["resolve"]["nodes"].as_array().unwrap() {
        let id = node["id"].as_str().unwrap();
        for d in node["deps"].as_array().unwrap() {
            let normal = d["dep_kinds"]
                .as_array()
                .unwrap()
                .iter()
                .any(|k| k["kind"].is_null());
            if normal {
                deps.entry(id).or_default().push(d["pkg"].as_str().unwrap());
            }
        }
    }
    let forbidden = [
        "instrument",
        "clang",
        "clang-sys",
        "mpi-sys",
        "fib-driver",
        "fib-interpose",
    ];
    let mut problems = Vec::new();
    for (id, name) in &name_of {
        if !PURE.contains(name) {
            continue;
        }
        // Every package reachable, with the chain that reaches it.
        let mut seen: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        let mut todo = vec![(*id, vec![*name])];
        while let Some((at, chain)) = todo.pop() {
            for d in deps.get(at).into_iter().flatten() {
                if seen.contains_key(d) {
                    continue;
                }
                let mut c = chain.clone();
                c.push(name_of[d]);
                seen.insert(d, c.clone());
                todo.push((d, c));
            }
        }
        for chain in seen.values() {
            if forbidden.contains(chain.last().unwrap()) {
                problems.push(chain.join(" -> "));
            }
        }
    }
    problems.sort();
    assert!(
        problems.is_empty(),
        "pure crates depend on the outside world:\n{}",
        problems.join("\n")
    );
}

/// Architecture Invariant: the interposition library calls MPI only
/// through `PMPI_*`. Its wrappers are the program's `MPI_*`; a call of one
/// from inside the library would come back through them.
#[test]
fn the_interposition_library_calls_only_pmpi() {
    let root = workspace().join("interpose/src/lib.rs");
    let mut problems = Vec::new();
    for f in module_files(&root) {
        for (name, line) in AllPaths::of(&f.ast).mpi_calls {
            problems.push(format!("{}:{line}: {name}", f.file.display()));
        }
    }
    assert!(
        problems.is_empty(),
        "MPI_* called instead of PMPI_*:\n{}",
        problems.join("\n")
    );
}

/// Architecture Invariant: only the binary uses `anyhow`; the libraries
/// return typed errors.
#[test]
fn only_the_binary_depends_on_anyhow() {
    let meta = metadata(false);
    let mut users = Vec::new();
    for p in meta["packages"].as_array().unwrap() {
        let normal_anyhow = p["dependencies"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["name"] == "anyhow" && d["kind"].is_null());
        if normal_anyhow {
            users.push(p["name"].as_str().unwrap().to_string());
        }
    }
    assert_eq!(users, ["fib-cli"]);
}
