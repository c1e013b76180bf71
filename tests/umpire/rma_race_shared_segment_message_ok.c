/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* The twin of rma_race_shared_segment.c: rank 1 stores into rank 0's
 * segment and then sends rank 0 a message; rank 0 reads its segment only
 * after receiving it, so the message orders the two accesses. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *mine, *theirs, unit, token = 0;
    MPI_Aint size;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate_shared(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win);
    MPI_Win_shared_query(win, 0, &size, &unit, &theirs);
    if (rank == 1) {
        theirs[2] = 5;
        MPI_Send(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("%d\n", mine[2]);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
