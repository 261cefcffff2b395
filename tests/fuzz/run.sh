#!/usr/bin/env bash
# tests/fuzz/run.sh — build and run the libFuzzer harnesses (docs/fuzzing.md).
#
#   tests/fuzz/run.sh [HARNESS...]      every harness (fuzz_*.c) when none is named
#
# For each harness: compile it with clang (-fsanitize=fuzzer,address,undefined)
# together with the server/client sources its `fuzz-sources:` lines name,
# replay its checked-in seed corpus and regression inputs, then fuzz for
# FUZZ_SECONDS (default 20). Any crash, leak, sanitizer report or timeout
# fails the run; the reproducer is left under $FUZZ_OUT/artifacts/HARNESS/.
#
# The clang build is separate from the CMake build on purpose: the default
# compiler is gcc, which has no libFuzzer. New inputs the fuzzer finds go to a
# working corpus under $FUZZ_OUT, never into the source tree.
#
# Environment:
#   FUZZ_SECONDS  fuzzing time per harness after the replay (default 20; 0 = replay only)
#   FUZZ_OUT      build/output directory (default build/fuzz in the repository)
#   FUZZ_JOBS     parallel fuzzing jobs per harness (default 1)
#   FUZZ_FLAGS    extra libFuzzer flags, e.g. "-max_len=70000 -only_ascii=1"
#   CC_FUZZ       the compiler (default clang)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
seconds="${FUZZ_SECONDS:-20}"
out="${FUZZ_OUT:-$root/build/fuzz}"
jobs="${FUZZ_JOBS:-1}"
cc="${CC_FUZZ:-clang}"

fail() {
    echo "fuzz: $*" >&2
    exit 1
}

command -v "$cc" >/dev/null || fail "'$cc' not found: libFuzzer needs clang (make deps installs clang and libclang-rt-14-dev)"
runtime="$("$cc" -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null || true)"
[ -f "$runtime" ] ||
    runtime="$("$cc" -print-runtime-dir 2>/dev/null)/libclang_rt.fuzzer-x86_64.a"
[ -f "$runtime" ] || fail "libFuzzer runtime (libclang_rt.fuzzer-x86_64.a) not found for $cc: install libclang-rt-14-dev (make deps)"

if [ $# -eq 0 ]; then
    set --
    for src in "$here"/fuzz_*.c; do set -- "$@" "$(basename "$src" .c)"; done
fi

# shellcheck disable=SC2054 # the commas belong to -fsanitize
cflags=(-std=c17 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
    -Wall -Wextra -Wno-unused-parameter -Werror
    -I"$root/src" -I"$root/include")
# Libraries a harness's sources may use (LZF: the RDB string encoding; Lua
# and lua-bitop: the scripting libraries; libsodium: ACL's SHA-256).
read -r -a libs <<<"$(pkg-config --cflags --libs liblzf libfabric lua5.1 lua5.1-bitop libsodium) -lm -ldl"
# lua-cjson is a Lua C module (loaded at run time, as the server loads it).
cflags+=(-DGOBLIN_LUA_CJSON_MODULE="\"$(pkg-config --variable=INSTALL_CMOD lua5.1)/cjson.so\"")

# build HARNESS: compiles $out/bin/HARNESS when it or any source it names changed.
build() {
    local name="$1" src="$here/$1.c" bin="$out/bin/$1"
    [ -f "$src" ] || fail "no harness $src"
    local line
    line="$(grep -o 'fuzz-sources:.*' "$src" | sed -e 's/^fuzz-sources://' -e 's/\*\/.*$//' | tr '\n' ' ')" || true
    local sources=("$src")
    for s in $line; do
        [ -f "$root/$s" ] || fail "$name: fuzz-sources names $s, which does not exist"
        sources+=("$root/$s")
    done
    mkdir -p "$out/bin"
    local stale=0 f
    [ -x "$bin" ] && [ "$bin" -nt "$here/run.sh" ] || stale=1
    for f in "${sources[@]}" "$root"/src/*/*.h "$root"/include/goblin/*.h; do
        [ "$f" -nt "$bin" ] && stale=1
    done
    if [ "$stale" -eq 1 ]; then
        echo "fuzz: building $name"
        "$cc" "${cflags[@]}" -o "$bin.tmp" "${sources[@]}" "${libs[@]}"
        mv "$bin.tmp" "$bin"
    fi
}

# run HARNESS: replay seeds and regressions, then fuzz; fails on any finding.
run() {
    local name="$1" bin="$out/bin/$1"
    local seeds="$here/corpus/$name" regressions="$here/regressions/$name"
    local work="$out/corpus/$name" artifacts="$out/artifacts/$name/"
    [ -d "$seeds" ] || fail "$name: no seed corpus in $seeds"
    mkdir -p "$work" "$artifacts"
    [ -d "$regressions" ] || regressions="" # none recorded yet
    local common=(-artifact_prefix="$artifacts" -timeout=10 -rss_limit_mb=2048
        -malloc_limit_mb=1024 -print_final_stats=1)
    # -jobs=1 would still fork a worker that logs to ./fuzz-0.log; only ask when parallel.
    if [ "$jobs" -gt 1 ]; then common+=(-jobs="$jobs" -workers="$jobs"); fi
    # shellcheck disable=SC2086 # FUZZ_FLAGS is a list of flags
    if [ "$seconds" -eq 0 ]; then
        "$bin" "${common[@]}" ${FUZZ_FLAGS:-} -runs=0 "$seeds" ${regressions:+"$regressions"}
    else
        # Loading the corpora replays every seed and regression first.
        "$bin" "${common[@]}" ${FUZZ_FLAGS:-} -max_total_time="$seconds" \
            "$work" "$seeds" ${regressions:+"$regressions"}
    fi
}

# Stack traces for UBSan reports too; ASan's leak check stays on.
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"

# libFuzzer writes its logs (fuzz-N.log with FUZZ_JOBS > 1) to the working directory.
mkdir -p "$out"
cd "$out"

status=0
for name in "$@"; do
    name="${name%.c}"
    name="$(basename "$name")"
    build "$name"
    if ! run "$name"; then
        echo "fuzz: $name FAILED; reproducer(s) in $out/artifacts/$name/" >&2
        echo "fuzz: replay with: $out/bin/$name <file>; keep it in tests/fuzz/regressions/$name/ once fixed" >&2
        status=1
    fi
done
exit "$status"
