"""Jobs and workloads (immutable). Jobs are kept sorted by submission time."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import MISSING, dataclass, field, fields, replace
from functools import cached_property
from operator import attrgetter

import numpy as np

from hetsched.errors import ConfigError

#: ``Job.nodes`` value meaning "tasks may be spread over any number of nodes".
SPREAD = 0


@dataclass(frozen=True, slots=True)
class Job:
    """One job of ``ntasks`` tasks, one core each: what a scheduler reads of it.

    Times are in seconds, work in operations, memory and disk in MB; each field says what it
    holds below. On a core of speed ``s`` (ops/s) a task takes ``req_ops / (ipc * s)``
    seconds (:mod:`hetsched.models.speed`). The names of earlier versions keep working as
    aliases: ``memory_mb`` (``job_memory_mb``), ``disk_mb`` (``job_disk_mb``), also as
    constructor keywords, and ``mem_mb`` (``task_memory_mb``).
    """

    id: str
    """The job's name, unique in its workload."""
    submit: float
    """When the job is submitted (s)."""
    ntasks: int
    """How many tasks: one core (thread) each."""
    req_ops: float
    """The work of each task (operations)."""
    req_time: float
    """The user's run-time estimate (s) on the **slowest** node type of the platform (the
    requested time); ``view.speed.estimate(job, node)`` scales it to a node."""
    ipc: float = 1.0
    """Operations per cycle the tasks achieve: a task takes ``req_ops / (ipc * s)`` seconds on
    a core of speed ``s``."""
    nodes: int = 1
    """How the tasks may be placed: 1 = all on one node (shared memory), k > 1 = spread evenly
    over exactly k nodes, ``SPREAD`` (0) = over any nodes (:attr:`spread`)."""
    job_memory_mb: float = 0.0
    """The memory the **whole job** holds while it runs (MB). A node running ``c`` of its
    tasks gives it ``c / ntasks`` of it (:func:`hetsched.sim.resources.share`), so a one-node
    job needs exactly this amount: whole-job sizes are kept as given (ds-sim's integers), not
    rebuilt from a per-task float (29 / 7 × 7 is not 29 in floating point).
    :attr:`task_memory_mb` is the memory per task."""
    job_disk_mb: float = 0.0
    """The disk the whole job holds while it runs (MB), shared out as ``job_memory_mb``."""
    mem_bw_gbs: float = 0.0
    """The memory bandwidth of each task (GB/s)."""
    mem_vol: float = 0.0
    """The memory traffic of each task in IRMaSim's units (its contention model divides it by
    the task's uncontended run time)."""
    cpu_util: float = 1.0
    """The share of its time a task's thread is busy on the CPU (DESiDE's U; 1 = always)."""
    profile: str = ""
    """The name of the profile the job was made from (IRMaSim's and Batsim's workloads;
    empty otherwise)."""
    parents: tuple[str, ...] = ()
    """The ids of the jobs that must finish before this one is released."""
    fixed_duration: bool = False
    """Whether a task takes ``req_ops / ipc`` seconds on **any** node (node speed does not
    count: Batsim's ``delay`` profiles); ``req_time`` is then an estimate on any node too
    (:mod:`hetsched.models.speed`)."""
    walltime: float | None = None
    """A limit in wall-clock seconds from the job's start (``None``: none); the engine's
    walltime rule kills a job still running then."""
    queue: int = -1
    """The trace's queue number (SWF field 15; -1 unknown)."""
    partition: int = -1
    """The trace's partition number (SWF field 16; -1 unknown)."""
    cpu_util_sd: float = 0.0
    """DESiDE's sigma (``0 <= sigma < 1``): how much a thread's busy and idle times vary from
    one short interval to the next, relative to their means (0 = not at all; only the
    ``deside_stochastic`` contention model reads it)."""
    index: int = -1
    """The job's position in its workload (set by :class:`Workload`; -1 outside one)."""
    etc: tuple[tuple[str, float], ...] = ()
    """An optional ETC row: the uncontended run time in seconds of each task on a core of each
    named node type, as ``(node type name, seconds)`` pairs (a tuple, so a job stays hashable
    and the default costs nothing; every number finite and > 0). With a row the speed model
    takes a task's run time on a node of type ``t``, and the scheduler's estimate there, from
    the row (:meth:`etc_time`), not from ``req_ops``, ``ipc`` and the node's speed: costs that
    are *unrelated* across node types (the textbook DAGs'), which no speed can express.
    ``req_ops`` then only measures progress (a task on type ``t`` does ``req_ops /
    etc_time(t)`` operations a second) and ``req_time`` is at least the row's largest value
    (no estimate exceeds ``req_time``, as without a row: conservative backfilling counts on
    it). A job runs only on a platform whose every node type its row names (the engine rejects
    it otherwise: :func:`hetsched.sim.resources.infeasibility`)."""
    budget: float | None = None
    """The job's co-allocation request (docs/model.md, "The cost model"; with
    ``min_performance`` and ``criterion``): the most it may pay for its nodes (``Σ T · c_i``,
    in the prices' currency; ``None``: no budget). Checked, kept by the native format, and used
    by no scheduler yet."""
    min_performance: float = 0.0
    """The least speed of a core the job's co-allocation request accepts (ops/s, the speed
    model's unit; 0: any)."""
    criterion: str | None = None
    """The name of the criterion the job's co-allocation window is chosen by (one of
    :mod:`hetsched.coalloc.criteria`; ``None``: the scheduler's)."""
    user: int = -1
    """Who submitted the job: SWF's user id, the native format's ``user`` (-1: unknown);
    ``jobs.csv``'s ``user``, what ``hetsched plot --colour-by user`` colours by."""

    def etc_time(self, node_type: str) -> float:
        """The run time of one task on a core of the node type named ``node_type`` by the ETC
        row; ``inf`` when the row does not name it (or there is no row): the job cannot run
        there."""
        for name, seconds in self.etc:
            if name == node_type:
                return seconds
        return math.inf

    @property
    def single_node(self) -> bool:
        return self.nodes == 1

    @property
    def spread(self) -> bool:
        """Whether the tasks may go to any number of nodes (``nodes == SPREAD``)."""
        return self.nodes == SPREAD

    @property
    def takes_space(self) -> bool:
        """Whether the job needs memory or disk, which backfilling projects besides cores."""
        return bool(self.job_memory_mb or self.job_disk_mb)

    @property
    def task_memory_mb(self) -> float:
        """Memory per task (MB)."""
        return self.job_memory_mb / self.ntasks

    # the names of earlier versions (aliases)
    memory_mb = property(lambda self: self.job_memory_mb, doc="Alias of ``job_memory_mb``.")
    disk_mb = property(lambda self: self.job_disk_mb, doc="Alias of ``job_disk_mb``.")
    mem_mb = property(lambda self: self.task_memory_mb, doc="Alias of ``task_memory_mb``.")


