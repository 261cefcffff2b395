# shellcheck shell=bash
# tests/fuzz/seed_lib.sh — shared by the make_*_seeds.sh scripts that take
# their seeds from running servers (sourced after `set -euo pipefail`):
#
#   seed_setup CORPUS [GOBLIN_SERVER]
#                  sets here (tests/fuzz), root (the repository), goblin
#                  (GOBLIN_SERVER, default build/goblin-core), out
#                  (corpus/CORPUS, created) and tmp (a scratch directory);
#                  on exit the servers started in the background are
#                  killed and tmp removed
#   port           a free TCP port on 127.0.0.1
#   wait_up PORT   waits until the server on PORT answers PING (exits 1
#                  after 5 s)
#   dump_payload PORT KEY FILE
#                  writes the payload of DUMP KEY to FILE

seed_setup() {
    here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
    root="$(cd "$here/../.." && pwd)"
    goblin="${2:-$root/build/goblin-core}"
    out="$here/corpus/$1"
    tmp=$(mktemp -d)
    trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
    mkdir -p "$out"
}

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

wait_up() {
    for _ in $(seq 100); do
        redis-cli -p "$1" PING >/dev/null 2>&1 && return
        sleep 0.05
    done
    exit 1
}

dump_payload() {
    python3 - "$@" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
k = sys.argv[2].encode()
s.sendall(b"*2\r\n$4\r\nDUMP\r\n$%d\r\n%s\r\n" % (len(k), k))
f = s.makefile("rb")
n = int(f.readline()[1:-2])
open(sys.argv[3], "wb").write(f.read(n))
PY
}
