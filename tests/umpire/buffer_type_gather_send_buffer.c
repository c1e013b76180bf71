/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=FIB032 at=FIB032:17 */
/* Every rank gathers a float to rank 0 as MPI_INT, and rank 0 collects
 * ints as MPI_INT: the datatypes agree (the run sees nothing wrong), but
 * the send buffer is a float, whose bits rank 0 reads as an int. FIB032
 * at the send buffer; the receive buffer is right and stays quiet. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank, size;
    int all[16] = {0};
    float mine;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mine = rank + 0.5f;
    MPI_Gather(&mine, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d\n", all[size - 1]);
    MPI_Finalize();
    return 0;
}
