"""Live mode against fake ds-sim servers on loopback: the whole conversation, both JOBN field
orders, and one-line errors, quickly, whatever the server does wrong: drops the connection,
trickles bytes, says something unknown, malformed or impossible."""

from __future__ import annotations

import time

import pytest
from typer.testing import CliRunner, Result

from dssim_fake_server import (Drip, FakeServer, ReplayServer, Reply, ScriptedServer,
                               conversation)
from hetsched.cli.main import app
from hetsched.dssim.client import run_client
from hetsched.dssim.protocol import MAX_LINE
from hetsched.dssim.records import JobnOrder, JobRequest, ProtocolError
from hetsched.platform.dssim import config_platform
from hetsched.workload.dssim import read_job_list
from hetsched.workload.model import Workload
from support import assert_one_line_error, shared


def live(fake, algo: str, order: JobnOrder = JobnOrder.CURRENT, **options) -> int:
    fake.start()
    try:
        return run_client(algo, port=fake.port, order=order, timeout=10, **options)
    finally:
        fake.join(10)


@pytest.mark.parametrize("algo", ["ff", "fafc", "wfq", "lwt", "lrr"])
@pytest.mark.parametrize("order", list(JobnOrder))
def test_live_run_asks_and_places_jobs_as_the_simulation_does(algo: str,
                                                               order: JobnOrder) -> None:
    # the simulation's conversation (events, GETS/LSTJ answers, decisions) played back: the
    # live client must send every message the simulation's client did, in the same order
    config = shared("dssim/configs/config12-med-med.xml")
    platform = config_platform(config)
    full = read_job_list(shared("dssim/jobs/config12-med-med-jobs.xml"), platform)
    workload = Workload(full.name, full.jobs[:150], full.source, metadata=full.metadata)
    exchanges = conversation(platform, workload, algo, order)
    fake = ReplayServer(exchanges)
    dispatched = sum(message.startswith("SCHD") for message, _ in exchanges)
    assert live(fake, algo, order, system=config) == dispatched
    assert fake.error is None and fake.received[-1] == "QUIT"  # every message as expected
    if algo == "wfq":
        assert "CHKQ" in [answer for _, answer in exchanges]


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
    assert JobRequest.parse(job.line("JOBN", JobnOrder.LEGACY), JobnOrder.CURRENT) != job


def test_dropped_connection_is_one_line_error() -> None:
    fake = ScriptedServer(["OK", "OK", None])
    with pytest.raises(ProtocolError, match="closed the connection before sending the "
                                            "answer to 'REDY'") as info:
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


# ---- a misbehaving server: one line `error: …`, exit 2, within about a second ----------------
TIMEOUT = 0.3
#: the client's timeout where what the server sends, not the timeout, must end the run: a busy
#: machine may take longer than TIMEOUT to pass a message between the fake server and the client
PATIENT = 30.0
HANDSHAKE = ["OK", "OK"]
SMALL = "small 0 inactive -1 4 1000 2000 0 0"
runner = CliRunner()


def gets(*records: str) -> list[Reply]:
    """The replies of a DATA exchange: to the request, to OK, and (if any records) to OK."""
    return [f"DATA {len(records)} 124", *(["\n".join(records)] if records else []), "."]


def jobn(cores: object = 2, memory: object = 300, disk: object = 400, estimate: object = 55,
         submit: object = 17, jid: object = 3) -> str:
    """A JOBN message (current field order) with any text in each field."""
    return f"JOBN {jid} {submit} {cores} {memory} {disk} {estimate}"


def dsclient(script: list[Reply], *options: str,
             timeout: float = TIMEOUT) -> tuple[Result, float, ScriptedServer]:
    """``hetsched dsclient`` against a server answering ``script``; result and seconds taken."""
    fake = ScriptedServer(script)
    fake.start()
    start = time.monotonic()
    result = runner.invoke(app, ["dsclient", "--port", str(fake.port), "--timeout",
                                 str(timeout), *options])
    elapsed = time.monotonic() - start
    fake.join(5)
    return result, elapsed, fake


