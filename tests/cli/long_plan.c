/* Rank 0 posts 1 000 receives from rank 1, which sends them, and takes
 * them with MPI_Waitsome, 30 times over: a Waitsome that returns many
 * requests is a choice whose plan entry lists their positions, and the
 * plan of the runs after the first is longer than a recorded run can
 * hand its ranks. */
#include <mpi.h>

#define N 1000
#define ROUNDS 30

int main(int argc, char **argv)
{
    static int x[N], idx[N];
    static MPI_Request req[N];
    int rank, i, r, done, got;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (r = 0; r < ROUNDS; r++) {
        if (rank == 0) {
            for (i = 0; i < N; i++)
                MPI_Irecv(&x[i], 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req[i]);
            MPI_Barrier(MPI_COMM_WORLD);
            for (done = 0; done < N; done += got)
                MPI_Waitsome(N, req, &got, idx, MPI_STATUSES_IGNORE);
        } else {
            for (i = 0; i < N; i++)
                MPI_Send(&i, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    MPI_Finalize();
    return 0;
}
