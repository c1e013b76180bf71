/* fib-barriers: nprocs=8 outcome=ok interleavings=1 */
/*
 * barrier L81: irrelevant
 * barrier L132: relevant witness: recv L126 rank 0, send L130 rank 2
 * barrier L139: irrelevant
 *
 * The 2D heat solver on a 2x4 process grid (8 ranks, 32x32 grid, 50 time
 * steps, or as many as the first argument says) that records a frame of the run at every step: each rank sends
 * its local heat to rank 0, which takes the 7 messages with
 * MPI_Recv(MPI_ANY_SOURCE, TAG_FRAME) in whatever order they come and
 * files each under its sender (status.MPI_SOURCE). Nothing the program
 * decides depends on what it receives: the loop runs 50 steps, and the
 * frame only goes into an array.
 *
 * A full exploration of the collection would run every order of every
 * step's 7 messages: 7! = 5040 orders per step, 5040^50 runs. One run
 * stands for all of them: each step's 7 receives form an exchangeable
 * block (one receive, 7 different senders, buffered sends, nothing else
 * the receives could take), so fib runs one interleaving and predicts the
 * other orders: every frame receive of a step can take every rank's
 * message of that step (49 pairs per step).
 *
 * The barrier at L132 closes a step's collection and is relevant: without
 * it, the ranks that do not border rank 0 finish the next step's halo
 * exchange with their own neighbours (rank 0's neighbours 1 and 4 have
 * posted their sends before they wait for rank 0) and send their next
 * frame while rank 0 is still collecting this one. Once rank 2's frame has
 * been taken, its next frame is the earliest unmatched message from it,
 * and a later receive of the collection can take it. The barrier before
 * the steps (L81) has nothing to order yet, and the one before the final
 * reduction (L139) comes after every frame.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NX 32
#define NY 32
#define NSTEPS 50
#define ALPHA 0.2

enum { TAG_NORTH = 10, TAG_SOUTH = 11, TAG_WEST = 12, TAG_EAST = 13, TAG_FRAME = 30 };

#define AT(a, i, j) ((a)[(size_t)(i) * (size_t)(nx + 2) + (size_t)(j)])

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int nsteps = argc > 1 && atoi(argv[1]) > 0 ? atoi(argv[1]) : NSTEPS; /* the first argument */

    int py = 1;
    for (int d = 1; d * d <= size; d++)
        if (size % d == 0)
            py = d;
    int px = size / py;
    int cx = rank % px, cy = rank / px;
    int nx = NX / px, ny = NY / py;
    int west = cx > 0 ? rank - 1 : MPI_PROC_NULL;
    int east = cx < px - 1 ? rank + 1 : MPI_PROC_NULL;
    int north = cy > 0 ? rank - px : MPI_PROC_NULL;
    int south = cy < py - 1 ? rank + px : MPI_PROC_NULL;

    double *u = calloc((size_t)(nx + 2) * (size_t)(ny + 2), sizeof(double));
    double *v = calloc((size_t)(nx + 2) * (size_t)(ny + 2), sizeof(double));
    double *in_n = malloc(sizeof(double) * (size_t)nx), *out_n = malloc(sizeof(double) * (size_t)nx);
    double *in_s = malloc(sizeof(double) * (size_t)nx), *out_s = malloc(sizeof(double) * (size_t)nx);
    double *in_w = malloc(sizeof(double) * (size_t)ny), *out_w = malloc(sizeof(double) * (size_t)ny);
    double *in_e = malloc(sizeof(double) * (size_t)ny), *out_e = malloc(sizeof(double) * (size_t)ny);
    double *frames = calloc((size_t)nsteps * (size_t)size, sizeof(double));

    for (int i = 1; i <= ny; i++)
        for (int j = 1; j <= nx; j++) {
            int gi = cy * ny + i - 1, gj = cx * nx + j - 1;
            AT(u, i, j) = (gi >= NY / 3 && gi < 2 * NY / 3 && gj >= NX / 3 && gj < 2 * NX / 3)
                              ? 100.0 : 0.0;
        }

    MPI_Barrier(MPI_COMM_WORLD); /* the ranks start the steps together */
    for (int step = 0; step < nsteps; step++) {
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
        for (int j = 0; j < nx; j++) {
            AT(u, 0, j + 1) = north != MPI_PROC_NULL ? in_n[j] : 0.0;
            AT(u, ny + 1, j + 1) = south != MPI_PROC_NULL ? in_s[j] : 0.0;
        }
        for (int i = 0; i < ny; i++) {
            AT(u, i + 1, 0) = west != MPI_PROC_NULL ? in_w[i] : 0.0;
            AT(u, i + 1, nx + 1) = east != MPI_PROC_NULL ? in_e[i] : 0.0;
        }
        double heat = 0.0;
        for (int i = 1; i <= ny; i++)
            for (int j = 1; j <= nx; j++) {
                double c = AT(u, i, j);
                AT(v, i, j) = c + ALPHA * (AT(u, i - 1, j) + AT(u, i + 1, j) + AT(u, i, j - 1) + AT(u, i, j + 1) - 4.0 * c);
                heat += AT(v, i, j);
            }
        double *t = u;
        u = v;
        v = t;
        /* The frame: every rank's heat, filed at rank 0 under its sender. */
        if (rank == 0) {
            frames[(size_t)step * (size_t)size] = heat;
            for (int k = 1; k < size; k++) {
                double h;
                MPI_Status s;
                MPI_Recv(&h, 1, MPI_DOUBLE, MPI_ANY_SOURCE, TAG_FRAME, MPI_COMM_WORLD, &s);
                frames[(size_t)step * (size_t)size + (size_t)s.MPI_SOURCE] = h;
            }
        } else {
            MPI_Send(&heat, 1, MPI_DOUBLE, 0, TAG_FRAME, MPI_COMM_WORLD);
        }
        MPI_Barrier(MPI_COMM_WORLD); /* end of the step's collection */
    }

    double heat = 0.0, total = 0.0;
    for (int i = 1; i <= ny; i++)
        for (int j = 1; j <= nx; j++)
            heat += AT(u, i, j);
    MPI_Barrier(MPI_COMM_WORLD); /* before the final reduction */
    MPI_Reduce(&heat, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double first = 0.0, last = 0.0;
        for (int k = 0; k < size; k++) {
            first += frames[k];
            last += frames[(size_t)(nsteps - 1) * (size_t)size + (size_t)k];
        }
        printf("diffusion2d_frames: %dx%d ranks, %d steps, heat %.6f, frames %.6f .. %.6f\n",
               px, py, nsteps, total, first, last);
    }

    free(u);
    free(v);
    free(in_n);
    free(out_n);
    free(in_s);
    free(out_s);
    free(in_w);
    free(out_w);
    free(in_e);
    free(out_e);
    free(frames);
    MPI_Finalize();
    return 0;
}
