/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB028 at=FIB028:18 */
/* Every rank makes a user reduction operation with MPI_Op_create, uses it
 * in an MPI_Allreduce and never frees it with MPI_Op_free (FIB028 at
 * MPI_Op_create). */
#include <mpi.h>

static void absmax(void *in, void *inout, int *len, MPI_Datatype *type) {
    int i, *a = in, *b = inout;
    (void)type;
    for (i = 0; i < *len; i++)
        if ((a[i] < 0 ? -a[i] : a[i]) > (b[i] < 0 ? -b[i] : b[i])) b[i] = a[i];
}

int main(int argc, char **argv) {
    int rank, x, m;
    MPI_Op op;
    MPI_Init(&argc, &argv);
    MPI_Op_create(absmax, 1, &op);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    x = rank % 2 ? -rank : rank;
    MPI_Allreduce(&x, &m, 1, MPI_INT, op, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
