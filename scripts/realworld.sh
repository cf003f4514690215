#!/usr/bin/env bash
# Checks pinned releases of real ML projects (downloaded once into a cache outside the repository)
# and prints a table: package, version, files, lines, findings by rule, wall time.
#   scripts/realworld.sh              the table
#   scripts/realworld.sh --findings   the table, then every finding
# GPULINT_REALWORLD_CACHE sets the cache (default ~/.cache/gpulint-realworld).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
exec python3 scripts/realworld.py "$@"
