//! Tests of the finding codes: every code is documented in full and has a
//! rule that makes its findings, codes are unique and well formed, and lookup
//! ignores case.

use std::collections::HashSet;

use fib_report::codes::{
    self, Abort, BarrierNotCovered, BarrierNotReached, BarrierUndecided, BufferInUse,
    BufferOverflow, BufferTypeMismatch, BufferingDeadlock, BuildFailed, BuildStage, ChoiceAt, Code,
    CollectiveArguments, CollectiveMismatch, CollectivesTwoThreads, ConfirmDisagreement, Crash,
    Deadlock, EpochError, ExplorationCut, FailingExit, FreedActiveRequest, InputDependentCall,
    Inputs, InvalidCall, IrrelevantBarrier, LayoutFault, LeakedCommunicator, LeakedHandle,
    LeakedRequest, LeakedWindow, Livelock, LostTrack, MpiError, NoFinalize, NullStatus, Observed,
    OutOfWindow, RaceAccess, ReadySendUnposted, RelevantBarrier, RelevantByRemoval, ReplayDiverged,
    RequestReusedThreads, RequestTwoThreads, Rule, Scope, StructLayout, ThreadLevelUnchecked,
    ThreadNotMain, ThreadsConcurrent, Timeout, Touch, TypeMismatch, UnreceivedMessage, Unsupported,
    UnusedWaiver, WindowRace, SECTIONS,
};
use fib_report::{Finding, Place, RankState, SiteRef, Verdict, WitnessOp};

#[test]
fn every_code_has_all_four_sections_in_order() {
    for code in codes::ALL {
        let mut from = 0;
        for section in SECTIONS {
            let heading = format!("{section}\n");
            let at = code.explanation[from..].find(&heading).unwrap_or_else(|| {
                panic!("{} lacks '{section}' (or it is out of order)", code.code)
            });
            from += at + heading.len();
        }
        assert!(
            code.explanation.contains("\n    "),
            "{} has no indented example",
            code.code
        );
        assert!(
            !code.summary.is_empty() && !code.name.is_empty(),
            "{}",
            code.code
        );
    }
}

#[test]
fn codes_are_unique_and_numbered_in_order() {
    let mut seen = HashSet::new();
    let mut last = 0;
    for code in codes::ALL {
        assert!(seen.insert(code.code), "{} appears twice", code.code);
        let n: u32 = code.code.strip_prefix("FIB").unwrap().parse().unwrap();
        assert_eq!(code.code, format!("FIB{n:03}"));
        assert!(n > last, "{} is out of order", code.code);
        last = n;
    }
    assert_eq!(codes::ALL.len(), 45);
    let names: HashSet<_> = codes::ALL.iter().map(|c| c.name).collect();
    assert_eq!(names.len(), codes::ALL.len(), "names are unique");
}

#[test]
fn lookup_ignores_case() {
    assert_eq!(codes::lookup("fib001").unwrap().name, "deadlock");
    assert_eq!(codes::lookup("FIB010").unwrap().name, "polling-livelock");
    assert!(codes::lookup("FIB000").is_none());
    assert!(codes::lookup("deadlock").is_none());
}

#[test]
fn explain_prints_the_header_and_the_text() {
    let text = fib_report::explain("fib009").unwrap();
    assert!(text.starts_with("FIB009 collective-mismatch (error)\n\nRanks of one communicator"));
    assert!(text.contains("## What to do\n"));
    assert!(fib_report::explain("nope").is_none());
}

