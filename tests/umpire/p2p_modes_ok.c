/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Every point-to-point mode in a correct program: rank 0 attaches a buffer
 * with room for two messages and sends with MPI_Bsend and MPI_Ibsend (the
 * second after the first has been received, so its room is free again);
 * rank 1 posts its receives, then a message from it orders them before
 * rank 0's MPI_Rsend and MPI_Irsend, so the ready sends find them posted
 * (the usual idiom; a barrier would do too); both ranks
 * then swap a value in place with MPI_Sendrecv_replace, and rank 0 detaches
 * the buffer. One interleaving (no wildcard), nothing left behind. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, x = 0, y[2] = {0, 0}, size;
    MPI_Request reqs[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, &size);
        size += MPI_BSEND_OVERHEAD;
        char *buf = malloc(2 * size);
        MPI_Buffer_attach(buf, 2 * size);
        x = 1;
        MPI_Bsend(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Ibsend(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &reqs[0]);
        MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
        MPI_Recv(NULL, 0, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        x = 3;
        MPI_Rsend(&x, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
        MPI_Irsend(&x, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, &reqs[1]);
        MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
        MPI_Buffer_detach(&buf, &size);
        free(buf);
    } else {
        MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Irecv(&y[0], 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &reqs[0]);
        MPI_Irecv(&y[1], 1, MPI_INT, 0, 3, MPI_COMM_WORLD, &reqs[1]);
        MPI_Send(NULL, 0, MPI_INT, 0, 5, MPI_COMM_WORLD);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
        if (y[0] != 3 || y[1] != 3)
            abort();
    }
    x = rank;
    MPI_Sendrecv_replace(&x, 1, MPI_INT, 1 - rank, 4, 1 - rank, 4, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
    if (x != 1 - rank)
        abort();
    MPI_Finalize();
    return 0;
}
