//! Tests of the OpenMP constructs the parse records for its calls: a call
//! written inside a `single`, `sections` or `task` block is any thread's to make
//! (FIB042 under `MPI_THREAD_FUNNELED`), and the rewrite says so to the
//! interposition library.

mod common;

/// The calls in a construct any thread may run, by line with the
/// construct, and the lines of the others.
fn constructs(a: &instrument::Analysis) -> (Vec<(u32, String)>, Vec<u32>) {
    let mut marked = Vec::new();
    let mut other = Vec::new();
    for s in &a.sites.sites {
        match &s.any_thread {
            Some(c) => marked.push((s.line, c.clone())),
            None => other.push(s.line),
        }
    }
    (marked, other)
}

#[test]
fn calls_in_single_sections_and_task_blocks_are_marked_and_master_blocks_within_them_are_not() {
    let mut flags = common::flags();
    flags.push("-fopenmp".into());
    let root = common::fixtures().join("openmp");
    let a = instrument::analyze(&root, &[(root.join("single.c"), flags)]).expect("analysis runs");
    let named = |v: &[(u32, &str)]| {
        v.iter()
            .map(|&(l, c)| (l, c.to_string()))
            .collect::<Vec<_>>()
    };
    // The block of `single`, a call nested in an `if` inside it, and the
    // statement after `single nowait`; both sections of `parallel
    // sections`; a `task` whose pragma an `#endif` follows. Not the
    // `master` inside the single, nor the master's own call after its
    // task, nor an `omp for` loop, nor a task that `if (0)` may run at
    // once on the master, nor the calls outside.
    assert_eq!(
        constructs(&a),
        (
            named(&[
                (12, "single"),
                (14, "single"),
                (20, "single"),
                (34, "sections"),
                (37, "sections"),
                (47, "task")
            ]),
            vec![6, 9, 17, 23, 25, 48, 52, 63]
        )
    );
    let text = std::fs::read_to_string(root.join("single.c")).unwrap();
    let sites: Vec<&fib_sites::CallSite> = a.sites.sites.iter().collect();
    let copy = instrument::rewrite(&text, &sites);
    let send = a.sites.sites.iter().find(|s| s.line == 12).unwrap();
    assert!(
        copy.contains(&format!(
            "(fib__site({id}), fib__any_thread({id}), fib__bound({id}, 0, &(v), sizeof(v)), MPI_Send)(",
            id = send.id
        )),
        "{copy}"
    );
    assert_eq!(copy.matches("fib__any_thread(").count(), 6);
}
