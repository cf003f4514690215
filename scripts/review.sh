#!/usr/bin/env bash
# The review set: pinned releases of GPU-heavy Python packages (source archives where PyPI has them,
# downloaded once into a cache outside the repository), checked with gpulint.
#   scripts/review.sh                        build, then a table per package and the totals
#   scripts/review.sh --save FILE            ... and every finding as a JSON line in FILE
#   scripts/review.sh --binary PATH          check with PATH, no build
#   scripts/review.sh --compare OLD NEW      only findings that appear, disappear or change
#   scripts/review.sh --check-table          findings without a verdict in docs/review.md, and
#                                            verdict rows whose finding is gone
# GPULINT_REVIEW_CACHE sets the cache (default ~/.cache/gpulint-review).
set -euo pipefail
cd "$(dirname "$0")/.."
case " $* " in
  *" --binary "*|*" --compare "*|*" --fetch "*) ;;
  *) cargo build --release --quiet ;;
esac
exec python3 scripts/review.py "$@"
