/* fib-test: nprocs=4 outcome=ok interleavings=1 codes=- */
/* MPI_COMM_WORLD is split by parity into {0,2} and {1,3}. Inside each half the
 * two ranks exchange their world ranks with MPI_Sendrecv, then sum them with an
 * MPI_Allreduce on the half. Everything is deterministic: 1 interleaving. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, sub_rank, other = -1, sum = 0;
    MPI_Comm half;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Comm_rank(half, &sub_rank);
    assert(sub_rank == rank / 2);
    MPI_Sendrecv(&rank, 1, MPI_INT, 1 - sub_rank, 0, &other, 1, MPI_INT, 1 - sub_rank, 0,
                 half, MPI_STATUS_IGNORE);
    assert(other == (rank + 2) % 4);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half);
    assert(sum == (rank % 2 ? 4 : 2));
    MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
