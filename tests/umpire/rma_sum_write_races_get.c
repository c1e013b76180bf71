/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=FIB038 */
/* The twin of rma_no_op_read_get_ok.c in which rank 2's
 * MPI_Get_accumulate adds with MPI_SUM: a write at the target, which races
 * rank 1's MPI_Get of the same element in the fence epoch. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, *base, x = 0, one = 1;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    *base = 7;
    MPI_Win_fence(0, win);
    if (rank == 1)
        MPI_Get(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    if (rank == 2)
        MPI_Get_accumulate(&one, 1, MPI_INT, &x, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
