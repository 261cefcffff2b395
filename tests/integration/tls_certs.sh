#!/usr/bin/env bash
# tls_certs.sh DIR — a throwaway PKI for the TLS tests and benchmark, made
# with the openssl CLI: a CA (ca.crt), two server certificates for
# 127.0.0.1/localhost signed by it (server.crt/key: CN goblin-server, serial
# 0x1001; server2.crt/key: CN goblin-server-2, serial 0x1002 — for reload
# tests), a client certificate (client.crt/key: CN goblin-client) and a
# client certificate from a CA the server does not trust (rogue.crt/key).
# Keys are unencrypted EC P-256; certificates are valid for two days.
set -euo pipefail
DIR=${1:?usage: tls_certs.sh DIR}
mkdir -p "$DIR"
cd "$DIR"
ssl() { openssl "$@" >/dev/null 2>&1 || { echo "tls_certs.sh: openssl $1 failed" >&2; exit 1; }; }
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >server.ext
ssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj "/CN=Goblin Test CA" -keyout ca.key -out ca.crt
ssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj "/CN=Rogue CA" -keyout rogue-ca.key -out rogue-ca.crt
# sign NAME CN SERIAL CA [EXTFILE]
sign() {
    ssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=$2" -keyout "$1.key" -out "$1.csr"
    ssl x509 -req -in "$1.csr" -CA "$4.crt" -CAkey "$4.key" -set_serial "$3" -days 2 \
        ${5:+-extfile "$5"} -out "$1.crt"
    rm -f "$1.csr"
}
sign server goblin-server 0x1001 ca server.ext
sign server2 goblin-server-2 0x1002 ca server.ext
sign client goblin-client 0x2001 ca
sign rogue rogue-client 0x3001 rogue-ca
