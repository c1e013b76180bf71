/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB028 at=FIB028:16 */
/* Every rank makes an info object and a copy of it with MPI_Info_dup. The
 * original is freed; the copy never is (FIB028 at MPI_Info_dup). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank;
    MPI_Info hints, copy;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Info_create(&hints);
    MPI_Info_set(hints, "cb_nodes", "1");
    /* The copy is what this rank would hand to a library; nothing frees
     * it. */

    MPI_Info_dup(hints, &copy);
    MPI_Info_free(&hints);
    MPI_Finalize();
    return 0;
}
