/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Struct datatypes that describe their C structs rightly: displacements
 * from offsetof; displacements from MPI_Get_address, relative to the
 * struct's; one block for two consecutive doubles and an array of them;
 * a datatype for a prefix of the struct on purpose (its first two
 * fields); the struct as MPI_BYTE; and the struct type resized to
 * sizeof(struct particle), sent as an array of particles. Nothing is
 * reported. */
#include <mpi.h>
#include <stddef.h>

struct particle {
    char kind;
    double x, y;
    double v[3];
    int id;
};

int main(int argc, char **argv) {
    int rank;
    struct particle p[4];
    MPI_Aint base, addr[4], displs[4];
    int lengths[4] = {1, 2, 3, 1}, i;
    MPI_Datatype types[4] = {MPI_CHAR, MPI_DOUBLE, MPI_DOUBLE, MPI_INT};
    int merged_len[3] = {1, 5, 1};
    MPI_Aint merged_displs[3] = {offsetof(struct particle, kind), offsetof(struct particle, x),
                                 offsetof(struct particle, id)};
    MPI_Datatype merged_types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    MPI_Datatype by_address, merged, prefix, one, sized;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (i = 0; i < 4; i++) {
        p[i].kind = 'a';
        p[i].x = p[i].y = i;
        p[i].v[0] = p[i].v[1] = p[i].v[2] = 0;
        p[i].id = i;
    }
    MPI_Get_address(&p[0], &base);
    MPI_Get_address(&p[0].kind, &addr[0]);
    MPI_Get_address(&p[0].x, &addr[1]);
    MPI_Get_address(&p[0].v, &addr[2]);
    MPI_Get_address(&p[0].id, &addr[3]);
    for (i = 0; i < 4; i++) displs[i] = addr[i] - base;
    MPI_Type_create_struct(4, lengths, displs, types, &by_address);
    MPI_Type_commit(&by_address);
    MPI_Type_create_struct(3, merged_len, merged_displs, merged_types, &merged);
    MPI_Type_commit(&merged);
    MPI_Type_create_struct(2, lengths, displs, types, &prefix);
    MPI_Type_commit(&prefix);
    MPI_Type_create_struct(4, lengths, displs, types, &one);
    MPI_Type_create_resized(one, 0, sizeof(struct particle), &sized);
    MPI_Type_commit(&sized);
    if (rank == 0) {
        MPI_Send(&p[0], 1, by_address, 1, 0, MPI_COMM_WORLD);
        MPI_Send(p, 1, merged, 1, 1, MPI_COMM_WORLD);
        MPI_Send(p, 1, prefix, 1, 2, MPI_COMM_WORLD);
        MPI_Send(p, sizeof(struct particle), MPI_BYTE, 1, 3, MPI_COMM_WORLD);
        MPI_Send(p, 4, sized, 1, 4, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&p[0], 1, by_address, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(p, 1, merged, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(p, 1, prefix, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(p, sizeof(struct particle), MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(p, 4, sized, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Type_free(&by_address);
    MPI_Type_free(&merged);
    MPI_Type_free(&prefix);
    MPI_Type_free(&one);
    MPI_Type_free(&sized);
    MPI_Finalize();
    return 0;
}
