/* fib-barriers: nprocs=4 outcome=ok interleavings=1 */
/*
 * also: nprocs=6 interleavings=1
 * barrier L103: irrelevant
 * barrier L119: irrelevant
 * barrier L122: irrelevant
 * barrier L131: irrelevant
 *
 * Explicit 2D heat equation on a px x py process grid (4 ranks: 2x2, 6 ranks:
 * 3x2) over a 24x24 global grid, 5 time steps, fixed zero boundary. Halo rows
 * travel with MPI_Sendrecv, halo columns with MPI_Isend/MPI_Irecv/MPI_Waitall,
 * all with named sources and MPI_PROC_NULL at the physical edges. Barriers:
 * after the halo exchange, after the update, before the residual MPI_Allreduce
 * of every odd step, and before the final MPI_Reduce. There is no wildcard
 * receive or probe anywhere, so the program has exactly one interleaving and,
 * being deadlock-free, every barrier is irrelevant (Siegel & Avrunin): deleting
 * any of them cannot change which send each receive gets.
 * Only rank 0 prints, one line at the end.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NX 24      /* global columns */
#define NY 24      /* global rows */
#define NSTEPS 5
#define ALPHA 0.2  /* explicit scheme is stable for ALPHA <= 0.25 */

enum { TAG_NORTH = 10, TAG_SOUTH = 11, TAG_WEST = 12, TAG_EAST = 13 };

/* Index into a tile of (ny + 2) rows and (nx + 2) columns, halo included. */
#define AT(a, i, j) ((a)[(size_t)(i) * (size_t)(nx + 2) + (size_t)(j)])

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* Process grid: py = largest divisor of size with py * py <= size. */
    int py = 1;
    for (int d = 1; d * d <= size; d++)
        if (size % d == 0)
            py = d;
    int px = size / py;
    if (NX % px != 0 || NY % py != 0) {
        if (rank == 0)
            fprintf(stderr, "diffusion2d: %d ranks do not tile a %dx%d grid\n", size, NX, NY);
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
    double *colout = malloc(2 * (size_t)ny * sizeof *colout);
    double *colin = malloc(2 * (size_t)ny * sizeof *colin);
    if (!u || !v || !colout || !colin)
        MPI_Abort(MPI_COMM_WORLD, 2);

    /* Initial condition: a hot square in the middle of the global grid. */
    for (int i = 1; i <= ny; i++)
        for (int j = 1; j <= nx; j++) {
            int gi = cy * ny + i - 1, gj = cx * nx + j - 1;
            AT(u, i, j) = (gi >= NY / 3 && gi < 2 * NY / 3 && gj >= NX / 3 && gj < 2 * NX / 3)
                              ? 100.0 : 0.0;
        }

    double residual = 0.0;
    for (int step = 0; step < NSTEPS; step++) {
        /* Halo rows: contiguous, exchanged with MPI_Sendrecv. */
        MPI_Sendrecv(&AT(u, 1, 1), nx, MPI_DOUBLE, north, TAG_NORTH,
                     &AT(u, ny + 1, 1), nx, MPI_DOUBLE, south, TAG_NORTH,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&AT(u, ny, 1), nx, MPI_DOUBLE, south, TAG_SOUTH,
                     &AT(u, 0, 1), nx, MPI_DOUBLE, north, TAG_SOUTH,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);

        /* Halo columns: packed, exchanged with nonblocking calls. */
        for (int i = 0; i < ny; i++) {
            colout[i] = AT(u, i + 1, 1);       /* goes west */
            colout[ny + i] = AT(u, i + 1, nx); /* goes east */
        }
        MPI_Request req[4];
        MPI_Status st[4];
        MPI_Irecv(colin, ny, MPI_DOUBLE, west, TAG_EAST, MPI_COMM_WORLD, &req[0]);
        MPI_Irecv(colin + ny, ny, MPI_DOUBLE, east, TAG_WEST, MPI_COMM_WORLD, &req[1]);
        MPI_Isend(colout, ny, MPI_DOUBLE, west, TAG_WEST, MPI_COMM_WORLD, &req[2]);
        MPI_Isend(colout + ny, ny, MPI_DOUBLE, east, TAG_EAST, MPI_COMM_WORLD, &req[3]);
        MPI_Waitall(4, req, st);
        if (west != MPI_PROC_NULL)
            for (int i = 0; i < ny; i++)
                AT(u, i + 1, 0) = colin[i];
        if (east != MPI_PROC_NULL)
            for (int i = 0; i < ny; i++)
                AT(u, i + 1, nx + 1) = colin[ny + i];

        MPI_Barrier(MPI_COMM_WORLD); /* after the halo exchange */

        /* Five-point update; the local residual is the squared change. */
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
        printf("diffusion2d: %dx%d ranks, %dx%d grid, %d steps, heat %.6f, residual %.6e\n",
               px, py, NX, NY, NSTEPS, total, residual);

    free(u);
    free(v);
    free(colout);
    free(colin);
    MPI_Finalize();
    return 0;
}
