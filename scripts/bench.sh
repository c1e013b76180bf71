#!/usr/bin/env bash
# Measures fib against plain MPI on two call-heavy programs:
#   bench/pingpong.c  2 ranks, 50 000 round trips (100 000 messages)
#   bench/barriers.c  4 ranks, 10 000 barriers
# and on two small programs where launching dominates, the case of most
# real checks: a ring exchange (one interleaving) and a wildcard receive
# with three senders (six interleavings), both from tests/umpire.
# For each, the best of BENCH_RUNS (default 3) runs of the natively compiled
# program under mpiexec.mpich, and of `fib check --format json`. It prints
# the intercepted calls per second through fib's scheduler and fib's time
# per interleaving over the native time (the design's limit is 1.0).
#
# A command whose runs have taken more than a minute in total is not run
# again: with more ranks than cores, MPICH's busy waiting makes a native
# barrier cost milliseconds, and the native barrier loop can take minutes.
#
# bench/server.c (4 ranks, 2 000 wildcard requests per client, first
# interleaving only) shows how the scheduler scales with choice points.
# bench/waitany.c (below) shows what one run for every order of a row of
# MPI_Waitany saves.
# bench/bandwidth.c (2 ranks, 500 rounds of seventeen 1 MiB messages) shows
# what large messages cost: sent from the program's buffer, and with
# FIB_COPY_SENDS=1 from a copy, as fib does once a run needs it.
# bench/rma.c (2 ranks, 200 rounds of a fence epoch of four puts and two
# lock epochs with an accumulate each) shows what one-sided communication
# costs against native MPI.
# bench/hybrid/hybrid.c (2 ranks of 2 OpenMP threads each, 200 steps of a
# relaxation of 65 536 doubles with a halo exchange by the main thread,
# MPI_THREAD_FUNNELED) shows what a multithreaded rank costs: the memory
# instrumentation sees every thread's loads and stores, and the threads'
# synchronisation goes through fib's wrappers (OMP_WAIT_POLICY=passive:
# four spinning threads on two cores would measure the spinning).
# bench/mt_pingpong.c (2 ranks of 2 POSIX threads each, MPI_THREAD_MULTIPLE,
# 2 000 round trips per pair of threads on its own tag) shows what a rank
# whose threads are inside MPI at once costs: every call waits until the
# scheduler enters it into the rank's sequence of calls.
#
# Further sections: launching under MPICH and Open MPI, fib's own mpiexec
# against a launch command of the user's (--launcher: hydra's mpiexec and
# Slurm's srun, the ranks reaching fib over TCP), --jobs 1 against
# --jobs 2, one run for every order of a row of wildcard receives or of
# MPI_Waitany against --exhaustive, rows whose statuses only steer data
# (the programs of tests/choices, and tests/choices/diffusion_frames.c at 8 ranks and 50 steps) against
# --exhaustive, the static analysis, the Fib pass alone, and its share of
# a check.
#
# Environment: BENCH_RUNS, PINGPONG_ROUNDS, BARRIERS, SERVER_REQUESTS,
# BANDWIDTH_ROUNDS, NONBLOCKING_ROUNDS, RMA_ROUNDS, HYBRID_STEPS, RING_RANKS,
# CALLS_ROUNDS override the defaults;
# CHOICES_LIMIT (default 50) is the interleaving limit of each run of the
# section on rows whose statuses only steer data; STATIC_LINES (default
# "10000 100000 200000 1000000") the sizes of the static analysis's programs.
# BENCH_SECTION=choices, static, launcher or modes runs only that section
# (after the build).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

bash scripts/setup.sh
cargo build --release --workspace
MPICC=mpicc.openmpi cargo build --release -p fib-interpose --target-dir target/openmpi

export HWLOC_COMPONENTS=-linuxio,-pci

