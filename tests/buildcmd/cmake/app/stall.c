/* Both ranks receive first: a deadlock. Needs norm2 (and so -lm) from the
 * library, not exchange. */
#include <mpi.h>
#include "num.h"
#include "common.h"

int main(int argc, char **argv)
{
    int rank;
    double v, w = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    v = norm2(rank, 2.0);
    MPI_Recv(&w, 1, MPI_DOUBLE, 1 - rank, tag_of(rank), MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&v, 1, MPI_DOUBLE, 1 - rank, tag_of(1 - rank), MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
