/* fib-test: nprocs=3 outcome=ok interleavings=2 codes=- */
/* Rank 0 posts receives from ranks 1 and 2 and completes them with two
 * MPI_Waitany calls. Both receives are matched before the first Waitany is
 * decided, so it has two completed requests (2 branches); the second Waitany
 * has one active request left (1 branch). 2 interleavings, both ok. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, idx, bufs[2] = {0, 0};
    MPI_Request reqs[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        int done = 0;
        MPI_Irecv(&bufs[0], 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &reqs[0]);
        MPI_Irecv(&bufs[1], 1, MPI_INT, 2, 0, MPI_COMM_WORLD, &reqs[1]);
        for (int i = 0; i < 2; i++) {
            MPI_Waitany(2, reqs, &idx, MPI_STATUS_IGNORE);
            assert(idx == 0 || idx == 1);
            assert(bufs[idx] == idx + 1);
            done |= 1 << idx;
        }
        assert(done == 3);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
