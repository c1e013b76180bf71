/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Right, though they look suspicious, and fib stays quiet: a struct sent
 * as sizeof(struct) MPI_BYTEs; MPI_IN_PLACE in a reduction and a gather;
 * a union received through its smaller member's address; a block grown
 * with realloc and then received into at its new size (and one shrunk and
 * used at its smaller size); a contiguous derived datatype whose extent
 * fits the array; the members of a struct sent as one run of ints through
 * the first one's address (the struct holds them). */
#include <mpi.h>
#include <stdlib.h>

struct particle {
    double pos[3];
    int id;
    char tag;
};

union word {
    int i;
    double d;
    char bytes[16];
};

struct triple {
    int a, b, c;
};

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    struct particle p = {{1, 2, 3}, 4, 'x'};
    union word w;
    struct triple t = {1, 2, 3};
    int sum[4] = {rank, rank, rank, rank};
    int *everyone = malloc(size * sizeof(int));
    int *grown = malloc(4 * sizeof(int));
    grown = realloc(grown, 32 * sizeof(int));
    double *shrunk = malloc(64 * sizeof(double));
    shrunk = realloc(shrunk, 8 * sizeof(double));
    double vec[12] = {0};
    MPI_Datatype four;
    MPI_Type_contiguous(4, MPI_DOUBLE, &four);
    MPI_Type_commit(&four);
    everyone[rank] = rank;
    if (rank == 0) {
        int ints[32] = {0};
        double d[8] = {0};
        MPI_Send(&p, sizeof(struct particle), MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPI_Send(&w.bytes, 16, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
        MPI_Send(ints, 32, MPI_INT, 1, 2, MPI_COMM_WORLD);
        MPI_Send(d, 8, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD);
        MPI_Send(vec, 3, four, 1, 4, MPI_COMM_WORLD);
        MPI_Send(&t.a, 3, MPI_INT, 1, 5, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(&p, sizeof p, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&w.i, 16, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(grown, 32, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(shrunk, 8, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(vec, 3, four, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&t.a, 3, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Allreduce(MPI_IN_PLACE, sum, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, everyone, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Type_free(&four);
    free(shrunk);
    free(grown);
    free(everyone);
    MPI_Finalize();
    return 0;
}
