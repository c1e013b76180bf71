/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB040 at=FIB040:17 flags=--,a,b */
/* Rank 0 sends its report only when given two arguments; rank 1 always
 * waits for it. Checked with two arguments the run passes; with fewer,
 * rank 1 would wait forever. FIB040 at the send, labelling the condition
 * and rank 1's receive. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank, report = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        report = 99;
        int detailed = argc > 2;
        if (detailed)
            MPI_Send(&report, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&report, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("report %d\n", report);
    }
    MPI_Finalize();
    return 0;
}
