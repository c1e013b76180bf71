/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB015 */
/* A window made by MPI_Win_create_dynamic: each rank attaches an array,
 * sends its address to the other, which puts into it under a lock (the
 * displacement is the address); then each detaches and frees. The barrier
 * orders the puts before the reads: without it they would race, so it is
 * relevant (FIB015). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int rank, peer, x, *mem;
    MPI_Aint mine, theirs;
    MPI_Win w;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    x = 20 + rank;
    mem = calloc(4, sizeof(int));
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    MPI_Win_attach(w, mem, 4 * sizeof(int));
    MPI_Get_address(mem, &mine);
    MPI_Sendrecv(&mine, 1, MPI_AINT, peer, 0, &theirs, 1, MPI_AINT, peer, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, w);
    MPI_Put(&x, 1, MPI_INT, peer, theirs + sizeof(int), 1, MPI_INT, w);
    MPI_Win_unlock(peer, w);
    MPI_Barrier(MPI_COMM_WORLD);
    if (mem[1] != 20 + peer) {
        printf("rank %d: wrong value %d\n", rank, mem[1]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Win_detach(w, mem);
    MPI_Win_free(&w);
    free(mem);
    MPI_Finalize();
    return 0;
}
