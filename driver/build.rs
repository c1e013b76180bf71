//! Compiles the interposition library's sources (and the wire protocol's,
//! which it uses) into the driver, so that an installed `fib` can build the
//! library for whichever MPI implementation it finds (see
//! `src/toolchain/interpose.rs`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let here = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let root = here.parent().unwrap().to_path_buf();
    let mut files = Vec::new();
    for krate in ["interpose", "wire"] {
        let dir = root.join(krate);
        println!("cargo:rerun-if-changed={}", dir.display());
        collect(&root, &dir, &mut files);
    }
    let lock = root.join("Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    if lock.is_file() {
        files.push(("Cargo.lock".to_string(), lock));
    }
    files.sort();
    let mut out = String::from("/// The interposition library's sources: (path, contents).\n");
    out.push_str("pub static SOURCES: &[(&str, &[u8])] = &[\n");
    for (rel, abs) in &files {
        writeln!(
            out,
            "    ({rel:?}, include_bytes!({:?})),",
            abs.display().to_string()
        )
        .unwrap();
    }
    out.push_str("];\n");
    let dest = PathBuf::from(std::env::var_os("OUT_DIR").unwrap()).join("interpose_sources.rs");
    std::fs::write(dest, out).unwrap();
}

/// Every file under `dir` but build output, with its path relative to
/// `root` (with `/`).
fn collect(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name();
        if name == "target" || name.to_string_lossy().starts_with('.') {
            continue;
        }
        if p.is_dir() {
            collect(root, &p, out);
        } else if p.is_file() {
            let rel = p.strip_prefix(root).unwrap();
            let rel: Vec<_> = rel
                .iter()
                .map(|c| c.to_string_lossy().into_owned())
                .collect();
            out.push((rel.join("/"), p));
        }
    }
}
