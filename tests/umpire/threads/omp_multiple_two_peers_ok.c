/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=- */
/* MPI_THREAD_MULTIPLE with OpenMP: the two threads of rank 0's parallel
 * region each receive from their own peer, both waiting inside MPI at
 * once, and then each sends its peer an answer. Which thread's call
 * enters MPI first changes no match: one run. The twin
 * omp_multiple_wildcard.c receives with MPI_ANY_SOURCE. */
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
            MPI_Recv(&got[t], 1, MPI_INT, t + 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&got[t], 1, MPI_INT, t + 1, 1, MPI_COMM_WORLD);
        }
    } else {
        int back;
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Recv(&back, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (back != rank)
            MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Finalize();
    return rank == 0 && (got[0] != 1 || got[1] != 2);
}
