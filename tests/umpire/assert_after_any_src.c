/* fib-test: nprocs=3 outcome=crash interleavings=2 codes=FIB002 */
/* Rank 0 receives twice from MPI_ANY_SOURCE and asserts that the first message
 * came from rank 1; ranks 1 and 2 send one message each. The first wildcard
 * has two candidates: when rank 1's message is taken the run completes, when
 * rank 2's is taken the assert fails and rank 0 aborts. 2 interleavings, one
 * of them a crash on rank 0. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf = 0;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
        assert(st.MPI_SOURCE == 1);
        MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
