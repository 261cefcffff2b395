#!/usr/bin/env bash
# Integration: the layering of src/ as docs/architecture.md states it. Each
# folder of src/ is a layer; the ```layers block of docs/architecture.md
# lists them from the top down. A file may include headers of its own
# folder and of any layer below; an #include "folder/file.h" into a layer
# above is refused unless docs/architecture.md names that exact include on
# an "upward include:" line with its reason. A folder the list does not
# name fails too, as does an exception no file uses any more. A line
# "only through: A -> B/x.h B/y.h" restricts what layer A may include of
# layer B (a contract header: transports see a conn only through
# connection/conn_transport.h).
#   test_layers.sh [SRC_DIR [ARCHITECTURE_MD]]   (defaults: this checkout's)
# Run on this checkout, it also checks itself: a copy of src/ with one
# upward include added (core/config.c including commands/command.h) must
# fail.
set -eo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
src=${1:-$here/src}
doc=${2:-$here/docs/architecture.md}
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -d "$src" ] || fail "no source tree at $src"
[ -f "$doc" ] || fail "no $doc"

read -r -a layers < <(awk '/^```layers$/ {on = 1; next} on && /^```/ {exit} on {printf "%s ", $0} END {print ""}' "$doc")
[ ${#layers[@]} -gt 0 ] || fail "$doc has no \`\`\`layers block"
declare -A rank
for i in "${!layers[@]}"; do rank[${layers[$i]}]=$i; done

# "upward include: src/a/file.c -> b/header.h — why" (a reason is required).
declare -A allowed used
while IFS= read -r line; do
    rule=${line#*upward include: }
    edge=$(sed -E 's/^`?([^` ]+)`? -> `?([^` ]+)`?.*/\1 -> \2/' <<<"$rule")
    why=$(sed -E 's/^`?[^` ]+`? -> `?[^` ]+`?[[:space:]]*(—|-|:)?[[:space:]]*//' <<<"$rule")
    [ -n "$why" ] || fail "exception without a reason in $doc: $line"
    allowed[$edge]=1
done < <(grep -E '^[-*]? ?upward include: ' "$doc" || true)

# "only through: transport -> connection/conn_transport.h ..." (the headers of
# folder B that files of folder A may include; none other).
declare -A through
while IFS= read -r line; do
    rule=${line#*only through: }
    rule=${rule//\`/}
    from=${rule%% -> *}
    headers=${rule#* -> }
    [ -n "$from" ] && [ -n "$headers" ] || fail "malformed rule in $doc: $line"
    for h in $headers; do
        h=${h%%[,.;]}
        through[$from:${h%%/*}]+=" $h "
    done
done < <(grep -E '^[-*]? ?only through: ' "$doc" || true)

violations=0 checked=0
while IFS= read -r -d '' file; do
    rel=${file#"$src"/}
    case "$rel" in
    */*) folder=${rel%%/*} ;;
    *) folder=${layers[0]} ;; # main.c: the top
    esac
    [ -n "${rank[$folder]:-}" ] || fail "src/$folder/ is in no layer of $doc (\`\`\`layers block)"
    checked=$((checked + 1))
    while IFS= read -r header; do
        target=${header%%/*}
        [ "$target" = "$folder" ] && continue
        [ -n "${rank[$target]:-}" ] || continue # <goblin/...> public headers, system headers
        contract=${through[$folder:$target]:-}
        if [ -n "$contract" ] && [[ "$contract" != *" $header "* ]]; then
            echo "src/$rel includes $header: $folder sees $target only through$contract" >&2
            violations=$((violations + 1))
            continue
        fi
        [ "${rank[$target]}" -gt "${rank[$folder]}" ] && continue
        edge="src/$rel -> $header"
        if [ -n "${allowed[$edge]:-}" ]; then
            used[$edge]=1
            continue
        fi
        echo "upward include: $edge ($folder is below $target)" >&2
        violations=$((violations + 1))
    done < <(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]+"([^"]+)".*/\1/p' "$file")
done < <(find "$src" -name '*.[ch]' -print0 | sort -z)

for edge in "${!allowed[@]}"; do
    [ -n "${used[$edge]:-}" ] || fail "docs/architecture.md names an upward include no file has: $edge"
done
[ "$violations" -eq 0 ] || fail "$violations include(s) against the layering; fix them or name each with its reason in $doc"

if [ $# -eq 0 ]; then
    copy=$(mktemp -d)
    trap 'rm -rf "$copy"' EXIT
    cp -r "$src" "$copy/src"
    echo '#include "commands/command.h"' >>"$copy/src/core/config.c"
    if "$0" "$copy/src" "$doc" >/dev/null 2>&1; then
        fail "the check passed a tree with core/config.c including commands/command.h"
    fi
fi
echo "layers: ok ($checked files, ${#layers[@]} layers: ${layers[*]}, ${#allowed[@]} named exception(s), ${#through[@]} contract header rule(s))"