LSTJ_SCRIPT = [*HANDSHAKE, jobn(), *gets(SMALL), *gets("small 0 active 0 4 1000 2000 1 1")]
MISBEHAVIOUR = {
    # (script, fragments of the error line)
    "silent": ([*HANDSHAKE, Drip(b"")], ["timed out after 0.3 s", "answer to 'REDY'"]),
    "drips a line with no end": ([*HANDSHAKE, Drip()], ["timed out after 0.3 s",
                                                        "answer to 'REDY'", "without a newline"]),
    "drips at HELO": ([Drip()], ["timed out", "answer to 'HELO'"]),
    "drips in a record": ([*HANDSHAKE, jobn(), "DATA 2 124", Drip()],
                          ["timed out", "record 1 of 2 answering 'GETS All'"]),
    "closes": ([*HANDSHAKE, None], ["closed the connection", "'REDY'"]),
    "line too long": ([*HANDSHAKE, b"x" * (MAX_LINE + 10)], [f"longer than {MAX_LINE} bytes"]),
    "superscript cores": ([*HANDSHAKE, jobn(cores="\u00b2")],
                          ["job 3, field 'cores'", "not an integer"]),
    "double minus id": ([*HANDSHAKE, jobn(jid="--5")], ["field 'jobID'", "not an integer"]),
    "negative cores": ([*HANDSHAKE, jobn(cores=-2)], ["job 3, field 'cores'", "out of range"]),
    "no cores": ([*HANDSHAKE, jobn(cores=0)], ["job 3, field 'cores'", "out of range (1 to"]),
    "negative memory": ([*HANDSHAKE, jobn(memory=-1)], ["field 'memory'", "out of range"]),
    "negative disk": ([*HANDSHAKE, jobn(disk=-1)], ["field 'disk'", "out of range"]),
    "estimate beyond int": ([*HANDSHAKE, jobn(estimate=2**31)],
                            ["field 'estRuntime'", "out of range (0 to 2147483647)"]),
    "huge estimate": ([*HANDSHAKE, jobn(estimate="9" * 5000)], ["field 'estRuntime'"]),
    "negative submit": ([*HANDSHAKE, jobn(submit=-1)], ["field 'submitTime'", "out of range"]),
    "negative id": ([*HANDSHAKE, jobn(jid=-1)], ["field 'jobID'", "out of range"]),
    "short JOBN": ([*HANDSHAKE, "JOBN 3 17 2"], ["expected 6 fields after JOBN", "got 3"]),
    "too many cores": ([*HANDSHAKE, jobn(cores=999), *gets(SMALL)],
                       ["job 3, field 'cores'", "999 is more than any server type has (4)"]),
    "too much memory": ([*HANDSHAKE, jobn(memory=10**6), *gets(SMALL)],
                        ["job 3, field 'memory'", "no server can run it"]),
    "fits no one type": ([*HANDSHAKE, jobn(cores=8, memory=900),
                          *gets(SMALL, "big 0 inactive -1 64 500 64000 0 0")],
                         ["job 3", "no server type has 8 cores, 900 MB memory"]),
    "negative record cores": ([*HANDSHAKE, jobn(), *gets("small 0 inactive -1 -4 1000 2000 0 0")],
                              ["GETS record", "field 'cores'", "out of range"]),
    "bad server state": ([*HANDSHAKE, jobn(), *gets("small 0 sleepy -1 4 1000 2000 0 0")],
                         ["field 'state'", "'sleepy' is not a server state"]),
    "superscript server id": ([*HANDSHAKE, jobn(), *gets("small \u00b2 inactive -1 4 1 2 0 0")],
                              ["field 'id'", "not an integer"]),
    "short record": ([*HANDSHAKE, jobn(), *gets("small 0 inactive")],
                     ["expected at least 9 fields", "got 3"]),
    "no servers": ([*HANDSHAKE, jobn(), *gets()], ["answered 'GETS All' with no servers"]),
    "none capable": ([*HANDSHAKE, jobn(), *gets(SMALL), *gets()],
                     ["'GETS Capable 2 300 400' with no servers", "'small' can run job 3"]),
    "DATA count huge": ([*HANDSHAKE, jobn(), "DATA 2000000000 124"],
                        ["field 'nRecs'", "out of range (0 to 1000000)"]),
    "DATA count superscript": ([*HANDSHAKE, jobn(), "DATA \u00b2 124"],
                               ["field 'nRecs'", "not an integer"]),
    "DATA count negative": ([*HANDSHAKE, jobn(), "DATA --5 124"], ["field 'nRecs'"]),
    "not DATA": ([*HANDSHAKE, jobn(), "OK"], ["answered 'GETS All' with 'OK'"]),
    "no end of DATA": ([*HANDSHAKE, jobn(), "DATA 1 124", SMALL, "OK"],
                       ["ended the answer to 'GETS All' with 'OK'"]),
    "JCPL time": ([*HANDSHAKE, "JCPL \u00b2 1 small 0"], ["field 'endTime'", "not an integer"]),
    "short JCPL": ([*HANDSHAKE, "JCPL"], ["'JCPL': expected at least 5 fields", "got 1"]),
    "RESF time": ([*HANDSHAKE, "RESF small 0 --5"], ["field 'time'", "not an integer"]),
    "RESR time": ([*HANDSHAKE, "RESR small 0 -5"], ["field 'time'", "out of range"]),
    "unknown message": ([*HANDSHAKE, "WHAT 1 2"], ["unexpected message", "'WHAT 1 2'"]),
    "LSTJ state": ([*LSTJ_SCRIPT, *gets("1 7 0 0 10 1 1 1")],
                   ["LSTJ record", "field 'state'", "out of range (1 to 2)"]),
    "LSTJ estimate": ([*LSTJ_SCRIPT, *gets("1 2 0 0 \u00b2 1 1 1")],
                      ["LSTJ record", "field 'estRunTime'", "not an integer"]),
    "short LSTJ": ([*LSTJ_SCRIPT, *gets("1 2 0")], ["LSTJ record", "expected 8 fields", "got 3"]),
}


