#ifndef REDUCE_H
#define REDUCE_H
#include <mpi.h>
/* The sum of every rank's x, on every rank. */
double reduce_sum(double x, MPI_Comm comm);
#endif
