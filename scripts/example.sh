#!/usr/bin/env bash
# Builds fib and runs it on the bundled examples: examples/barriers.c, whose
# first barrier is relevant and second irrelevant (proven by removal), and
# examples/any_source_race.c, which deadlocks in one of its two
# interleavings. fib's exit code is this script's: 1 means it found
# something, as it should here.
set -euo pipefail
cd "$(dirname "$0")/.."
# Rust installed by rustup lives here, which a fresh root shell may not have
# on its PATH.
export PATH="$HOME/.cargo/bin:$PATH"

bash scripts/setup.sh
cargo build --release --workspace
export HWLOC_COMPONENTS=-linuxio,-pci
# Every program of examples/ (each says its process count in a `fib:`
# comment): barrier verdicts proven by removal, and a deadlock.
exec target/release/fib check examples --confirm
