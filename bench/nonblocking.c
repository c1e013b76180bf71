/* Nonblocking-heavy: every round each rank posts MPI_Irecv and MPI_Isend
 * of four arrays to its neighbours in a ring, computes on other arrays
 * while they are pending (every load and store of that loop is one the
 * memory check sees, outside the owned buffers), waits for all with
 * MPI_Waitall, then reads what it received. Rounds from argv[1] (default
 * 200). Used by scripts/bench.sh to compare memory checking on and off. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4096
#define K 4

static double sendbuf[K][N], recvbuf[K][N], work[2][N];

int main(int argc, char **argv)
{
    int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 200;
    MPI_Request reqs[2 * K];
    double total = 0.0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < N; i++)
        work[0][i] = work[1][i] = i * 0.5;
    for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < K; k++) {
            for (int i = 0; i < N; i++)
                sendbuf[k][i] = r + k + i;
            MPI_Irecv(recvbuf[k], N, MPI_DOUBLE, left, k, MPI_COMM_WORLD, &reqs[k]);
            MPI_Isend(sendbuf[k], N, MPI_DOUBLE, right, k, MPI_COMM_WORLD, &reqs[K + k]);
        }
        for (int i = 1; i < N - 1; i++)
            work[(r + 1) % 2][i] = 0.25 * (work[r % 2][i - 1] + 2 * work[r % 2][i] + work[r % 2][i + 1]);
        MPI_Waitall(2 * K, reqs, MPI_STATUSES_IGNORE);
        for (int k = 0; k < K; k++)
            total += recvbuf[k][N / 2];
    }
    if (rank == 0)
        printf("%f %f\n", total, work[rounds % 2][N / 2]);
    MPI_Finalize();
    return 0;
}
