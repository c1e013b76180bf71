//! Snapshot tests of the site table and of the rewritten sources: for each
//! fixture directory `DIR`, `tests/snapshots/` holds `snapshots__DIR.sites.snap`
//! (one line per site) and a `snapshots__DIR.FILE.rewritten.EXT.snap` copy of
//! each file that has sites. After an intended change, review the new texts
//! with `cargo insta review`.

mod common;

use instrument::{Analysis, CallSite};
use std::path::Path;

/// One line per site: `id file:line:col [start,end) callee(args) in
/// function [macro NAME]`.
fn table(a: &Analysis) -> String {
    let mut out = String::new();
    for s in &a.sites.sites {
        out.push_str(&format!(
            "{} {}:{}:{} [{},{}) {}({}) in {}{}\n",
            s.id,
            s.file.display(),
            s.line,
            s.column,
            s.span.0,
            s.span.1,
            s.callee,
            s.args.join(", "),
            s.function.as_deref().unwrap_or("-"),
            s.macro_name
                .as_ref()
                .map(|m| format!(" macro {m}"))
                .unwrap_or_default()
        ));
    }
    out
}

/// Checks the table and every rewritten file of a fixture directory, and
/// that rewriting keeps every line's number.
fn check(dir: &str, files: &[&str]) -> Analysis {
    let a = common::analyze(dir, files);
    insta::assert_snapshot!(format!("{dir}.sites"), table(&a));
    for (file, text) in &a.files {
        let sites: Vec<&CallSite> = a.sites.sites.iter().filter(|s| &s.file == file).collect();
        if sites.is_empty() {
            continue;
        }
        let out = instrument::rewrite(text, &sites);
        assert_eq!(
            out.lines().count(),
            text.lines().count(),
            "{}",
            file.display()
        );
        let stem = file.file_stem().unwrap().to_string_lossy();
        let ext = file.extension().unwrap().to_string_lossy();
        let name = file.with_file_name(format!("{stem}.rewritten.{ext}"));
        insta::assert_snapshot!(format!("{dir}.{}", name.display()), out);
    }
    a
}

#[test]
fn macro_uses_are_sites_at_the_use() {
    let a = check("macro", &["macro.c"]);
    let syncs: Vec<_> = a
        .sites
        .sites
        .iter()
        .filter(|s| s.macro_name.as_deref() == Some("SYNC"))
        .map(|s| (s.line, s.callee.as_str()))
        .collect();
    assert_eq!(syncs, vec![(11, "MPI_Barrier"), (16, "MPI_Barrier")]);
    let send = a
        .sites
        .sites
        .iter()
        .find(|s| s.callee == "MPI_Send")
        .unwrap();
    assert_eq!(send.macro_name.as_deref(), Some("SEND_ONE"));
    assert_eq!(
        send.args,
        ["&x", "1", "MPI_INT", "1", "0", "MPI_COMM_WORLD"]
    );
}

#[test]
fn multi_line_calls_and_calls_in_conditions() {
    let a = check("multiline", &["multiline.c"]);
    let send = a
        .sites
        .sites
        .iter()
        .find(|s| s.callee == "MPI_Send")
        .unwrap();
    assert_eq!((send.line, send.column), (6, 9));
    assert_eq!(send.args[4], "/* tag: */ 7");
    let recv = a
        .sites
        .sites
        .iter()
        .find(|s| s.callee == "MPI_Recv")
        .unwrap();
    assert_eq!(recv.function.as_deref(), Some("exchange"));
    assert!(
        !a.sites.sites.iter().any(|s| s.callee.starts_with("PMPI_")),
        "PMPI calls are not sites"
    );
}

#[test]
fn cxx_member_functions() {
    let a = check("member", &["member.cpp"]);
    let fns: Vec<_> = a
        .sites
        .sites
        .iter()
        .map(|s| (s.callee.as_str(), s.function.as_deref().unwrap_or("-")))
        .collect();
    assert!(fns.contains(&("MPI_Barrier", "sim::Halo::sync")), "{fns:?}");
    assert!(
        fns.contains(&("MPI_Sendrecv", "sim::Halo::exchange")),
        "{fns:?}"
    );
}

#[test]
fn header_shared_by_two_programs_has_its_sites_once() {
    let a = check("shared", &["prog_a.c", "prog_b.c"]);
    let in_header: Vec<_> = a
        .sites
        .sites
        .iter()
        .filter(|s| s.file == Path::new("common.h"))
        .collect();
    assert_eq!(in_header.len(), 1);
    assert_eq!(in_header[0].callee, "MPI_Barrier");
    assert!(a.units.iter().all(|u| u.has_main));
    assert!(a.files.iter().any(|(f, _)| f == Path::new("common.h")));
}

/// The rewritten sources compile with the force-included site header.
#[test]
fn rewritten_sources_compile_with_the_site_header() {
    let dir = std::env::temp_dir().join(format!("fib-instrument-compile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let header = dir.join(instrument::HEADER_NAME);
    std::fs::write(&header, instrument::site_header()).unwrap();
    for (fixture, file, compiler) in [
        ("macro", "macro.c", "mpicc.mpich"),
        ("multiline", "multiline.c", "mpicc.mpich"),
        ("member", "member.cpp", "mpicxx.mpich"),
    ] {
        let a = common::analyze(fixture, &[file]);
        let (_, text) = a.files.iter().find(|(f, _)| f == Path::new(file)).unwrap();
        let sites: Vec<&CallSite> = a.sites.sites.iter().collect();
        let out = dir.join(file);
        std::fs::write(&out, instrument::rewrite(text, &sites)).unwrap();
        let status = std::process::Command::new(compiler)
            .args(["-fsyntax-only", "-Werror", "-include"])
            .arg(&header)
            .arg(&out)
            .status()
            .expect("compiler runs");
        assert!(status.success(), "{file} does not compile once rewritten");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