# Rows whose statuses only steer data: the diffusion solver that writes a
# frame at every step through status-computed file positions
# (tests/choices/diffusion_frames.c, 8 ranks on a 2x4 grid, 50 steps: 5040^50
# orders) and every program of tests/choices at its header's process
# count (frame writer, probe dispatch, Waitany row, near-misses), each
# with the default exploration and with --exhaustive, side by side. A run
# stopped by its interleaving limit prints "limit reached"; the verdicts
# (barrier groups, findings by code and line) of the two runs are compared
# when neither was stopped. Then the programs of tests/umpire whose rows of
# wildcard receives are tried in probe runs (neighbour lists learnt from
# statuses, with and without a reduced time, and their near-misses), the
# probe runs counted apart.
choices_section() {
    python3 - "${CHOICES_LIMIT:-50}" <<'PY'
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

limit = int(sys.argv[1])
# (program, ranks, arguments, interleaving limit)
cases = [("tests/choices/diffusion_frames.c", 8, ["50"], limit)]
# Rows whose order is tried (probe runs): the neighbour lists learnt from
# statuses, with and without a time reduced, their near-misses, and a
# wildcard receive with three senders.
tried = [p for p in sorted(glob.glob("tests/umpire/neighbours_by_status*.c"))
         if not p.endswith("_exhaustive.c")] + ["tests/umpire/any_src_three_senders_ok.c"]
for path in sorted(glob.glob("tests/choices/*.c")) + tried:
    with open(path) as f:
        header = f.readline()
    n = int(header.split("nprocs=")[1].split()[0])
    cases.append((path, n, [], limit))


def check(path, n, args, cap, flags):
    # In a directory of its own: some programs write files.
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        out = subprocess.run(
            [os.path.abspath("target/release/fib"), "check", os.path.abspath(path), "-n", str(n),
             "--max-interleavings", str(cap), *flags, "--format", "json", "--", *args],
            capture_output=True, text=True, cwd=scratch)
    took = time.perf_counter() - start
    p = json.loads(out.stdout)["programs"][0]
    verdicts = sorted((tuple(sorted(s["line"] for s in b["group"])), b["verdict"])
                      for b in p["barriers"])
    findings = sorted((f["code"], f.get("line")) for f in p["findings"])
    il = p["interleavings"]
    shown = f"{il} limit reached" if il >= cap else str(il)
    probes = str(p["timing"].get("probe_runs", 0))
    return shown, il >= cap, took, p["outcome"], (verdicts, findings), probes


header = ("program", "ranks", "arg", "outcome", "il", "probes", "s", "--exhaustive il",
          "--exhaustive s", "same verdicts")
rows = []
for path, n, args, cap in cases:
    il, stopped, took, outcome, seen, probes = check(path, n, args, cap, [])
    il2, stopped2, took2, outcome2, seen2, _ = check(path, n, args, cap, ["--exhaustive"])
    if stopped or stopped2:
        same = "-"
    else:
        same = "yes" if (outcome, seen) == (outcome2, seen2) else "NO"
    rows.append((path.split("/")[-1], str(n), " ".join(args) or "-", outcome, il, probes,
                 f"{took:.2f}", il2, f"{took2:.2f}", same))
widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
for row in [header] + rows:
    print("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))))
print(f"il = interleavings run (at most {limit}, CHOICES_LIMIT); arg = steps; same verdicts: outcome,")
print("barrier verdicts and findings (code, line) of the two runs, compared when neither reached")
print("its limit (cargo test --test choices runs every order of the programs of tests/choices);")
print("probes = probe runs of rows whose order is tried, not counted in il")
PY
}

# The static half: libclang analysis and rewriting of generated programs
# of about 10 000, 100 000, 200 000 and 1 000 000 lines (STATIC_LINES).
static_section() {
    # shellcheck disable=SC2086
    cargo run -q --release -p instrument --example time_analysis ${STATIC_LINES:-10000 100000 200000 1000000}
}

# The scheduler reached over TCP by ranks a launcher of the user's starts
# (`--launcher`): the ping-pong and the two small programs, with fib's own
# `mpiexec` (Unix socket), hydra's `mpiexec` as a launch command, and
# Slurm's `srun` (scripts/slurm.sh starts the one-node cluster).
launcher_section() {
    bash scripts/slurm.sh
    python3 - "${BENCH_RUNS:-3}" "${PINGPONG_ROUNDS:-50000}" <<'PY'
import json
import subprocess
import sys
import time

runs = int(sys.argv[1])
launchers = [
    ("fib's mpiexec (Unix socket)", []),
    ("--launcher 'mpiexec.mpich -n {n}' (TCP)", ["--launcher", "mpiexec.mpich -n {n}"]),
    ("--launcher 'srun --mpi=pmi2 -n {n}' (TCP)", ["--launcher", "srun --mpi=pmi2 -n {n}"]),
]
cases = [
    ("bench/pingpong.c", 2, [sys.argv[2]]),
    ("tests/umpire/isend_irecv_ring.c", 4, []),
    ("tests/umpire/any_src_three_senders_ok.c", 4, []),
]
rows = []
for path, n, args in cases:
    for name, flags in launchers:
        best = None
        for _ in range(runs):
            start = time.perf_counter()
            out = subprocess.run(["target/release/fib", "check", path, "-n", str(n), *flags,
                                  "--format", "json", "--", *args],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            took = time.perf_counter() - start
            if out.returncode not in (0, 1):
                sys.exit(f"bench: {path} with {name} exited with {out.returncode}:\n{out.stderr}")
            if best is None or took < best[0]:
                best = (took, json.loads(out.stdout)["programs"][0])
        took, p = best
        il = p["interleavings"] + p["timing"].get("probe_runs", 0)
        explore = p["timing"]["explore_ms"] / 1000
        rows.append((path.split("/")[-1], str(n), name, p["outcome"], str(il), f"{took:.3f}",
                     f"{explore / il:.3f}", f"{p['calls'] / explore:,.0f}"))
header = ("program", "ranks", "launch", "outcome", "il", "fib s", "s/il", "calls/s")
widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
for row in [header] + rows:
    print("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))))
print(f"best of {runs} runs each; il = runs made; s/il and calls/s: the exploration alone, launch included")
PY
}

# Scheduled runs against recorded ones (--mode recorded, the ranks never
# waiting for fib): the native time, fib's time per interleaving in each
# mode, both modes' interleaving counts and outcomes, and the calls per
# second each rank makes while recorded. RING_RANKS (default "64 256"; empty
# for none) are the sizes of the ring (tests/umpire/isend_irecv_ring.c); CALLS_ROUNDS
# (default 1000000) the rounds of bench/calls.c, whose calls cost MPI
# little, so that its calls/s/rank is the recording's own rate;
# POLLS_ROUNDS (default 20000) those of bench/polls.c, whose ranks poll
# with MPI_Testall while they work; RMA_ROUNDS (default 200) those of
# bench/rma.c, fence epochs and shared lock epochs on two windows.
modes_section() {
    mkdir -p target/bench
    for src in bench/pingpong.c bench/calls.c bench/polls.c bench/server.c bench/bandwidth.c \
        bench/rma.c tests/umpire/isend_irecv_ring.c tests/diffusion2d/diffusion2d_anysrc.c; do
        mpicc.mpich -O2 -o "target/bench/$(basename "$src" .c)" "$src"
    done
    python3 - "${BENCH_RUNS:-3}" "${PINGPONG_ROUNDS:-50000}" "${SERVER_REQUESTS:-2000}" \
        "${BANDWIDTH_ROUNDS:-500}" "${RING_RANKS-64 256}" "${CALLS_ROUNDS:-1000000}" \
        "${POLLS_ROUNDS:-20000}" "${RMA_ROUNDS:-200}" <<'PY'
import json
import os
import subprocess
import sys
import time

runs = int(sys.argv[1])
cases = [
    ("bench/pingpong.c", 2, [sys.argv[2]], []),
    ("bench/calls.c", 2, [sys.argv[6]], []),
    ("bench/polls.c", 2, [sys.argv[7]], []),
    ("bench/server.c", 4, [sys.argv[3]], ["--max-interleavings", "1"]),
    ("bench/bandwidth.c", 2, [sys.argv[4]], []),
    ("bench/rma.c", 2, [sys.argv[8]], []),
    ("tests/diffusion2d/diffusion2d_anysrc.c", 8, [], ["--max-interleavings", "20"]),
] + [("tests/umpire/isend_irecv_ring.c", int(n), [], []) for n in sys.argv[5].split()]


def best(cmd, ok=(0,)):
    b = None
    for _ in range(runs):
        start = time.perf_counter()
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        took = time.perf_counter() - start
        if p.returncode not in ok:
            sys.exit(f"bench: {' '.join(cmd)} exited with {p.returncode}:\n{p.stderr[-2000:]}")
        if b is None or took < b[0]:
            b = (took, p.stdout)
        if took > 60:
            break
    return b


rows = []
for path, n, args, flags in cases:
    name = os.path.basename(path)[:-2]
    native = best(["mpiexec.mpich", "-n", str(n), f"target/bench/{name}", *args])[0]
    cells = [f"{name}.c", str(n), f"{native:.3f}"]
    for mode in ("scheduled", "recorded"):
        took, out = best(["target/release/fib", "check", path, "-n", str(n), "--mode", mode, *flags,
                          "--format", "json", "--timeout", "3600", "--", *args], ok=(0, 1))
        p = json.loads(out)["programs"][0]
        il = p["interleavings"] + p["timing"].get("probe_runs", 0)
        explore = p["timing"]["explore_ms"] / 1000
        cells += [p["outcome"], str(il), f"{explore / il:.3f}", f"{explore / (il * native):.2f}"]
        if mode == "recorded":
            cells.append(f"{p['calls'] / il / n / (explore / il):,.0f}")
    rows.append(tuple(cells))
header = ("program", "ranks", "native s", "sched", "il", "s/il", "x native", "recorded", "il",
          "s/il", "x native", "calls/s/rank")
widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
for row in [header] + rows:
    print("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))))
print(f"best of {runs} runs each; il = runs made; s/il: the exploration per run, launch included;")
print("x native = s/il over the native time; calls/s/rank: the calls each rank makes per second of a recorded run")
PY
}

case "${BENCH_SECTION:-}" in
    choices) choices_section; exit 0 ;;
    static) static_section; exit 0 ;;
    launcher) launcher_section; exit 0 ;;
    modes) modes_section; exit 0 ;;
