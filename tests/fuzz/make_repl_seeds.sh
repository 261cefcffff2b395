#!/usr/bin/env bash
# tests/fuzz/make_repl_seeds.sh — regenerates the seed corpus of
# fuzz_repl_stream (tests/fuzz/corpus/fuzz_repl_stream/): what masters send
# a replica, from a real goblin-core master (a diskless and a disk full
# sync fetched with redis-cli --rdb, wrapped in the handshake replies) and
# hand-written cases (partial resync, keepalives, errors, a huge length,
# a line past the limit). Needs a build (GOBLIN_SERVER) and redis-cli.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
server="${GOBLIN_SERVER:-$here/../../build/goblin-core}"
out="$here/corpus/fuzz_repl_stream"
tmp="$(mktemp -d)"
trap 'kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$server" --port "$port" --dir "$tmp" --save "" --repl-diskless-sync-delay 0 >/dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do redis-cli -p "$port" PING >/dev/null 2>&1 && break; sleep 0.05; done
redis-cli -p "$port" MSET a 1 b hello >/dev/null
redis-cli -p "$port" HSET h f v >/dev/null
redis-cli -p "$port" SET t x PX 100000 >/dev/null
redis-cli -p "$port" --rdb "$tmp/snap.rdb" >/dev/null 2>&1
mkdir -p "$out"
python3 - "$tmp/snap.rdb" "$out" <<'PY'
import os, sys
rdb = open(sys.argv[1], "rb").read()
out = sys.argv[2]
hs = b"+PONG\r\n+OK\r\n+OK\r\n"
rid = b"0123456789abcdef0123456789abcdef01234567"
mark = b"f" * 40
stream = (b"*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"
          b"*1\r\n$5\r\nMULTI\r\n*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n*1\r\n$4\r\nEXEC\r\n"
          b"*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n*1\r\n$4\r\nPING\r\n")
seeds = {
    "diskless-full": b"\x1f" + hs + b"+FULLRESYNC " + rid + b" 0\r\n\n\n$EOF:" + mark + b"\r\n" + rdb + mark + stream,
    "disk-full": b"\x07" + hs + b"+FULLRESYNC " + rid + b" 42\r\n\n$%d\r\n" % len(rdb) + rdb + stream,
    "continue-same": b"\xff" + hs + b"+CONTINUE\r\n" + stream,
    "continue-new-id": b"\x03" + hs + b"+CONTINUE " + rid + b"\r\n" + stream,
    "psync-try-later": b"\xff" + hs + b"-NOMASTERLINK Can't SYNC while not connected with my master\r\n",
    "psync-error": b"\xff" + hs + b"-ERR unknown command 'PSYNC'\r\n",
    "bad-fullresync": b"\xff" + hs + b"+FULLRESYNC nothex -5\r\n",
    "huge-length": b"\xff" + hs + b"+FULLRESYNC " + rid + b" 0\r\n$999999999999999999\r\nREDIS0010",
    "master-abort": b"\xff" + hs + b"+FULLRESYNC " + rid + b" 0\r\n-ERR BGSAVE failed\r\n",
    "not-a-bulk": b"\xff" + hs + b"+FULLRESYNC " + rid + b" 0\r\n*1\r\n",
    "long-line": b"\xff+PONG" + b"x" * 1100 + b"\r\n",
    "mark-split": b"\x01" + hs + b"+FULLRESYNC " + rid + b" 0\r\n$EOF:" + mark + b"\r\n" + mark[:20] + b"REDIS" + mark + stream,
    "stream-bad": b"\x05" + hs + b"+CONTINUE\r\n*2\r\n$3\r\nGET\r\n$-5\r\n",
}
for name, data in seeds.items():
    open(os.path.join(out, name), "wb").write(data)
PY
echo "seeds written to $out"
