/* fib-barriers: nprocs=4 outcome=ok interleavings=1 */
/*
 * also: nprocs=8 interleavings=1
 * barrier L39: irrelevant
 *
 * Rank 0 collects one message of unknown length from every other rank: it
 * probes with MPI_ANY_SOURCE, sizes a buffer from the status's count and
 * receives from the status's source. The probes can find the messages in
 * any of (size-1)! orders (5040 at 8 ranks), and one run stands for all of
 * them: the status names only the receive's source and count, and what
 * the receives get is only printed. The barrier after the row orders no
 * message: irrelevant.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, data[8] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        for (int k = 1; k < size; k++) {
            MPI_Status st;
            int n;
            MPI_Probe(MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_INT, &n);
            int *buf = malloc(n * sizeof *buf);
            MPI_Recv(buf, n, MPI_INT, st.MPI_SOURCE, 0, MPI_COMM_WORLD, &st);
            printf("%d ints from rank %d\n", n, st.MPI_SOURCE);
            free(buf);
        }
    } else {
        data[0] = rank;
        MPI_Send(data, rank % 8 + 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
