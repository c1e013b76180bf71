/* fib-barriers: nprocs=4 outcome=ok interleavings=1 */
/*
 * also: nprocs=6 interleavings=120
 * barrier L131: irrelevant
 * barrier L146: irrelevant
 * barrier L170: relevant witness: recv L156 rank 0, send L115 rank 1
 * barrier L174: irrelevant
 * barrier L183: irrelevant
 *
 * The 2D heat solver of diffusion2d.c (2x2 process grid at 4 ranks, 24x24
 * grid, 5 steps), with every halo direction sent by its own MPI_Isend, and a
 * monitoring phase at step COLLECT_STEP: rank 0 gathers the other ranks'
 * local residuals with MPI_Recv(MPI_ANY_SOURCE, MPI_ANY_TAG), checks that each
 * message carries TAG_RES, and everyone then meets in the barrier at
 * L170. That is the only wildcard phase: its 3 receives see the 3 residual
 * messages in any order, 3! = 6 orders. Rank 0 files each residual under
 * its source and sums them in rank order, so the probe runs of the 5 other
 * orders make the same calls and send the same data: 1 interleaving stands
 * for all 6 (--exhaustive runs them). At 6 ranks the 5! = 120 orders are
 * more than fib tries, and all 120 run.
 *
 * The barrier at L170 is relevant. Without it, rank 1 (east of rank 0)
 * goes straight on to step COLLECT_STEP + 1 and posts its halo column for
 * rank 0 (MPI_Isend at L115, tag TAG_WEST) while rank 0 is still inside
 * the wildcard loop. Once rank 1's residual has been taken by one wildcard
 * receive, rank 1's halo message is the earliest unmatched message from rank
 * 1 and MPI_ANY_TAG accepts it, so a later receive at L156 can take it:
 * a (wildcard receive, send) pair that never occurs with the barrier, after
 * which the tag check aborts (and rank 0's own halo receive from rank 1 would
 * have nothing left to match). Rank 2's halo row for rank 0 (L113) is a
 * second witness of the same kind. With the barrier, nothing of step
 * COLLECT_STEP + 1 can be issued before rank 0 has finished the loop.
 *
 * The other barriers are irrelevant: before the wildcard loop rank 0 has
 * completed its own halo MPI_Waitall, so every message of that step that
 * targets rank 0 is already matched by its named-source receives, and after
 * it the barrier at L170 holds everything back; the barriers before the
 * MPI_Allreduce (odd steps only, so never right after the collection) and the
 * final MPI_Reduce sit next to collectives that order the same things.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NX 24
#define NY 24
#define NSTEPS 5
#define COLLECT_STEP 2 /* even: not followed by the odd-step Allreduce */
#define ALPHA 0.2

enum { TAG_NORTH = 10, TAG_SOUTH = 11, TAG_WEST = 12, TAG_EAST = 13, TAG_RES = 20 };

