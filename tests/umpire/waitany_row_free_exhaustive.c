/* fib-test: nprocs=4 outcome=ok interleavings=36 flags=--exhaustive codes=- */
/* Rank 0 posts three MPI_Irecv from MPI_ANY_SOURCE and takes them with
 * three MPI_Waitany, in whatever order they complete; ranks 1-3 send one
 * message each. The program prints which slot came first, and from whom,
 * but no MPI call depends on that or on the data: one run stands for the
 * 3! = 6 ways the receives can match their sends and, in each, the 3! = 6
 * orders in which the Waitany calls can take them (--exhaustive runs all
 * 36). A later reduction steers a loop by received data, which keeps
 * neither the receives nor the Waitany calls from standing for each
 * other: what they return reaches no MPI call. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, idx, buf[3] = {0}, order[3], local, total;
    MPI_Request req[3];
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        for (int i = 0; i < 3; i++)
            MPI_Irecv(&buf[i], 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &req[i]);
        for (int i = 0; i < 3; i++) {
            MPI_Waitany(3, req, &idx, &st);
            order[i] = idx;
            printf("slot %d from rank %d\n", idx, st.MPI_SOURCE);
        }
        printf("first %d, last %d\n", order[0], order[2]);
    } else if (rank <= 3) {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    local = rank;
    do {
        MPI_Allreduce(&local, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        local = 0;
    } while (total > 0);
    MPI_Finalize();
    return 0;
}
