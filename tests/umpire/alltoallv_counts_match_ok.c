/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=- */
/* Every block of an MPI_Alltoallv, its nonblocking form and an
 * MPI_Alltoallw agrees with its peer's: each rank sends rank j as many
 * ints as j's rank plus one and receives as many from each; the
 * MPI_Alltoallw sends doubles to even ranks and ints to odd ones, and each
 * rank receives what it is sent, with a contiguous type of two ints for
 * one int pair (the same signature as two MPI_INTs). An MPI_Alltoallv in
 * place. Nothing is reported. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, size, j, out[9], in[9], inplace[9];
    int scounts[3], sdispls[3], rcounts[3], rdispls[3];
    int wsc[3], wsd[3], wrc[3], wrd[3];
    double dout[3][2], din[3][2];
    MPI_Datatype st[3], rt[3], pair;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    for (j = 0; j < 9; j++) out[j] = inplace[j] = rank;
    for (j = 0; j < size; j++) {
        scounts[j] = j + 1;
        sdispls[j] = 3 * j;
        rcounts[j] = rank + 1;
        rdispls[j] = 3 * j;
        /* Two of a datatype to each rank, in a block of 16 bytes. */
        wsd[j] = wrd[j] = 16 * j;
        st[j] = j % 2 == 0 ? MPI_DOUBLE : MPI_INT;
        wsc[j] = 2;
        if (rank % 2 == 0) {
            rt[j] = MPI_DOUBLE;
            wrc[j] = 2;
        } else {
            rt[j] = pair;
            wrc[j] = 1;
        }
        dout[j][0] = dout[j][1] = rank;
    }
    MPI_Alltoallv(out, scounts, sdispls, MPI_INT, in, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD);
    MPI_Ialltoallv(out, scounts, sdispls, MPI_INT, in, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD,
                   &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Alltoallw(dout, wsc, wsd, st, din, wrc, wrd, rt, MPI_COMM_WORLD);
    for (j = 0; j < size; j++) rcounts[j] = 3;
    MPI_Alltoallv(MPI_IN_PLACE, scounts, sdispls, MPI_INT, inplace, rcounts, rdispls, MPI_INT,
                  MPI_COMM_WORLD);
    MPI_Type_free(&pair);
    MPI_Finalize();
    return 0;
}
