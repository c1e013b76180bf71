//! The witness of `tests/cli/sendrecv_witness.c`'s relevant barrier, which
//! the command-line and cluster tests check in both modes and through
//! every launcher.

use serde_json::Value;

/// The witness path of `barrier` (a barrier of a JSON report of
/// `sendrecv_witness.c`), once asserted that the barrier is relevant and
/// that its 5 steps run from rank 0's first wildcard receive (line 13)
/// through the barrier to the send of rank 2 (line 24) it keeps away.
pub fn sendrecv_witness(barrier: &Value) -> Vec<String> {
    assert_eq!(barrier["verdict"], "relevant");
    let path: Vec<String> = barrier["witness"]["path"]
        .as_array()
        .expect("a witness path")
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect();
    assert_eq!(path.len(), 5, "{path:?}");
    assert!(
        path[0].starts_with("rank 0 MPI_Recv at") && path[0].ends_with("sendrecv_witness.c:13")
    );
    assert_eq!(path[2], "all ranks meet in the barrier");
    assert!(
        path[4].starts_with("rank 2 MPI_Send at") && path[4].ends_with("sendrecv_witness.c:24")
    );
    path
}
