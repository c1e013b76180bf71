/* fib-test: nprocs=3 outcome=ok interleavings=3 codes=- */
/* Rank 0 posts receives from ranks 1 and 2 and polls with MPI_Testsome until
 * both have completed. The poll must terminate, and a Testsome that finds both
 * complete may report both, or either one first: 3 interleavings, ok. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, bufs[2] = {0, 0};
    MPI_Request reqs[2];
    MPI_Status sts[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        int done = 0, outcount, indices[2];
        MPI_Irecv(&bufs[0], 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &reqs[0]);
        MPI_Irecv(&bufs[1], 1, MPI_INT, 2, 0, MPI_COMM_WORLD, &reqs[1]);
        while (done < 2) {
            MPI_Testsome(2, reqs, &outcount, indices, sts);
            done += outcount;
        }
        assert(bufs[0] == 1 && bufs[1] == 2);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
