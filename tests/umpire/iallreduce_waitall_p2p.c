/* fib-test: nprocs=3 outcome=ok interleavings=2 codes=- */
/* Rank 0 posts an MPI_ANY_SOURCE MPI_Irecv and an MPI_Iallreduce and
 * completes both with one MPI_Waitall; ranks 1 and 2 each start the
 * MPI_Iallreduce, send rank 0 a message and wait. Rank 0 then receives the
 * other message by name. The wildcard receive may take either message: 2
 * interleavings, both complete with the sum 6 on every rank. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, in, out = 0, x = 0, y = 0, v;
    MPI_Request reqs[2];
    MPI_Status st[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    in = rank + 1;
    if (rank == 0) {
        MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &reqs[0]);
        MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[1]);
        MPI_Waitall(2, reqs, st);
        MPI_Recv(&y, 1, MPI_INT, st[0].MPI_SOURCE == 1 ? 2 : 1, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        if (x + y != 30)
            MPI_Abort(MPI_COMM_WORLD, 1);
    } else {
        v = 10 * rank;
        MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[1]);
        MPI_Isend(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &reqs[0]);
        MPI_Waitall(2, reqs, st);
    }
    MPI_Finalize();
    return out == 6 ? 0 : 1;
}
