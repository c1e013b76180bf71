/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* A null request completes at once with the empty status: any source, any
 * tag, nothing received, not cancelled. Each call below gets a status
 * whose fields hold something else first, and the program aborts if one
 * is not empty. MPI_Request_get_status also sets MPI_ERROR to MPI_SUCCESS,
 * as MPICH does (its test rqstatus checks it); MPICH's waits and tests of
 * a null request leave MPI_ERROR as it was, which this program does not
 * look at. */
#include <mpi.h>

static void spoil(MPI_Status *st) {
    st->MPI_SOURCE = 5;
    st->MPI_TAG = 6;
    st->MPI_ERROR = 7;
}

static void expect_empty(MPI_Status *st) {
    int count = -1, cancelled = -1;
    MPI_Get_count(st, MPI_INT, &count);
    MPI_Test_cancelled(st, &cancelled);
    if (st->MPI_SOURCE != MPI_ANY_SOURCE || st->MPI_TAG != MPI_ANY_TAG || count != 0 ||
        cancelled)
        MPI_Abort(MPI_COMM_WORLD, 2);
}

int main(int argc, char **argv) {
    int flag = 0, index = 0;
    MPI_Status st;
    MPI_Request null = MPI_REQUEST_NULL, reqs[2];
    MPI_Init(&argc, &argv);
    spoil(&st);
    MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st);
    if (!flag || st.MPI_ERROR != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 3);
    expect_empty(&st);
    spoil(&st);
    MPI_Wait(&null, &st);
    expect_empty(&st);
    spoil(&st);
    MPI_Test(&null, &flag, &st);
    if (!flag)
        MPI_Abort(MPI_COMM_WORLD, 4);
    expect_empty(&st);
    spoil(&st);
    reqs[0] = reqs[1] = MPI_REQUEST_NULL;
    MPI_Waitany(2, reqs, &index, &st);
    if (index != MPI_UNDEFINED)
        MPI_Abort(MPI_COMM_WORLD, 5);
    expect_empty(&st);
    MPI_Finalize();
    return 0;
}
