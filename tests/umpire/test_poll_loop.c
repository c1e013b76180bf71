/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Rank 0 posts an MPI_Irecv from rank 1 and polls it with MPI_Test until it
 * completes, counting iterations. MPI guarantees that a receive that can
 * complete eventually does, so the loop terminates; polling does not add
 * interleavings: 1 interleaving, ok. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, flag = 0, buf = 0;
    long polls = 0;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(&buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        while (!flag) {
            MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
            polls++;
        }
        assert(polls >= 1 && buf == 21);
    } else {
        buf = 21;
        MPI_Send(&buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
