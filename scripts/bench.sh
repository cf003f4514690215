#!/usr/bin/env bash
# gpulint against ruff (`ruff check --no-cache --isolated`, default rules) on this Python's standard
# library and pinned transformers sources, in one run: alternating runs, medians, ratios and peak
# memory (release build); then gpulint alone on pinned Rust crates with generated CUDA and NVML
# bindings. Downloads ruff, transformers and the crates into a cache once; see scripts/bench.py.
#   scripts/bench.sh [--runs N] [--tree PATH ...]          the `cargo build --release` binary
#   scripts/bench.sh --pgo [--runs N] [--tree PATH ...]    the distributed build (scripts/pgo.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--pgo" ]; then
    shift
    scripts/pgo.sh
    exec python3 scripts/bench.py --gpulint target/pgo/dist/gpulint "$@"
fi
cargo build --release --quiet
exec python3 scripts/bench.py "$@"
