/* fib: -n 2 */
#include <mpi.h>
#include <stdio.h>
#include "compat.h"

int main(int argc, char **argv)
{
    int rank, count = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    __sync_fetch_and_add(&count, rank + 1);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("%d\n", count);
    MPI_Finalize();
    return 0;
}
