/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Rank 1 sends three messages with the same tag; rank 0 receives them with
 * three MPI_ANY_SOURCE receives. Each wildcard has exactly one sender with an
 * eligible message (rank 1's earliest unmatched send), so there is no branch:
 * 1 interleaving, and non-overtaking delivers 0, 1, 2 in order. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        for (int i = 0; i < 3; i++) {
            MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            assert(buf == i);
        }
    } else {
        for (int i = 0; i < 3; i++)
            MPI_Send(&i, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
