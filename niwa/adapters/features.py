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
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from niwa.engine.api import JSON, FeatureEncoder, Game

#: The default vector length.
SIZE = 512

#: What a saved policy records so a bot made from it can refuse a different encoding.
ENCODER_NAME = "niwa.hashed"
#: Bump when a change to ``encode`` moves any feature: weights learned before no longer fit.
ENCODER_VERSION = 1


#: Bucket of every feature name seen, per vector size (a game's names are few: paths
#: and the strings that appear at them).
_BUCKETS: dict[int, dict[str, int]] = {}


def _bucket(name: str, size: int) -> int:
    digest = hashlib.blake2b(name.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") % size


def encode(observation: JSON, size: int = SIZE) -> npt.NDArray[np.float32]:
    """``observation`` as a float32 vector of ``size`` hashed features."""
    buckets = _BUCKETS.setdefault(size, {})
    sums: dict[int, float] = {}
    # A loop over an explicit stack, with the sums in a dict written to numpy once:
    # this runs at every step of an environment, on observations of hundreds of leaves.
    stack: list[tuple[str, JSON]] = [("", observation)]
    while stack:
        path, value = stack.pop()
        kind = type(value)
        if kind is dict:
            stack += [(f"{path}.{k}", v) for k, v in value.items()]
            continue
        if kind is list:
            stack += [(f"{path}.{i}", v) for i, v in enumerate(value)]
            continue
        if kind is str:
            name, x = f"{path}={value}", 1.0
        elif kind is int or kind is float or kind is bool:
            name, x = path, float(value)
        else:  # None
            name, x = f"{path}=null", 1.0
        b = buckets.get(name)
        if b is None:
            b = buckets[name] = _bucket(name, size)
        sums[b] = sums.get(b, 0.0) + x
    vector = np.zeros(size, np.float32)
    if sums:
        vector[list(sums)] = list(sums.values())
    return vector


#: The generic encoding's version (see FeatureEncoder.version).
GENERIC_VERSION = "hashed-json/1"


def generic(size: int = SIZE) -> FeatureEncoder:
    """The fallback of the ``feature_encoder`` hook: :func:`encode` as an encoder."""

    def write(observation: Mapping[str, JSON], row: Any) -> None:
        row[:] = encode(dict(observation), size)

    return FeatureEncoder(f"{GENERIC_VERSION}@{size}", size, write)


def encoder_for(game: Game, players: int, size: int = SIZE) -> FeatureEncoder:
    """``game``'s own encoder at ``players`` seats (its hook), else the generic one."""
    return game.feature_encoder(players) or generic(size)
