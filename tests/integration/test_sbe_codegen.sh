#!/usr/bin/env bash
# The checked-in SBE codec is what tools/sbe_gen.py makes of the schema
# today: regenerate into a temporary file (formatted as `make sbe` does)
# and fail on any difference. Also: the generator refuses a schema whose
# template ids are not dense.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 "$root/tools/sbe_gen.py" "$root/schema/goblin_sbe.xml" > "$tmp/sbe_codec.h"
cp "$root/.clang-format" "$tmp/"
clang-format -i "$tmp/sbe_codec.h"
if ! diff -u "$root/include/goblin/sbe_codec.h" "$tmp/sbe_codec.h" > "$tmp/diff"; then
    head -40 "$tmp/diff"
    echo "FAIL: include/goblin/sbe_codec.h is stale; run make sbe"
    exit 1
fi
# A gap in the template ids must be refused, not generated.
sed 's/name="Ping" id="2"/name="Ping" id="99"/' "$root/schema/goblin_sbe.xml" > "$tmp/bad.xml"
if python3 "$root/tools/sbe_gen.py" "$tmp/bad.xml" > /dev/null 2> "$tmp/err"; then
    echo "FAIL: the generator accepted non-dense template ids"
    exit 1
fi
grep -q "dense" "$tmp/err" || { cat "$tmp/err"; echo "FAIL: unexpected generator error"; exit 1; }
echo "sbe codegen: ok"
