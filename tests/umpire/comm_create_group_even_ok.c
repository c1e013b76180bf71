/* fib-test: nprocs=4 outcome=ok interleavings=1 codes=- */
/* The even ranks make a communicator of theirs with MPI_Comm_create_group,
 * which only the group's members call, and sum their ranks over it with
 * MPI_Allreduce; meanwhile rank 1 sends rank 3 a message on
 * MPI_COMM_WORLD. The odd ranks never call the constructor, and nothing
 * waits for them: 1 interleaving, ok. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, sum = 0, v = 0, evens[2] = {0, 2};
    MPI_Group world_group, even_group;
    MPI_Comm even;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank % 2 == 0) {
        MPI_Comm_group(MPI_COMM_WORLD, &world_group);
        MPI_Group_incl(world_group, 2, evens, &even_group);
        MPI_Comm_create_group(MPI_COMM_WORLD, even_group, 7, &even);
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, even);
        if (sum != 2)
            MPI_Abort(MPI_COMM_WORLD, 1);
        MPI_Comm_free(&even);
        MPI_Group_free(&even_group);
        MPI_Group_free(&world_group);
    } else if (rank == 1) {
        v = 5;
        MPI_Send(&v, 1, MPI_INT, 3, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
