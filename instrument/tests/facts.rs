//! Tests of the static facts: barrier inventory, wildcard receives, and
//! whether what decides that a barrier or wildcard runs depends on input.

mod common;

use instrument::{Analysis, Dependence};

/// The site ids of calls to `callee` on `line` of `file`.
fn site(a: &Analysis, file: &str, line: u32, callee: &str) -> u32 {
    a.sites
        .sites
        .iter()
        .find(|s| s.file.to_str() == Some(file) && s.line == line && s.callee == callee)
        .unwrap_or_else(|| panic!("no {callee} at {file}:{line}"))
        .id
}

fn control(a: &Analysis, id: u32) -> &Dependence {
    &a.facts
        .control
        .iter()
        .find(|(s, _)| *s == id)
        .unwrap_or_else(|| panic!("no control fact for site {id}"))
        .1
}

fn reasons(d: &Dependence) -> &[String] {
    match d {
        Dependence::DataDependent { reasons } => reasons,
        Dependence::InputIndependent => panic!("expected a data dependence"),
    }
}

#[test]
fn barrier_guarded_by_rank_is_input_independent() {
    let a = common::analyze("facts", &["rank_guard.c"]);
    let first = site(&a, "rank_guard.c", 10, "MPI_Barrier");
    let in_loop = site(&a, "rank_guard.c", 13, "MPI_Barrier");
    assert_eq!(a.facts.barriers, vec![first, in_loop]);
    assert_eq!(control(&a, first), &Dependence::InputIndependent);
    assert_eq!(control(&a, in_loop), &Dependence::InputIndependent);
}

#[test]
fn ibarrier_sites_are_barriers() {
    let a = common::analyze("facts", &["ibarrier.c"]);
    let blocking = site(&a, "ibarrier.c", 9, "MPI_Barrier");
    let nonblocking = site(&a, "ibarrier.c", 10, "MPI_Ibarrier");
    assert_eq!(a.facts.barriers, vec![blocking, nonblocking]);
    assert_eq!(control(&a, nonblocking), &Dependence::InputIndependent);
}

#[test]
fn barrier_guarded_by_received_value_is_data_dependent() {
    let a = common::analyze("facts", &["recv_guard.c"]);
    let direct = site(&a, "recv_guard.c", 20, "MPI_Barrier");
    let r = reasons(control(&a, direct));
    assert_eq!(
        r,
        ["`if (buf[0] > 3)` at recv_guard.c:19 reads `buf`, filled by MPI_Recv at recv_guard.c:16"]
    );
    // Through a local and a parameter of the function that holds the barrier.
    let called = site(&a, "recv_guard.c", 5, "MPI_Barrier");
    let r = reasons(control(&a, called));
    assert_eq!(r.len(), 1);
    assert!(
        r[0].starts_with("`if (n > 3)` at recv_guard.c:4 reads `n`"),
        "{r:?}"
    );
    assert!(
        r[0].contains("filled by MPI_Recv at recv_guard.c:16"),
        "{r:?}"
    );
}

#[test]
fn barrier_guarded_by_argv_or_rand_is_data_dependent() {
    let a = common::analyze("facts", &["argv_guard.c"]);
    let looped = site(&a, "argv_guard.c", 8, "MPI_Barrier");
    let r = reasons(control(&a, looped));
    assert_eq!(r.len(), 1);
    assert!(
        r[0].starts_with("`for (int r = 0; r < rounds; r++)` at argv_guard.c:7"),
        "{r:?}"
    );
    assert!(r[0].contains("the command line"), "{r:?}");
    let random = site(&a, "argv_guard.c", 10, "MPI_Barrier");
    let r = reasons(control(&a, random));
    assert_eq!(
        r,
        ["`if (rand() % 2)` at argv_guard.c:9 uses the result of rand() at argv_guard.c:9"]
    );
}

