/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* MPI_Win_allocate_shared with MPI_Win_shared_query; fence epochs with a
 * put to the other rank. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, *base, *peer_base, disp_unit, x = 9;
    MPI_Aint size;
    MPI_Win shm;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &shm);
    MPI_Win_shared_query(shm, 1 - rank, &size, &disp_unit, &peer_base);
    MPI_Win_fence(0, shm);
    MPI_Put(&x, 1, MPI_INT, 1 - rank, 0, 1, MPI_INT, shm);
    MPI_Win_fence(0, shm);
    MPI_Win_free(&shm);

    MPI_Finalize();
    return 0;
}
