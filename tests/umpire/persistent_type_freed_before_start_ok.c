/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Rank 0 makes a persistent send with a datatype of its own, frees the
 * datatype at once (MPI keeps it for the request) and starts the request
 * three times; rank 1 receives the pairs. Correct: each start sends with
 * the datatype the request was made with. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, i, v[2] = {4, 2}, got[2];
    MPI_Datatype pair;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Type_contiguous(2, MPI_INT, &pair);
        MPI_Type_commit(&pair);
        MPI_Send_init(v, 1, pair, 1, 0, MPI_COMM_WORLD, &req);
        MPI_Type_free(&pair);
        for (i = 0; i < 3; i++) {
            MPI_Start(&req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        MPI_Request_free(&req);
    } else {
        for (i = 0; i < 3; i++)
            MPI_Recv(got, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
