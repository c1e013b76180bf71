/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB043 at=FIB043:25 */
/* MPI_THREAD_SERIALIZED with OpenMP: two sections of one parallel region
 * send at once on rank 0. The twin serialized_critical_ok.c puts each
 * send in a critical section. */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, rank, a = 1, b = 2;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    if (provided < MPI_THREAD_SERIALIZED)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
#pragma omp parallel num_threads(2)
        {
            if (omp_get_thread_num() == 0)
                MPI_Send(&a, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
#pragma omp barrier
            /* Ordered after thread 0's send by the barrier, not with each other. */
            if (omp_get_thread_num() == 1)
                MPI_Send(&b, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
            if (omp_get_thread_num() == 0)
                MPI_Send(&a, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
        }
    } else if (rank == 1) {
        int c;
        MPI_Request r[3];
        MPI_Irecv(&a, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(&b, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &r[1]);
        MPI_Irecv(&c, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &r[2]);
        MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
