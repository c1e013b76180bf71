/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Rank 1 receives a double, then takes an int with a matched probe for any
 * source and receives it as MPI_INT with MPI_Mrecv. The probe has no
 * datatype of its own: the MPI_Mrecv's is the one compared with the send's,
 * and it agrees (the double's receive before the probe says nothing of
 * it). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        double d = 1.5;
        int v = 7;
        MPI_Send(&d, 1, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD);
        MPI_Send(&v, 1, MPI_INT, 1, 6, MPI_COMM_WORLD);
    } else if (rank == 1) {
        double d;
        int v;
        MPI_Message m;
        MPI_Recv(&d, 1, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Mprobe(MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE);
        MPI_Mrecv(&v, 1, MPI_INT, &m, MPI_STATUS_IGNORE);
        printf("%g %d\n", d, v);
    }
    MPI_Finalize();
    return 0;
}
