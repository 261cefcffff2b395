#!/usr/bin/env bash
# The checked-in command metadata (src/commands/generated/command_meta_table.c) is
# what tools/command_meta_gen.py makes today of the built goblin-core's
# COMMAND LIST and redis-server 7.0.15's COMMAND INFO/DOCS: regenerate into
# a temporary file (formatted as `make command-meta` does) and fail on any
# difference — a command added without `make command-meta` fails here.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 "$root/tools/command_meta_gen.py" "$GOBLIN_SERVER" "$REDIS_SERVER" > "$tmp/command_meta_table.c"
cp "$root/.clang-format" "$tmp/"
clang-format -i "$tmp/command_meta_table.c"
if ! diff -u "$root/src/commands/generated/command_meta_table.c" "$tmp/command_meta_table.c" > "$tmp/diff"; then
    head -40 "$tmp/diff"
    echo "FAIL: src/commands/generated/command_meta_table.c is stale; run make command-meta"
    exit 1
fi
# The table is not vacuous: hundreds of commands, key specs among them.
rows=$(grep -c '^    {"' "$root/src/commands/generated/command_meta_table.c")
[ "$rows" -gt 250 ] || { echo "FAIL: only $rows rows"; exit 1; }
grep -q 'keys_zunionstore\[\]' "$root/src/commands/generated/command_meta_table.c"
echo "command meta codegen: ok ($rows commands)"
