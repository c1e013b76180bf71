/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB044 at=FIB044:17 */
/* Under MPI_THREAD_SERIALIZED, OpenMP thread 1 of rank 0 sends, but the
 * program never reads the level MPI_Init_thread provided. The twin
 * omp_provided_read_ok.c checks it. */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, rank, v = 7;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
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
