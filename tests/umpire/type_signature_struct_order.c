/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB030 at=FIB030:39 */
/* Rank 0 sends a struct of two ints and a double; rank 1 receives it with
 * a struct type that puts the double first. Both are 16 bytes of a type
 * that mixes MPI_INT and MPI_DOUBLE, so MPI delivers the message without
 * a word; their type signatures [(MPI_INT,2),(MPI_DOUBLE,1)] and
 * [(MPI_DOUBLE,1),(MPI_INT,2)] differ at the first element (FIB030 at the
 * MPI_Recv, showing both). */
#include <mpi.h>
#include <stddef.h>

struct cell {
    int id[2];
    double v;
};

struct cell2 {
    double v;
    int id[2];
};

int main(int argc, char **argv) {
    int rank;
    struct cell c = {{1, 2}, 3.0};
    struct cell2 d;
    int bl[2] = {2, 1}, bl2[2] = {1, 2};
    MPI_Aint disp[2] = {offsetof(struct cell, id), offsetof(struct cell, v)};
    MPI_Aint disp2[2] = {offsetof(struct cell2, v), offsetof(struct cell2, id)};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, types2[2] = {MPI_DOUBLE, MPI_INT};
    MPI_Datatype t, t2;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_create_struct(2, bl, disp, types, &t);
    MPI_Type_commit(&t);
    MPI_Type_create_struct(2, bl2, disp2, types2, &t2);
    MPI_Type_commit(&t2);
    if (rank == 0) {
        MPI_Send(&c, 1, t, 1, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&d, 1, t2, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Type_free(&t);
    MPI_Type_free(&t2);
    MPI_Finalize();
    return 0;
}
