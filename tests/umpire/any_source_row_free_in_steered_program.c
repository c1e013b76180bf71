/* fib-test: nprocs=4 outcome=ok interleavings=1 codes=- */
/* Rank 0 collects one value from each other rank with a row of
 * MPI_Recv(MPI_ANY_SOURCE) and only prints what it got. A reduction's
 * result decides how many steps the program runs, so received data does
 * steer it, but not the row's: one run stands for the 3! = 6 orders in
 * which the row can take its messages (--exhaustive runs all 6). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, h, step = 0;
    double local = 1.0, total;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    do {
        MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        local /= 2;
        step++;
    } while (total > 1.0);
    if (rank == 0) {
        for (int k = 1; k < size; k++) {
            MPI_Recv(&h, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
            printf("step %d: %d from %d\n", step, h, st.MPI_SOURCE);
        }
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
