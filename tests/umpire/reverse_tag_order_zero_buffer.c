/* fib-test: nprocs=2 outcome=deadlock interleavings=1 flags=--zero-buffer codes=FIB001 */
/* reverse_tag_order.c under --zero-buffer: rank 1's tag-1 MPI_Send is now
 * synchronous and waits for a tag-1 receive, while rank 0 waits for the tag-2
 * message that rank 1 only sends afterwards. Deadlock, 1 interleaving. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Recv(&buf, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        assert(buf == 2);
        MPI_Recv(&buf, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        assert(buf == 1);
    } else {
        buf = 1;
        MPI_Send(&buf, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        buf = 2;
        MPI_Send(&buf, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
