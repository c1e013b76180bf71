/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Type signatures that agree although the datatypes differ: two structs
 * of two ints and a double sent as two elements of the struct type and
 * received as one contiguous type of two of them; one struct received
 * into room for three (a shorter message is fine: the sent signature
 * begins the receive's); three sent and received alike; the structs
 * sent as MPI_BYTE and received as the struct type (bytes match
 * anything). The struct type is resized to the struct's size. Collectives whose members give the same
 * signature in different datatypes. Nothing is reported. */
#include <mpi.h>
#include <stddef.h>

struct cell {
    int id[2];
    double v;
};

int main(int argc, char **argv) {
    int rank;
    struct cell c[3] = {{{1, 2}, 3.0}, {{4, 5}, 6.0}, {{7, 8}, 9.0}}, d[3];
    int bl[2] = {2, 1};
    MPI_Aint disp[2] = {offsetof(struct cell, id), offsetof(struct cell, v)};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Datatype t, sized, pair;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_create_struct(2, bl, disp, types, &t);
    MPI_Type_create_resized(t, 0, sizeof(struct cell), &sized);
    MPI_Type_commit(&sized);
    MPI_Type_contiguous(2, sized, &pair);
    MPI_Type_commit(&pair);
    if (rank == 0) {
        MPI_Send(c, 2, sized, 1, 0, MPI_COMM_WORLD);
        MPI_Send(c, 1, sized, 1, 1, MPI_COMM_WORLD);
        MPI_Send(c, 3, sized, 1, 2, MPI_COMM_WORLD);
        MPI_Send(c, sizeof c, MPI_BYTE, 1, 3, MPI_COMM_WORLD);
    } else {
        MPI_Recv(d, 1, pair, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(d, 3, sized, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(d, 3, sized, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(d, 3, sized, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    /* Two structs as two elements on one rank, one pair on the other. */
    if (rank == 0)
        MPI_Bcast(c, 2, sized, 0, MPI_COMM_WORLD);
    else
        MPI_Bcast(c, 1, pair, 0, MPI_COMM_WORLD);
    MPI_Type_free(&t);
    MPI_Type_free(&sized);
    MPI_Type_free(&pair);
    MPI_Finalize();
    return 0;
}
