/* fib-choices: nprocs=4 outcome=ok interleavings=1 exhaustive=216 */
/*
 * barrier L157: relevant
 *
 * At 4 ranks (a 2 x 2 grid) and 3 steps: each
 * step's row of 3 wildcard receives can take its rows in 3! orders, 6^3 = 216
 * in all, for which one run stands.
 *
 * The 2-D heat solver on a px x py process grid (2 x 4 at 8 ranks, 2 x 2
 * at 4), NSTEPS time steps (3, or the first argument: 50 in
 * scripts/bench.sh), that writes a frame of the run to a file at every
 * step.
 *
 * Each step exchanges the halo with named sources (MPI_Irecv/MPI_Isend
 * with the neighbours, MPI_Waitall), updates the block, and sends rank 0
 * one row of the frame: the block's column sums, tagged with the step.
 * Rank 0 takes the rows with MPI_Recv(MPI_ANY_SOURCE, MPI_ANY_TAG) in
 * whatever order they come; the status's source and tag say which record
 * of the frame file the row is (fseek), and fprintf writes it there. A
 * barrier closes each step. The statuses and the rows only reach the
 * file, which nothing reads back: one run stands for every order of the
 * rows ((size - 1)! per step, 5040^50 at 8 ranks and 50 steps).
 *
 * After the steps, relaxation sweeps run until the largest change of all
 * ranks (MPI_Allreduce) is below a tolerance: received data steers how
 * many reductions the program makes.
 *
 * The barrier closing a step is relevant: without it, rank 0's
 * neighbours post the next step's halo sends to rank 0 while it is still
 * taking this step's rows, and a receive of the row (MPI_ANY_TAG) can take
 * one; so can it a rank's next row (a rank that does not border rank 0
 * finishes the next step's halo exchange, its neighbours having posted
 * their sends before they wait for rank 0).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NX 16
#define NY 16
#define NSTEPS 3
#define ALPHA 0.2
#define TOL 0.05
#define WIDTH 12 /* characters per number of a record */

enum { TAG_NORTH = 1, TAG_SOUTH, TAG_WEST, TAG_EAST };

#define AT(a, i, j) ((a)[(size_t)(i) * (size_t)(nx + 2) + (size_t)(j)])

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int nsteps = argc > 1 && atoi(argv[1]) > 0 ? atoi(argv[1]) : NSTEPS;

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
    long record = (long)nx * WIDTH; /* one row of the frame */

    double *u = calloc((size_t)(nx + 2) * (size_t)(ny + 2), sizeof(double));
    double *v = calloc((size_t)(nx + 2) * (size_t)(ny + 2), sizeof(double));
    double *in_n = calloc((size_t)nx, sizeof(double)), *out_n = calloc((size_t)nx, sizeof(double));
    double *in_s = calloc((size_t)nx, sizeof(double)), *out_s = calloc((size_t)nx, sizeof(double));
    double *in_w = calloc((size_t)ny, sizeof(double)), *out_w = calloc((size_t)ny, sizeof(double));
    double *in_e = calloc((size_t)ny, sizeof(double)), *out_e = calloc((size_t)ny, sizeof(double));
    double *row = calloc((size_t)nx, sizeof(double));
    FILE *frames = NULL;
    if (rank == 0) {
        frames = fopen("diffusion_frames.dat", "w+");
        if (frames == NULL) {
            perror("diffusion_frames.dat");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }

    for (int i = 1; i <= ny; i++)
        for (int j = 1; j <= nx; j++) {
            int gi = cy * ny + i - 1, gj = cx * nx + j - 1;
            AT(u, i, j) = (gi >= NY / 3 && gi < 2 * NY / 3 && gj >= NX / 3 && gj < 2 * NX / 3)
                              ? 100.0 : 0.0;
        }

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
        for (int j = 0; j < nx; j++)
            row[j] = 0.0;
        for (int i = 1; i <= ny; i++)
            for (int j = 1; j <= nx; j++) {
                double c = AT(u, i, j);
                AT(v, i, j) = c + ALPHA * (AT(u, i - 1, j) + AT(u, i + 1, j) + AT(u, i, j - 1) +
                                           AT(u, i, j + 1) - 4.0 * c);
                row[j - 1] += AT(v, i, j);
            }
        double *t = u;
        u = v;
        v = t;

        /* The frame: rank 0 files every rank's row in the record its
         * source and the step (the tag) say. */
        if (rank == 0) {
            for (int k = 0; k < size; k++) {
                int source = 0, tag = step;
                double got[NX];
                if (k > 0) {
                    MPI_Status s;
                    MPI_Recv(got, nx, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &s);
                    source = s.MPI_SOURCE;
                    tag = s.MPI_TAG;
                } else {
                    for (int j = 0; j < nx; j++)
                        got[j] = row[j];
                }
                fseek(frames, ((long)tag * size + source) * record, SEEK_SET);
                for (int j = 0; j < nx; j++)
                    fprintf(frames, "%11.4f%c", got[j], j == nx - 1 ? '\n' : ' ');
            }
        } else {
            MPI_Send(row, nx, MPI_DOUBLE, 0, step, MPI_COMM_WORLD);
        }
        MPI_Barrier(MPI_COMM_WORLD); /* end of the step */
    }

    /* Relaxation sweeps until no rank's block changes by more than TOL,
     * the last halo held fixed. */
    for (int i = 0; i <= ny + 1; i++) {
        AT(v, i, 0) = AT(u, i, 0);
        AT(v, i, nx + 1) = AT(u, i, nx + 1);
    }
    for (int j = 0; j <= nx + 1; j++) {
        AT(v, 0, j) = AT(u, 0, j);
        AT(v, ny + 1, j) = AT(u, ny + 1, j);
    }
    double err = 1.0e9;
    int sweeps = 0;
    while (err > TOL) {
        double change = 0.0;
        for (int i = 1; i <= ny; i++)
            for (int j = 1; j <= nx; j++) {
                double c = AT(u, i, j);
                AT(v, i, j) = c + ALPHA * (AT(u, i - 1, j) + AT(u, i + 1, j) + AT(u, i, j - 1) +
                                           AT(u, i, j + 1) - 4.0 * c);
                change = AT(v, i, j) - c > change ? AT(v, i, j) - c : change;
                change = c - AT(v, i, j) > change ? c - AT(v, i, j) : change;
            }
        double *t = u;
        u = v;
        v = t;
        MPI_Allreduce(&change, &err, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        sweeps++;
    }
    if (rank == 0) {
        fseek(frames, 0, SEEK_END);
        long bytes = ftell(frames);
        fclose(frames);
        remove("diffusion_frames.dat");
        printf("diffusion_frames: %dx%d ranks, %d steps, %ld bytes of frames, %d sweeps\n", px, py,
               nsteps, bytes, sweeps);
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
    free(row);
    MPI_Finalize();
    return 0;
}
