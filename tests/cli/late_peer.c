/* Rank 1 takes ten minutes to reach MPI_Init, so rank 0 waits inside
 * MPI_Init for it. Killing fib then (SIGKILL: it cleans nothing up) must
 * still leave nothing behind: rank 0 sees fib's connection close and
 * leaves, and its launcher ends the job. */
#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv) {
  const char *r = getenv("PMI_RANK");
  if (!r) r = getenv("OMPI_COMM_WORLD_RANK");
  if (r && atoi(r) == 1) sleep(600);
  MPI_Init(&argc, &argv);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
