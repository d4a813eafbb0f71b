"""The conformance checks moved to the installed package ``niwa.engine.testing.checks``; this
name stays for the game tests that import their playout helper from here."""

from niwa.engine.testing.checks import ALL_CHECKS, every_state, final_state, playout, random_joint

__all__ = ["ALL_CHECKS", "every_state", "final_state", "playout", "random_joint"]
