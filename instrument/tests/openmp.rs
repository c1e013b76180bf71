//! Tests of the OpenMP constructs the parse records for its calls: a call
//! written inside a `single` construct's block is any thread's to make
//! (FIB042 under `MPI_THREAD_FUNNELED`), and the rewrite says so to the
//! interposition library.

mod common;

/// The lines of the calls inside a `single` construct, and of the others.
fn singles(a: &instrument::Analysis) -> (Vec<u32>, Vec<u32>) {
    let (single, other): (Vec<_>, Vec<_>) = a.sites.sites.iter().partition(|s| s.in_single);
    let lines = |v: Vec<&fib_sites::CallSite>| v.iter().map(|s| s.line).collect::<Vec<_>>();
    (lines(single), lines(other))
}

#[test]
fn calls_in_a_single_block_are_marked_and_master_blocks_within_it_are_not() {
    let mut flags = common::flags();
    flags.push("-fopenmp".into());
    let root = common::fixtures().join("openmp");
    let a = instrument::analyze(&root, &[(root.join("single.c"), flags)]).expect("analysis runs");
    // The block of `single`, a call nested in an `if` inside it, and the
    // statement after `single nowait`; not the `master` within the
    // single, nor the ones outside.
    assert_eq!(singles(&a), (vec![12, 14, 20], vec![6, 9, 17, 23, 25]));
    let text = std::fs::read_to_string(root.join("single.c")).unwrap();
    let sites: Vec<&fib_sites::CallSite> = a.sites.sites.iter().collect();
    let copy = instrument::rewrite(&text, &sites);
    let send = a.sites.sites.iter().find(|s| s.line == 12).unwrap();
    assert!(
        copy.contains(&format!(
            "(fib__site({id}), fib__single({id}), fib__bound({id}, 0, &(v), sizeof(v)), MPI_Send)(",
            id = send.id
        )),
        "{copy}"
    );
    assert_eq!(copy.matches("fib__single(").count(), 3);
}