@pytest.mark.parametrize("case", list(MISBEHAVIOUR))
def test_misbehaving_server_is_one_line_error_quickly(case: str) -> None:
    script, fragments = MISBEHAVIOUR[case]
    timeout = TIMEOUT if any("timed out" in fragment for fragment in fragments) else PATIENT
    result, elapsed, fake = dsclient(script, "--algo", "lwt", timeout=timeout)
    assert_one_line_error(result, *fragments)
    assert elapsed < 1.5, f"{case}: took {elapsed:.2f} s"


@pytest.mark.parametrize("drip", [Drip(), Drip(b"")])
def test_timeout_bounds_the_whole_wait_for_a_line(drip: Drip) -> None:
    """A byte every 0.05 s never lets a single read time out; the deadline still does."""
    result, elapsed, _ = dsclient([*HANDSHAKE, drip])
    assert_one_line_error(result, "127.0.0.1:", "waiting for the answer to 'REDY'")
    assert TIMEOUT <= elapsed < TIMEOUT + 0.7


def test_huge_data_count_is_refused_before_reading() -> None:
    result, _, fake = dsclient([*HANDSHAKE, jobn(), "DATA 2000000000 124", "OK"],
                               timeout=PATIENT)
    assert_one_line_error(result, "nRecs")
    assert "OK" not in fake.received[fake.received.index("GETS All"):]  # no OK to go on


@pytest.mark.parametrize("options, fragment", [
    (["--port", "70000"], "port must be from 1 to 65535, got 70000"),
    (["--timeout", "0"], "timeout must be > 0, got 0.0"),
    (["--timeout", "-1"], "timeout must be > 0, got -1.0"),
    (["--timeout", "nan"], "timeout must be a finite number, got nan"),
    (["--timeout", "inf"], "timeout must be a finite number, got inf"),
    (["--deadline", "0"], "deadline must be > 0, got 0.0"),
    (["--deadline", "inf"], "deadline must be a finite number, got inf"),
    (["--user", "a b"], "user name must be printable text without spaces, got 'a b'"),
    (["--user", ""], "user name must be printable text without spaces, got ''"),
    (["--user", "a\nQUIT"], "user name must be printable text"),
    (["--host", "x" * 300], "cannot connect to a ds-sim server"),
])
def test_bad_dsclient_options(options: list[str], fragment: str) -> None:
    result = runner.invoke(app, ["dsclient", "--port", "1", *options])
    assert_one_line_error(result, fragment)


class EndlessServer(FakeServer):
    """Completes a job after every REDY and never sends NONE, until the client hangs up."""

    def serve(self) -> None:
        self.send(self.recv() and "OK")  # HELO
        self.send(self.recv() and "OK")  # AUTH
        while self.recv():
            self.send("JCPL 5 1 small 0")


def test_dsclient_deadline_ends_a_run_that_never_ends() -> None:
    fake = EndlessServer()
    fake.start()
    result = runner.invoke(app, ["dsclient", "--port", str(fake.port), "--deadline", "0.5"])
    fake.join(10)
    assert_one_line_error(result, "did not end the run (NONE) within the deadline of 0.5 s")
    assert len(fake.received) > 3  # events went on until the deadline


def test_job_fields_parse_strictly() -> None:
    job = JobRequest(id=3, submit=17, cores=2, memory=300, disk=400, estimate=55)
    for order in JobnOrder:
        assert JobRequest.parse(job.line("JOBP", order), order) == job
    with pytest.raises(ProtocolError, match="field 'cores': '٣' is not an integer"):
        JobRequest.parse(jobn(cores="\u0663"), JobnOrder.CURRENT)  # Arabic-Indic three
