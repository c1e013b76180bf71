/* fib-barriers: nprocs=4 outcome=ok interleavings=6 */
/*
 * also: nprocs=5 interleavings=24
 * barrier L85: irrelevant
 *
 * Monte-Carlo estimate of pi with a random-number server, after the program
 * of the Fib paper's experiments. Rank 0 serves random numbers from a
 * deterministic LCG: it answers (size - 1) requests, each received with
 * MPI_ANY_SOURCE, by sending CHUNK pairs of coordinates to the requester.
 * Every other rank is a worker: it makes ROUNDS = 1 request, counts the points
 * inside the quarter circle, and the workers combine their counts with
 * MPI_Allreduce on a communicator of their own (MPI_Comm_split, the server
 * excluded). Rank 0 prints the estimate after an MPI_Reduce over all ranks.
 *
 * Interleavings: when the server's wildcard receive is decided every worker
 * has sent its request and waits for the answer, so the server can serve the
 * workers in any order: (size - 1)! = 6 at 4 ranks, 24 at 5 ranks (the
 * paper's counts). The total hit count does not depend on the order.
 *
 * The MPI_Barrier on MPI_COMM_WORLD at L85 was inserted deliberately (the
 * paper did the same): every request has been sent and received before any
 * rank reaches it, and only collectives follow it, so deleting it changes no
 * (wildcard receive, send) pair and adds no deadlock. Irrelevant. All ranks
 * execute the same line.
 */
#include <mpi.h>
#include <stdio.h>

#define CHUNK 250   /* points per request */
#define ROUNDS 1    /* requests per worker */
#define LCG_MAX 2147483648.0

enum { TAG_REQ = 1, TAG_RAND = 2 };

/* A 31-bit linear congruential generator (no rand(): replays must agree). */
static unsigned lcg_next(unsigned *state)
{
    *state = (*state * 1103515245u + 12345u) & 0x7fffffffu;
    return *state;
}

int main(int argc, char **argv)
{
    int rank, size;
    unsigned rands[2 * CHUNK];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        fprintf(stderr, "monte_carlo_pi: needs a server and at least one worker\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    MPI_Comm workers;
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, rank, &workers);

    long hits = 0, total = 0;
    if (rank == 0) {
        unsigned state = 20080907u;
        for (int k = 0; k < (size - 1) * ROUNDS; k++) {
            int want;
            MPI_Status st;
            MPI_Recv(&want, 1, MPI_INT, MPI_ANY_SOURCE, TAG_REQ, MPI_COMM_WORLD, &st);
            for (int i = 0; i < 2 * want; i++)
                rands[i] = lcg_next(&state);
            MPI_Send(rands, 2 * want, MPI_UNSIGNED, st.MPI_SOURCE, TAG_RAND, MPI_COMM_WORLD);
        }
    } else {
        for (int r = 0; r < ROUNDS; r++) {
            int want = CHUNK;
            MPI_Send(&want, 1, MPI_INT, 0, TAG_REQ, MPI_COMM_WORLD);
            MPI_Recv(rands, 2 * CHUNK, MPI_UNSIGNED, 0, TAG_RAND, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < CHUNK; i++) {
                double x = rands[2 * i] / LCG_MAX, y = rands[2 * i + 1] / LCG_MAX;
                if (x * x + y * y <= 1.0)
                    hits++;
            }
        }
        long worker_hits = 0;
        MPI_Allreduce(&hits, &worker_hits, 1, MPI_LONG, MPI_SUM, workers);
        (void)worker_hits; /* every worker knows the running estimate */
        MPI_Comm_free(&workers);
    }

    MPI_Barrier(MPI_COMM_WORLD); /* deliberately inserted */

    MPI_Reduce(&hits, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        long points = (long)(size - 1) * ROUNDS * CHUNK;
        printf("monte_carlo_pi: %d workers, %ld points, pi ~ %.6f\n", size - 1, points,
               4.0 * (double)total / (double)points);
    }
    MPI_Finalize();
    return 0;
}
