/* fib-barriers: nprocs=3 outcome=ok interleavings=1 */
/*
 * barrier L33: irrelevant
 * barrier L37: irrelevant
 *
 * Two MPI_Barrier sites in different branches that match each other: rank 0
 * reaches the one at L33, every other rank the one at L37. They are one
 * MPI_Barrier group (deleting only one of them would deadlock), so both lines get
 * the same verdict. Rank 0 takes one message from each other rank with
 * MPI_ANY_SOURCE before its barrier, and the others send before theirs: the
 * two messages can arrive in either order. Rank 0 only adds them up, so a
 * probe run of the other order makes the same calls and broadcasts the
 * same sum: 1 interleaving stands for both (--exhaustive runs 2). Every
 * wildcard receive completes before rank 0 enters the barrier and nothing is
 * sent to rank 0 after it, so deleting both sites changes no (wildcard
 * receive, send) pair: irrelevant. An MPI_Bcast after the barrier keeps the
 * program doing something once it has passed.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        for (int k = 1; k < size; k++) {
            int v;
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            sum += v;
        }
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
        int v = rank * rank;
        MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Bcast(&sum, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (sum != (size - 1) * size * (2 * size - 1) / 6)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Finalize();
    return 0;
}
