/* fib-choices: nprocs=3 outcome=ok interleavings=4 exhaustive=4 steering=46 */
/*
 * barrier L65: relevant
 *
 * A near-miss of the probe dispatch: the chain compares the probed
 * status's source with nbr[k], where k is the loop's counter, so which
 * branch takes a message depends on when it comes: a message that comes
 * in its neighbour's turn goes into ghost[k], one that comes early or
 * late into a stray buffer (and is filed from there). The buffer each
 * receive writes is decided by the order, so every order runs, with and
 * without --exhaustive: rank 1, the one rank with two neighbours, probes
 * in two orders at each of two steps.
 *
 * The barrier closing a step is relevant: without it rank 0 could post
 * the next step's send before rank 1 probes a second time, and rank 1's
 * second probe could find it while rank 2's message of this step is still
 * to come.
 */
#include <mpi.h>
#include <stdio.h>

#define STEPS 2

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int nbr[2], n = 0;
    if (rank > 0)
        nbr[n++] = rank - 1;
    if (rank < size - 1)
        nbr[n++] = rank + 1;

    double edge = rank + 0.5, stray_count = 0;
    for (int step = 0; step < STEPS; step++) {
        double ghost[2] = {0.0, 0.0}, stray[2] = {0.0, 0.0};
        MPI_Request req[2];
        MPI_Status sent[2];
        for (int k = 0; k < n; k++)
            MPI_Isend(&edge, 1, MPI_DOUBLE, nbr[k], 5, MPI_COMM_WORLD, &req[k]);
        for (int k = 0; k < n; k++) {
            MPI_Status st;
            MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            if (st.MPI_SOURCE == nbr[k]) {
                MPI_Recv(&ghost[k], 1, MPI_DOUBLE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&stray[k], 1, MPI_DOUBLE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                stray_count++;
            }
        }
        if (stray_count > 0) {
            /* Strays came in the other neighbour's turn. */
            double t = stray[0];
            stray[0] = stray[1];
            stray[1] = t;
            for (int k = 0; k < n; k++)
                ghost[k] += stray[k];
        }
        MPI_Waitall(n, req, sent);
        edge = 0.5 * edge + 0.25 * (ghost[0] + ghost[1]);
        MPI_Barrier(MPI_COMM_WORLD); /* end of the step */
    }
    printf("near_dispatch_counter: rank %d edge %.4f, %g strays\n", rank, edge, stray_count);
    MPI_Finalize();
    return 0;
}
