/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* A probe of MPI_PROC_NULL finds the empty message at once (source
 * MPI_PROC_NULL, tag MPI_ANY_TAG), blocking or not; and a call that
 * completes one operation leaves the status's MPI_ERROR field as the
 * program set it. The asserts fail if fib answers otherwise. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, flag = 0, x = 5;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Iprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &flag, &st);
    assert(flag && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG);
    MPI_Probe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st);
    assert(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG);
    if (rank == 0) {
        MPI_Send(&x, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
    } else {
        st.MPI_ERROR = MPI_ERR_TOPOLOGY;
        MPI_Recv(&x, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &st);
        assert(st.MPI_SOURCE == 0 && st.MPI_TAG == 7);
        assert(st.MPI_ERROR == MPI_ERR_TOPOLOGY);
    }
    MPI_Finalize();
    return 0;
}
