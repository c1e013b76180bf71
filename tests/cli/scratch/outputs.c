/* Each rank reads input.txt, next to this file, and writes the file
 * out.rankR.txt; rank 0 takes the other ranks' messages from
 * MPI_ANY_SOURCE and answers each sender in the order they came, so every
 * order is an interleaving of its own (2 with 3 ranks). Run by fib in a
 * scratch directory: the input is found, the outputs stay out of this
 * directory. A rank that cannot read the input aborts. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank, size, input = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    FILE *in = fopen("input.txt", "r");
    if (!in || fscanf(in, "%d", &input) != 1) {
        fprintf(stderr, "rank %d: cannot read input.txt\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    fclose(in);
    if (rank == 0) {
        int from[16], v;
        MPI_Status st;
        for (int i = 1; i < size; i++) {
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
            from[i] = st.MPI_SOURCE;
        }
        for (int i = 1; i < size; i++)
            MPI_Send(&input, 1, MPI_INT, from[i], 1, MPI_COMM_WORLD);
    } else {
        int back;
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Recv(&back, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    char name[64];
    snprintf(name, sizeof name, "out.rank%d.txt", rank);
    FILE *out = fopen(name, "w");
    if (!out) {
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    fprintf(out, "rank %d of %d: input %d\n", rank, size, input);
    fclose(out);
    MPI_Finalize();
    return 0;
}
