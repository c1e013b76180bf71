/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB014,FIB015 */
/* The twin of omp_lock_put_other_barrier.c: the team meets at an OpenMP
 * barrier after thread 0's unlock, and thread 1 calls MPI_Barrier after
 * it, so the barrier orders the put before rank 1's load (FIB015). */
#include <mpi.h>
#include <omp.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int provided, rank, *base, x = 42, seen = 0;
    MPI_Win win;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    *base = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
#pragma omp parallel num_threads(2)
        {
            if (omp_get_thread_num() == 0) {
                MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
                MPI_Put(&x, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
                MPI_Win_unlock(1, win);
            }
#pragma omp barrier
            if (omp_get_thread_num() == 1)
                MPI_Barrier(MPI_COMM_WORLD);
        }
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        seen = *base;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return seen >= 0 ? 0 : 1;
}
