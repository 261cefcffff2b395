"""redis-py pipelines that send the whole batch before reading any reply
(pipeline().execute()): 1M SETs, then 300k GETs of 1 KB values. Used by
test_flow_control_python.sh; a deadlocked server fails it by the socket
timeout instead of hanging (redis-py's default is to wait for ever)."""
import sys

import redis

port = int(sys.argv[1])
r = redis.Redis(host="127.0.0.1", port=port, socket_timeout=120)

pipe = r.pipeline(transaction=False)
for i in range(1_000_000):
    pipe.set(f"k{i}", i)
replies = pipe.execute()
assert len(replies) == 1_000_000 and all(replies), "1M SETs"
assert r.dbsize() == 1_000_000

value = b"v" * 1024
pipe = r.pipeline(transaction=False)
for i in range(1000):
    pipe.set(f"v{i}", value)
pipe.execute()
pipe = r.pipeline(transaction=False)
for i in range(300_000):
    pipe.get(f"v{i % 1000}")
replies = pipe.execute()
assert len(replies) == 300_000 and all(x == value for x in replies), "300k GETs"
print("ok")
