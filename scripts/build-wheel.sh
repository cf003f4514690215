#!/usr/bin/env bash
# Builds what an index publishes, as the release workflow (.github/workflows/release.yml) builds it
# for x86-64 Linux: a stripped wheel tagged manylinux2014 (glibc 2.17 and later, linked with zig so
# that it does not depend on this machine's glibc) and a source distribution, into dist/. The
# wheel's binary is `[profile.dist]` (fat LTO, one codegen unit), built with Cargo.lock's versions
# (`locked` in pyproject.toml).
#   scripts/build-wheel.sh          the wheel and the sdist
#   scripts/build-wheel.sh --pgo    the same, profile-guided: scripts/pgo.sh trains a profile first
#                                   (an instrumented build and a run; it adds rustup's llvm-tools)
# Needs only Python and the Rust toolchain; maturin and zig come from PyPI into a cache
# (GPULINT_BUILD_CACHE, default ~/.cache/gpulint-build).
set -euo pipefail
cd "$(dirname "$0")/.."
pgo=false
case "${1:-}" in
    --pgo) pgo=true ;;
    "") ;;
    *) echo "usage: scripts/build-wheel.sh [--pgo]" >&2; exit 2 ;;
esac
cache="${GPULINT_BUILD_CACHE:-$HOME/.cache/gpulint-build}"
if [[ ! -x "$cache/venv/bin/maturin" ]]; then
    python3 -m venv "$cache/venv"
    "$cache/venv/bin/pip" install --quiet --disable-pip-version-check "maturin>=1.5,<2" ziglang
fi
export PATH="$cache/venv/bin:$PATH"
if $pgo; then
    scripts/pgo.sh --profile
    export RUSTFLAGS="-Cprofile-use=$PWD/target/pgo/merged.profdata"
fi
maturin build --profile dist --strip --zig --compatibility manylinux2014 --out dist
maturin sdist --out dist
ls -l dist
