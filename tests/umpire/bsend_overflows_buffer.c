/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB021 */
/* Rank 0 attaches a buffer with room for one int and its MPI_BSEND_OVERHEAD,
 * then sends 100 ints with MPI_Bsend: the message does not fit in the
 * attached buffer, which MPI fails with MPI_ERR_BUFFER (FIB021, at the
 * MPI_Bsend). */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, size, data[100] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, &size);
        size += MPI_BSEND_OVERHEAD;
        char *buf = malloc(size);
        MPI_Buffer_attach(buf, size);
        MPI_Bsend(data, 100, MPI_INT, 1, 0, MPI_COMM_WORLD);
        MPI_Buffer_detach(&buf, &size);
        free(buf);
    } else {
        MPI_Recv(data, 100, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
