/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB014,FIB015,FIB038 at=FIB038:42 */
/* Rank 1 puts into rank 0's window in an exclusive lock epoch, then calls
 * MPI_Barrier: the put is done before rank 0's barrier returns. On rank 0,
 * OpenMP thread 0 makes that barrier and sets a relaxed flag; thread 1
 * waits for the flag, sends to rank 1 and sets a release flag; thread 2
 * acquires that flag and loads the window. Thread 2 has seen thread 1's
 * send return, not thread 0's barrier (a relaxed flag orders nothing),
 * though the barrier reached MPI before the send: its load races with the
 * put (FIB038). With three threads, a call seen is not every call of a
 * lower index. */
#include <mpi.h>
#include <omp.h>
#include <stdatomic.h>

int main(int argc, char **argv)
{
    int provided, rank, *base, x = 42, seen = 0;
    atomic_int passed = 0, sent = 0;
    MPI_Win win;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    *base = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
#pragma omp parallel num_threads(3)
        {
            int t = omp_get_thread_num();
            if (t == 0) {
                MPI_Barrier(MPI_COMM_WORLD);
                atomic_store_explicit(&passed, 1, memory_order_relaxed);
            } else if (t == 1) {
                while (!atomic_load_explicit(&passed, memory_order_relaxed))
                    ;
                MPI_Send(&x, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
                atomic_store_explicit(&sent, 1, memory_order_release);
            } else {
                while (!atomic_load_explicit(&sent, memory_order_acquire))
                    ;
                seen = *base;
            }
        }
    } else {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(&seen, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return seen >= 0 ? 0 : 1;
}
