/* fib-choices: nprocs=3 outcome=ok interleavings=1 exhaustive=18 */
/*
 * barrier L62: irrelevant
 *
 * Results taken as they complete: rank 0 posts three
 * MPI_Irecv(MPI_ANY_SOURCE) (rank 1 sends two results, rank 2 one) and
 * takes them with a row of three MPI_Waitany. The indices and statuses
 * only go into arrays (which request held which sender's result, in which
 * order), counters, a check of the data that prints, and printf. The
 * three receives can match the three sends in 3 ways (rank 1's two in its
 * order) and the Waitany calls can take them in 3! orders: 18 runs, for
 * which one run stands.
 *
 * Received data steers the program elsewhere: a convergence loop of
 * MPI_Allreduce whose result decides whether it goes on.
 *
 * The barrier after the results orders nothing: no later message could
 * be taken by the receives.
 */
#include <mpi.h>
#include <stdio.h>

#define RESULTS 3

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0) {
        int result[RESULTS], from[RESULTS], order[RESULTS], per_rank[8] = {0};
        MPI_Request req[RESULTS];
        long sum = 0;
        int odd = 0;
        for (int i = 0; i < RESULTS; i++)
            MPI_Irecv(&result[i], 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &req[i]);
        for (int i = 0; i < RESULTS; i++) {
            int idx;
            MPI_Status st;
            MPI_Waitany(RESULTS, req, &idx, &st);
            order[i] = idx;
            from[idx] = st.MPI_SOURCE;
            per_rank[st.MPI_SOURCE]++;
            sum += result[idx];
            if (result[idx] / 100 != st.MPI_SOURCE) {
                printf("waitany_row: result %d came from rank %d\n", result[idx], st.MPI_SOURCE);
                odd++;
            }
        }
        printf("waitany_row: sum %ld, %d odd; first completed request %d (rank %d); "
               "rank 1 sent %d, rank 2 sent %d\n",
               sum, odd, order[0], from[order[0]], per_rank[1], per_rank[2]);
    } else {
        /* Rank 1 sends results 0 and 2, rank 2 result 1. */
        for (int r = rank - 1; r < RESULTS; r += size - 1) {
            int value = rank * 100 + r;
            MPI_Send(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD); /* after the results */

    double local = 8.0 / (rank + 1), err = 1.0e9, tol = 1.0e-2;
    int iterations = 0;
    while (err > tol) {
        local *= 0.5;
        MPI_Allreduce(&local, &err, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        iterations++;
    }
    if (rank == 0)
        printf("waitany_row: converged after %d reductions\n", iterations);
    MPI_Finalize();
    return 0;
}
