"""Node-local FIFO queues: Enqueue and Dequeue."""

from hetsched.platform.model import NodeType, Platform
from hetsched.schedulers import Dequeue, Enqueue, Events, Scheduler
from hetsched.sim.engine import simulate
from hetsched.workload.model import Job, Workload

G = 1e9
NODE = NodeType("n", cores=2, clock_ghz=1.0)


class QueueAllThenMove(Scheduler):
    """Queues every job on node 0; at t=1 moves job 'c' (still waiting) to node 1."""

    name = "queue-then-move"

    def decide(self, now: float, events: Events):
        for job in events.submitted:
            yield Enqueue(job, 0)
        if now == 1.0:
            c = next(j for j in self.view.local_queue(0) if j.id == "c")
            yield Dequeue(c)
            assert list(self.view.pending) == [c.index]
            yield Enqueue(c, 1)


def test_dequeue_moves_a_waiting_job_to_another_node() -> None:
    platform = Platform.from_counts("p", [(NODE, 2)])
    # a and b (2 cores, 10 s) fill node 0 one after the other; c waits behind them until t=1.
    jobs = (Job("a", 0, 2, 10 * G, 10), Job("b", 0, 2, 10 * G, 10), Job("c", 0, 1, 5 * G, 5),
            Job("tick", 1, 1, 1 * G, 1))
    result = simulate(platform, Workload("w", jobs), QueueAllThenMove())
    start = dict(zip((j.id for j in result.workload.jobs), result.start.tolist()))
    # a starts at 0, b at 10 (FIFO on node 0); c moved to node 1 at t=1 starts there at once;
    # tick was queued on node 0 behind b at t=1 and starts when b ends at 20.
    assert start == {"a": 0.0, "b": 10.0, "c": 1.0, "tick": 20.0}
