/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Rank 0 posts two receives from rank 1 (tags 0 and 1) and polls with
 * MPI_Testany until one completes. Rank 1 sends tag 0, then waits for a "go"
 * message from rank 0, and only then sends tag 1, so only the tag-0 request
 * can complete while rank 0 polls: Testany never has two completed requests to
 * choose from, and the poll adds no interleavings. 1 interleaving, ok. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, idx = -1, flag = 0, bufs[2] = {0, 0}, go = 1;
    MPI_Request reqs[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(&bufs[0], 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &reqs[0]);
        MPI_Irecv(&bufs[1], 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &reqs[1]);
        while (!flag)
            MPI_Testany(2, reqs, &idx, &flag, MPI_STATUS_IGNORE);
        assert(idx == 0 && bufs[0] == 10);
        MPI_Send(&go, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
        MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
        assert(bufs[1] == 11);
    } else {
        int v = 10;
        MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Recv(&go, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        v = 11;
        MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
