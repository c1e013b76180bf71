/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB033 at=FIB033:18,FIB033:22 */
/* Null statuses in completions: rank 0 waits for its MPI_Isend with a
 * null status written as a cast zero, rank 1 for its two receives with
 * MPI_Waitall and a null array of statuses, where MPI_STATUS_IGNORE and
 * MPI_STATUSES_IGNORE belong. FIB033 at both calls, found before
 * running. */
#include <mpi.h>
#include <stddef.h>

int main(int argc, char **argv) {
    int rank, x[2] = {1, 2};
    MPI_Request req, reqs[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Isend(&x[0], 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        MPI_Send(&x[1], 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        MPI_Wait(&req, (MPI_Status *)0);
    } else {
        MPI_Irecv(&x[0], 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &reqs[0]);
        MPI_Irecv(&x[1], 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &reqs[1]);
        MPI_Waitall(2, reqs, NULL);
    }
    MPI_Finalize();
    return 0;
}
