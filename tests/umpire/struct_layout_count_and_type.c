/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB041 at=FIB041:37,FIB041:40 */
/* Two struct datatypes for struct particle { double pos[3]; int id; },
 * their displacements right (offsetof) but not the rest: the first gives
 * pos a blocklength of 2 (one coordinate is never sent), the second
 * describes id as MPI_FLOAT. FIB041 at the send of each (block 0's
 * blocklength 2 is not the 3 elements of field `pos`; block 1 is
 * MPI_FLOAT but field `id` is int); rank 1 receives bytes. */
#include <mpi.h>
#include <stddef.h>

struct particle {
    double pos[3];
    int id;
};

int main(int argc, char **argv) {
    int rank;
    struct particle p = {{1, 2, 3}, 7}, q[2];
    int short_len[2] = {2, 1}, lengths[2] = {3, 1};
    MPI_Aint displs[2] = {offsetof(struct particle, pos), offsetof(struct particle, id)};
    MPI_Datatype types[2] = {MPI_DOUBLE, MPI_INT}, wrong[2] = {MPI_DOUBLE, MPI_FLOAT};
    MPI_Datatype shortened, mistyped;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_create_struct(2, short_len, displs, types, &shortened);
    MPI_Type_commit(&shortened);
    MPI_Type_create_struct(2, lengths, displs, wrong, &mistyped);
    MPI_Type_commit(&mistyped);
    if (rank == 1) {
        MPI_Recv(q, sizeof q, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(q, sizeof q, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        /* The bugs: a blocklength short of the array, and an int described
         * as a float. */


        MPI_Send(&p, 1, shortened, 1, 0, MPI_COMM_WORLD);


        MPI_Send(&p, 1, mistyped, 1, 1, MPI_COMM_WORLD);
    }
    MPI_Type_free(&shortened);
    MPI_Type_free(&mistyped);
    MPI_Finalize();
    return 0;
}
