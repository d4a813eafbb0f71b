"""``python -m niwa.bots.builtin NAME``: serve a built-in bot over gRPC (see niwa.bots.sdk.serve)."""

from __future__ import annotations

import sys

from niwa.bots.builtin import UnknownBuiltin, create
from niwa.bots.sdk import serve


def main(argv: list[str]) -> None:
    if len(argv) != 1:
        sys.exit("usage: python -m niwa.bots.builtin NAME")
    try:
        bot = create(argv[0])
    except UnknownBuiltin as e:
        sys.exit(str(e))
    serve(bot)


if __name__ == "__main__":
    main(sys.argv[1:])
