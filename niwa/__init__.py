"""The ``niwa`` package: the engine, referee, bots, ladder and web pages (``niwa.engine``,
``niwa.referee``, ``niwa.bots``, ``niwa.ladder``, ``niwa.web``), the generated wire code
(``niwa.proto``) and the ``niwa`` command line that ties them together."""

import os as _os

if _os.environ.get("NIWA_BENCH_BASELINE"):  # a benchmark's child measuring an old checkout
    from niwa.commands.bench_alias import ENV as _ENV
    from niwa.commands.bench_alias import install_from as _install_from

    _install_from(_os.environ[_ENV])

from niwa.errors import NiwaError

__all__ = ["NiwaError"]
