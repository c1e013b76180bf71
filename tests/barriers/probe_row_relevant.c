/* fib-barriers: nprocs=4 outcome=ok interleavings=1 */
/*
 * barrier L37: relevant witness: recv L31 rank 0, send L42 rank 3
 * barrier L41: relevant witness: recv L31 rank 0, send L42 rank 3
 * barrier L44: relevant witness: recv L31 rank 0, send L42 rank 3
 *
 * A row of probes: rank 0 takes one message of unknown length from ranks 1
 * and 2 by probing with MPI_ANY_SOURCE, sizing a buffer from the status
 * and receiving from the probed source, then enters the barrier; rank 3
 * sends only after it. The probes find ranks 1's and 2's messages in
 * either order, and one run stands for both (what they receive steers
 * nothing; the status only names the receive's source and count): one
 * interleaving instead of two. Delete the barrier and rank 3's message can
 * reach the row: the pair (probe L31 on rank 0, send L42 on rank 3) becomes
 * possible, so the barrier group is relevant.
 */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, data[3] = {0, 0, 0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        int x;
        for (int k = 0; k < 2; k++) {
            MPI_Status st;
            int n;
            /* Each probe finds a message of ranks 1 and 2. */
            MPI_Probe(MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_INT, &n);
            int *buf = malloc(n * sizeof *buf);
            MPI_Recv(buf, n, MPI_INT, st.MPI_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            free(buf);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        if (rank == 3)
            MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(data, rank == 3 ? 1 : rank, MPI_INT, 0, 0, MPI_COMM_WORLD);
        if (rank != 3)
            MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
