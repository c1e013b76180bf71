/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Sends and receives whose datatypes differ as handles but agree as type
 * signatures: a vector of MPI_DOUBLE received as MPI_DOUBLEs, a contiguous
 * type of MPI_INT received as MPI_INTs, a struct of two ints (built of one
 * predefined type) received as MPI_INT, MPI_BYTE received as MPI_BYTE,
 * and a struct that mixes int and double, sent and received as itself.
 * Collectives whose ranks all give the same datatype, count and
 * operation. Nothing is reported. */
#include <mpi.h>
#include <stddef.h>

struct mixed {
    int i;
    double d;
};

int main(int argc, char **argv) {
    int rank, i, v[4], w[4], s, t;
    double a[16], col[4];
    struct mixed m = {1, 2.0};
    int lens[2] = {1, 1};
    MPI_Aint displs[2] = {0, sizeof(int)}, mdispls[2] = {offsetof(struct mixed, i), offsetof(struct mixed, d)};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT}, mtypes[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Datatype column, four, pair, mixed;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (i = 0; i < 16; i++) a[i] = i;
    for (i = 0; i < 4; i++) v[i] = i;
    MPI_Type_vector(4, 1, 4, MPI_DOUBLE, &column);
    MPI_Type_contiguous(4, MPI_INT, &four);
    MPI_Type_create_struct(2, lens, displs, types, &pair);
    MPI_Type_create_struct(2, lens, mdispls, mtypes, &mixed);
    MPI_Type_commit(&column);
    MPI_Type_commit(&four);
    MPI_Type_commit(&pair);
    MPI_Type_commit(&mixed);
    if (rank == 0) {
        MPI_Send(a, 1, column, 1, 0, MPI_COMM_WORLD);
        MPI_Send(v, 1, four, 1, 1, MPI_COMM_WORLD);
        MPI_Send(v, 2, pair, 1, 2, MPI_COMM_WORLD);
        MPI_Send(v, 16, MPI_BYTE, 1, 3, MPI_COMM_WORLD);
        MPI_Send(&m, 1, mixed, 1, 4, MPI_COMM_WORLD);
    } else {
        MPI_Recv(col, 4, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(w, 4, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(w, 4, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(w, 16, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&m, 1, mixed, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Allreduce(&rank, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Bcast(v, 1, four, 0, MPI_COMM_WORLD);
    MPI_Reduce(v, w, 4, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Allgather(&rank, 1, MPI_INT, w, 1, MPI_INT, MPI_COMM_WORLD);
    t = s;
    (void)t;
    MPI_Type_free(&column);
    MPI_Type_free(&four);
    MPI_Type_free(&pair);
    MPI_Type_free(&mixed);
    MPI_Finalize();
    return 0;
}
