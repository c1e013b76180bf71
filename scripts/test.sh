#!/usr/bin/env bash
# Runs fib's whole test suite: unit tests, engine tests, the integration
# tests that run the real fib binary on MPI programs, and the user guide's
# build and checks.
set -euo pipefail
cd "$(dirname "$0")/.."
# Rust installed by rustup lives here, which a fresh root shell may not have
# on its PATH.
export PATH="$HOME/.cargo/bin:$PATH"

bash scripts/setup.sh
# A one-node Slurm cluster, for the tests of `--launcher` through `srun`
# and `salloc` (tests/cluster).
bash scripts/slurm.sh
# Every dependency of every platform, as the architecture test reads the
# dependency graph with `cargo metadata --offline` (a build fetches only
# this platform's).
cargo fetch --locked
# The integration tests load the interposition library, so every member,
# the cdylib included, is built before any test runs.
cargo build --workspace
# The interposition library against Open MPI too, where fib finds it beside
# itself (target/openmpi/debug), for the tests that run under Open MPI.
MPICC=mpicc.openmpi cargo build -p fib-interpose --target-dir target/openmpi
# fib installed as the README says, for the test of an installed fib
# (tests/install): from this build's target directory, which `cargo test`
# keeps locked while it runs, so that the install reuses what is built.
cargo install --quiet --debug --locked --force --path . --root target/install-root
export FIB_INSTALLED_ROOT="$PWD/target/install-root"
# The user guide, into docs/book (git-ignored): a page mdBook cannot read
# fails here; tests/guide checks its commands, links and code pages.
mdbook build docs
export HWLOC_COMPONENTS=-linuxio,-pci
cargo test --workspace --no-fail-fast
