/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Rank 1 sends 1 and then 2 to rank 0 with the same tag (one blocking, one
 * nonblocking); rank 0 receives twice with that tag. MPI's non-overtaking rule
 * delivers them in send order, which rank 0 asserts. 1 interleaving, ok. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, a = 0, b = 0;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Recv(&a, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&b, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        assert(a == 1 && b == 2);
    } else {
        a = 1;
        b = 2;
        MPI_Send(&a, 1, MPI_INT, 0, 4, MPI_COMM_WORLD);
        MPI_Isend(&b, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
