"""redis-py (Debian's python3-redis) over TLS: redis_py_tls.py PORT CERTS_DIR.

SET/GET, a 1 MB value, a 50k-command pipeline (sent whole before reading),
Pub/Sub, and a client without a certificate refused (tls-auth-clients yes).
Prints one summary line; raises on any mismatch."""
import sys
import time

import redis

port, certs = int(sys.argv[1]), sys.argv[2]


def client(cert=True):
    kw = dict(host="127.0.0.1", port=port, ssl=True, ssl_ca_certs=f"{certs}/ca.crt",
              socket_timeout=60)
    if cert:
        kw.update(ssl_certfile=f"{certs}/client.crt", ssl_keyfile=f"{certs}/client.key")
    return redis.Redis(**kw)


r = client()
assert r.ping() is True
r.set("py:key", "value")
assert r.get("py:key") == b"value"
big = b"x" * (1024 * 1024)
r.set("py:big", big)
assert r.get("py:big") == big

pipe = r.pipeline(transaction=False)
for i in range(50000):
    pipe.set(f"py:{i}", i)
assert all(pipe.execute())
pipe = r.pipeline(transaction=False)
for i in range(50000):
    pipe.get(f"py:{i}")
values = pipe.execute()
assert values == [str(i).encode() for i in range(50000)]

p = client().pubsub()
p.subscribe("py:chan")
assert p.get_message(timeout=10)["type"] == "subscribe"
assert r.publish("py:chan", b"m" * 100000) == 1
msg = None
deadline = time.time() + 10
while msg is None and time.time() < deadline:
    msg = p.get_message(timeout=1)
assert msg and msg["data"] == b"m" * 100000, msg
p.close()

try:
    client(cert=False).ping()
    raise AssertionError("a client without a certificate was accepted")
except (redis.exceptions.ConnectionError, ConnectionResetError, OSError):
    pass

print("redis-py over TLS: ping, 1 MB value, 2 x 50k pipeline, pubsub 100 KB, no-cert refused")
