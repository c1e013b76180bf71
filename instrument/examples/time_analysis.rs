//! Measures instrumentation time: generates C programs of about N lines
//! each (default 20 000; `examples/common/program.rs`), made of many
//! functions with MPI calls under conditions and rows of wildcard receives,
//! analyses and rewrites each, and prints the time per 1 000 lines.
//!
//! Run with `cargo run --release -p instrument --example time_analysis [N...]`.

#[path = "common/program.rs"]
mod program;

use std::time::Instant;

fn main() {
    let mut sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    if sizes.is_empty() {
        sizes.push(20_000);
    }
    let dir = std::env::temp_dir().join(format!("fib-time-analysis-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let flags = instrument::mpi_flags("mpicc.mpich").expect("mpicc -show");
    let mut warm = false;
    for lines in sizes {
        let path = dir.join("gen.c");
        let program::Program {
            text,
            functions,
            rows,
        } = program::program(lines);
        let n = text.lines().count();
        std::fs::write(&path, &text).expect("write");
        let units = vec![(path.clone(), flags.clone())];
        if !warm {
            // One warm-up run loads libclang.
            instrument::analyze(&dir, &units).expect("analyze");
            warm = true;
        }
        // Small programs are timed over several runs.
        let runs = (200_000 / lines.max(1)).clamp(1, 5);
        let start = Instant::now();
        let mut sites = 0;
        for _ in 0..runs {
            let a = instrument::analyze(&dir, &units).expect("analyze");
            let refs: Vec<&instrument::CallSite> = a.sites.sites.iter().collect();
            let out = instrument::rewrite(&text, &refs);
            assert_eq!(out.lines().count(), n);
            sites = a.sites.sites.len();
        }
        let per_run = start.elapsed().as_secs_f64() * 1000.0 / runs as f64;
        println!(
            "{n} lines, {functions} + {rows} functions, {sites} sites: {per_run:.1} ms per analysis + rewrite, {:.2} ms per 1000 lines",
            per_run * 1000.0 / n as f64
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
