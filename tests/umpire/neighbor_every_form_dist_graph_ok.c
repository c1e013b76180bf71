/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=- */
/* Three ranks make a directed ring with MPI_Dist_graph_create_adjacent
 * (each rank receives from its left neighbour and sends to its right one)
 * and call every neighbourhood collective on it, blocking and not: the v
 * and w forms with their counts and displacements, the nonblocking ones
 * completed by MPI_Wait, MPI_Waitall and an MPI_Test loop, together with
 * an MPI_Comm_idup whose communicator the ranks then use. Every
 * result is checked; no wildcard: 1 interleaving, ok. */
#include <mpi.h>

static void expect(int got, int want)
{
    if (got != want)
        MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv)
{
    int rank, size, src, dst, in = -1, one = 1, zero = 0, flag = 0, sum = 0;
    MPI_Aint azero = 0;
    MPI_Datatype ints = MPI_INT;
    MPI_Comm ring, dup;
    MPI_Request reqs[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    src = (rank + size - 1) % size;
    dst = (rank + 1) % size;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, MPI_UNWEIGHTED, 1,
                                   &dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                   &ring);
    MPI_Neighbor_allgather(&rank, 1, MPI_INT, &in, 1, MPI_INT, ring);
    expect(in, src);
    MPI_Neighbor_allgatherv(&rank, 1, MPI_INT, &in, &one, &zero, MPI_INT, ring);
    expect(in, src);
    MPI_Neighbor_alltoall(&rank, 1, MPI_INT, &in, 1, MPI_INT, ring);
    expect(in, src);
    MPI_Neighbor_alltoallv(&rank, &one, &zero, MPI_INT, &in, &one, &zero,
                           MPI_INT, ring);
    expect(in, src);
    MPI_Neighbor_alltoallw(&rank, &one, &azero, &ints, &in, &one, &azero,
                           &ints, ring);
    expect(in, src);
    MPI_Ineighbor_allgather(&rank, 1, MPI_INT, &in, 1, MPI_INT, ring, &reqs[0]);
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    expect(in, src);
    MPI_Ineighbor_allgatherv(&rank, 1, MPI_INT, &in, &one, &zero, MPI_INT,
                             ring, &reqs[0]);
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    expect(in, src);
    MPI_Ineighbor_alltoall(&rank, 1, MPI_INT, &in, 1, MPI_INT, ring, &reqs[0]);
    while (!flag)
        MPI_Test(&reqs[0], &flag, MPI_STATUS_IGNORE);
    expect(in, src);
    MPI_Ineighbor_alltoallv(&rank, &one, &zero, MPI_INT, &in, &one, &zero,
                            MPI_INT, ring, &reqs[0]);
    MPI_Comm_idup(ring, &dup, &reqs[1]);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    expect(in, src);
    MPI_Ineighbor_alltoallw(&rank, &one, &azero, &ints, &in, &one, &azero,
                            &ints, dup, &reqs[0]);
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    expect(in, src);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dup);
    expect(sum, size * (size - 1) / 2);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&ring);
    MPI_Finalize();
    return 0;
}
