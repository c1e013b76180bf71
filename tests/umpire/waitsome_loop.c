/* fib-test: nprocs=4 outcome=ok interleavings=13 codes=- */
/* Rank 0 posts receives from ranks 1, 2 and 3 and calls MPI_Waitsome until all
 * three have completed. Each Waitsome may return any non-empty subset of the
 * receives complete by then, so the loop sees the three messages in every
 * ordered partition of them: 13 interleavings ({1,2,3}; three ways of one
 * and then two, three of two and then one; six of one at a time), all ok. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, bufs[3] = {0, 0, 0};
    MPI_Request reqs[3];
    MPI_Status sts[3];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        int done = 0, outcount, indices[3];
        for (int i = 0; i < 3; i++)
            MPI_Irecv(&bufs[i], 1, MPI_INT, i + 1, 0, MPI_COMM_WORLD, &reqs[i]);
        while (done < 3) {
            MPI_Waitsome(3, reqs, &outcount, indices, sts);
            assert(outcount >= 1);
            done += outcount;
        }
        assert(done == 3 && bufs[0] + bufs[1] + bufs[2] == 6);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
