"""Live mode against fake ds-sim servers on loopback: the whole conversation, both JOBN field
orders, and one-line errors when the server drops the connection or says something unknown."""

from __future__ import annotations

import pytest

from dssim_fake_server import EmulatedProtocolServer, ScriptedServer
from hetsched.dssim.algorithms import ALGORITHMS
from hetsched.dssim.client import run_client
from hetsched.dssim.dispatch import dispatch
from hetsched.dssim.records import JobnOrder, JobRequest, ProtocolError
from hetsched.dssim.server import EmulatedServer
from hetsched.dssim.xml import JOBS_KEY, config_platform, read_job_list, server_types
from support import SHARED_DATA

CONFIG = SHARED_DATA / "dssim" / "configs" / "config12-med-med.xml"
JOBS = SHARED_DATA / "dssim" / "jobs" / "config12-med-med-jobs.xml"
needs_data = pytest.mark.skipif(not CONFIG.is_file(), reason="shared ds-sim data not available")


def live(fake, algo: str, order: JobnOrder = JobnOrder.CURRENT, **options) -> int:
    fake.start()
    try:
        return run_client(algo, port=fake.port, order=order, timeout=10, **options)
    finally:
        fake.join(10)


def placements(server: EmulatedServer) -> dict[int, tuple[int, int | None]]:
    return {jid: (p.server.index, p.start) for jid, p in server.placed.items()}


def emulated_server(jobs: int) -> EmulatedServer:
    platform = config_platform(CONFIG)
    workload = read_job_list(JOBS, platform)
    return EmulatedServer(server_types(platform), workload.metadata[JOBS_KEY][:jobs])


@needs_data
@pytest.mark.parametrize("algo", ["ff", "fafc", "wfq", "lwt", "lrr"])
@pytest.mark.parametrize("order", list(JobnOrder))
def test_live_run_places_jobs_as_the_simulation_does(algo: str, order: JobnOrder) -> None:
    fake = EmulatedProtocolServer(emulated_server(150), order)
    assert live(fake, algo, order, system=CONFIG) == 150
    assert fake.error is None and fake.received[-1] == "QUIT"
    in_process = emulated_server(150)
    dispatch(in_process, ALGORITHMS[algo]())
    assert placements(fake.server) == placements(in_process)


def test_handshake_and_first_messages() -> None:
    fake = ScriptedServer(["OK", "OK", "NONE", "QUIT"])
    assert live(fake, "ff", user="alice") == 0
    assert fake.received == ["HELO", "AUTH alice", "REDY", "QUIT"]


@pytest.mark.parametrize("order", list(JobnOrder))
def test_jobn_field_orders(order: JobnOrder) -> None:
    job = JobRequest(id=3, submit=17, cores=2, memory=300, disk=400, estimate=55)
    record = "small 0 inactive -1 4 1000 2000 0 0"
    script = ["OK", "OK", job.line("JOBN", order),
              "DATA 1 124", record, ".",          # GETS All (server types)
              "DATA 1 124", record, ".",          # GETS Capable
              "OK", "NONE", "QUIT"]
    fake = ScriptedServer(script)
    assert live(fake, "ff", order) == 1
    assert "GETS Capable 2 300 400" in fake.received and "SCHD 3 small 0" in fake.received


def test_legacy_line_read_with_the_current_order_is_caught() -> None:
    job = JobRequest(id=3, submit=17, cores=2, memory=300, disk=400, estimate=55)
    assert JobRequest.parse(job.line("JOBN", JobnOrder.LEGACY).split()[1:],
                            JobnOrder.CURRENT) != job


def test_dropped_connection_is_one_line_error() -> None:
    fake = ScriptedServer(["OK", "OK", None])
    with pytest.raises(ProtocolError, match="closed the connection after 'REDY'") as info:
        live(fake, "ff")
    assert "\n" not in str(info.value)


def test_unknown_message_is_one_line_error() -> None:
    fake = ScriptedServer(["OK", "OK", "WHAT 1 2"])
    with pytest.raises(ProtocolError, match="unexpected message .*'WHAT 1 2'"):
        live(fake, "ff")


def test_refused_schedule_is_reported() -> None:
    job = JobRequest(id=1, submit=0, cores=1, memory=1, disk=1, estimate=5)
    record = "small 0 inactive -1 4 1000 2000 0 0"
    fake = ScriptedServer(["OK", "OK", job.line("JOBN", JobnOrder.CURRENT),
                           "DATA 1 124", record, ".", "DATA 1 124", record, ".",
                           "ERR: No such waiting job exists"])
    with pytest.raises(ProtocolError, match="answered 'SCHD 1 small 0' with 'ERR"):
        live(fake, "ff")


def test_unknown_server_type_in_a_record() -> None:
    job = JobRequest(id=1, submit=0, cores=1, memory=1, disk=1, estimate=5)
    fake = ScriptedServer(["OK", "OK", job.line("JOBN", JobnOrder.CURRENT),
                           "DATA 1 124", "small 0 inactive -1 4 1000 2000 0 0", ".",
                           "DATA 1 124", "huge 0 inactive -1 64 1000 2000 0 0", "."])
    with pytest.raises(ProtocolError, match="unknown server type 'huge'"):
        live(fake, "ff")


def test_no_server_listening() -> None:
    fake = ScriptedServer([])
    port = fake.port
    fake.listener.close()
    with pytest.raises(ProtocolError, match=f"cannot connect to a ds-sim server at .*:{port}"):
        run_client("ff", port=port, timeout=5)
