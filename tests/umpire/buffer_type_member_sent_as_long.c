/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB032 at=FIB032:21 */
/* Rank 0 sends the int member `count` of a struct as MPI_LONG: MPI
 * sends eight bytes, the count and the member after it, and rank 1's
 * long gets both. fib reports the member's type against the datatype
 * (FIB032 at `&p.count`). */
#include <mpi.h>
#include <stdio.h>

struct packet {
    int count;
    int flags;
    double value;
};

int main(int argc, char **argv) {
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        struct packet p = {3, 1, 0.5};
        MPI_Send(&p.count, 1, MPI_LONG, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        long n = 0;
        MPI_Recv(&n, 1, MPI_LONG, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("%ld\n", n);
    }
    MPI_Finalize();
    return 0;
}
