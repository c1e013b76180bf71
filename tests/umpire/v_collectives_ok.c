/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=- */
/* Every rank calls the same vector collectives in the same order, with
 * counts that differ by rank: Gatherv to root 1, Scatterv from root 2,
 * Allgatherv, Alltoallv and Alltoallw, checking each result. No
 * point-to-point and no wildcard: 1 interleaving, ok. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size;
    int mine[3], all[6], counts[3], displs[3];
    int scounts[3], sdispls[3], rcounts[3], rdispls[3], sbuf[6], rbuf[9];
    MPI_Datatype types[3];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    assert(size == 3);

    /* Rank r contributes r + 1 copies of r: counts 1, 2, 3. */
    for (int i = 0; i < 3; i++) {
        mine[i] = rank;
        counts[i] = i + 1;
        displs[i] = i * (i + 1) / 2;
        types[i] = MPI_INT;
    }
    for (int i = 0; i < 6; i++)
        all[i] = -1;
    MPI_Gatherv(mine, rank + 1, MPI_INT, all, counts, displs, MPI_INT, 1,
                MPI_COMM_WORLD);
    if (rank == 1)
        assert(all[0] == 0 && all[1] == 1 && all[2] == 1 && all[5] == 2);

    for (int i = 0; i < 6; i++)
        sbuf[i] = 100 + i;
    MPI_Scatterv(sbuf, counts, displs, MPI_INT, mine, rank + 1, MPI_INT, 2,
                 MPI_COMM_WORLD);
    assert(mine[0] == 100 + displs[rank] && mine[rank] == 100 + displs[rank] + rank);

    for (int i = 0; i < 6; i++)
        all[i] = -1;
    for (int i = 0; i < 3; i++)
        mine[i] = rank;
    MPI_Allgatherv(mine, rank + 1, MPI_INT, all, counts, displs, MPI_INT,
                   MPI_COMM_WORLD);
    assert(all[0] == 0 && all[2] == 1 && all[3] == 2 && all[5] == 2);

    /* Rank r sends j + 1 values r * 10 + j to rank j. */
    for (int j = 0, at = 0; j < 3; j++) {
        scounts[j] = j + 1;
        sdispls[j] = at;
        for (int k = 0; k <= j; k++)
            sbuf[at++] = rank * 10 + j;
        rcounts[j] = rank + 1;
        rdispls[j] = j * (rank + 1);
    }
    MPI_Alltoallv(sbuf, scounts, sdispls, MPI_INT, rbuf, rcounts, rdispls,
                  MPI_INT, MPI_COMM_WORLD);
    for (int j = 0; j < 3; j++)
        assert(rbuf[rdispls[j]] == j * 10 + rank);

    /* Alltoallw takes byte displacements and a type per peer. */
    for (int j = 0; j < 3; j++) {
        sdispls[j] *= (int)sizeof(int);
        rdispls[j] *= (int)sizeof(int);
    }
    for (int i = 0; i < 9; i++)
        rbuf[i] = -1;
    MPI_Alltoallw(sbuf, scounts, sdispls, types, rbuf, rcounts, rdispls,
                  types, MPI_COMM_WORLD);
    for (int j = 0; j < 3; j++)
        assert(rbuf[rdispls[j] / (int)sizeof(int)] == j * 10 + rank);
    MPI_Finalize();
    return 0;
}