def job_column(jobs: Sequence[Job], name: str, dtype: type = float) -> np.ndarray:
    """The field ``name`` of every job as a numpy column, read without a Python call per job
    (a million jobs' in a tenth of a second)."""
    return np.fromiter(map(attrgetter(name), jobs), dtype, len(jobs))


#: Constructor keywords of earlier versions -> the fields they name now.
JOB_ALIASES = {"memory_mb": "job_memory_mb", "disk_mb": "job_disk_mb"}


def _init_with_aliases(cls: type, aliases: Mapping[str, str]) -> Callable[..., None]:
    """The dataclass ``__init__`` of ``cls`` taking, by keyword, the names of earlier versions
    too (``aliases``: old name -> field; given, it wins: ``dataclasses.replace(job,
    memory_mb=...)`` passes every field). Built from the fields as ``dataclasses`` builds its
    own (the source of the signature, compiled), so an object costs no more to make: jobs are
    made by the hundred thousand."""
    specs = [spec for spec in fields(cls) if spec.init]
    assert all(spec.default_factory is MISSING for spec in specs)
    params = [spec.name if spec.default is MISSING else f"{spec.name}=_default_{spec.name}"
              for spec in specs]
    lines = [f"def __init__(self, {', '.join(params)}, *, "
             f"{', '.join(f'{old}=None' for old in aliases)}):",
             *(f"    if {old} is not None: {new} = {old}" for old, new in aliases.items()),
             *(f"    _set_{spec.name}(self, {spec.name})" for spec in specs)]
    # each field set by its slot's own setter: a third quicker than object.__setattr__
    namespace = {**{f"_set_{spec.name}": cls.__dict__[spec.name].__set__ for spec in specs},
                 **{f"_default_{spec.name}": spec.default for spec in specs}}
    exec("\n".join(lines), namespace)  # noqa: S102 - our own fields' names, as dataclasses
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


Job.__init__ = _init_with_aliases(Job, JOB_ALIASES)  # type: ignore[method-assign]


