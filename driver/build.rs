//! Compiles the interposition library's sources (and the wire protocol's,
//! which it uses) into the driver, so that an installed `fib` can build the
//! library for whichever MPI implementation it finds (see
//! `src/toolchain/interpose.rs`); and fingerprints the code whose results
//! the parse cache keeps (`src/project/parses.rs`), so that a rebuilt fib
//! whose parser is the same keeps its parses.

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
    parser_fingerprint(&root);
}

/// Sets `FIB_PARSER_FINGERPRINT` to a hash of what a kept parse is made by
/// and read with: the sources of `instrument` and `sites`, the cache's own
/// module, and the locked versions of their dependencies (the `clang`
/// bindings among them).
fn parser_fingerprint(root: &Path) {
    let mut files = Vec::new();
    for krate in ["instrument", "sites"] {
        let src = root.join(krate).join("src");
        println!("cargo:rerun-if-changed={}", src.display());
        collect(root, &src, &mut files);
        files.push((
            format!("{krate}/Cargo.toml"),
            root.join(krate).join("Cargo.toml"),
        ));
    }
    for rel in ["driver/src/project/parses.rs", "Cargo.lock"] {
        println!("cargo:rerun-if-changed={}", root.join(rel).display());
        files.push((rel.to_string(), root.join(rel)));
    }
    files.sort();
    // FNV-1a, twice with different offsets: a build script has no hash
    // crate, and this one only has to change when the files do.
    let mut h = [0xcbf2_9ce4_8422_2325u64, 0x6c62_272e_07bb_0142u64];
    let mut add = |bytes: &[u8]| {
        for x in h.iter_mut() {
            for &b in bytes.iter().chain(&(bytes.len() as u64).to_le_bytes()) {
                *x ^= u64::from(b);
                *x = x.wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
    };
    for (rel, abs) in &files {
        add(rel.as_bytes());
        add(&std::fs::read(abs).unwrap_or_default());
    }
    println!(
        "cargo:rustc-env=FIB_PARSER_FINGERPRINT={:016x}{:016x}",
        h[0], h[1]
    );
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
