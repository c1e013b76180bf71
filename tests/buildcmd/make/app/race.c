/* Built with -DLATE_BARRIER (only this program): the barrier then orders
 * nothing the exchange's messages can do. */
#include <mpi.h>
#include <stdio.h>
#include "num.h"
#include "common.h"

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double v = norm2(rank, 4.0) + tag_of(rank);
#ifdef LATE_BARRIER
    MPI_Barrier(MPI_COMM_WORLD);
#endif
    exchange(rank, v);
    MPI_Finalize();
    return 0;
}
