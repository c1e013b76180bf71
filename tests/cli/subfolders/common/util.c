#include <mpi.h>
#include "util.h"

/* Nothing crosses it: an irrelevant barrier, shown as this file. */
void sync_all(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
}
