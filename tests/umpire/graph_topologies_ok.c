/* fib-test: nprocs=4 outcome=ok interleavings=1 codes=- */
/* Four ranks build every other topology fib models. MPI_Cart_create of a
 * 3 x 1 grid leaves rank 3 out (MPI_COMM_NULL); MPI_Graph_create of a
 * 2-node graph leaves ranks 2 and 3 out; MPI_Dist_graph_create_adjacent and
 * MPI_Dist_graph_create each make a directed ring of all four ranks. Each
 * member checks the topology's local queries, and a collective (Allreduce,
 * Scan, Allgatherv) or a ring shift with MPI_Sendrecv runs on each. Named
 * sources only: 1 interleaving, ok. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, v, sum, topo, nn, indeg, outdeg, weighted;
    int dims[2] = {3, 1}, periods[2] = {0, 0};
    int index[2] = {1, 2}, edges[2] = {1, 0};
    MPI_Comm cart, graph, adj, dist;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    assert(size == 4);

    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    if (rank == 3) {
        assert(cart == MPI_COMM_NULL);
    } else {
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, cart);
        assert(sum == 3);
        MPI_Comm_free(&cart);
    }

    MPI_Graph_create(MPI_COMM_WORLD, 2, index, edges, 0, &graph);
    if (rank >= 2) {
        assert(graph == MPI_COMM_NULL);
    } else {
        MPI_Topo_test(graph, &topo);
        assert(topo == MPI_GRAPH);
        MPI_Graph_neighbors_count(graph, rank, &nn);
        assert(nn == 1);
        MPI_Scan(&rank, &sum, 1, MPI_INT, MPI_SUM, graph);
        assert(sum == rank * (rank + 1) / 2);
        MPI_Comm_free(&graph);
    }

    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &prev, MPI_UNWEIGHTED, 1,
                                   &next, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                   &adj);
    MPI_Dist_graph_neighbors_count(adj, &indeg, &outdeg, &weighted);
    assert(indeg == 1 && outdeg == 1 && !weighted);
    MPI_Sendrecv(&rank, 1, MPI_INT, next, 0, &v, 1, MPI_INT, prev, 0, adj,
                 MPI_STATUS_IGNORE);
    assert(v == prev);
    MPI_Comm_free(&adj);

    int one = 1;
    MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &one, &next,
                          MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dist);
    MPI_Topo_test(dist, &topo);
    assert(topo == MPI_DIST_GRAPH);
    int counts[4] = {1, 1, 1, 1}, displs[4] = {0, 1, 2, 3}, all[4];
    MPI_Allgatherv(&rank, 1, MPI_INT, all, counts, displs, MPI_INT, dist);
    assert(all[3] == 3);
    MPI_Comm_free(&dist);
    MPI_Finalize();
    return 0;
}
