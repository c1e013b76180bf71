/* A hybrid MPI + OpenMP rank, MPI_THREAD_FUNNELED: each step, the
 * OpenMP threads relax a 1-D array of 65 536 doubles, and the main thread
 * exchanges the two halo values with the neighbours on a ring
 * (MPI_Irecv, MPI_Isend, MPI_Waitall) between two barriers of the team.
 * Steps from argv[1] (default 200). */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 65536

int main(int argc, char **argv)
{
    int provided, rank, size, steps = argc > 1 ? atoi(argv[1]) : 200;
    static double a[N + 2], b[N + 2];
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    if (provided < MPI_THREAD_FUNNELED)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    for (int i = 0; i < N + 2; i++)
        a[i] = rank + i * 1e-6;
#pragma omp parallel
    for (int s = 0; s < steps; s++) {
#pragma omp master
        {
            MPI_Request r[4];
            MPI_Status st[4];
            MPI_Irecv(&a[0], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &r[0]);
            MPI_Irecv(&a[N + 1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &r[1]);
            MPI_Isend(&a[N], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &r[2]);
            MPI_Isend(&a[1], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &r[3]);
            MPI_Waitall(4, r, st);
        }
#pragma omp barrier
#pragma omp for
        for (int i = 1; i <= N; i++)
            b[i] = 0.5 * a[i] + 0.25 * (a[i - 1] + a[i + 1]);
#pragma omp for
        for (int i = 1; i <= N; i++)
            a[i] = b[i];
    }
    double local = a[N / 2], total;
    MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%f\n", total);
    MPI_Finalize();
    return 0;
}
