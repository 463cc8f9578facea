"""The questions a ds-sim algorithm asks (GETS Capable/Avail, LSTJ: the
:class:`~hetsched.dssim.algorithms.Servers` protocol), answered from the engine's view of a
ds-sim platform, as ds-server answers them (docs/dssim.md, "The server model")."""

from __future__ import annotations

from hetsched.dssim.algorithms import ListedJob, Target
from hetsched.dssim.records import JobRequest, ServerRecord, can_ever_run
from hetsched.errors import SchedulerError
from hetsched.platform.dssim import server_types
from hetsched.sim.ondemand import BOOTING, INACTIVE
from hetsched.sim.view import ClusterView
from hetsched.workload.model import Job


def request(job: Job) -> JobRequest:
    """A job as a ds-sim client sees it (JOBN): its integer sizes and estimate."""
    return JobRequest(int(job.id), int(job.submit), job.ntasks, int(job.job_memory_mb),
                      int(job.job_disk_mb), int(job.req_time))


class ViewServers:
    """The servers of a ds-sim platform (one per node, in node order: by type, then id).

    Available resources are what the engine leaves free (jobs held for a booting server
    count). A booting server's jobs are *waiting* (they start at boot), as are the jobs in a
    server's local queue; the others hold it *running*. ``start`` is the boot completion
    (-1 while inactive).

    Records are kept between questions: whoever changes a node (the scheduler, which sees
    every event and decision) says so with :meth:`changed`, and the next question reads the
    changed ones again."""

    def __init__(self, view: ClusterView) -> None:
        self.view = view
        self.types = server_types(view.platform)
        self.nodes: dict[str, list[int]] = {t.name: [] for t in self.types}
        self.ids: list[tuple[str, int]] = []
        for node in view.platform.nodes:
            group = self.nodes[node.type.name]
            self.ids.append((node.type.name, len(group)))
            group.append(node.index)
        self._records: list[ServerRecord] = []
        self._stale: set[int] = set(range(len(self.ids)))
        self._listed: dict[int, list[ListedJob]] = {}  # LSTJ answers, by node
        self._node_of = {target: node for node, target in enumerate(self.ids)}

    def changed(self, node: int) -> None:
        """``node``'s record (and its job list) must be read again."""
        self._stale.add(node)
        self._listed.pop(node, None)

    def node(self, target: Target) -> int:
        """The node of a ``(type, id)`` target."""
        node = self._node_of.get(target)
        if node is None:
            raise SchedulerError(f"no server {target[0]} {target[1]}")
        return node

    def capable(self, job: JobRequest) -> list[ServerRecord]:
        records = self._current()
        return [records[n] for t in self.types if can_ever_run(t, job) for n in self.nodes[t.name]]

    def available(self, job: JobRequest) -> list[ServerRecord]:
        return [r for r in self._current() if r.has_room(job) and not r.waiting]

    def jobs_on(self, record: ServerRecord) -> list[ListedJob]:
        node = self._node_of[record.type, record.id]
        listed = self._listed.get(node)
        if listed is None:
            listed = self._listed[node] = self._list(node)
        return list(listed)

    def _list(self, node: int) -> list[ListedJob]:
        view = self.view
        up = view.node_state(node) != BOOTING
        return [*(ListedJob(int(run.job.id), up, int(run.start), int(run.job.req_time))
                  for run in view.running_on(node).values()),
                *(ListedJob(int(job.id), False, -1, int(job.req_time))
                  for job in view.local_queue(node))]

    def _current(self) -> list[ServerRecord]:
        """Every server's record, in node order, the changed ones read again."""
        if self._stale:
            records = self._records
            if not records:
                records.extend(map(self._read, range(len(self.ids))))
            else:
                for node in self._stale:
                    records[node] = self._read(node)
            self._stale.clear()
        return self._records

    def _read(self, node: int) -> ServerRecord:
        view = self.view
        state = view.node_state(node)
        holding = len(view.running_on(node))
        waiting = view.local_queue_length(node) + (holding if state == BOOTING else 0)
        start = -1 if state == INACTIVE else int(view.up_since(node))
        return ServerRecord(*self.ids[node], state, start, int(view.free_slots[node]),
                            int(view.free_mem[node]), int(view.free_disk[node]), waiting,
                            0 if state == BOOTING else holding)
