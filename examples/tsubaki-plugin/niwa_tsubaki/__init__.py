"""Tsubaki: Oh Hell, a public-domain trick-taking card game, as a niwa game plug-in.

Installed beside niwa, it registers itself through the ``niwa.games`` entry point (see
this distribution's pyproject.toml); niwa needs no change. The rules are tsubaki.md in
this distribution's folder, cited ``tsubaki.md §N``.

Where things are: ``rules.py`` names and constants; ``cards.py`` the deck and the trick
rule; ``state.py`` the state machine and observations; ``views.py`` determinize;
``render.py`` text pictures; ``actions.py`` typed actions; ``heuristic.py`` a quick
evaluation; ``hooks.py`` the optional plug-in hooks; ``viewer.js`` the replay
viewer's renderer.
"""

from niwa_tsubaki.game import Tsubaki

GAME = Tsubaki()

__all__ = ["GAME", "Tsubaki"]
