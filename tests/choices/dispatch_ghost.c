/* fib-choices: nprocs=4 outcome=ok interleavings=1 exhaustive=16 */
/*
 * barrier L77: relevant
 *
 * A 1-D heat rod split over the ranks, its ghost cells exchanged by probe
 * dispatch: each rank posts an MPI_Isend of its edge cells to each
 * neighbour, then takes as many messages as it has neighbours with
 * MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG). An if/else-if chain compares the
 * status's source and tag with the neighbours' ranks (computed from rank
 * and size before the steps) and the constant tags; the matching branch
 * receives exactly the probed message (its source and tag from the
 * status) into that neighbour's ghost cells. A final else, which no
 * message reaches, prints and aborts. Then MPI_Waitall on the sends, the
 * update, and a barrier closing the step.
 *
 * Ranks 1 and 2 have two neighbours, so each step's two probes can find
 * the messages in two orders: 2 x 2 orders per step, 16 over two steps.
 * Whichever order, each message goes into the same ghost cells with the
 * same count: one run stands for every order of every step.
 *
 * The barrier closing a step is relevant: without it a rank with a
 * single neighbour (rank 0) could finish its step and post the next
 * step's send before rank 1 probes a second time; rank 1's second probe
 * could then find rank 0's next message while rank 2's of this step is
 * still to come.
 */
#include <mpi.h>
#include <stdio.h>

#define CELLS 8
#define STEPS 2
#define ALPHA 0.25

enum { TAG_RIGHTWARD = 21, TAG_LEFTWARD = 22 };

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    int neighbours = (left != MPI_PROC_NULL) + (right != MPI_PROC_NULL);

    double u[CELLS + 2], v[CELLS + 2];
    for (int i = 0; i < CELLS + 2; i++)
        u[i] = (rank * CELLS + i) % 5 == 0 ? 10.0 : 0.0;
    for (int step = 0; step < STEPS; step++) {
        double ghost_l = 0.0, ghost_r = 0.0;
        MPI_Request req[2];
        MPI_Status sent[2];
        MPI_Isend(&u[1], 1, MPI_DOUBLE, left, TAG_LEFTWARD, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(&u[CELLS], 1, MPI_DOUBLE, right, TAG_RIGHTWARD, MPI_COMM_WORLD, &req[1]);
        for (int k = 0; k < neighbours; k++) {
            MPI_Status st;
            MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            if (st.MPI_SOURCE == left && st.MPI_TAG == TAG_RIGHTWARD) {
                MPI_Recv(&ghost_l, 1, MPI_DOUBLE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            } else if (st.MPI_SOURCE == right && st.MPI_TAG == TAG_LEFTWARD) {
                MPI_Recv(&ghost_r, 1, MPI_DOUBLE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            } else {
                printf("dispatch_ghost: rank %d: unexpected message from %d with tag %d\n", rank,
                       st.MPI_SOURCE, st.MPI_TAG);
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
        }
        MPI_Waitall(2, req, sent);
        u[0] = ghost_l;
        u[CELLS + 1] = ghost_r;
        for (int i = 1; i <= CELLS; i++)
            v[i] = u[i] + ALPHA * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        for (int i = 1; i <= CELLS; i++)
            u[i] = v[i];
        MPI_Barrier(MPI_COMM_WORLD); /* end of the step */
    }
    double heat = 0.0, total = 0.0;
    for (int i = 1; i <= CELLS; i++)
        heat += u[i];
    MPI_Reduce(&heat, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("dispatch_ghost: %d ranks, %d steps, heat %.6f\n", size, STEPS, total);
    MPI_Finalize();
    return 0;
}