esac

mkdir -p target/bench
for src in bench/pingpong.c bench/barriers.c bench/server.c bench/bandwidth.c bench/nonblocking.c bench/rma.c \
    tests/umpire/isend_irecv_ring.c \
    tests/umpire/any_src_three_senders_ok.c; do
    mpicc.mpich -O2 -o "target/bench/$(basename "$src" .c)" "$src"
done
mpicc.mpich -O2 -fopenmp -o target/bench/hybrid bench/hybrid/hybrid.c
mpicc.mpich -O2 -pthread -o target/bench/mt_pingpong bench/mt_pingpong.c
export OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive

python3 - "${BENCH_RUNS:-3}" "${PINGPONG_ROUNDS:-50000}" "${BARRIERS:-10000}" \
    "${SERVER_REQUESTS:-2000}" "${BANDWIDTH_ROUNDS:-500}" "${NONBLOCKING_ROUNDS:-200}" "${RMA_ROUNDS:-200}" \
    "${HYBRID_STEPS:-200}" "${MT_PINGPONG_ROUNDS:-2000}" <<'PY'
import json
import os
import subprocess
import sys
import time

runs = int(sys.argv[1])
cases = [
    ("bench/pingpong.c", 2, [sys.argv[2]], [], {}),
    ("bench/pingpong.c", 2, [sys.argv[2]], [], {"FIB_AHEAD": "0"}),
    ("bench/pingpong.c", 2, [sys.argv[2]], [], {"FIB_MEMORY": "off"}),
    ("bench/barriers.c", 4, [sys.argv[3]], [], {}),
    ("bench/server.c", 4, [sys.argv[4]], ["--max-interleavings", "1"], {}),
    ("bench/server.c", 4, [sys.argv[4]], ["--max-interleavings", "1"], {"FIB_AHEAD": "0"}),
    ("bench/bandwidth.c", 2, [sys.argv[5]], [], {}),
    ("bench/bandwidth.c", 2, [sys.argv[5]], [], {"FIB_COPY_SENDS": "1"}),
    ("bench/nonblocking.c", 2, [sys.argv[6]], [], {}),
    ("bench/nonblocking.c", 2, [sys.argv[6]], [], {"FIB_MEMORY": "off"}),
    ("bench/rma.c", 2, [sys.argv[7]], [], {}),
    ("bench/rma.c", 2, [sys.argv[7]], [], {"FIB_MEMORY": "off"}),
    ("bench/hybrid/hybrid.c", 2, [sys.argv[8]], [], {}),
    ("bench/hybrid/hybrid.c", 2, [sys.argv[8]], [], {"FIB_MEMORY": "off"}),
    ("bench/mt_pingpong.c", 2, [sys.argv[9]], [], {}),
    ("tests/umpire/isend_irecv_ring.c", 4, [], [], {}),
    ("tests/umpire/any_src_three_senders_ok.c", 4, [], [], {}),
]
budget = 60.0


