/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Both ranks post an MPI_Irecv and a synchronous MPI_Issend to each other and
 * complete both with MPI_Waitall. Because the receives are posted before
 * anyone waits, the synchronous sends find their receives: ok, 1 interleaving,
 * unlike the head-to-head MPI_Ssend. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, in = -1;
    MPI_Request reqs[2];
    MPI_Status sts[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int other = 1 - rank;
    MPI_Irecv(&in, 1, MPI_INT, other, 0, MPI_COMM_WORLD, &reqs[0]);
    MPI_Issend(&rank, 1, MPI_INT, other, 0, MPI_COMM_WORLD, &reqs[1]);
    MPI_Waitall(2, reqs, sts);
    assert(in == other);
    MPI_Finalize();
    return 0;
}