@dataclass(frozen=True, slots=True)
class SkippedRecord:
    """A trace record that cannot be simulated, reported instead of silently dropped."""

    line: int
    job_id: str
    reason: str


#: Header keys giving the size, in cores, of the machine a workload was made for (SWF
#: ``MaxProcs``; Batsim ``nb_res``, whose resources hetsched reads as cores).
SIZE_KEYS = ("MaxProcs", "nb_res")


@dataclass(frozen=True)
class Workload:
    """Jobs in submission order (stable for equal times); ``Job.index`` is the position.

    ``skipped`` lists the input records that could not become jobs (e.g. SWF records with an
    unknown run time); ``metadata`` keeps the input's header (e.g. SWF ``MaxNodes``);
    ``notes`` say what the loader left out (reported as input warnings, as
    ``Platform.notes``).

    Job ids are unique and every number is finite, or ``ValueError`` is raised: the loaders
    check their files first (and name the bad record), this only guards against code that
    builds a workload itself.
    """

    name: str
    jobs: tuple[Job, ...]
    source: str = "<memory>"
    skipped: tuple[SkippedRecord, ...] = ()
    metadata: dict[str, object] = field(default_factory=dict, compare=False)
    notes: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        ordered = sorted(self.jobs, key=attrgetter("submit"))
        jobs = tuple(j if j.index == i else replace(j, index=i) for i, j in enumerate(ordered))
        object.__setattr__(self, "jobs", jobs)
        if len(set(map(attrgetter("id"), jobs))) != len(jobs):
            seen: set[str] = set()
            repeated = next(j.id for j in jobs if j.id in seen or seen.add(j.id))
            raise ValueError(f"workload '{self.name}': duplicate job id '{repeated}'")
        _check_jobs(jobs)

    @classmethod
    def of_checked(cls, name: str, jobs: tuple[Job, ...], source: str,
                   skipped: tuple[SkippedRecord, ...] = (),
                   metadata: dict[str, object] | None = None) -> Workload:
        """The workload of ``jobs`` that a loader made in submission order, each at its index,
        with unique ids and every number checked (what :meth:`__post_init__` sorts and
        checks): the SWF reader's, from its checked table, whose million jobs a second pass
        would take a second more to read back."""
        workload = cls.__new__(cls)
        for key, value in (("name", name), ("jobs", jobs), ("source", source),
                           ("skipped", skipped), ("metadata", metadata or {}), ("notes", ())):
            object.__setattr__(workload, key, value)
        return workload

    @cached_property
    def by_id(self) -> dict[str, Job]:
        """The jobs by id, made on first use (the DAG rules read it; a million jobs' dict
        is 30 MB that a run without parents never needs)."""
        return {job.id: job for job in self.jobs}

    def column(self, name: str, dtype: type = float) -> np.ndarray:
        """:func:`job_column` of every job, read-only, made once per field and type: the
        jobs never change, and a run's job records and files read the same columns (a
        loader may give them, :meth:`keep_columns`)."""
        columns = self._columns
        key = (name, dtype)
        if key not in columns:
            columns[key] = job_column(self.jobs, name, dtype)
            columns[key].flags.writeable = False
        return columns[key]

    def keep_columns(self, columns: Mapping[tuple[str, type], np.ndarray]) -> None:
        """Keep columns a loader has, as :meth:`column` would make them (the same values,
        one per job in order), so that they are never read back from the jobs."""
        for key, values in columns.items():
            assert len(values) == len(self.jobs)
            values.flags.writeable = False
            self._columns[key] = values

    @cached_property
    def _columns(self) -> dict[tuple[str, type], np.ndarray]:
        return {}

    def __len__(self) -> int:
        return len(self.jobs)

    @property
    def declared_cores(self) -> int | None:
        """The machine size in cores its header gives (:data:`SIZE_KEYS`), if it is a whole
        number >= 1."""
        value = next((self.metadata[k] for k in SIZE_KEYS if k in self.metadata), None)
        usable = isinstance(value, int) and not isinstance(value, bool) and value > 0
        return value if usable else None


#: The numbers every job must have finite.
_FINITE = ("submit", "req_ops", "req_time", "ipc", "memory_mb", "disk_mb", "mem_bw_gbs",
           "mem_vol", "cpu_util", "cpu_util_sd")
#: Jobs checked at once by :func:`_check_jobs`.
_CHECKED = 1 << 15


