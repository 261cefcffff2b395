#!/usr/bin/env bash
# Integration: the command line. --help lists every flag; an unknown flag or
# a bad value is a one-line error naming it, with a non-zero exit.
set -euo pipefail
bin="${GOBLIN_SERVER:?GOBLIN_SERVER not set}"
fail() { echo "FAIL: $*" >&2; exit 1; }

help=$("$bin" --help)
for flag in --port --bind --listen --unixsocket --maxclients --proto-max-bulk-len \
            --client-query-buffer-limit --databases --requirepass --auth-file --hz; do
  grep -q -- "$flag" <<<"$help" || fail "--help does not list $flag"
done

check_error() {  # check_error <expected substring> <args...>
  local want="$1"; shift
  local out rc=0
  out=$("$bin" "$@" 2>&1) || rc=$?
  [ "$rc" -ne 0 ] || fail "'$*' exited 0"
  [ "$(wc -l <<<"$out")" -eq 1 ] || fail "'$*' printed more than one line: $out"
  grep -q -- "$want" <<<"$out" || fail "'$*' error does not mention '$want': $out"
}
check_error "--no-such-flag" --no-such-flag 1
check_error "--port" --port notanumber
check_error "--port" --port 70000
check_error "--maxclients" --maxclients 0
check_error "--listen" --listen 127.0.0.1
check_error "--listen" --listen ::1:6379
check_error "--proto-max-bulk-len" --proto-max-bulk-len 12qb
check_error "--databases" --databases
check_error "stray" stray
"$bin" --version | grep -q "goblin-core" || fail "--version"
echo "flags: ok"
