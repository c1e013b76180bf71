//! The 2D diffusion solver at 4 and 6 ranks: every barrier irrelevant after
//! one interleaving; and its variant whose root collects residuals with
//! `MPI_ANY_SOURCE`/`MPI_ANY_TAG`, where the barrier closing the collection
//! is relevant (a later halo message could reach the wildcard receive
//! without it).

#[path = "../common/barrier_corpus.rs"]
mod barrier_corpus;

#[test]
fn diffusion_barriers_get_their_expected_verdicts() {
    // Two programs, each at 4 and 6 ranks.
    assert_eq!(barrier_corpus::check_dir("tests/diffusion2d"), 4);
}
