/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB036 at=FIB036:17 */
/* Rank 0 gives MPI_Win_create one page of memory but declares sixteen:
 * the pages after it are not mapped (unmapped just before the call, so
 * that nothing else lives there). The twin, rma_fence_create_ok.c,
 * declares the size of its memory. */
#include <mpi.h>
#include <sys/mman.h>
#include <unistd.h>
int main(int argc, char **argv) {
    int rank;
    long page = sysconf(_SC_PAGESIZE);
    char *mem = mmap(NULL, 16 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    MPI_Win w;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    munmap(mem + page, 15 * page);
    MPI_Win_create(mem, rank == 0 ? 16 * page : page, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    MPI_Win_free(&w);
    MPI_Finalize();
    return 0;
}
