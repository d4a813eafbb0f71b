"""One root for every exception niwa raises: ``except niwa.NiwaError`` catches them all.

Each layer has its own subclass, so a caller can catch one layer's failures and let the
rest through. Concrete errors keep the built-in base they had before (``ValueError``,
``LookupError``, ``RuntimeError``) as a second base, so existing ``except ValueError``
code keeps working.
"""


class NiwaError(Exception):
    """Anything niwa raises on purpose."""


class EngineError(NiwaError):
    """The game engine: illegal actions, bad options, unknown games, snapshots."""


class RefereeError(NiwaError):
    """The referee: bot calls, sandboxes, cgroups, replays."""


class BotError(NiwaError):
    """The bot SDK, the built-in bots and bot manifests."""


class LadderError(NiwaError):
    """The ladder: its store, database, runners, submissions and clients."""


class WebError(NiwaError):
    """The web pages and offline replay bundles."""


class CommandError(NiwaError):
    """The ``niwa`` command line and its configuration."""
