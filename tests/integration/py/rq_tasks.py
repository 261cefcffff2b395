"""The jobs rq_jobs.py enqueues (imported by RQ's work horse by name)."""


def double(n):
    return n * 2


def fail():
    raise ValueError("bad job")
