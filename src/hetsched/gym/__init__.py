"""A gymnasium environment on the steppable engine: ``hetsched/Cluster-v0`` (docs/gym.md).

Importing this package registers the environment (it needs the ``gym`` extra: ``pip install
hetsched[gym]``)::

    import gymnasium
    env = gymnasium.make("hetsched.gym:hetsched/Cluster-v0")  # imports hetsched.gym first
"""

from __future__ import annotations

from gymnasium.envs.registration import register, registry

from hetsched.gym.env import ClusterEnv
from hetsched.gym.observation import JOB_FIELDS, NODE_FIELDS
from hetsched.gym.policy import PAIRS

__all__ = ["ENV_ID", "ClusterEnv", "JOB_FIELDS", "NODE_FIELDS", "PAIRS"]

#: The environment's id.
ENV_ID = "hetsched/Cluster-v0"

if ENV_ID not in registry:
    register(id=ENV_ID, entry_point="hetsched.gym.env:ClusterEnv")
