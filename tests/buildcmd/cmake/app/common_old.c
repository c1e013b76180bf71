/* The former version of common.c: the build no longer compiles it, and
 * linking it too would define tag_of twice. */
#include <mpi.h>
#include "common.h"

int tag_of(int rank)
{
    MPI_Barrier(MPI_COMM_WORLD);
    return rank;
}
