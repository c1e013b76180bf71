//! The paper's Examples 1–5 and 4(a), the crooked barrier, Monte-Carlo pi
//! with a random-number server, textually unaligned and never executed
//! barriers, `MPI_Ibarrier` relevant and irrelevant, a barrier that guards
//! a wildcard matched probe, and rows of wildcard probes each followed by
//! the receive of what it found, matched or not, sized from the status or
//! not (one run for every order); and barriers that order memory: a put
//! under a lock before a read (relevant, also with `MPI_Ibarrier`), the
//! same ordered by a fence or on disjoint bytes (irrelevant), two
//! conflicting lock epochs, or two whose other order lets a get race a
//! later store (relevant), a put kept away from a pending
//! receive buffer in the window (relevant), and one relevant at 3 ranks
//! and irrelevant at 2:
//! every barrier verdict as the file's header states, confirmed by removal.

#[path = "../common/barrier_corpus.rs"]
mod barrier_corpus;

#[test]
fn every_barrier_gets_its_expected_verdict() {
    // 27 programs; monte_carlo_pi, the four irrelevant rows of probes and
    // mem_three_ranks also at a second count.
    assert_eq!(barrier_corpus::check_dir("tests/barriers"), 33);
}