def _check_jobs(jobs: tuple[Job, ...]) -> None:
    """:func:`_check_finite` of every job, called only for the jobs that a numpy pass over a
    block of jobs does not clear: every number finite, ``cpu_util_sd`` in [0, 1), a walltime
    positive and finite, and no ETC row or co-allocation request (a job with one is checked
    whole). A million jobs take a second, not three."""
    numbers = attrgetter(*(JOB_ALIASES.get(name, name) for name in _FINITE), "min_performance")
    rare = attrgetter("etc", "budget", "criterion")
    none = ((), None, None).__eq__
    for begin in range(0, len(jobs), _CHECKED):
        block = jobs[begin:begin + _CHECKED]
        values = np.array(list(map(numbers, block)))
        walltime = np.array([1.0 if w is None else w for w in map(attrgetter("walltime"), block)])
        if values.dtype.kind not in "biuf" or walltime.dtype.kind not in "biuf":
            unclear = range(len(block))  # not all numbers: each job says which is not
        else:
            sd = values[:, len(_FINITE) - 1]
            clear = (np.isfinite(values).all(axis=1) & (sd >= 0) & (sd < 1)
                     & (values[:, -1] == 0) & (walltime > 0) & (walltime < math.inf)
                     & np.fromiter(map(none, map(rare, block)), bool, len(block)))
            unclear = np.flatnonzero(~clear).tolist()
        for index in unclear:
            _check_finite(block[index])


def _check_finite(job: Job) -> None:
    for name in _FINITE:
        if not math.isfinite(getattr(job, name)):
            raise ValueError(f"job '{job.id}': {name} is not finite ({getattr(job, name)})")
    if not 0 <= job.cpu_util_sd < 1:
        raise ValueError(f"job '{job.id}': cpu_util_sd must be in [0, 1) ({job.cpu_util_sd})")
    if job.walltime is not None and not 0 < job.walltime < math.inf:
        raise ValueError(f"job '{job.id}': walltime must be positive and finite "
                         f"({job.walltime})")
    if job.etc:
        _check_etc(job)
    if job.budget is not None or job.min_performance or job.criterion is not None:
        _check_request(job)


def _check_etc(job: Job) -> None:
    """An ETC row: each node type named once, each time finite and > 0, no time beyond
    ``req_time``, and work to measure progress by (``req_ops`` > 0)."""
    names = [name for name, _ in job.etc]
    if len(set(names)) != len(names):
        raise ValueError(f"job '{job.id}': etc names a node type twice ({names})")
    for name, seconds in job.etc:
        if not 0 < seconds < math.inf:
            raise ValueError(f"job '{job.id}': etc time on '{name}' must be positive and "
                             f"finite ({seconds})")
    if not job.req_ops > 0:
        raise ValueError(f"job '{job.id}': a job with an etc row needs req_ops > 0 "
                         f"({job.req_ops})")
    longest = max(seconds for _, seconds in job.etc)
    if job.req_time < longest:
        raise ValueError(f"job '{job.id}': req_time {job.req_time} is below its etc row's "
                         f"longest time {longest} (no estimate may exceed req_time)")


def _check_request(job: Job) -> None:
    """A co-allocation request: a budget and a minimum performance finite and >= 0, a
    criterion that exists."""
    for name in ("budget", "min_performance"):
        value = getattr(job, name)
        if value is not None and not 0 <= value < math.inf:
            raise ValueError(f"job '{job.id}': {name} must be finite and >= 0 ({value})")
    if job.criterion is not None:
        problem = criterion_problem(job.criterion)
        if problem:
            raise ValueError(f"job '{job.id}': {problem}")


def criterion_problem(name: str) -> str | None:
    """Why ``name`` is not a co-allocation criterion (with a "did you mean"), or ``None``.
    The criteria are imported only for jobs that name one."""
    from hetsched.coalloc.criteria import criterion

    try:
        criterion(name)
    except ConfigError as error:
        return str(error)
    return None


def scale_delays(workload: Workload, speed: float) -> Workload:
    """``workload`` with every fixed-duration job (Batsim's delays) made work: its duration
    becomes its run time on a core of ``speed`` ops/s (the platform's slowest), so faster nodes
    run it faster. Estimates, on the slowest node, stay the same seconds."""
    if not any(job.fixed_duration for job in workload.jobs):
        return workload
    jobs = tuple(replace(job, fixed_duration=False, req_ops=job.req_ops * speed)
                 if job.fixed_duration else job for job in workload.jobs)
    return replace(workload, jobs=jobs)
