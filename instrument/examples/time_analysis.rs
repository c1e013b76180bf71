//! Measures instrumentation time: generates a C program of about N lines
//! (default 20 000) made of many functions with MPI calls under conditions,
//! analyses it and rewrites it, and prints the time per 1 000 lines.
//!
//! Run with `cargo run --release -p instrument --example time_analysis [N]`.

use std::fmt::Write as _;
use std::time::Instant;

fn program(lines: usize) -> String {
    let mut s = String::from("#include <mpi.h>\n#include <stdlib.h>\n\n");
    let mut f = 0;
    while s.lines().count() < lines {
        write!(
            s,
            "static int work{f}(int rank, int size, int *buf) {{\n\
             \x20   int i, acc = 0, src = MPI_ANY_SOURCE;\n\
             \x20   for (i = 0; i < size; i++) {{\n\
             \x20       if (rank == i % size && buf[0] > {f})\n\
             \x20           MPI_Send(buf, 1, MPI_INT, (rank + 1) % size, {f}, MPI_COMM_WORLD);\n\
             \x20       else if (rank == 0)\n\
             \x20           MPI_Recv(buf, 1, MPI_INT, src, {f}, MPI_COMM_WORLD,\n\
             \x20                    MPI_STATUS_IGNORE);\n\
             \x20       acc += buf[0] * i;\n\
             \x20   }}\n\
             \x20   if (acc > 10 || rank == 0)\n\
             \x20       MPI_Barrier(MPI_COMM_WORLD);\n\
             \x20   MPI_Allreduce(&acc, buf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);\n\
             \x20   return acc;\n\
             }}\n\n"
        )
        .unwrap();
        f += 1;
    }
    s.push_str("int main(int argc, char **argv) {\n    int rank, size, buf[1] = {0};\n");
    s.push_str("    MPI_Init(&argc, &argv);\n    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n");
    s.push_str("    MPI_Comm_size(MPI_COMM_WORLD, &size);\n");
    for i in 0..f {
        writeln!(s, "    work{i}(rank, size, buf);").unwrap();
    }
    s.push_str("    MPI_Finalize();\n    return 0;\n}\n");
    s
}

fn main() {
    let lines: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000);
    let dir = std::env::temp_dir().join(format!("fib-time-analysis-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("gen.c");
    let text = program(lines);
    let n = text.lines().count();
    std::fs::write(&path, &text).expect("write");
    let flags = instrument::mpi_flags("mpicc.mpich").expect("mpicc -show");
    let units = vec![(path.clone(), flags)];
    // One warm-up run (loads libclang), then the measured runs.
    instrument::analyze(&dir, &units).expect("analyze");
    let runs = 5;
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
        "{n} lines, {sites} sites: {per_run:.1} ms per analysis + rewrite, {:.2} ms per 1000 lines",
        per_run * 1000.0 / n as f64
    );
    let _ = std::fs::remove_dir_all(&dir);
}
