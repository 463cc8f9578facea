"""The sane limits of every input quantity, in one place.

Every loader checks its numbers against these bounds **before** it builds anything, so a
typo such as a node count of 2e9 fails at once instead of exhausting memory, and every value
the engine derives stays finite:

- core speed = ``clock_ghz · 1e9 · ops_per_cycle`` lies in [1e3, 1e16] ops/s ([1, 1e16] for a
  SimGrid/Batsim host, :data:`MIN_SPEED`);
- work derived from a run time (``run_time · ipc · speed``) is at most 1e10 · 1e3 · 1e16 =
  1e29 ops, below :data:`MAX_OPS`;
- a task's run time ``req_ops / (ipc · speed)`` is at most 1e30 / (1e-3 · 1) = 1e33 s;
- a node's power is at most 1e9 W · 1e6 cores · 1e9 = 1e24 W (a generous bound: per-core
  dynamic power times cores, plus processors' static power scaled by IRMaSim's min_power), so
  energy ``power · time`` summed over every node stays below 1e24 W · 1e33 s · 1e6 nodes =
  1e63 J, far from float64's 1.8e308.

The bounds are generous for real systems: the largest machines have about 1e5 nodes and 1e7
cores, and a century is 3.2e9 s. ds-sim stores its integers as 32-bit signed ints, so its
files are bounded by :data:`MAX_INT32` as well.
"""

from __future__ import annotations

#: Nodes of one platform (Fugaku, the largest by node count, has 158,976).
MAX_NODES = 1_000_000
#: Cores of one node (all its processors together).
MAX_CORES_PER_NODE = 1_000_000
#: Jobs a workload generator may be asked for.
MAX_GENERATED_JOBS = 10_000_000
#: Tasks (cores) of one job.
MAX_TASKS = 100_000_000
#: Any time or duration, in seconds: submit times, run times, estimates, boot times (317 years).
MAX_TIME = 1e10
#: Smallest time or duration other than 0, in seconds (a nanosecond): below it (a subnormal
#: such as 5e-324) a ratio over the time, e.g. a job's heterogeneous slowdown over its run
#: time, overflows to infinity. Also the smallest work other than 0, in operations.
MIN_NONZERO = 1e-9
#: Clock rate of a core, in GHz (1 MHz to 1 THz).
MIN_CLOCK_GHZ, MAX_CLOCK_GHZ = 1e-3, 1e3
#: Operations per cycle of a core.
MIN_OPS_PER_CYCLE, MAX_OPS_PER_CYCLE = 1e-3, 1e4
#: Speed of a core, ops/s (``clock_ghz · 1e9 · ops_per_cycle``): also the largest SWF
#: reference speed.
MAX_SPEED = MAX_CLOCK_GHZ * 1e9 * MAX_OPS_PER_CYCLE
#: Slowest core a SimGrid/Batsim platform may give a compute host, in flop/s (Batsim's test
#: platforms have 50 flop/s hosts, below the clock and ops-per-cycle bounds' product).
MIN_SPEED = 1.0
#: A job's instructions per cycle.
MIN_IPC, MAX_IPC = 1e-3, 1e3
#: Work of one task, in operations.
MAX_OPS = 1e30
#: Memory traffic of one task (IRMaSim's ``mem_vol``).
MAX_MEM_VOL = 1e30
#: Any power figure, in watts (per node, or per core where a format gives it so).
MAX_POWER_W = 1e9
#: Memory (or disk) of a node or of a task, in MB (1 exabyte).
MAX_MEMORY_MB = 1e12
#: Memory bandwidth of a node or of a task, in GB/s.
MAX_BANDWIDTH_GBS = 1e9
#: Rental price of a node, per hour.
MAX_PRICE = 1e9
#: A job's budget (co-allocation's ``C``), in the prices' currency: a node-hour at the top
#: price for :data:`MAX_TIME` seconds on :data:`MAX_NODES` nodes is about 3e21.
MAX_BUDGET = 1e30
#: A value of an ETC matrix (expected time to compute, in the matrix's own unit).
MAX_ETC = 1e15
#: Tasks of one task graph (DAG), dummy tasks included: Kasahara's largest STG sets have
#: 5,002; list scheduling is quadratic in the tasks, and a header announcing 10**12 fails at
#: once.
MAX_GRAPH_TASKS = 1_000_000
#: Edges of one task graph (each held as a Python tuple: about 1.5 GB at this bound).
MAX_GRAPH_EDGES = 10_000_000
#: Entries of a task graph's cost matrix, tasks × processors (800 MB of float64): bounds the
#: processors an STG graph (identical processors, not counted in the file) is spread over.
MAX_GRAPH_COSTS = 100_000_000
#: Size of one file a workflow's tasks exchange (WfFormat ``sizeInBytes``), bytes: 1 EB.
MAX_DATA_BYTES = 10**18
#: Numeric job ids (SWF job numbers) must be exact in float64.
MAX_JOB_NUMBER = 2**53
#: ds-sim's integers (C ints): ids, times, cores, memory and disk of its XML files.
MAX_INT32 = 2**31 - 1

#: Largest input file hetsched reads into memory, in bytes (a ``.swf.gz``: decompressed). The
#: largest public traces are a few hundred MB; a device such as ``/dev/zero`` or a gzip bomb
#: is refused before it fills the memory.
MAX_FILE_BYTES = 4 * 2**30

#: Largest magnitude of a number read back from a run's outputs (a run directory's files):
#: far above anything a run writes (energy stays below 1e63 J), and low enough that sums and
#: products of two such numbers stay finite.
MAX_OUTPUT_VALUE = 1e100

#: Largest magnitude of a contention-model parameter (IRMaSim's ``b, c, da, db, dc, dd``).
MAX_MODEL_PARAMETER = 1e30

#: Most runnable threads per core a node may allow (``oversubscription``).
MAX_OVERSUBSCRIPTION = 64

#: Repetitions of one Batsim sequence profile (``repeat``); nested sequences multiply, and
#: the total work is checked against :data:`MAX_TIME` / :data:`MAX_OPS`.
MAX_REPEAT = 1_000_000_000
#: Entries of a Batsim parallel-task profile's ``cpu`` vector or ``com`` matrix, and of a
#: sequence's ``seq`` list.
MAX_PROFILE_ENTRIES = 100_000_000
