/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB031 at=FIB031:27 */
/* Rank 0 broadcasts two structs of two ints and a double; rank 1 takes
 * the broadcast as eight MPI_INTs: as many bytes, but ints where the
 * doubles are. The type signatures differ (FIB031 at rank 0's MPI_Bcast,
 * the signatures shown). */
#include <mpi.h>
#include <stddef.h>

struct cell {
    int id[2];
    double v;
};

int main(int argc, char **argv) {
    int rank, ints[8];
    struct cell c[2] = {{{1, 2}, 3.0}, {{4, 5}, 6.0}};
    int bl[2] = {2, 1};
    MPI_Aint disp[2] = {offsetof(struct cell, id), offsetof(struct cell, v)};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Datatype t;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_create_struct(2, bl, disp, types, &t);
    MPI_Type_commit(&t);
    if (rank == 0) {

        MPI_Bcast(c, 2, t, 0, MPI_COMM_WORLD);
    } else {
        MPI_Bcast(ints, 8, MPI_INT, 0, MPI_COMM_WORLD);
    }
    MPI_Type_free(&t);
    MPI_Finalize();
    return 0;
}
