/* fib-test: nprocs=3 outcome=ok interleavings=2 codes=- */
/* Rank 0 posts a wildcard MPI_Irecv, then a blocking MPI_Recv from rank 1,
 * then waits for the wildcard. Rank 1 sends 10 then 11; rank 2 sends 20.
 * The wildcard takes rank 1's first message or rank 2's: two
 * interleavings. A receive with a named source must not be posted to MPI
 * ahead of a wildcard receive still waiting for fib's scheduler, or MPI
 * would give it the message the scheduler gives the wildcard; the program
 * checks that what each receive got agrees with where the wildcard's
 * message came from, and aborts otherwise. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, any = -1, named = -1, v;
    MPI_Request req;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(&any, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &req);
        MPI_Recv(&named, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&req, &st);
        if (st.MPI_SOURCE == 1 ? (any != 10 || named != 11) : (any != 20 || named != 10))
            MPI_Abort(MPI_COMM_WORLD, 2);
        if (st.MPI_SOURCE == 1)
            MPI_Recv(&v, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
            MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        v = 10;
        MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        v = 11;
        MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    } else {
        v = 20;
        MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
