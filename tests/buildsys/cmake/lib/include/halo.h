#ifndef HALO_H
#define HALO_H
#include <mpi.h>

/* Exchanges the halo cells at both ends of u, which holds n interior cells
 * between halo_width() cells on each side, with the neighbours of a ring. */
void halo_exchange(double *u, int n, MPI_Comm comm);
/* How many halo cells each side has. */
int halo_width(void);
/* The sum of every rank's x, on every rank. */
double halo_total(double x, MPI_Comm comm);
#endif
