"""RQ (Debian's python3-rq) as an application runs it, against the server on
argv[1]: jobs enqueued, a burst worker (forking a work horse per job) that
stores each result in the job's results stream (XADD inside MULTI), a
failing job, a job depending on another, job status and results read back.
Prints a transcript that test_redis_py.sh compares between goblin-core and
redis-server."""
import os
import sys

import redis
from rq import Queue, Worker
from rq.job import Job

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main():
    r = redis.Redis(port=int(sys.argv[1]))
    r.flushall()
    q = Queue("goblin", connection=r)
    jobs = [q.enqueue("rq_tasks.double", n, job_id=f"d{n}") for n in range(6)]
    jobs.append(q.enqueue("rq_tasks.fail", job_id="bad"))
    jobs.append(q.enqueue("rq_tasks.double", 50, job_id="after", depends_on=jobs[0]))
    Worker([q], connection=r).work(burst=True, logging_level="CRITICAL")
    for job in jobs:
        job = Job.fetch(job.id, connection=r)
        latest = job.latest_result()
        results = job.results()
        print(job.id, job.get_status(), job.return_value(), latest.type.name if latest else None,
              len(results), r.xlen(f"rq:results:{job.id}"))
    print("failed registry", sorted(q.failed_job_registry.get_job_ids()))
    print("finished registry", sorted(q.finished_job_registry.get_job_ids()))


if __name__ == "__main__":
    main()
