/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB038,FIB014,FIB015 at=FIB038:41 */
/* Rank 0's OpenMP thread 0 puts into rank 1's window in an exclusive lock
 * epoch and then sets a relaxed atomic flag; its thread 1 waits for the
 * flag and calls MPI_Barrier. A relaxed flag orders nothing, so the
 * barrier is not ordered after the unlock, though it reaches MPI after it:
 * rank 1's load after the barrier races with the put (FIB038), and the
 * barrier orders nothing (FIB014). The shape of RMARaceBench's hybrid
 * 021 (a section's epoch, another section's barrier). */
#include <mpi.h>
#include <omp.h>
#include <stdatomic.h>

int main(int argc, char **argv)
{
    int provided, rank, *base, x = 42, seen = 0;
    atomic_int unlocked = 0;
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
                atomic_store_explicit(&unlocked, 1, memory_order_relaxed);
            } else {
                while (!atomic_load_explicit(&unlocked, memory_order_relaxed))
                    ;
                MPI_Barrier(MPI_COMM_WORLD);
            }
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
