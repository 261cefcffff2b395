#!/usr/bin/env bash
# The tree stays formatted by its .clang-format: every tracked C source and
# header must be unchanged by clang-format (run `make format` to fix).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
command -v clang-format >/dev/null || { echo "FAIL: clang-format is required (make deps)"; exit 1; }
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    mapfile -t files < <(git ls-files '*.c' '*.h')
else
    mapfile -t files < <(find src include client tools bench tests -name '*.[ch]' | sort)
fi
[ "${#files[@]}" -gt 0 ] || { echo "FAIL: no sources found"; exit 1; }
if ! out=$(clang-format --dry-run --Werror "${files[@]}" 2>&1); then
    echo "$out" | grep -E 'error:' | head -20
    echo "FAIL: $(echo "$out" | grep -c 'error:') places are not formatted; run make format"
    exit 1
fi
echo "format: ok (${#files[@]} files)"
