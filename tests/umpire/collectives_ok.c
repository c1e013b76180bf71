/* fib-test: nprocs=4 outcome=ok interleavings=1 codes=FIB014 */
/* Every rank calls the same collectives in the same order: Barrier, Bcast,
 * Reduce, Allreduce, Gather, Scatter, Allgather, Alltoall, and a Barrier on a
 * duplicated communicator, checking each result. No point-to-point and no
 * wildcard: 1 interleaving, ok. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, v, sum = 0;
    int all[4] = {0}, parts[4] = {0}, out[4] = {0};
    MPI_Comm dup;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    assert(size == 4);

    MPI_Barrier(MPI_COMM_WORLD);
    v = (rank == 0) ? 17 : 0;
    MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
    assert(v == 17);
    MPI_Reduce(&rank, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        assert(sum == 6);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    assert(sum == 3);
    MPI_Gather(&rank, 1, MPI_INT, all, 1, MPI_INT, 1, MPI_COMM_WORLD);
    if (rank == 1)
        assert(all[0] == 0 && all[3] == 3);
    for (int i = 0; i < 4; i++)
        parts[i] = 100 + i;
    MPI_Scatter(parts, 1, MPI_INT, &v, 1, MPI_INT, 2, MPI_COMM_WORLD);
    assert(v == 100 + rank);
    MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    assert(all[2] == 2);
    for (int i = 0; i < 4; i++)
        parts[i] = rank * 10 + i;
    MPI_Alltoall(parts, 1, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < 4; i++)
        assert(out[i] == i * 10 + rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Barrier(dup);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
