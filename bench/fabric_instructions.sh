#!/usr/bin/env bash
# fabric_instructions.sh — instructions the server spends per libfabric
# request, counted by callgrind (load-independent, unlike timings on a
# shared machine), next to goblin-fabric-floor's echo server (the floor).
#
#   bash bench/fabric_instructions.sh BUILD_DIR OUT.tsv [PROVIDER] [OPS] [SAMPLES]
#
# Runs goblin-core (--libfabric PROVIDER, heartbeats off) under callgrind
# with goblin-bench as the client (SAMPLES per op of OPS, RESP and SBE, send
# modes auto and send), then goblin-fabric-floor --serve under callgrind
# with its own client. Rows (per delivered request; per echoed frame for
# the floor), from callgrind_annotate's inclusive costs:
#   request      everything from the in-order payload reaching the conn to
#                its reply handed to the provider (session_deliver: parse,
#                command, reply, envelope, fi_inject/fi_send), plus the
#                RX repost and the envelope decode (inlined into the poll);
#                floor: the echo's send_frame + repost + decode
#   send         goblin_fabric_ep_send (header encode, copy, fi_inject/fi_send)
#   decode       envelope header decode (inlined lines of fabric_envelope.h)
#   repost       goblin_fabric_ep_post_recv
#   idle_poll    one empty poll of the endpoint (the spin between requests):
#                server fabric_endpoint_poll, floor goblin_fabric_ep_read_rx
set -euo pipefail
BUILD=${1:?build dir}
OUT=${2:?output tsv}
PROVIDER=${3:-shm}
OPS=${4:-PING,SET,GET,HSET,HGET,ZADD,ZSCORE,PUBSUB}
SAMPLES=${5:-5000}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

wait_ready() { for _ in $(seq 300); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.2; done; return 1; }

extract() { # extract CALLGRIND_OUT KIND LABEL
    python3 - "$@" <<'PY'
import re, subprocess, sys
path, kind, label = sys.argv[1:4]
def annotate(*args):
    return subprocess.run(["callgrind_annotate", "--threshold=100", *args, path], capture_output=True,
                          text=True).stdout
incl, self_ = {}, {}
for text, table, whole in ((annotate("--inclusive=yes"), incl, True), (annotate(), self_, False)):
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+(\S+)( \[)?", line)
        # inclusive: a function's own entry (with its object); the
        # entries of code inlined from headers are already inside it
        if m and (m.group(3) or not whole):
            table[m.group(2)] = table.get(m.group(2), 0) + int(m.group(1).replace(",", ""))
tree = annotate("--tree=caller")
def calls(callee, caller):
    # "< caller (Nx)" lines directly above "* callee"
    total, block = 0, []
    for line in tree.splitlines():
        if not line.strip():
            block = []
            continue
        block.append(line)
        if "*  " in line and line.rstrip().endswith("]") and re.search(r"[:/]%s \[" % callee, line):
            for b in block:
                m = re.search(r"< .*[:/]%s \((\d[\d,]*)x\)" % caller, b)
                if m:
                    total += int(m.group(1).replace(",", ""))
    return total
def fn(name):
    return sum(v for k, v in incl.items() if k.endswith(":" + name))
def hdr(caller):
    return sum(v for k, v in self_.items() if k.endswith("fabric_envelope.h:" + caller))
if kind == "server":
    n = calls("session_deliver", "fabric_endpoint_poll")
    polls = calls("fabric_endpoint_poll", "ev_run")
    send, repost = fn("goblin_fabric_ep_send"), fn("goblin_fabric_ep_post_recv")
    decode = hdr("fabric_endpoint_poll")
    deliver = fn("session_deliver")
    idle = (fn("fabric_endpoint_poll") - deliver - repost - decode) / max(polls - n, 1)
    request = deliver + repost + decode
else:
    n = calls("send_frame", "main")
    polls = calls("goblin_fabric_ep_read_rx", "recv_frame")
    send, repost = fn("goblin_fabric_ep_send"), fn("goblin_fabric_ep_post_recv")
    decode = hdr("recv_frame")
    idle = fn("goblin_fabric_ep_read_rx") / max(polls, 1)
    request = fn("send_frame") + repost + decode
n = max(n, 1)
row = [label, str(n), "%.0f" % (request / n), "%.0f" % (send / n), "%.0f" % (decode / n),
       "%.0f" % (repost / n), "%.0f" % idle]
print("\t".join(row))
PY
}

echo -e "configuration\trequests\trequest\tsend\tdecode\trepost\tidle_poll" >"$OUT"
port=$((20000 + RANDOM % 20000))
for wire in resp sbe; do
    for mode in auto send; do
        port=$((port + 2))
        args=(--port $((port + 1)) --save "" --dir "$TMP" --libfabric "$PROVIDER" 127.0.0.1 "$port"
              --efa-heartbeat-timeout-ms 0)
        [ "$mode" = send ] && args+=(--libfabric-force-send)
        [ "$wire" = sbe ] && args+=(--enable-sbe)
        valgrind --tool=callgrind --callgrind-out-file="$TMP/server.cg" \
            "$BUILD/goblin-core" "${args[@]}" >"$TMP/server.log" 2>&1 &
        server=$!
        wait_ready "$TMP/server.log" "ready to accept"
        "$BUILD/goblin-bench" --transport fabric --wire "$wire" --send-mode "$mode" --ops "$OPS" \
            --samples "$SAMPLES" --warmup 0 --provider "$PROVIDER" --local-address 127.0.0.1 \
            --host 127.0.0.1 --port "$port" --timeout 60000 >/dev/null
        kill "$server"
        wait "$server" || true
        extract "$TMP/server.cg" server "goblin-$wire-$mode" >>"$OUT"
    done
done
for mode in auto send; do
    port=$((port + 2))
    force=()
    [ "$mode" = send ] && force=(--force-send)
    valgrind --tool=callgrind --callgrind-out-file="$TMP/floor.cg" "$BUILD/goblin-fabric-floor" \
        --serve --provider "$PROVIDER" --address 127.0.0.1 --port "$port" "${force[@]}" \
        >"$TMP/floor.log" 2>&1 &
    floor=$!
    "$BUILD/goblin-fabric-floor" --provider "$PROVIDER" --host 127.0.0.1 --port "$port" \
        --local-address 127.0.0.1 --samples "$SAMPLES" --warmup 0 "${force[@]}" >/dev/null
    wait "$floor" || true
    extract "$TMP/floor.cg" floor "floor-$mode" >>"$OUT"
done
cat "$OUT"
