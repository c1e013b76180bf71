/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB038 */
/* A shared-memory window: rank 1 stores straight into rank 0's segment,
 * which MPI_Win_shared_query handed it, while rank 0 reads the same bytes
 * of its own segment, with nothing in between (FIB038: both are accesses
 * to rank 0's window memory that no synchronisation orders). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *mine, *theirs, unit;
    MPI_Aint size;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate_shared(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win);
    MPI_Win_shared_query(win, 0, &size, &unit, &theirs);
    if (rank == 1)
        theirs[2] = 5;
    else
        printf("%d\n", mine[2]);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
