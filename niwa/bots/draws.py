"""The search's uniform draws: kept in the engine (a game's fast re-deal uses them too),
named here too for the bots that import them from here."""

from niwa.engine.draws import below, sample, shuffle

__all__ = ["below", "sample", "shuffle"]
