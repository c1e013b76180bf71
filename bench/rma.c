/* RMA-heavy: every round each rank opens a fence epoch on one window and
 * puts four blocks of doubles into its right neighbour's window, closes it
 * with a fence and reads what its left neighbour put; then, on a second
 * window, it takes a shared lock on each of two targets in turn and adds to
 * their counters with MPI_Accumulate (MPI_SUM, so the accumulates of
 * different origins may meet). At the end each rank reads its counters
 * under a lock on itself, after a barrier. Rounds from argv[1] (default
 * 200). Used by scripts/bench.sh to compare fib with native MPI. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 512
#define K 4

int main(int argc, char **argv)
{
    int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 200;
    double *fenced, *counters, origin[K][N], ones[K];
    double total = 0.0;
    MPI_Win put_win, acc_win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Win_allocate(K * N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &fenced, &put_win);
    MPI_Win_allocate(K * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &counters, &acc_win);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, acc_win);
    for (int k = 0; k < K; k++) {
        counters[k] = 0.0;
        ones[k] = 1.0;
    }
    MPI_Win_unlock(rank, acc_win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < K; k++)
            for (int i = 0; i < N; i++)
                origin[k][i] = r + k + i + rank;
        MPI_Win_fence(0, put_win);
        for (int k = 0; k < K; k++)
            MPI_Put(origin[k], N, MPI_DOUBLE, right, k * N, N, MPI_DOUBLE, put_win);
        MPI_Win_fence(0, put_win);
        total += fenced[(r % K) * N + N / 2];
        for (int t = 0; t < 2; t++) {
            int target = t ? left : right;
            MPI_Win_lock(MPI_LOCK_SHARED, target, 0, acc_win);
            MPI_Accumulate(ones, K, MPI_DOUBLE, target, 0, K, MPI_DOUBLE, MPI_SUM, acc_win);
            MPI_Win_unlock(target, acc_win);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, acc_win);
    for (int k = 0; k < K; k++)
        total += counters[k];
    MPI_Win_unlock(rank, acc_win);
    MPI_Win_free(&acc_win);
    MPI_Win_free(&put_win);
    if (rank == 0)
        printf("rma: %d rounds, %d ranks, checksum %.1f\n", rounds, size, total);
    MPI_Finalize();
    return 0;
}
