/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* A window keyval and a window error handler are made and freed without
 * any window, as MPICH's test harness does: local calls, which run under
 * fib as they are (they were refused as one-sided communication). */
#include <mpi.h>
#include <stddef.h>

static void on_error(MPI_Win *win, int *code, ...) {
    (void)win;
    (void)code;
}

int main(int argc, char **argv) {
    int rank, keyval = MPI_KEYVAL_INVALID, value = 0;
    MPI_Errhandler handler;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &keyval, NULL);
    MPI_Win_create_errhandler(on_error, &handler);
    if (rank == 0)
        MPI_Send(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    else
        MPI_Recv(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Errhandler_free(&handler);
    MPI_Win_free_keyval(&keyval);
    if (keyval != MPI_KEYVAL_INVALID)
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Finalize();
    return 0;
}
