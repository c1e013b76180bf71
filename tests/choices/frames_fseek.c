/* fib-choices: nprocs=3 outcome=ok interleavings=1 exhaustive=6 */
/*
 * barrier L64: irrelevant
 *
 * Rank 0 collects two rows from each of the other ranks with
 * MPI_Recv(MPI_ANY_SOURCE, MPI_ANY_TAG) and files each in a file of
 * fixed-width records: the status's source and tag say which record, fseek
 * goes there and fprintf writes the row. The statuses and the rows reach
 * only the file's positions and contents, which nothing reads back, so
 * every order of the row (4!/(2!2!) = 6, each sender's two rows in its
 * order) is the same run but for which receive took which row: one run
 * stands for all six.
 *
 * Received data does steer the program elsewhere: a convergence loop runs
 * MPI_Allreduce until the largest change is below a tolerance, so the
 * number of reductions is decided by what the ranks receive (from the
 * reductions, not from the row).
 *
 * The barrier after the collection orders nothing: the senders have no
 * further message for rank 0's row, and the reductions are collectives.
 */
#include <mpi.h>
#include <stdio.h>

#define ROWS 2 /* rows per sender */
#define COLS 4
#define WIDTH 12 /* characters per number, newline included in the last */

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0) {
        FILE *f = fopen("frames_fseek.dat", "w+");
        if (f == NULL) {
            perror("frames_fseek.dat");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        int taken = 0;
        for (int k = 0; k < (size - 1) * ROWS; k++) {
            double row[COLS];
            MPI_Status st;
            MPI_Recv(row, COLS, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            long record = (long)(st.MPI_SOURCE - 1) * ROWS + st.MPI_TAG;
            fseek(f, record * COLS * WIDTH, SEEK_SET);
            for (int c = 0; c < COLS; c++)
                fprintf(f, "%11.3f%c", row[c], c == COLS - 1 ? '\n' : ' ');
            taken++;
        }
        fclose(f);
        printf("frames_fseek: %d rows filed\n", taken);
        remove("frames_fseek.dat");
    } else {
        for (int t = 0; t < ROWS; t++) {
            double row[COLS];
            for (int c = 0; c < COLS; c++)
                row[c] = rank * 100.0 + t * 10.0 + c;
            MPI_Send(row, COLS, MPI_DOUBLE, 0, t, MPI_COMM_WORLD);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD); /* after the collection */

    /* A convergence loop: each rank halves its change until the largest
     * change of all ranks is below the tolerance. */
    double local = 1.0 + rank, err = 1.0e9, tol = 1.0e-3;
    int iterations = 0;
    while (err > tol) {
        local *= 0.5;
        MPI_Allreduce(&local, &err, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        iterations++;
    }
    if (rank == 0)
        printf("frames_fseek: converged after %d reductions\n", iterations);
    MPI_Finalize();
    return 0;
}
