/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Every kind of object fib tracks is made and freed before MPI_Finalize:
 * groups, derived datatypes (one freed right after the send that uses it,
 * as MPI allows), a user operation, info objects and an error handler
 * (freed while still set on its communicator, as MPI allows). Nothing is
 * reported. */
#include <mpi.h>

static void sum(void *in, void *inout, int *len, MPI_Datatype *type) {
    int i, *a = in, *b = inout;
    (void)type;
    for (i = 0; i < *len; i++) b[i] += a[i];
}

static void quiet(MPI_Comm *comm, int *code, ...) {
    (void)comm;
    (void)code;
}

int main(int argc, char **argv) {
    int rank, x[4] = {1, 2, 3, 4}, y[4], s, r;
    int lens[2] = {1, 1};
    MPI_Aint displs[2] = {0, sizeof(int)};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT};
    MPI_Group world, odd, both;
    MPI_Datatype pair, two, big;
    MPI_Op op;
    MPI_Info info, copy;
    MPI_Errhandler eh;
    MPI_Comm comm;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    r = 1;
    MPI_Group_excl(world, 1, &r, &odd);
    MPI_Group_union(world, odd, &both);
    MPI_Group_free(&both);
    MPI_Group_free(&odd);
    MPI_Group_free(&world);
    MPI_Type_create_struct(2, lens, displs, types, &pair);
    MPI_Type_dup(pair, &two);
    MPI_Type_create_resized(two, 0, 2 * sizeof(int), &big);
    MPI_Type_free(&pair);
    MPI_Type_free(&two);
    MPI_Type_commit(&big);
    if (rank == 0) {
        MPI_Send(x, 2, big, 1, 0, MPI_COMM_WORLD);
        MPI_Type_free(&big);
    } else {
        MPI_Type_free(&big);
        MPI_Recv(y, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Op_create(sum, 1, &op);
    MPI_Allreduce(&rank, &s, 1, MPI_INT, op, MPI_COMM_WORLD);
    MPI_Op_free(&op);
    MPI_Info_create(&info);
    MPI_Info_dup(info, &copy);
    MPI_Info_free(&copy);
    MPI_Info_free(&info);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_create_errhandler(quiet, &eh);
    MPI_Comm_set_errhandler(comm, eh);
    MPI_Errhandler_free(&eh);
    MPI_Allreduce(&rank, &s, 1, MPI_INT, MPI_MAX, comm);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
