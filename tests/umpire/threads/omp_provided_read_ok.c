/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* The twin of omp_provided_unread.c: the program checks the level
 * MPI_Init_thread provided before OpenMP thread 1 sends. */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, rank, v = 7;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    if (provided < MPI_THREAD_SERIALIZED)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
#pragma omp parallel num_threads(2)
        {
            if (omp_get_thread_num() == 1)
                MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        }
    } else if (rank == 1) {
        MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return v == 7 ? 0 : 1;
}
