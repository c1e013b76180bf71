#!/usr/bin/env bash
# Runs fib's whole test suite: unit tests, engine tests and the integration
# tests that run the real fib binary on MPI programs.
set -euo pipefail
cd "$(dirname "$0")/.."
# Rust installed by rustup lives here, which a fresh root shell may not have
# on its PATH.
export PATH="$HOME/.cargo/bin:$PATH"

bash scripts/setup.sh
# The integration tests load the interposition library, so every member,
# the cdylib included, is built before any test runs.
cargo build --workspace
# The interposition library against Open MPI too, where fib finds it beside
# itself (target/openmpi/debug), for the tests that run under Open MPI.
MPICC=mpicc.openmpi cargo build -p fib-interpose --target-dir target/openmpi
export HWLOC_COMPONENTS=-linuxio,-pci
cargo test --workspace --no-fail-fast
