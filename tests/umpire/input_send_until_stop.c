/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- flags=--,3 */
/* The correct twin of input_send_args.c: rank 0 sends as many tasks as its
 * argument says, then a stop message; rank 1 receives until it gets the
 * stop. Rank 1's receive runs as long as what it received says, which
 * carries rank 0's input: no FIB040. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, task = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        int n = atoi(argv[1]);
        for (int i = 1; i <= n; i++)
            MPI_Send(&i, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        task = -1;
        MPI_Send(&task, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else {
        int done = 0;
        while (!done) {
            MPI_Recv(&task, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            done = task < 0;
        }
        printf("stopped\n");
    }
    MPI_Finalize();
    return 0;
}
