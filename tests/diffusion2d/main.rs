//! The 2D diffusion solver at 4 and 6 ranks: every barrier irrelevant after
//! one interleaving; and its variant whose root collects residuals with
//! `MPI_ANY_SOURCE`/`MPI_ANY_TAG`, where the barrier closing the collection
//! is relevant (a later halo message could reach the wildcard receive
//! without it); and a 2x4 grid run for 50 steps whose root collects a frame
//! with 7 wildcard receives at every step: one run stands for the 5040^50
//! orders, and the barrier closing each collection is relevant.

#[path = "../common/barrier_corpus.rs"]
mod barrier_corpus;

#[test]
fn diffusion_barriers_get_their_expected_verdicts() {
    // Two programs, each at 4 and 6 ranks, and the 2x4-grid, 50-step
    // program with a wildcard frame collection at every step.
    assert_eq!(barrier_corpus::check_dir("tests/diffusion2d"), 5);
}
