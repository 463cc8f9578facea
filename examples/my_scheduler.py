import numpy as np

from hetsched.schedulers import Reject, Scheduler, Start


class FastestFit(Scheduler):
    """First come, first served; each job goes to the fastest node with room for it now."""

    name = "fastest-fit"

    def decide(self, now, events):
        speed = self.view.platform.arrays.speed
        for job in list(self.view.pending.values()):  # submission order
            if job.nodes != 1:
                yield Reject(job, "fastest-fit places a job on one node")
                continue
            fits = self.view.fit_mask(job)  # nodes with enough free cores (and memory)
            if not fits.any():
                return  # the oldest job waits, and nobody overtakes it
            yield Start.on(job, int(np.argmax(np.where(fits, speed, -np.inf))))


if __name__ == "__main__":
    import hetsched

    run = hetsched.simulate(scheduler=FastestFit())  # the bundled example platform and jobs
    s = run.summary
    print(f"{s['finished']} jobs finished, mean wait {s['mean_wait']:.1f} s, "
          f"makespan {s['makespan']:.1f} s")
