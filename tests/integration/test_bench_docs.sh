#!/usr/bin/env bash
# Integration: every report and summary under docs/benchmarks/ is what its
# script regenerates from the raw data committed beside it (no benchmark
# runs; a few seconds). Fails when a committed page differs from its
# regeneration, or when a page is produced by no script and not marked
# "Raw data not committed". See bench/regenerate_docs.sh.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
bash "$ROOT/bench/regenerate_docs.sh" --check
echo "docs/benchmarks: OK"
