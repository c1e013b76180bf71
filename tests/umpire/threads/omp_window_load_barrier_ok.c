/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB015 */
/* The twin of omp_window_load_unordered.c: on rank 1 the team meets at a
 * barrier after the main thread's MPI_Barrier, so OpenMP thread 1's load
 * of the window's memory comes after the put, and both MPI_Barrier calls
 * are relevant (FIB015): the first orders rank 1's store before the put,
 * the second the put before the load. */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, rank, mem = 0, *base = &mem, x = 42, seen = 0;
    MPI_Win win;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    if (provided < MPI_THREAD_FUNNELED)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(base, sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    *base = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Put(&x, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        MPI_Win_unlock(1, win);
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
#pragma omp parallel num_threads(2) reduction(+ : seen)
        {
#pragma omp master
            MPI_Barrier(MPI_COMM_WORLD);
#pragma omp barrier
            if (omp_get_thread_num() == 1)
                seen += *base;
        }
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return seen >= 0 ? 0 : 1;
}
