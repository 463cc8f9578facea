"""ds-sim's global queue and when ds-server examines it: the CHKQ rules of ds-server's
``HandleREDY`` (``src/ds_server.c`` of github.com/distsys-MQ/ds-sim), all of them here, so that
a rule found to differ from the real server is changed in one place (docs/dssim.md, "Global
queue and CHKQ").

A client sends a job it cannot place to the back of the queue (ENQJ GQ). Once every job of
the list has been submitted, the server checks the queue (CHKQ) at the first REDY after a
completion (JCPL), and again at each REDY while each check left the queue shorter than it was
(the job taken back was scheduled). On CHKQ the client takes the head back (DEQJ GQ 0); it is
offered again as a job (JOBP).
"""

from __future__ import annotations

from collections import deque

from hetsched.workload.model import Job


class GlobalQueue:
    """The queue and ds-server's check state: ``checking`` while CHKQ may be sent;
    ``checked_length``, the queue's length at the last CHKQ (0 again after each JCPL)."""

    def __init__(self) -> None:
        self.jobs: deque[Job] = deque()
        self.checking = False
        self.checked_length = 0

    def enqueue(self, job: Job) -> None:
        """ENQJ GQ: ``job`` to the back."""
        self.jobs.append(job)

    def completed(self) -> None:
        """A JCPL was sent: the next REDY checks the queue again."""
        self.checked_length = 0

    def check(self, all_submitted: bool) -> Job | None:
        """At a REDY: the job a CHKQ takes back (DEQJ GQ 0, the head), or ``None`` when the
        server sends no CHKQ now (before the last submission, or until the next JCPL)."""
        if not all_submitted:
            return None
        if not self.jobs:
            self.checking = False
        elif not self.checking and self.checked_length == 0:
            self.checking = True
        elif self.checking and self.checked_length == len(self.jobs):
            self.checking = False  # the last job taken back went back to the queue
        if not self.checking:
            return None
        self.checked_length = len(self.jobs)
        return self.jobs.popleft()
