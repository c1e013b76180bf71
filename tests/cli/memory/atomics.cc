// A C++ program with atomics, a shared pointer and a thread (the compiler's
// pass turns them into __tsan_atomic* calls, which fib's hooks carry out)
// exchanges a value with MPI_Isend/MPI_Irecv and touches the buffers only
// after the waits: it builds with memory checking, runs, and is ok.
#include <atomic>
#include <memory>
#include <mpi.h>
#include <thread>
#include <vector>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::atomic<long> counter{0};
    auto shared = std::make_shared<std::vector<int>>(8, rank);
    std::thread worker([&] {
        for (int i = 0; i < 1000; i++)
            counter.fetch_add(1, std::memory_order_relaxed);
    });
    worker.join();
    int out = rank + 1, in = 0;
    MPI_Request reqs[2];
    MPI_Isend(&out, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, &reqs[0]);
    MPI_Irecv(&in, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, &reqs[1]);
    long seen = counter.load();
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    in += (*shared)[3];
    MPI_Finalize();
    return (seen == 1000 && in == 2) ? 0 : 1;
}
