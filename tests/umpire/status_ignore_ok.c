/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* The twin of status_null_recv.c and status_null_wait.c: statuses passed
 * as MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE, the address of an MPI_Status
 * variable and an array of them. Nothing to report. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, x[3] = {1, 2, 3};
    MPI_Request req, reqs[2];
    MPI_Status st, sts[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Isend(&x[0], 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        MPI_Send(&x[1], 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        MPI_Send(&x[2], 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
        MPI_Wait(&req, &st);
    } else {
        MPI_Irecv(&x[0], 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &reqs[0]);
        MPI_Irecv(&x[1], 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &reqs[1]);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
        MPI_Probe(0, 2, MPI_COMM_WORLD, &st);
        if (st.MPI_TAG != 2)
            abort();
        MPI_Recv(&x[2], 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Isend(&x[0], 1, MPI_INT, 0, 3, MPI_COMM_WORLD, &reqs[0]);
        MPI_Waitall(1, reqs, sts);
    }
    if (rank == 0)
        MPI_Recv(&x[0], 1, MPI_INT, 1, 3, MPI_COMM_WORLD, &st);
    MPI_Finalize();
    return 0;
}
