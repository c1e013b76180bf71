/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB028 at=FIB028:17 */
/* Every rank takes MPI_COMM_WORLD's group and builds the group of rank 0
 * from it with MPI_Group_incl. The world group is freed; the group of rank
 * 0 never is (FIB028, a note by default, at MPI_Group_incl). A group
 * call that returns MPI_GROUP_EMPTY (the difference of a group with
 * itself) needs no freeing and is not reported. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, zero = 0;
    MPI_Group world, first, none;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_difference(world, world, &none);
    if (none != MPI_GROUP_EMPTY) MPI_Group_free(&none);
    MPI_Group_incl(world, 1, &zero, &first);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
