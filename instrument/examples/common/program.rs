//! A generated C program of a given size for the static analysis's
//! benchmark (`examples/time_analysis.rs`) and its test of scale
//! (`tests/facts.rs`): many functions with MPI calls under conditions, each
//! with a wildcard receive whose data steer a barrier, and every other one
//! with a row of wildcard receives whose statuses and data only go into an
//! array and a file (which reduces), as a code base has both.

use std::fmt::Write as _;

/// The program, and how many functions it has.
pub struct Program {
    pub text: String,
    pub functions: usize,
    /// How many of them have the row that reduces.
    pub rows: usize,
}

/// A program of at least `lines` lines.
pub fn program(lines: usize) -> Program {
    let mut s = String::from("#include <mpi.h>\n#include <stdio.h>\n#include <stdlib.h>\n\n");
    let mut f = 0;
    let mut rows = 0;
    let mut n = s.lines().count();
    while n < lines {
        let before = s.len();
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
        if f % 2 == 0 {
            write!(
                s,
                "static void frame{f}(int rank, int size, FILE *out) {{\n\
                 \x20   double mine[4] = {{0}}, row[4], seen[64] = {{0}};\n\
                 \x20   if (rank != 0) {{\n\
                 \x20       MPI_Send(mine, 4, MPI_DOUBLE, 0, rank, MPI_COMM_WORLD);\n\
                 \x20       return;\n\
                 \x20   }}\n\
                 \x20   for (int k = 1; k < size; k++) {{\n\
                 \x20       MPI_Status st;\n\
                 \x20       MPI_Recv(row, 4, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);\n\
                 \x20       seen[st.MPI_SOURCE % 64] = row[0];\n\
                 \x20       fseek(out, (long)st.MPI_TAG * 64, SEEK_SET);\n\
                 \x20       fprintf(out, \"%d %f\\n\", st.MPI_SOURCE, seen[st.MPI_SOURCE % 64]);\n\
                 \x20   }}\n\
                 }}\n\n"
            )
            .unwrap();
            rows += 1;
        }
        n += s[before..].matches('\n').count();
        f += 1;
    }
    s.push_str("int main(int argc, char **argv) {\n    int rank, size, buf[1] = {0};\n");
    s.push_str("    FILE *out = fopen(\"frames.txt\", \"w\");\n");
    s.push_str("    MPI_Init(&argc, &argv);\n    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n");
    s.push_str("    MPI_Comm_size(MPI_COMM_WORLD, &size);\n");
    for i in 0..f {
        writeln!(s, "    work{i}(rank, size, buf);").unwrap();
        if i % 2 == 0 {
            writeln!(s, "    frame{i}(rank, size, out);").unwrap();
        }
    }
    s.push_str("    MPI_Finalize();\n    return 0;\n}\n");
    Program {
        text: s,
        functions: f,
        rows,
    }
}
