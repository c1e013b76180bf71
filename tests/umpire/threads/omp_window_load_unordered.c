/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB038,FIB014,FIB015 at=FIB038:33 */
/* Rank 0 puts into rank 1's window and then meets it at MPI_Barrier. On
 * rank 1 the main thread calls that barrier in `omp master`, whose end has
 * no barrier: OpenMP thread 1 loads the window's memory without being
 * ordered after the main thread's MPI_Barrier, so the load races with the
 * put whatever the timing. The twin omp_window_load_barrier_ok.c has the
 * team's barrier after the master's. */
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
            if (omp_get_thread_num() == 1)
                seen += *base;
        }
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return seen >= 0 ? 0 : 1;
}