#define AT(a, i, j) ((a)[(size_t)(i) * (size_t)(nx + 2) + (size_t)(j)])

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int py = 1;
    for (int d = 1; d * d <= size; d++)
        if (size % d == 0)
            py = d;
    int px = size / py;
    if (NX % px != 0 || NY % py != 0) {
        if (rank == 0)
            fprintf(stderr, "diffusion2d_anysrc: %d ranks do not tile a %dx%d grid\n", size, NX, NY);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int cx = rank % px, cy = rank / px;
    int nx = NX / px, ny = NY / py;
    int west = cx > 0 ? rank - 1 : MPI_PROC_NULL;
    int east = cx < px - 1 ? rank + 1 : MPI_PROC_NULL;
    int north = cy > 0 ? rank - px : MPI_PROC_NULL;
    int south = cy < py - 1 ? rank + px : MPI_PROC_NULL;

    double *u = calloc((size_t)(nx + 2) * (size_t)(ny + 2), sizeof *u);
    double *v = calloc((size_t)(nx + 2) * (size_t)(ny + 2), sizeof *v);
    double *out = malloc(2 * (size_t)(nx + ny) * sizeof *out);
    double *in = malloc(2 * (size_t)(nx + ny) * sizeof *in);
    double *collected = calloc((size_t)size, sizeof *collected);
    if (!u || !v || !out || !in || !collected)
        MPI_Abort(MPI_COMM_WORLD, 2);
    /* Buffer layout: north row, south row, west column, east column. */
    double *out_n = out, *out_s = out + nx, *out_w = out + 2 * nx, *out_e = out + 2 * nx + ny;
    double *in_n = in, *in_s = in + nx, *in_w = in + 2 * nx, *in_e = in + 2 * nx + ny;

    for (int i = 1; i <= ny; i++)
        for (int j = 1; j <= nx; j++) {
            int gi = cy * ny + i - 1, gj = cx * nx + j - 1;
            AT(u, i, j) = (gi >= NY / 3 && gi < 2 * NY / 3 && gj >= NX / 3 && gj < 2 * NX / 3)
                              ? 100.0 : 0.0;
        }

    double residual = 0.0, monitored = 0.0;
    for (int step = 0; step < NSTEPS; step++) {
        for (int j = 0; j < nx; j++) {
            out_n[j] = AT(u, 1, j + 1);
            out_s[j] = AT(u, ny, j + 1);
        }
        for (int i = 0; i < ny; i++) {
            out_w[i] = AT(u, i + 1, 1);
            out_e[i] = AT(u, i + 1, nx);
        }
        MPI_Request req[8];
        MPI_Status st[8];
        MPI_Irecv(in_n, nx, MPI_DOUBLE, north, TAG_SOUTH, MPI_COMM_WORLD, &req[0]);
        MPI_Irecv(in_s, nx, MPI_DOUBLE, south, TAG_NORTH, MPI_COMM_WORLD, &req[1]);
        MPI_Irecv(in_w, ny, MPI_DOUBLE, west, TAG_EAST, MPI_COMM_WORLD, &req[2]);
        MPI_Irecv(in_e, ny, MPI_DOUBLE, east, TAG_WEST, MPI_COMM_WORLD, &req[3]);
        MPI_Isend(out_n, nx, MPI_DOUBLE, north, TAG_NORTH, MPI_COMM_WORLD, &req[4]);
        MPI_Isend(out_s, nx, MPI_DOUBLE, south, TAG_SOUTH, MPI_COMM_WORLD, &req[5]);
        MPI_Isend(out_w, ny, MPI_DOUBLE, west, TAG_WEST, MPI_COMM_WORLD, &req[6]);
        MPI_Isend(out_e, ny, MPI_DOUBLE, east, TAG_EAST, MPI_COMM_WORLD, &req[7]);
        MPI_Waitall(8, req, st);
        if (north != MPI_PROC_NULL)
            for (int j = 0; j < nx; j++)
                AT(u, 0, j + 1) = in_n[j];
        if (south != MPI_PROC_NULL)
            for (int j = 0; j < nx; j++)
                AT(u, ny + 1, j + 1) = in_s[j];
        if (west != MPI_PROC_NULL)
            for (int i = 0; i < ny; i++)
                AT(u, i + 1, 0) = in_w[i];
        if (east != MPI_PROC_NULL)
            for (int i = 0; i < ny; i++)
                AT(u, i + 1, nx + 1) = in_e[i];

        MPI_Barrier(MPI_COMM_WORLD); /* after the halo exchange */

        double local = 0.0;
        for (int i = 1; i <= ny; i++)
            for (int j = 1; j <= nx; j++) {
                double c = AT(u, i, j);
                double lap = AT(u, i - 1, j) + AT(u, i + 1, j) + AT(u, i, j - 1) + AT(u, i, j + 1)
                             - 4.0 * c;
                AT(v, i, j) = c + ALPHA * lap;
                local += (AT(v, i, j) - c) * (AT(v, i, j) - c);
            }
        double *t = u;
        u = v;
        v = t;

        MPI_Barrier(MPI_COMM_WORLD); /* after the update */

        if (step == COLLECT_STEP) {
            /* Monitoring: rank 0 takes the residuals in whatever order they come. */
            if (rank == 0) {
                collected[0] = local;
                for (int k = 1; k < size; k++) {
                    double r[NX]; /* room for any message this program sends */
                    int count;
                    MPI_Status s;
                    MPI_Recv(r, NX, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &s);
                    MPI_Get_count(&s, MPI_DOUBLE, &count);
                    if (s.MPI_TAG != TAG_RES || count != 1) {
                        fprintf(stderr, "diffusion2d_anysrc: tag %d, %d values from rank %d in the residual phase\n",
                                s.MPI_TAG, count, s.MPI_SOURCE);
                        MPI_Abort(MPI_COMM_WORLD, 3);
                    }
                    collected[s.MPI_SOURCE] = r[0];
                }
                for (int k = 0; k < size; k++)
                    monitored += collected[k]; /* in rank order: same sum in every interleaving */
            } else {
                MPI_Send(&local, 1, MPI_DOUBLE, 0, TAG_RES, MPI_COMM_WORLD);
            }
            MPI_Barrier(MPI_COMM_WORLD); /* end of the monitoring phase */
        }

        if (step % 2 == 1) {
            MPI_Barrier(MPI_COMM_WORLD); /* before the periodic residual check */
            MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        }
    }

    double heat = 0.0, total = 0.0;
    for (int i = 1; i <= ny; i++)
        for (int j = 1; j <= nx; j++)
            heat += AT(u, i, j);
    MPI_Barrier(MPI_COMM_WORLD); /* before the final reduction */
    MPI_Reduce(&heat, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("diffusion2d_anysrc: %dx%d ranks, %d steps, heat %.6f, residual %.6e, step-%d residual %.6e\n",
               px, py, NSTEPS, total, residual, COLLECT_STEP, monitored);

    free(u);
    free(v);
    free(out);
    free(in);
    free(collected);
    MPI_Finalize();
    return 0;
}