def best_of(cmd, ok=(0,), env=None):
    """Runs cmd up to `runs` times and returns the best time and that run's stdout."""
    best, spent, out = None, 0.0, ""
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, **(env or {})})
        took = time.perf_counter() - start
        if proc.returncode not in ok:
            sys.stderr.write(proc.stdout + proc.stderr)
            sys.exit(f"bench: {' '.join(cmd)} exited with {proc.returncode}")
        if best is None or took < best:
            best, out = took, proc.stdout
        spent += took
        if spent > budget:
            break
    return best, out


rows = []
natives = {}
for path, n, args, flags, env in cases:
    name = os.path.basename(path)[:-2]
    if (name, n) not in natives:
        natives[(name, n)] = best_of(["mpiexec.mpich", "-n", str(n), f"target/bench/{name}", *args])[0]
    native = natives[(name, n)]
    fib, out = best_of([
        "target/release/fib", "check", path, "-n", str(n), *flags,
        "--format", "json", "--timeout", "3600", "--", *args,
    ], ok=(0, 1), env=env)  # 1: fib has findings, such as an irrelevant barrier
    program = json.loads(out)["programs"][0]
    if program["outcome"] != "ok":
        sys.exit(f"bench: fib reported {program['outcome']} for {name}.c")
    # Probe runs are runs too: the ratios are per run made.
    interleavings = program["interleavings"] + program["timing"].get("probe_runs", 0)
    calls = program["calls"]
    explore = program["timing"]["explore_ms"] / 1000
    rows.append((
        f"{name}.c" + "".join(f" {k}={v}" for k, v in env.items()), str(n), f"{native:.3f}",
        f"{fib:.3f}", str(calls),
        f"{calls / fib:,.0f}", f"{fib / (interleavings * native):.2f}",
        f"{explore / (interleavings * native):.2f}",
    ))

