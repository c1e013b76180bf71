/* fib-test: nprocs=3 outcome=crash interleavings=4 codes=FIB002 at=FIB002:22 */
/* The twin of omp_multiple_two_peers_ok.c in which the threads of rank
 * 0's parallel region receive with MPI_ANY_SOURCE: which thread's
 * receive enters MPI first, and which message each takes, are choices.
 * Thread 0 assumes it gets rank 1's message; in the runs where it gets
 * rank 2's, its assert fails. */
#include <assert.h>
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, rank, got[2] = {0, 0};
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
#pragma omp parallel num_threads(2)
        {
            int t = omp_get_thread_num();
            MPI_Recv(&got[t], 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            assert(t != 0 || got[t] == 1);
        }
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
