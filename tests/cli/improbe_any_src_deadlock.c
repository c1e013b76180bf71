/* Rank 0 polls with MPI_Improbe from MPI_ANY_SOURCE until it finds a
 * message, then receives it with MPI_Mrecv. When that message is rank 2's,
 * rank 0 waits for a message rank 1 never sends: a deadlock in one of the
 * two orders. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0, flag = 0;
    MPI_Status st;
    MPI_Message msg;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        while (!flag)
            MPI_Improbe(MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &flag, &msg, &st);
        MPI_Mrecv(&x, 1, MPI_INT, &msg, MPI_STATUS_IGNORE);
        if (st.MPI_SOURCE == 2)
            MPI_Recv(&x, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
