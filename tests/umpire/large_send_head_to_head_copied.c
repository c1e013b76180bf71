/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB023 at=FIB023:22 copied=yes */
/* Both ranks send 1 MiB to each other before receiving. MPI holds a
 * message that large until its receive is posted, so the program completes
 * only where MPI buffers standard sends: fib sees its run held, runs it
 * again sending from copies of the program's data (as buffering would),
 * checks the data, and warns that the program deadlocks without
 * buffering. */
#include <assert.h>
#include <mpi.h>
#include <stdlib.h>

#define N (1 << 20)

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *out = malloc(N), *in = malloc(N);
    for (int i = 0; i < N; i += 4096)
        out[i] = (char)(rank + 1);
    MPI_Send(out, N, MPI_CHAR, 1 - rank, 0, MPI_COMM_WORLD);
    for (int i = 0; i < N; i += 4096)
        out[i] = 0;
    MPI_Recv(in, N, MPI_CHAR, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < N; i += 4096)
        assert(in[i] == (char)(2 - rank));
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