/// One example of every rule, with the code its type declares, and the
/// finding it makes. An enum rule gives one example per form.
fn examples() -> Vec<(&'static Code, Finding)> {
    macro_rules! examples {
        ($($rule:expr),* $(,)?) => {
            vec![$(example($rule)),*]
        };
    }
    fn example<R: Rule>(rule: R) -> (&'static Code, Finding) {
        (R::CODE, rule.finding())
    }
    let place = || Place {
        file: Some("a.c".into()),
        line: Some(3),
        column: Some(5),
        span: Some((20, 30)),
    };
    let rank = |rank: usize, call: &str| RankState {
        rank,
        call: call.into(),
        file: Some("a.c".into()),
        line: Some(10 + rank as u32),
        column: Some(5),
        span: None,
        thread: None,
    };
    let ranks = || vec![rank(0, "MPI_Recv"), rank(1, "MPI_Send")];
    let site = |line: u32| SiteRef {
        file: "a.c".into(),
        line,
        column: 5,
        span: None,
    };
    let op = |line: u32, rank: usize, call: &str| WitnessOp {
        file: Some("a.c".into()),
        line: Some(line),
        column: Some(5),
        rank,
        call: call.into(),
        span: None,
    };
    let replay = || "0".to_string();
    let stderr = || "oops\n".to_string();
    examples![
        Deadlock {
            ranks: ranks(),
            replay: replay(),
        },
        Crash {
            rank: 1,
            signal: 11,
            place: place(),
            after_call: true,
            stderr: stderr(),
            replay: replay(),
        },
        Abort {
            rank: 0,
            error_code: 1,
            place: place(),
            stderr: stderr(),
            replay: replay(),
        },
        NoFinalize::Exited {
            rank: 1,
            status: Some(1),
            place: place(),
            last_call: true,
            stderr: stderr(),
            replay: replay(),
        },
        NoFinalize::LaunchEnded {
            status: "exited with status: 1".into(),
            calls: 0,
            stderr: stderr(),
            replay: replay(),
        },
        Timeout {
            ranks: vec![rank(0, "MPI_Recv"), rank(1, "running")],
            last: Some("MPI_Send".into()),
            replay: replay(),
        },
        Unsupported::Reached {
            rank: 0,
            call: "MPI_Cancel".into(),
            place: place(),
            scope: Scope::NotYet,
            replay: replay(),
        },
        Unsupported::Listed {
            call: "MPI_Put".into(),
            place: place(),
            scope: Scope::OneSided,
            ran: false,
        },
        BuildFailed {
            program: "a.c".into(),
            stage: BuildStage::Compile,
            file: Some("a.c".into()),
            line: Some(3),
            output: "a.c:3: error\n".into(),
        },
        ReplayDiverged::TooManyChoices { replay: replay() },
        ReplayDiverged::Diverged {
            index: 0,
            expected: Some(ChoiceAt {
                rank: 0,
                call: 2,
                alternatives: 2,
            }),
            found: None,
            place: Place::default(),
            replay: replay(),
        },
        CollectiveMismatch {
            comm: "MPI_COMM_WORLD".into(),
            ranks: vec![rank(0, "MPI_Bcast"), rank(1, "MPI_Barrier")],
            replay: replay(),
        },
        Livelock {
            ranks: vec![rank(0, "MPI_Test"), rank(1, "MPI_Iprobe")],
            replay: replay(),
        },
        ExplorationCut {
            max_interleavings: 10,
        },
        InvalidCall {
            rank: 0,
            message: "tag -1".into(),
            place: place(),
            earlier: None,
            replay: replay(),
        },
        LostTrack {
            rank: None,
            message: "a malformed frame".into(),
            replay: replay(),
        },
        IrrelevantBarrier {
            purposes: vec![],
            group: vec![site(3), site(7)],
            inputs: Inputs::Every,
            interleavings: 1,
            ranks: 2,
            instances: 2,
            cut: false,
            note: None,
            ordered_by: None,
        },
        RelevantBarrier {
            group: vec![site(4)],
            inputs: Inputs::Tested {
                reason: "argc".into(),
            },
            recv: op(3, 0, "MPI_Recv"),
            send: op(9, 2, "MPI_Send"),
            path: vec!["rank 0 MPI_Recv at a.c:3".into()],
            replay: replay(),
            note: None,
        },
        RelevantByRemoval {
            group: vec![site(4)],
            inputs: Inputs::Every,
            note: None,
        },
        BarrierNotCovered {
            group: vec![site(5)],
            inputs: None,
            note: None,
            gates: Vec::new(),
        },
        BarrierNotReached {
            group: vec![site(5)],
            failure: "deadlocked",
        },
        BarrierUndecided {
            group: vec![site(5)],
            interleavings: 3,
        },
        ConfirmDisagreement {
            program: "a.c".into(),
            group: vec![site(4)],
            fast: Verdict::Irrelevant,
            removal: Verdict::Relevant,
            with: Observed::default(),
            without: Observed::default(),
        },
        LeakedRequest {
            ranks: vec![0],
            count: 1,
            call: "MPI_Isend".into(),
            persistent: false,
            place: place(),
            replay: replay(),
        },
        LeakedCommunicator {
            ranks: vec![0, 1],
            count: 2,
            call: "MPI_Comm_dup".into(),
            place: place(),
            replay: replay(),
        },
        EpochError {
            rank: 0,
            call: "MPI_Put".into(),
            window: "the window made by MPI_Win_allocate at a.c:4".into(),
            problem: "rank 1 is accessed outside an access epoch".into(),
            place: place(),
            opened: vec![(place(), "the window is made here".into())],
            help: "open an epoch first".into(),
            replay: replay(),
        },
        OutOfWindow {
            rank: 0,
            call: "MPI_Get".into(),
            window: "the window made by MPI_Win_create at a.c:4".into(),
            problem: "target rank 2 is outside the window's group of 2 processes".into(),
            place: place(),
            made: Some(place()),
            help: "name a rank of the window's communicator".into(),
            replay: replay(),
        },
        LeakedWindow {
            ranks: vec![0, 1],
            count: 1,
            call: "MPI_Win_allocate".into(),
            place: place(),
            replay: replay(),
        },
        WindowRace {
            first: RaceAccess {
                rank: 0,
                what: "load".into(),
                target: 0,
                offset: 0,
                len: 4,
                place: place(),
                completed_by: None,
                buffer: None,
            },
            second: RaceAccess {
                rank: 1,
                what: "MPI_Put".into(),
                target: 0,
                offset: 0,
                len: 4,
                place: place(),
                completed_by: None,
                buffer: None,
            },
            same_origin: false,
            replay: replay(),
        },
        UnreceivedMessage {
            ranks: vec![0],
            count: 1,
            call: "MPI_Send".into(),
            dests: vec![1],
            place: place(),
            replay: replay(),
            probe: None,
            cancel_failed: false,
        },
        MpiError {
            rank: 1,
            call: Some("MPI_Recv".into()),
            text: "Message truncated".into(),
            place: place(),
            replay: replay(),
        },
        FailingExit {
            rank: 0,
            status: 2,
            place: place(),
            stderr: stderr(),
            replay: replay(),
        },
        BufferingDeadlock {
            ranks: vec![rank(0, "MPI_Send"), rank(1, "MPI_Send")],
            replay: replay(),
        },
        UnusedWaiver {
            place: place(),
            unused: vec!["FIB014".into()],
            unknown: vec![],
            partly_used: false,
            reason: None,
        },
        ReadySendUnposted {
            rank: 0,
            call: "MPI_Rsend".into(),
            dest: 1,
            place: place(),
            replay: replay(),
        },
        LeakedHandle {
            ranks: vec![0, 1],
            count: 2,
            call: "MPI_Type_vector".into(),
            noun: "datatype".into(),
            free_call: "MPI_Type_free".into(),
            place: place(),
            replay: replay(),
        },
        FreedActiveRequest {
            ranks: vec![1],
            count: 1,
            send: false,
            op_call: "MPI_Irecv".into(),
            op_place: place(),
            place: place(),
            replay: replay(),
        },
        TypeMismatch {
            send_rank: 0,
            send_call: "MPI_Send".into(),
            send_type: "MPI_INT".into(),
            send_place: place(),
            recv_rank: 1,
            recv_call: "MPI_Recv".into(),
            recv_type: "MPI_FLOAT".into(),
            place: place(),
            replay: replay(),
        },
        CollectiveArguments {
            call: "MPI_Allreduce".into(),
            what: "operation".into(),
            members: vec![
                (0, "MPI_SUM".into(), place()),
                (1, "MPI_MAX".into(), place())
            ],
            replay: replay(),
        },
        BufferTypeMismatch {
            call: "MPI_Send".into(),
            buffer: "double *".into(),
            canonical: "double *".into(),
            datatype: "MPI_INT".into(),
            describes: "int".into(),
            suggest: Some("MPI_DOUBLE".into()),
            place: place(),
            datatype_place: place(),
        },
        NullStatus {
            call: "MPI_Recv".into(),
            arg: "NULL".into(),
            array: false,
            place: place(),
        },
        BufferInUse {
            ranks: vec![0],
            touch: Touch::Store,
            size: 4,
            offset: 0,
            owner_call: "MPI_Isend".into(),
            owner_place: place(),
            place: place(),
            replay: "-".into(),
            unordered: None,
        },
        BufferOverflow {
            rank: 0,
            call: "MPI_Recv".into(),
            buffer: Some("buf".into()),
            writes: true,
            count: 20,
            ranks: 0,
            block: None,
            datatype: "MPI_INT".into(),
            extent: 4,
            start: 0,
            end: 80,
            size: 40,
            memory: "the block malloc returned".into(),
            made: Some((place(), "allocated here".into())),
            place: place(),
            replay: replay(),
        },
        InputDependentCall {
            call: "MPI_Bcast".into(),
            place: place(),
            ranks: vec![0],
            condition: "if (mode % 2)".into(),
            condition_place: place(),
            input: "the command line".into(),
            source: "the command line (`argc`/`argv`)".into(),
            others: vec![("MPI_Bcast".into(), place(), vec![1])],
            replay: replay(),
        },
        StructLayout {
            call: "MPI_Send".into(),
            datatype: "t".into(),
            struct_name: "struct cell".into(),
            block: 1,
            fault: LayoutFault::Outside { disp: 64, size: 16 },
            ranks: vec![0],
            place: place(),
        },
        ThreadNotMain {
            ranks: vec![0],
            thread: 1,
            construct: None,
            call: "MPI_Send".into(),
            place: place(),
            level: "MPI_THREAD_FUNNELED".into(),
            init_call: "MPI_Init_thread".into(),
            init_place: place(),
            replay: replay(),
        },
        ThreadsConcurrent {
            ranks: vec![0],
            thread: 1,
            call: "MPI_Send".into(),
            place: place(),
            other: 0,
            other_call: "MPI_Recv".into(),
            other_place: place(),
            overlapped: true,
            replay: replay(),
        },
        ThreadLevelUnchecked {
            ranks: vec![0],
            thread: 1,
            call: "MPI_Send".into(),
            place: place(),
            required: "MPI_THREAD_MULTIPLE".into(),
            level: "MPI_THREAD_MULTIPLE".into(),
            init_place: place(),
            replay: replay(),
        },
        RequestTwoThreads {
            ranks: vec![0],
            thread: 1,
            call: "MPI_Wait".into(),
            place: place(),
            other: 0,
            other_call: "MPI_Wait".into(),
            other_place: place(),
            replay: replay(),
        },
        CollectivesTwoThreads {
            ranks: vec![0],
            thread: 1,
            call: "MPI_Bcast".into(),
            place: place(),
            other: 0,
            other_call: "MPI_Barrier".into(),
            other_place: place(),
            replay: replay(),
        },
        RequestReusedThreads {
            ranks: vec![0],
            thread: 1,
            call: "MPI_Irecv".into(),
            place: place(),
            other: 0,
            other_call: "MPI_Wait".into(),
            other_place: place(),
            replay: replay(),
        },
    ]
}