header = ("program", "ranks", "native s", "fib s", "calls", "calls/s", "fib/(il*native)",
          "runs/(il*native)")
widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
for row in [header] + rows:
    print("  ".join(cell.rjust(w) if i else cell.ljust(w) for i, (cell, w) in enumerate(zip(row, widths))))
print(f"best of {runs} runs each; {os.cpu_count()} cores; il = runs made (interleavings and probe runs);")
print("fib s is the whole check: the static analysis and the build (both kept in the cache")
print("after the first run) and every interleaving; runs = the interleavings alone (launch included);")
print("FIB_AHEAD=0: every blocking call waits for the scheduler's answer, as before calls went ahead;")
print("FIB_COPY_SENDS=1: standard sends go from fib's copies from the first run on;")
print("FIB_MEMORY=off: built without memory checking (pingpong.c has no nonblocking call, so")
print("auto builds it without too; nonblocking.c is built with it by default)")
PY

# Launching under each MPI implementation: the native program's time and
# fib's time per interleaving (exploration only, launch included) for the
# two small programs, under MPICH and under Open MPI.
echo
python3 - "${BENCH_RUNS:-3}" <<'PY'
import json
import subprocess
import sys
import time

runs = int(sys.argv[1])
impls = [
    ("mpich", ["mpiexec.mpich"], "mpicc.mpich"),
    ("openmpi", ["mpiexec.openmpi", "--allow-run-as-root", "--oversubscribe"], "mpicc.openmpi"),
]
cases = [("tests/umpire/isend_irecv_ring.c", 4), ("tests/umpire/any_src_three_senders_ok.c", 4)]
header = ("program", "ranks", "MPI", "native s", "il", "per il s", "per il / native")
rows = []
for path, n in cases:
    name = path.rsplit("/", 1)[1][:-2]
    for mpi, launcher, mpicc in impls:
        exe = f"target/bench/{name}-{mpi}"
        subprocess.run([mpicc, "-O2", "-o", exe, path], check=True)
        native = per = None
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run([*launcher, "-n", str(n), exe], check=True, capture_output=True)
            took = time.perf_counter() - start
            native = took if native is None else min(native, took)
            out = subprocess.run(
                ["target/release/fib", "check", path, "-n", str(n), "--mpi", mpi, "--format", "json"],
                capture_output=True, text=True)
            program = json.loads(out.stdout)["programs"][0]
            il = program["interleavings"] + program["timing"].get("probe_runs", 0)
            each = program["timing"]["explore_ms"] / 1000 / il
            per = each if per is None else min(per, each)
        rows.append((f"{name}.c", str(n), mpi, f"{native:.3f}", str(il), f"{per:.3f}", f"{per / native:.2f}"))
widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
for row in [header] + rows:
    print("  ".join(cell.rjust(w) if i else cell.ljust(w) for i, (cell, w) in enumerate(zip(row, widths))))
print(f"best of {runs} runs each; il = runs (interleavings and probe runs); per il = exploration time / il")
PY

# Interleavings in parallel: the same checks with --jobs 1 and --jobs 2
# (wall time, best of BENCH_RUNS), and a check that both reports are the
# same once their timings are left out.
echo
python3 - "${BENCH_RUNS:-3}" <<'PY'
import json
import os
import subprocess
import sys
import time

runs = int(sys.argv[1])
cases = [
    ("tests/umpire/any_src_three_senders_ok.c", 4, []),
    ("tests/barriers/monte_carlo_pi.c", 5, []),
    ("tests/barriers/monte_carlo_pi.c", 4, ["--confirm"]),
    ("tests/diffusion2d/diffusion2d_anysrc.c", 4, []),
]


def untimed(v):
    if isinstance(v, dict):
        return {k: untimed(x) for k, x in v.items() if not k.endswith(("_ms", "_us"))}
    if isinstance(v, list):
        return [untimed(x) for x in v]
    return v


header = ("program", "ranks", "flags", "il", "--jobs 1 s", "--jobs 2 s", "speed-up", "same report")
rows = []
for path, n, flags in cases:
    best, reports = {}, {}
    for jobs in ("1", "2"):
        for _ in range(runs):
            start = time.perf_counter()
            out = subprocess.run(
                ["target/release/fib", "check", path, "-n", str(n), "-j", jobs, *flags,
                 "--format", "json"], capture_output=True, text=True)
            took = time.perf_counter() - start
            best[jobs] = min(best.get(jobs, took), took)
            reports[jobs] = untimed(json.loads(out.stdout))
    il = reports["1"]["programs"][0]["interleavings"]
    same = "yes" if reports["1"] == reports["2"] else "NO"
    rows.append((path.split("/")[-1], str(n), " ".join(flags) or "-", str(il), f"{best['1']:.2f}",
                 f"{best['2']:.2f}", f"{best['1'] / best['2']:.2f}x", same))
    if same != "yes":
        sys.exit(f"bench: --jobs 2 changed the report of {path}")
widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
for row in [header] + rows:
    print("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))))
print(f"best of {runs} runs each; {os.cpu_count()} cores; il = interleavings")
PY

# One run for every order: the frame-collecting diffusion solver (rank 0
# takes a frame with a row of wildcard receives at every step) with the
# default exploration and with --exhaustive, at a few steps on a 2x2 grid,
# and the 2x4 grid over 50 steps with --confirm (exhaustive would run
# 5040^50 orders: not run); and bench/waitany.c, whose rank 0 takes N
# wildcard receives with a row of MPI_Waitany (N! orders of the Waitany
# calls alone). Also checks that both give the same barrier verdicts.
echo
python3 - <<'PY'
import json
import math
import subprocess
import time

frames = "tests/diffusion2d/diffusion2d_frames.c"
# (program, ranks, argument, run --exhaustive too, the orders in words)
cases = [(frames, n, steps, ex, f"{math.factorial(n - 1)}^{steps}")
         for n, steps, ex in [(4, 2, True), (4, 3, True), (4, 4, True), (8, 50, False)]]


def matchings(n, m):
    """The ways bench/waitany.c's m receives can match: rank r sends
    messages r - 1, r - 1 + (n - 1), ..., each sender's in order."""
    shares = [len(range(r - 1, m, n - 1)) for r in range(1, n)]
    return math.factorial(m) // math.prod(math.factorial(k) for k in shares)


cases += [("bench/waitany.c", n, m, True, f"{matchings(n, m)}*{math.factorial(m)}")
          for n, m in [(2, 4), (2, 6), (4, 3), (3, 4)]]
header = ("program", "ranks", "arg", "orders", "il", "s", "--exhaustive il", "--exhaustive s",
          "same verdicts")


def check(path, n, arg, flags):
    start = time.perf_counter()
    out = subprocess.run(
        ["target/release/fib", "check", path, "-n", str(n), *flags, "--format", "json", "--",
         str(arg)], capture_output=True, text=True)
    took = time.perf_counter() - start
    p = json.loads(out.stdout)["programs"][0]
    verdicts = [(b["group"][0]["line"], b["verdict"]) for b in p["barriers"]]
    return p["interleavings"], took, verdicts


rows = []
for path, n, arg, exhaustive, orders in cases:
    flags = ["--max-interleavings", "100000"] + ([] if exhaustive else ["--confirm"])
    il, took, verdicts = check(path, n, arg, flags)
    name = path.split("/")[-1]
    if exhaustive:
        il2, took2, verdicts2 = check(path, n, arg, flags + ["--exhaustive"])
        same = "yes" if verdicts == verdicts2 else "NO"
        if same != "yes":
            raise SystemExit(f"bench: --exhaustive changed the verdicts of {path} -n {n} -- {arg}")
        rows.append((name, str(n), str(arg), orders, str(il), f"{took:.2f}", str(il2),
                     f"{took2:.2f}", same))
    else:
        rows.append((name + " --confirm", str(n), str(arg), orders, str(il),
                     f"{took:.2f}", "-", "-", "-"))
widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
for row in [header] + rows:
    print("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))))
print("il = interleavings run; arg = steps (diffusion) or messages (waitany); orders = those of")
print("the wildcard rows (diffusion), or matchings * Waitany orders (waitany), a full exploration runs")
PY

echo
launcher_section

echo
modes_section

echo
choices_section

echo
static_section

# The Fib pass alone on generated traces of 10 000 to 1 000 000 calls.
echo
cargo run -q --release -p fib --example time_pass

# The engine alone on the ping-pong's 200 000 calls, with buffering (the
# run) and without (the rerun a run needs when its trace does not show that
# its calls complete without buffering), and on as many calls of an
# exchange among 16 ranks (every rank receives from and sends to every
# other, then waits for all).
echo
cargo run -q --release -p poe --example time_engine

# The Fib pass's share of a check, and the cost of proving every verdict by
# removal (--confirm), from fib's own per-phase timing.
echo
python3 - <<'PY'
import json
import subprocess

cases = [
    ("tests/diffusion2d/diffusion2d.c", 4, []),
    ("tests/diffusion2d/diffusion2d.c", 6, []),
    ("tests/diffusion2d/diffusion2d_anysrc.c", 4, []),
    ("tests/barriers/monte_carlo_pi.c", 5, []),
    # Barriers that order window memory: the pass builds each run's order
    # without every group, at 200 and 1 000 rounds.
    ("bench/rma.c", 2, ["--", "200"]),
    ("bench/rma.c", 2, ["--", "1000"]),
]
header = ("program", "ranks", "il", "groups", "total s", "explore s", "fib ms", "fib share", "confirm s")
rows = []
for path, n, args in cases:
    out = subprocess.run(
        ["target/release/fib", "check", path, "-n", str(n), "--confirm", "--format", "json"] + args,
        stdout=subprocess.PIPE, text=True)
    p = json.loads(out.stdout)["programs"][0]
    t = p["timing"]
    checked = t["build_ms"] + t["explore_ms"] + t["fib_us"] / 1000
    rows.append((
        " ".join([path.split("/")[-1]] + args[1:]), str(n), str(p["interleavings"]), str(len(p["barriers"])),
        f"{p['elapsed_ms'] / 1000:.2f}", f"{t['explore_ms'] / 1000:.2f}", f"{t['fib_us'] / 1000:.1f}",
        f"{100 * t['fib_us'] / 1000 / max(checked, 1):.2f}%", f"{t['confirm_ms'] / 1000:.2f}",
    ))
widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
for row in [header] + rows:
    print("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))))
print("fib share: Fib pass time over the check without --confirm (build + explore + Fib pass)")
PY
