import numpy as np

from hetsched.schedulers import Scheduler, Start


class FastestFit(Scheduler):
    """First come, first served; each job goes to the fastest node with room for it now."""

    name = "fastest-fit"

    def decide(self, now, events):
        speed = self.view.platform.arrays.speed
        for job in list(self.view.pending.values()):  # submission order
            fits = self.view.fit_mask(job)  # nodes with enough free cores (and memory)
            if not fits.any():
                return  # the oldest job waits, and nobody overtakes it
            yield Start.on(job, int(np.argmax(np.where(fits, speed, -np.inf))))


if __name__ == "__main__":
    from hetsched.examples import default_platform_path, default_workload_path
    from hetsched.metrics import summarize
    from hetsched.platform.load import load_platform
    from hetsched.sim.engine import simulate
    from hetsched.workload.load import load_workload

    platform = load_platform(default_platform_path())
    workload = load_workload(default_workload_path(), platform)
    result = simulate(platform, workload, FastestFit())
    metrics = summarize(result)
    print(f"{metrics['finished']} jobs finished, mean wait {metrics['mean_wait']:.1f} s, "
          f"makespan {metrics['makespan']:.1f} s")