#[test]
fn wildcards_directly_through_macros_and_through_variables() {
    let a = common::analyze("facts", &["wildcard_var.c"]);
    let via_var = site(&a, "wildcard_var.c", 11, "MPI_Recv");
    let via_macro = site(&a, "wildcard_var.c", 12, "MPI_Recv");
    let named = site(&a, "wildcard_var.c", 13, "MPI_Recv");
    let reassigned = site(&a, "wildcard_var.c", 14, "MPI_Recv");
    let found: Vec<_> = a
        .facts
        .wildcards
        .iter()
        .map(|w| (w.site, w.any_source, w.any_tag))
        .collect();
    assert_eq!(found, vec![(via_var, true, false), (via_macro, true, true)]);
    assert!(!found.iter().any(|w| w.0 == named || w.0 == reassigned));
    assert_eq!(control(&a, via_var), &Dependence::InputIndependent);
    // A barrier guarded by the status of a receive depends on data.
    let barrier = site(&a, "wildcard_var.c", 16, "MPI_Barrier");
    assert!(reasons(control(&a, barrier))[0].contains("the status of MPI_Recv"));
}

#[test]
fn mpi_flags_include_mpi_h_directory() {
    let flags = common::flags();
    let found = flags.iter().any(|f| {
        f.strip_prefix("-I")
            .is_some_and(|d| std::path::Path::new(d).join("mpi.h").is_file())
    });
    assert!(found, "{flags:?}");
    assert!(!flags
        .iter()
        .any(|f| f.starts_with("-l") || f.starts_with("-L") || f.starts_with("-Wl")));
}

