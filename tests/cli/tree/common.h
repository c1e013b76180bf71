/* Shared by every program of this directory. */
#ifndef COMMON_H
#define COMMON_H
#include <mpi.h>

int right_of(int rank, int size);

#define SYNC() MPI_Barrier(MPI_COMM_WORLD)

#endif
