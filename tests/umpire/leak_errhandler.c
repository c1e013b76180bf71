/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB028 at=FIB028:20 */
/* Every rank makes an error handler and sets it on a duplicate of
 * MPI_COMM_WORLD, and never frees the handler with MPI_Errhandler_free
 * (FIB028 at MPI_Comm_create_errhandler). The communicator is freed. */
#include <mpi.h>
#include <stdio.h>

static void report(MPI_Comm *comm, int *code, ...) {
    (void)comm;
    fprintf(stderr, "MPI error %d\n", *code);
}

int main(int argc, char **argv) {
    int rank, max;
    MPI_Comm comm;
    MPI_Errhandler eh;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_create_errhandler(report, &eh);
    MPI_Comm_set_errhandler(comm, eh);
    MPI_Allreduce(&rank, &max, 1, MPI_INT, MPI_MAX, comm);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