#[test]
fn user_functions_named_like_mpi_are_not_sites() {
    let dir = std::env::temp_dir().join(format!("fib-instrument-user-mpi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("user.c");
    std::fs::write(
        &src,
        "#include <mpi.h>\nint MPI_Helper(int x) { return x; }\n\
         int main(int c, char **v) { MPI_Init(&c, &v); MPI_Helper(1);\n\
         PMPI_Barrier(MPI_COMM_WORLD); MPI_Finalize(); return 0; }\n",
    )
    .unwrap();
    let a = instrument::analyze(&dir, &[(src, common::flags())]).unwrap();
    let callees: Vec<_> = a.sites.sites.iter().map(|s| s.callee.as_str()).collect();
    assert_eq!(callees, ["MPI_Init", "MPI_Finalize"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn compile_db_reads_arguments_and_command_forms() {
    let dir = std::env::temp_dir().join(format!("fib-instrument-cdb-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("compile_commands.json");
    std::fs::write(
        &db,
        r#"[
  {"directory": "/src/b", "file": "a.c", "arguments": ["cc", "-Iinc", "-DN=2", "-c", "a.c"]},
  {"directory": "/src/b", "file": "/src/b/x.cpp", "command": "c++ -I /opt/inc -DMSG=\"a b\" -O2 -c x.cpp"}
]"#,
    )
    .unwrap();
    let cmds = instrument::compile_db(&db).unwrap();
    assert_eq!(cmds.len(), 2);
    assert_eq!(cmds[0].file, std::path::Path::new("/src/b/a.c"));
    assert_eq!(cmds[0].parser_flags(), ["-I/src/b/inc", "-DN=2"]);
    assert_eq!(cmds[1].args[0], "c++");
    // The optimisation level is kept: the program is built with it.
    assert_eq!(cmds[1].parser_flags(), ["-I/opt/inc", "-DMSG=a b", "-O2"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn calls_in_templates_lambdas_and_inline_functions_are_sites_and_facts() {
    let a = common::analyze("facts", &["template.cpp"]);
    // A wildcard receive in a function template whose arguments depend on
    // the template parameter: libclang resolves the name only on
    // instantiation.
    let irecv = site(&a, "template.cpp", 10, "MPI_Irecv");
    assert_eq!(a.facts.wildcards.len(), 1);
    assert_eq!(a.facts.wildcards[0].site, irecv);
    assert!(a.facts.wildcards[0].any_source);
    // The template's instance is called from main with `size - 1` senders:
    // nothing but the size decides how often it runs.
    assert_eq!(control(&a, irecv), &Dependence::InputIndependent);
    let inline = site(&a, "template.cpp", 16, "MPI_Barrier");
    let lambda = site(&a, "template.cpp", 24, "MPI_Barrier");
    assert_eq!(a.facts.barriers, vec![inline, lambda]);
}

#[test]
fn a_cxx_declaration_of_an_mpi_struct_is_no_mpi_call() {
    let a = common::analyze("facts", &["status_decl.cpp"]);
    let calls: Vec<(u32, &str)> = a
        .sites
        .sites
        .iter()
        .map(|s| (s.line, s.callee.as_str()))
        .collect();
    assert_eq!(
        calls,
        [
            (10, "MPI_Probe"),
            (11, "MPI_Get_count"),
            (17, "MPI_Init"),
            (20, "MPI_Wait"),
            (22, "MPI_Finalize"),
        ]
    );
}

/// Each barrier with a purpose in `file`: its line, the purpose, the call
/// that shows it and that call's line.
fn purposes(file: &str) -> Vec<(u32, instrument::PurposeKind, String, u32)> {
    let a = common::analyze("facts", &[file]);
    a.facts
        .purposes
        .iter()
        .map(|p| {
            (
                a.sites.sites[p.site as usize].line,
                p.kind,
                p.callee.clone(),
                p.line,
            )
        })
        .collect()
}

#[test]
fn a_barrier_before_a_clock_or_output_has_that_purpose() {
    use instrument::PurposeKind::{Output, Timing};
    assert_eq!(
        purposes("timing.c"),
        [
            (13, Timing, "MPI_Wtime".into(), 14),
            (19, Output, "printf".into(), 21),
        ]
    );
    // Through the program's own helper around the clock.
    assert_eq!(
        purposes("timing_helper.c"),
        [(9, Timing, "seconds".into(), 10)]
    );
    // A barrier that ends a timed loop's body lines the ranks up for the
    // next iteration's clock reading; the one after the loop orders nothing.
    assert_eq!(
        purposes("timing_loop.c"),
        [(16, Timing, "MPI_Wtime".into(), 13)]
    );
}

#[test]
fn calls_that_depend_only_on_rank_and_command_line_steer_nothing() {
    let a = common::analyze("facts", &["steer_rows.c"]);
    // The step count comes from argv: the same in every run of a check.
    assert_eq!(a.facts.steering, Vec::<String>::new());
    // Both wildcard receives are free: what they receive reaches no MPI
    // call.
    let row = site(&a, "steer_rows.c", 14, "MPI_Recv");
    let sized = site(&a, "steer_rows.c", 15, "MPI_Recv");
    assert_eq!(a.facts.free_receives, vec![row, sized]);
}

#[test]
fn a_peer_from_a_status_or_a_condition_on_received_data_steers() {
    let a = common::analyze("facts", &["steer_status.c"]);
    let s = &a.facts.steering;
    assert_eq!(s.len(), 2, "{s:?}");
    assert!(
        s[0].starts_with("argument `st.MPI_SOURCE` of MPI_Send at steer_status.c:10 reads `st`"),
        "{s:?}"
    );
    assert!(
        s[1].starts_with("`if (v > 1)` at steer_status.c:14 reads `v`"),
        "{s:?}"
    );
}

#[test]
fn a_waitany_is_free_when_its_index_and_status_reach_nothing_mpi_sees() {
    let a = common::analyze("facts", &["waitany_free.c"]);
    let w = site(&a, "waitany_free.c", 21, "MPI_Waitany");
    assert_eq!(a.facts.free_waits, vec![w]);
    // The environment is the same in every run of a check, as the command
    // line is: nothing here steers.
    assert_eq!(a.facts.steering, Vec::<String>::new());
}

#[test]
fn a_waitany_whose_index_or_status_reaches_an_mpi_call_is_not_free() {
    let a = common::analyze("facts", &["waitany_steers.c"]);
    let waits: Vec<u32> = [15, 17, 20, 24, 27]
        .iter()
        .map(|&l| site(&a, "waitany_steers.c", l, "MPI_Waitany"))
        .collect();
    assert_eq!(waits.len(), 5);
    assert_eq!(a.facts.free_waits, Vec::<u32>::new());
}

#[test]
fn a_receive_whose_data_reaches_nothing_mpi_sees_is_free_in_a_steered_program() {
    let a = common::analyze("facts", &["steer_elsewhere.c"]);
    assert!(
        a.facts.steering[0].starts_with("`do ... while (total > 1.0)`"),
        "{:?}",
        a.facts.steering
    );
    let row = site(&a, "steer_elsewhere.c", 21, "MPI_Recv");
    let decides = site(&a, "steer_elsewhere.c", 24, "MPI_Recv");
    assert_ne!(row, decides);
    assert_eq!(a.facts.free_receives, vec![row]);
}

#[test]
fn a_virtual_override_is_looked_into() {
    let a = common::analyze("facts", &["virtual_override.cpp"]);
    let printed = site(&a, "virtual_override.cpp", 27, "MPI_Recv");
    let steers = site(&a, "virtual_override.cpp", 29, "MPI_Recv");
    assert_ne!(printed, steers);
    assert_eq!(a.facts.free_receives, vec![printed]);
    assert_eq!(a.facts.dead, Vec::<u32>::new());
}

#[test]
fn a_function_run_through_a_pointer_is_looked_into() {
    let a = common::analyze("facts", &["steer_by_pointer.c"]);
    let printed = site(&a, "steer_by_pointer.c", 27, "MPI_Recv");
    let kept = site(&a, "steer_by_pointer.c", 29, "MPI_Recv");
    assert_ne!(printed, kept);
    assert_eq!(a.facts.free_receives, vec![printed]);
    // `forward` runs through a pointer; `unused` never runs, and steers
    // nothing.
    let never = site(&a, "steer_by_pointer.c", 17, "MPI_Send");
    assert_eq!(a.facts.dead, vec![never]);
    assert!(!a.facts.steering.is_empty());
    assert!(
        a.facts.steering.iter().all(|r| !r.contains("unused")),
        "{:?}",
        a.facts.steering
    );
}

#[test]
fn a_probe_whose_status_only_names_its_receives_source_count_and_tag_is_free() {
    let a = common::analyze("facts", &["probe_rows.c"]);
    let row = |line, callee| site(&a, "probe_rows.c", line, callee);
    // Sized from the status, with a fixed count, and with the probed tag;
    // the third probe's source also names a send's destination, and the
    // last receive's count reads what an earlier receive got.
    assert_eq!(
        a.facts.free_probes,
        vec![
            instrument::ProbeRow {
                probe: row(15, "MPI_Probe"),
                recv: row(18, "MPI_Recv"),
                sized: true,
                tagged: false,
                dispatch: false,
            },
            instrument::ProbeRow {
                probe: row(24, "MPI_Probe"),
                recv: row(25, "MPI_Recv"),
                sized: false,
                tagged: false,
                dispatch: false,
            },
            instrument::ProbeRow {
                probe: row(35, "MPI_Probe"),
                recv: row(36, "MPI_Recv"),
                sized: false,
                tagged: true,
                dispatch: false,
            },
        ]
    );
}

#[test]
fn matched_probes_whose_mrecv_is_sized_from_the_status_are_rows() {
    let a = common::analyze("facts", &["sized_mprobe_rows.c"]);
    let row = |line, callee| site(&a, "sized_mprobe_rows.c", line, callee);
    // The first row's count is the probe's; the second probe's status also
    // names a send's destination, and the third count reads what an
    // earlier receive got. None of them is free as it stands: the status
    // reaches a count.
    assert_eq!(
        a.facts.free_probes,
        vec![instrument::ProbeRow {
            probe: row(16, "MPI_Mprobe"),
            recv: row(19, "MPI_Mrecv"),
            sized: true,
            tagged: false,
            dispatch: false,
        }]
    );
    assert_eq!(a.facts.free_receives, Vec::<u32>::new());
}

#[test]
fn a_matched_probe_whose_messages_reach_nothing_mpi_sees_is_free() {
    let a = common::analyze("facts", &["mprobe_rows.c"]);
    assert!(!a.facts.steering.is_empty());
    // The matched probe's messages are only printed; the wildcard receive's
    // decides a send.
    let mprobe = site(&a, "mprobe_rows.c", 13, "MPI_Mprobe");
    let steers = site(&a, "mprobe_rows.c", 18, "MPI_Recv");
    assert_ne!(mprobe, steers);
    assert_eq!(a.facts.free_receives, vec![mprobe]);
}

#[path = "../examples/common/program.rs"]
mod program;

/// The static analysis of a large generated program (the benchmark's,
/// `examples/time_analysis.rs`) finds every site and fact: one barrier and
/// one wildcard receive per function, and every row whose statuses and
/// data only go into an array and a file free, while the receives whose
/// data steer a barrier are not.
#[test]
fn a_large_program_gets_every_fact() {
    let p = program::program(30_000);
    let dir = std::env::temp_dir().join(format!("fib-facts-large-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("gen.c");
    std::fs::write(&path, &p.text).unwrap();
    let a = instrument::analyze(&dir, &[(path, common::flags())]).expect("analyze");
    std::fs::remove_dir_all(&dir).unwrap();
    // Per function: a send, a receive, a barrier, an allreduce; per row:
    // a send and a receive; and main's four calls.
    assert_eq!(a.sites.sites.len(), 4 * p.functions + 2 * p.rows + 4);
    assert_eq!(a.facts.barriers.len(), p.functions);
    assert_eq!(a.facts.wildcards.len(), p.functions + p.rows);
    let rows: Vec<u32> = a
        .sites
        .sites
        .iter()
        .filter(|s| {
            s.callee == "MPI_Recv"
                && s.function
                    .as_deref()
                    .is_some_and(|f| f.starts_with("frame"))
        })
        .map(|s| s.id)
        .collect();
    assert_eq!(rows.len(), p.rows);
    assert_eq!(a.facts.free_receives, rows);
    assert!(!a.facts.steering.is_empty());
    let text: Vec<&instrument::CallSite> = a.sites.sites.iter().collect();
    assert_eq!(
        instrument::rewrite(&p.text, &text).lines().count(),
        p.text.lines().count()
    );
}

#[test]
fn calls_that_run_for_some_inputs_name_the_condition_and_the_input() {
    use instrument::Input;
    let a = common::analyze("facts", &["inputs.c"]);
    let guards = |line: u32, callee: &str| a.input_guards(site(&a, "inputs.c", line, callee));
    // Run whatever the input: the broadcast itself, the wildcard receive.
    assert_eq!(guards(20, "MPI_Bcast"), None);
    assert_eq!(guards(25, "MPI_Recv"), None);
    // The loop bound comes from the command line through a function's
    // result (on rank 0; the broadcast's data is open, not an input).
    let looped = guards(22, "MPI_Barrier").expect("loop is input-dependent");
    assert_eq!(looped.reasons.len(), 1);
    assert_eq!(looped.reasons[0].input, Input::Arguments);
    assert_eq!(looped.reasons[0].condition, "for (int i = 0; i < n; i++)");
    assert_eq!(looped.reasons[0].line, 21);
    assert!(looped.open, "n is also filled by MPI_Bcast");
    // A function called under an environment test: its calls inherit the
    // caller's condition, next to their own rank test.
    for (line, callee) in [(9, "MPI_Send"), (11, "MPI_Recv")] {
        let g = guards(line, callee).expect("called under getenv");
        assert_eq!(g.reasons.len(), 1, "{g:?}");
        assert_eq!(g.reasons[0].input, Input::Environment);
        assert_eq!(g.reasons[0].condition, "if (getenv(\"VERBOSE\"))");
        assert!(g.reasons[0]
            .source
            .starts_with("the result of getenv() at inputs.c:23"));
        assert!(!g.open);
    }
    // Received data decides: open, no input named.
    let received = guards(27, "MPI_Barrier").expect("received data is open");
    assert!(received.open);
    assert!(received.reasons.is_empty());
}

/// Analyses a program of the command-line tests (`tests/cli`).
fn cli_program(file: &str) -> Analysis {
    common::analyze("../../../tests/cli", &[file])
}

/// A barrier's purpose as the tests compare it: the barrier's line, the
/// purpose, the call that shows it, that call's line, and the call of the
/// barrier's function it follows (name and line), if any.
type PurposeRow = (
    u32,
    instrument::PurposeKind,
    String,
    u32,
    Option<(String, u32)>,
);

/// Each barrier with a purpose, as a [`PurposeRow`].
fn purposes_via(a: &Analysis) -> Vec<PurposeRow> {
    a.facts
        .purposes
        .iter()
        .map(|p| {
            (
                a.sites.sites[p.site as usize].line,
                p.kind,
                p.callee.clone(),
                p.line,
                p.via.as_ref().map(|v| (v.function.clone(), v.line)),
            )
        })
        .collect()
}

#[test]
fn a_barrier_that_ends_its_function_orders_what_its_callers_print_next() {
    use instrument::PurposeKind::Output;
    let a = cli_program("barrier_wrapper.c");
    assert_eq!(
        purposes_via(&a),
        [
            // The wrapper: `stamp` prints right after calling it.
            (
                11,
                Output,
                "printf".into(),
                18,
                Some(("sync_all".into(), 16))
            ),
            (23, Output, "printf".into(), 25, None),
            // The separator's last barrier: `main` shows its array after
            // the first call (the second is followed by a reduction).
            (
                26,
                Output,
                "show".into(),
                42,
                Some(("separator".into(), 41))
            ),
        ]
    );
    assert_eq!(
        a.facts.purposes[0].via.as_ref().unwrap().file.to_str(),
        Some("barrier_wrapper.c")
    );
}

#[test]
fn a_callee_counts_only_for_live_calls_before_its_own_mpi_calls() {
    use instrument::PurposeKind::Timing;
    let a = cli_program("callee_purposes.c");
    // `measure`'s own barrier comes before its clock reading, and `fill`'s
    // output is under `if (DEBUG)` with `DEBUG` 0: neither barrier of
    // `main` has a purpose.
    assert_eq!(
        purposes_via(&a),
        [(16, Timing, "MPI_Wtime".into(), 17, None)]
    );
}

#[test]
fn the_conditions_that_keep_a_barrier_away_say_what_can_change_them() {
    use instrument::GateKind;
    let a = cli_program("not_covered_gates.c");
    let gates = |line: u32| -> Vec<(String, u32, GateKind)> {
        let id = site(&a, "not_covered_gates.c", line, "MPI_Barrier");
        a.facts
            .gates
            .iter()
            .filter(|g| g.site == id)
            .map(|g| (g.text.clone(), g.line, g.by.clone()))
            .collect()
    };
    assert_eq!(
        gates(22),
        [(
            "if (debug)".to_string(),
            21,
            GateKind::Off {
                why: "`debug` is 0 wherever it is set".into(),
                macro_def: None,
                left_out: Some(instrument::LeftOut {
                    file: "not_covered_gates.c".into(),
                    line: 14,
                    directive: "#ifdef DEBUG".into(),
                    flag: Some("-DDEBUG".into()),
                }),
            }
        )]
    );
    assert_eq!(
        gates(24),
        [(
            "if (TRACE)".to_string(),
            23,
            GateKind::Off {
                why: "its condition is the constant 0 in this build".into(),
                macro_def: Some(("TRACE".into(), "not_covered_gates.c".into(), 8)),
                left_out: None,
            }
        )]
    );
    assert_eq!(
        gates(26),
        [(
            "if (argc > 2)".to_string(),
            25,
            GateKind::Input {
                reason: "`if (argc > 2)` at not_covered_gates.c:25 reads `argc`, the command line (`argc`/`argv`)".into()
            }
        )]
    );
    assert_eq!(
        gates(28),
        [("if (size > 4)".to_string(), 27, GateKind::Count)]
    );
    assert_eq!(gates(29), []);
}
