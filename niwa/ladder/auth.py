"""API tokens: random, shown once, stored only as a hash.

A token carries 256 random bits, so a plain SHA-256 of it cannot be reversed or
guessed; a slow password hash would add nothing but latency to every call.
"""

from __future__ import annotations

import hashlib
import secrets

PREFIX = "niwa_"


def new_token() -> str:
    return PREFIX + secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
