/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=- */
/* In one fence epoch rank 1 reads an element of rank 0's window with
 * MPI_Get and rank 2 reads it with MPI_Get_accumulate and MPI_NO_OP, an
 * atomic read: two reads do not race. (fib once took MPI_NO_OP, which the
 * bindings do not name, for another operation, a write.) */
#include <mpi.h>
#include <stddef.h>

int main(int argc, char **argv)
{
    int rank, *base, x = 0;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    *base = 7;
    MPI_Win_fence(0, win);
    if (rank == 1)
        MPI_Get(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    if (rank == 2)
        MPI_Get_accumulate(NULL, 0, MPI_DATATYPE_NULL, &x, 1, MPI_INT, 0, 0, 1, MPI_INT,
                           MPI_NO_OP, win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return x == 7 || rank == 0 ? 0 : 1;
}
