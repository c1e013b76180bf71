/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=- */
/* A ring through persistent requests: each rank makes a send to its right
 * (rank 0 with MPI_Ssend_init, the others with MPI_Send_init) and a
 * receive from its left once, then starts both with MPI_Startall and
 * completes them with MPI_Waitall three times, passing a token on. A wait
 * on the inactive requests afterwards completes at once with an empty
 * status; both requests are freed. Named sources only: one interleaving,
 * nothing leaks. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, size, out = 0, in = -1;
    MPI_Request reqs[2];
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Recv_init(&in, 1, MPI_INT, left, 0, MPI_COMM_WORLD, &reqs[0]);
    if (rank == 0)
        MPI_Ssend_init(&out, 1, MPI_INT, right, 0, MPI_COMM_WORLD, &reqs[1]);
    else
        MPI_Send_init(&out, 1, MPI_INT, right, 0, MPI_COMM_WORLD, &reqs[1]);
    for (int i = 0; i < 3; i++) {
        out = 10 * i + rank;
        MPI_Startall(2, reqs);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
        if (in != 10 * i + left)
            abort();
    }
    MPI_Wait(&reqs[0], &st);
    if (st.MPI_SOURCE != MPI_ANY_SOURCE || reqs[0] == MPI_REQUEST_NULL)
        abort();
    MPI_Request_free(&reqs[0]);
    MPI_Request_free(&reqs[1]);
    MPI_Finalize();
    return 0;
}
