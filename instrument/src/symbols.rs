//! [`symbols`]: what each translation unit of a build defines and uses, by
//! USR, so the driver can link a program as a linker pulls members out of a
//! static archive.

use crate::analyze::CLANG;
use crate::InstrumentError;
use clang::{Entity, EntityKind, EntityVisitResult, Linkage};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::PathBuf;

/// The symbols with external linkage one translation unit defines and
/// those it refers to (its own definitions included).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Symbols {
    pub path: PathBuf,
    /// USRs of the functions and variables it defines.
    pub defines: BTreeSet<String>,
    /// USRs of the functions and variables it names.
    pub uses: BTreeSet<String>,
    /// The names of those it names that are declared outside system
    /// headers: what another source of the program may have to define.
    pub names: BTreeSet<String>,
    /// Whether it defines `main`.
    pub has_main: bool,
    /// Every file the parse read (see [`Analysis::read`](crate::Analysis::read)).
    pub read: Option<Vec<PathBuf>>,
}

/// Whether an entity is a function or variable a linker resolves by name.
fn linkable(e: Entity<'_>) -> bool {
    matches!(
        e.get_kind(),
        EntityKind::FunctionDecl
            | EntityKind::VarDecl
            | EntityKind::Method
            | EntityKind::Constructor
            | EntityKind::Destructor
            | EntityKind::ConversionFunction
    ) && e.get_linkage() == Some(Linkage::External)
}

/// Parses each unit (a source and its parser flags) and lists the symbols
/// it defines and uses. Declarations in system headers are skipped.
pub fn symbols(units: &[(PathBuf, Vec<String>)]) -> Result<Vec<Symbols>, InstrumentError> {
    let _lock = CLANG.lock().unwrap_or_else(|p| p.into_inner());
    let clang = clang::Clang::new().map_err(InstrumentError::Clang)?;
    let index = clang::Index::new(&clang, false, false);
    let mut out = Vec::new();
    for (path, flags) in units {
        let abs = std::fs::canonicalize(path).map_err(|e| InstrumentError::Io(path.clone(), e))?;
        let mut args: Vec<String> = Vec::new();
        if crate::analyze::is_cxx(&abs) && !flags.iter().any(|f| f == "-x") {
            args.extend(["-x".to_string(), "c++".to_string()]);
        }
        args.extend(flags.iter().cloned());
        let tu = index
            .parser(&abs)
            .arguments(&args)
            .keep_going(true)
            // For the inclusions of every file ([`Symbols::read`]).
            .detailed_preprocessing_record(true)
            .skip_function_bodies(false)
            .parse()
            .map_err(|e| InstrumentError::Clang(format!("{}: {e}", abs.display())))?;
        let mut s = Symbols {
            path: path.clone(),
            read: crate::analyze::files_read(&tu, &abs),
            ..Symbols::default()
        };
        tu.get_entity().visit_children(|c, _| {
            if c.is_in_system_header() {
                return EntityVisitResult::Continue;
            }
            let usr = |e: Entity<'_>| e.get_usr().map(|u| u.0);
            if linkable(c) && c.is_definition() {
                if c.get_kind() == EntityKind::FunctionDecl
                    && c.get_name().as_deref() == Some("main")
                {
                    s.has_main = true;
                } else if let Some(u) = usr(c) {
                    s.defines.insert(u);
                }
            }
            // A declaration refers to itself: only expressions use.
            let refers = matches!(
                c.get_kind(),
                EntityKind::DeclRefExpr | EntityKind::MemberRefExpr | EntityKind::CallExpr
            );
            if let Some(r) = c.get_reference().filter(|r| refers && linkable(*r)) {
                if let Some(u) = usr(r) {
                    s.uses.insert(u);
                }
                if let Some(n) = r.get_name().filter(|_| !r.is_in_system_header()) {
                    s.names.insert(n);
                }
            }
            EntityVisitResult::Recurse
        });
        out.push(s);
    }
    Ok(out)
}
