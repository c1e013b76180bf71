/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB041 at=FIB041:30,FIB041:32 */
/* A struct datatype built with hand-written displacements {0, 4} for
 * struct { char c; double d; }, whose d the compiler puts at offset 8
 * (after padding): MPI moves the padding and half of d, and the received
 * struct holds garbage, without any error. Both ranks use it, so the send
 * and the receive are each reported (FIB041: block 1's displacement 4 is
 * not the offset of field `d`). The run itself completes. */
#include <mpi.h>

struct cell {
    char c;
    double d;
};

int main(int argc, char **argv) {
    int rank;
    struct cell x = {'a', 1.5};
    int lengths[2] = {1, 1};
    MPI_Aint displs[2] = {0, 4};
    MPI_Datatype types[2] = {MPI_CHAR, MPI_DOUBLE};
    MPI_Datatype t;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_create_struct(2, lengths, displs, types, &t);
    MPI_Type_commit(&t);
    if (rank == 0) {
        /* One of the bugs: the displacement of d is a guess. */


        MPI_Send(&x, 1, t, 1, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&x, 1, t, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Type_free(&t);
    MPI_Finalize();
    return 0;
}
