/* fib-test: nprocs=4 outcome=ok interleavings=1 codes=FIB019 at=FIB019:18 */
/* The even ranks make a communicator of theirs with MPI_Comm_create_group
 * and reduce over it, but never free it: a leaked communicator (FIB019) at
 * the MPI_Comm_create_group, one finding for the site. The odd ranks do
 * not call it. 1 interleaving, ok otherwise. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, sum = 0, evens[2] = {0, 2};
    MPI_Group world_group, even_group;
    MPI_Comm even;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank % 2 == 0) {
        MPI_Comm_group(MPI_COMM_WORLD, &world_group);
        MPI_Group_incl(world_group, 2, evens, &even_group);
        MPI_Comm_create_group(MPI_COMM_WORLD, even_group, 7, &even);
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, even);
        MPI_Group_free(&even_group);
        MPI_Group_free(&world_group);
    }
    MPI_Finalize();
    return 0;
}
