"""What ``train_gym_policy.py`` writes beside its CSV rows: the comparison table (Markdown)
and the learning curve (docs/gym.md, "Training a policy")."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

#: The trained policy's name in the table, the figure and ``evaluation.csv``.
AGENT = "policy"
#: The same policy before training (all weights 0: greedy, it takes the first allowed pair,
#: random × random when its job can start), what training is measured against.
UNTRAINED = "untrained policy"
#: What the table and ``evaluation.csv`` report, the reward's metric first.
METRICS = ("mean_bounded_slowdown", "makespan", "mean_wait", "energy_j")


def table(rows: list[dict[str, Any]], choices: Counter[str], seed: int, trainer: str) -> str:
    """The comparison as Markdown: mean ± std and median per scheduler and metric over the
    held-out episodes, the agent that trained the policy, the greedy policy's most frequent
    actions, then its paired changes against the baseline with the lowest mean of the
    reward's metric and against the untrained policy (``hetsched.report.paired``)."""
    import pandas

    from hetsched.metrics.catalogue import METRICS as CATALOGUE

    frame = pandas.DataFrame(rows)
    names = list(dict.fromkeys(frame["scheduler"]))
    declared = [CATALOGUE.find(metric) for metric in METRICS]
    lines = [f"| scheduler | {' | '.join(metric.label for metric in declared)} |",
             "|---" * (len(METRICS) + 1) + "|"]
    for name in names:
        values = frame[frame["scheduler"] == name]
        cells = [f"{metric.format(values[metric.key].mean())} ± "
                 f"{metric.format(values[metric.key].std())} "
                 f"(median {metric.format(values[metric.key].median())})"
                 for metric in declared]
        lines.append(f"| {name} | {' | '.join(cells)} |")
    lines += ["", f"The {AGENT} was trained by {trainer}.",
              "", f"The greedy {AGENT}'s actions on the held-out episodes: "
              f"{action_shares(choices)}."]
    baselines = frame[~frame["scheduler"].isin([AGENT, UNTRAINED])]
    best = str(baselines.groupby("scheduler")[METRICS[0]].mean().idxmin())
    for against, why in ((best, f"the baseline with the lowest mean of the "
                                f"{declared[0].label}"),
                         (UNTRAINED, "what training changed")):
        lines += ["", f"{AGENT} against {against} ({why}), paired by held-out episode: the "
                  "relative change, its median and bootstrap 95 % CI, Wilcoxon's signed-rank "
                  "p:", "", *paired_rows(frame[frame["scheduler"].isin([AGENT, against])],
                                         against, seed)]
    return "\n".join(lines) + "\n"


def paired_rows(frame: Any, baseline: str, seed: int) -> list[str]:
    """The Markdown table of :func:`hetsched.report.paired.paired` against ``baseline``."""
    from hetsched.metrics.catalogue import METRICS as CATALOGUE
    from hetsched.report.paired import paired

    lines = ["| metric | pairs | median change | 95 % CI | p |", "|---|---|---|---|---|"]
    for found in paired(frame, METRICS, ["seed"], baseline, seed=seed):
        label = CATALOGUE.find(found.metric).label
        if not found.pairs:  # (the baseline's value is 0 in every episode)
            lines.append(f"| {label} | 0 | no change to measure against 0 | | |")
            continue
        p = "too few pairs" if found.p_value is None else f"{found.p_value:.3g}"
        lines.append(f"| {label} | {found.pairs} | {found.median:+.1%} | "
                     f"[{found.low:+.1%}, {found.high:+.1%}] | {p} |")
    return lines


def action_names(env: Any, actions: str) -> list[str]:
    """Each action's name, "wait" last: ``smallest × high_gflops`` (``policy``), ``job 0 ×
    node-name`` (``job_node``: the visible job, the node)."""
    from hetsched.gym import PAIRS

    if actions == "policy":
        return [f"{job} × {node}" for job, node in PAIRS] + ["wait"]
    nodes = [node.name for node in env.unwrapped.platform.nodes]
    jobs = (env.action_space.n - 1) // len(nodes)
    return [f"job {job} × {node}" for job in range(jobs) for node in nodes] + ["wait"]


def action_shares(choices: Counter[str], most: int = 3) -> str:
    """The ``most`` frequent actions with their shares of all (``smallest × high_gflops
    97.5 %, …``)."""
    total = sum(choices.values())
    shares = [f"{name} {count / total:.1%}" for name, count in choices.most_common(most)]
    return ", ".join(shares) + f" (of {total:,} actions)"


def figure(curve: list[dict[str, float]], validation: list[dict[str, float]],
           rows: list[dict[str, Any]], trainer: str, path: Path, *, window: int,
           validation_episodes: int) -> Path:
    """The learning curve. Above, the mean bounded slowdown (= −the episode's return) of each
    training episode (the sampled policy: points; their moving average: line), of the greedy
    policy on the validation episodes (markers), and the held-out means (dashed). Below, the
    policy's entropy (nats) per training episode, its moving average."""
    from hetsched.report.mpl import axis_label, format_axis, pyplot, save

    plt = pyplot()
    from matplotlib.ticker import MaxNLocator

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8.5, 6.5), sharex=True,
                                      height_ratios=(2, 1))
    episodes = [row["episode"] + 1 for row in curve]
    top.plot(episodes, [row["mean_bounded_slowdown"] for row in curve], ".", color="0.75",
             markersize=3, label="training episode (sampled)")
    top.plot(episodes, [row["mean_bounded_slowdown_avg"] for row in curve], color="C0",
             label=f"moving average ({window} episodes)")
    top.plot([row["episodes_trained"] for row in validation],
             [row["mean_bounded_slowdown"] for row in validation], "o-", color="C1",
             markersize=4, label=f"greedy, {validation_episodes} validation episodes")
    means: dict[str, list[float]] = {}
    for row in rows:
        means.setdefault(row["scheduler"], []).append(row["mean_bounded_slowdown"])
    colours = iter(("C2", "C3", "C4", "C5", "C6", "C7", "C8", "C9"))
    for name, values in means.items():
        ours = name == AGENT  # (in the greedy markers' colour, dotted)
        top.axhline(float(np.mean(values)), color="C1" if ours else next(colours, "0.3"),
                    linestyle=":" if ours else "--",
                    label=f"{name}{' (greedy)' if ours else ''}: mean of "
                          f"{len(values)} held-out episodes")
    top.set_yscale("log")
    top.set_ylabel(axis_label("mean_bounded_slowdown"))
    format_axis(top.yaxis, "ratio")
    bottom.plot(episodes, [row["entropy_avg"] for row in curve], color="C0")
    bottom.set_ylabel("policy entropy (nats)")
    bottom.set_xlabel("training episodes")
    format_axis(bottom.xaxis, "count")
    bottom.xaxis.set_major_locator(MaxNLocator(nbins=6, integer=True))
    bottom.set_ylim(0, 1.05 * max((row["entropy_avg"] for row in curve), default=1.0))
    top.set_title(f"{trainer}\nhetsched/Cluster-v0, Lublin workloads, 20 nodes",
                  fontsize="medium")
    top.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    fig.tight_layout()
    return save(fig, path, "png")


def write_csv(path: Path, rows: list[dict[str, Any]], columns: Sequence[str]) -> None:
    import csv

    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(columns), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