/// The documentation test: every rule's finding carries the rule's code,
/// that code is listed in `codes::ALL` and documented in full, the finding
/// shows the code's severity, and every listed code has a rule.
#[test]
fn every_rule_has_a_documented_code_and_every_code_a_rule() {
    let mut covered = HashSet::new();
    for (code, f) in examples() {
        assert!(
            f.code == code,
            "{}'s rule made a {} finding",
            code.code,
            f.code.code
        );
        assert!(
            codes::ALL.contains(&code),
            "{} is not in codes::ALL",
            code.code
        );
        assert_eq!(codes::lookup(code.code), Some(code));
        for section in SECTIONS {
            assert!(
                code.explanation.contains(&format!("{section}\n")),
                "{} lacks '{section}'",
                code.code
            );
        }
        assert_eq!(f.severity(), code.severity);
        let json = serde_json::to_value(&f).unwrap();
        assert_eq!(json["code"], code.code);
        assert_eq!(json["severity"], code.severity.as_str());
        assert!(!f.message.is_empty(), "{} has no message", code.code);
        covered.insert(code.code);
    }
    for code in codes::ALL {
        assert!(covered.contains(code.code), "{} has no rule", code.code);
    }
}

#[test]
fn only_lost_track_and_confirm_disagreement_are_tool_failures() {
    let failures: Vec<&str> = codes::ALL
        .iter()
        .filter(|c| c.tool_failure)
        .map(|c| c.code)
        .collect();
    assert_eq!(failures, ["FIB013", "FIB017"]);
}
