#!/usr/bin/env bash
# gpulint against ruff (`ruff check --no-cache --isolated`, default rules) on this Python's standard
# library and pinned transformers sources, in one run: alternating runs, medians, ratios and peak
# memory (release build). Downloads ruff and transformers into a cache once; see scripts/bench.py.
#   scripts/bench.sh [--runs N] [--tree PATH ...]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
exec python3 scripts/bench.py "$@"
