#!/usr/bin/env bash
# Builds what an index publishes: a stripped wheel tagged manylinux2014 (glibc 2.17 and later,
# linked with zig so that it does not depend on this machine's glibc) and a source distribution,
# into dist/. The wheel's binary is the distributed build: `[profile.dist]` with the profile
# scripts/pgo.sh trains on the corpus. Needs only Python and the Rust toolchain (and rustup's
# llvm-tools component, which scripts/pgo.sh adds); maturin and zig come from PyPI into a cache
# (GPULINT_BUILD_CACHE, default ~/.cache/gpulint-build).
set -euo pipefail
cd "$(dirname "$0")/.."
cache="${GPULINT_BUILD_CACHE:-$HOME/.cache/gpulint-build}"
if [[ ! -x "$cache/venv/bin/maturin" ]]; then
    python3 -m venv "$cache/venv"
    "$cache/venv/bin/pip" install --quiet --disable-pip-version-check "maturin>=1.5,<2" ziglang
fi
export PATH="$cache/venv/bin:$PATH"
scripts/pgo.sh --profile
RUSTFLAGS="-Cprofile-use=$PWD/target/pgo/merged.profdata" \
    maturin build --profile dist --strip --zig --compatibility manylinux2014 --out dist
maturin sdist --out dist
ls -l dist
