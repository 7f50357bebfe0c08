"""A small Toil workflow for WorkflowEngineIT: three children square their numbers, a follow-on adds
the squares, and the leader prints the sum. Every job is a batch job of the --batchSystem given."""
from toil.common import Toil
from toil.job import Job


def square(job, n):
    return n * n


def add(job, *values):
    return sum(values)


def fan_out(job, numbers):
    children = [job.addChildJobFn(square, n, cores=1, memory="300M", disk="64M") for n in numbers]
    follow = job.addFollowOnJobFn(
        add, *[c.rv() for c in children], cores=1, memory="300M", disk="64M")
    return follow.rv()


if __name__ == "__main__":
    parser = Job.Runner.getDefaultArgumentParser()
    options = parser.parse_args()
    with Toil(options) as toil:
        total = toil.start(Job.wrapJobFn(fan_out, [1, 2, 3], cores=1, memory="300M", disk="64M"))
    print("sum=%d" % total)
