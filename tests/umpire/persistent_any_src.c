/* fib-test: nprocs=3 outcome=ok interleavings=2 codes=- */
/* A persistent wildcard receive started twice: rank 0 makes one
 * MPI_Recv_init from MPI_ANY_SOURCE and starts and waits it twice, while
 * rank 1 sends through an MPI_Ssend_init and rank 2 through an
 * MPI_Bsend_init (with a buffer attached). Each start is a wildcard
 * receive of its own: the first may get either sender's message (two
 * interleavings), the second gets the other. Rank 0 checks that it heard
 * from both. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, x = 0, seen = 0, size;
    MPI_Request req;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Recv_init(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &req);
        for (int i = 0; i < 2; i++) {
            MPI_Start(&req);
            MPI_Wait(&req, &st);
            if (x != st.MPI_SOURCE)
                abort();
            seen |= 1 << x;
        }
        MPI_Request_free(&req);
        if (seen != 6)
            abort();
    } else if (rank == 1) {
        x = 1;
        MPI_Ssend_init(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Request_free(&req);
    } else {
        MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, &size);
        size += MPI_BSEND_OVERHEAD;
        char *buf = malloc(size);
        MPI_Buffer_attach(buf, size);
        x = 2;
        MPI_Bsend_init(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Request_free(&req);
        MPI_Buffer_detach(&buf, &size);
        free(buf);
    }
    MPI_Finalize();
    return 0;
}
