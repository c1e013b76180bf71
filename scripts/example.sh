#!/usr/bin/env bash
# Builds fib and runs it on the bundled example, a 3-rank program that
# deadlocks in one of its two interleavings. fib's exit code is this
# script's: 1 means it found something, as it should here.
set -euo pipefail
cd "$(dirname "$0")/.."
# Rust installed by rustup lives here, which a fresh root shell may not have
# on its PATH.
export PATH="$HOME/.cargo/bin:$PATH"

bash scripts/setup.sh
cargo build --release --workspace
export HWLOC_COMPONENTS=-linuxio,-pci
exec target/release/fib check examples/any_source_race.c -n 3
