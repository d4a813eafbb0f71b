"""A fixed-size numeric vector from any observation: feature hashing of its JSON.

This is a generic encoding, not a per-game one: every leaf of ``observe(seat)`` becomes a
feature named by its path (list positions included), a number or boolean adds its value
there, a string adds 1 to the feature ``path=string``, and each name is hashed into one
of ``size`` buckets. Nothing the observation holds is lost except through collisions
(more likely with a small ``size``), and nothing hidden is added: the vector is a
function of what the seat may see. Learned policies do better with hand-made features;
this one is the honest common ground for every registered game.
"""

from __future__ import annotations

import hashlib
from functools import cache

import numpy as np
import numpy.typing as npt

from engine.api import JSON

#: The default vector length.
SIZE = 512


@cache
def _bucket(name: str, size: int) -> int:
    digest = hashlib.blake2b(name.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") % size


def _leaves(value: JSON, path: str, out: list[tuple[str, float]]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _leaves(v, f"{path}.{k}", out)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _leaves(v, f"{path}.{i}", out)
    elif isinstance(value, bool):
        out.append((path, 1.0 if value else 0.0))
    elif isinstance(value, int | float):
        out.append((path, float(value)))
    elif isinstance(value, str):
        out.append((f"{path}={value}", 1.0))
    else:  # None
        out.append((f"{path}=null", 1.0))


def encode(observation: JSON, size: int = SIZE) -> npt.NDArray[np.float32]:
    """``observation`` as a float32 vector of ``size`` hashed features."""
    leaves: list[tuple[str, float]] = []
    _leaves(observation, "", leaves)
    vector = np.zeros(size, np.float32)
    for name, x in leaves:
        vector[_bucket(name, size)] += x
    return vector
