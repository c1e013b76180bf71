/* fib-test: nprocs=3 outcome=deadlock interleavings=1 codes=FIB009 */
/* Ranks 0 and 1 call MPI_Scan; rank 2 calls MPI_Exscan on the same
 * communicator. Different collective operations never form one match set:
 * fib reports the mismatch (FIB009) before MPI runs either, 1 interleaving. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, in, out = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    in = rank + 1;
    if (rank < 2)
        MPI_Scan(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    else
        MPI_Exscan(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
