/* fib-barriers: nprocs=4 outcome=ok interleavings=1 */
/*
 * also: nprocs=6 interleavings=1
 * barrier L35: irrelevant
 *
 * The shape of MPICH's icprobe test: rank 0 probes for any source and any
 * tag, and receives from the status's source with the status's tag; every
 * other rank sends one message tagged with its rank. The probes can find
 * the messages in any of (size-1)! orders (120 at 6 ranks), and one run
 * stands for all of them: the status names only the receive's source and
 * tag, and the program only checks what arrives against the status. The
 * barrier after the row orders no message: irrelevant.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, buf, errs = 0;
    MPI_Status status;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        for (int i = 1; i < size; i++) {
            MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
            MPI_Recv(&buf, 1, MPI_INT, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD, &status);
            if (buf != status.MPI_SOURCE)
                errs++;
        }
    } else {
        buf = rank;
        MPI_Send(&buf, 1, MPI_INT, 0, rank, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d errors\n", errs);
    MPI_Finalize();
    return 0;
}
