/* fib: -n 2 */
/* Rank 0 posts a window of 64 nonblocking sends to rank 1, which posts 64
 * nonblocking receives; each side then waits for all of them. Under
 * --zero-buffer every send is synchronous: its acknowledgement comes from
 * rank 1's MPI progress engine, which must keep running while fib holds
 * rank 1 (here in MPI_Finalize, waiting for rank 0). */
#include <mpi.h>

#define WINDOW 64

int main(int argc, char **argv)
{
    int rank, buf[WINDOW];
    MPI_Request reqs[WINDOW];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < WINDOW; i++)
        buf[i] = i;
    if (rank == 0) {
        for (int i = 0; i < WINDOW; i++)
            MPI_Isend(&buf[i], 1, MPI_INT, 1, i, MPI_COMM_WORLD, &reqs[i]);
        MPI_Waitall(WINDOW, reqs, MPI_STATUSES_IGNORE);
    } else if (rank == 1) {
        for (int i = 0; i < WINDOW; i++)
            MPI_Irecv(&buf[i], 1, MPI_INT, 0, i, MPI_COMM_WORLD, &reqs[i]);
        MPI_Waitall(WINDOW, reqs, MPI_STATUSES_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
