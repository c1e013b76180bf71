/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB014,FIB038 */
/* A dynamic window: rank 0 attaches buf and broadcasts its address; rank
 * 1 puts to it under a lock while rank 0 reads buf with nothing ordering
 * the two (FIB038: attached memory is watched, its displacements are
 * addresses). The barrier only keeps the detach after the put; it orders
 * no pair of accesses (FIB014). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, buf[4] = {0, 0, 0, 0}, x = 9;
    MPI_Aint at = 0;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    if (rank == 0) {
        MPI_Win_attach(win, buf, sizeof buf);
        MPI_Get_address(&buf[1], &at);
    }
    MPI_Bcast(&at, 1, MPI_AINT, 0, MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Put(&x, 1, MPI_INT, 0, at, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    } else {
        printf("%d\n", buf[1]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MPI_Win_detach(win, buf);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
