"""One self-contained HTML file with the replay viewer: no server, no network.

A page opened from ``file://`` cannot load ES modules from other files, so the viewer's
modules (niwa/web/static/*.js) are joined here into one inline script: each module becomes
a function returning its exports, and its imports read those of the modules before it.
That works because the modules keep to a small style, checked here: imports are
``import { a, b } from "./x.js";`` or ``import * as x from "./x.js";`` on one line at the
top, exports are ``export function`` or ``export const``. The page's
Content-Security-Policy allows that one script and one style (by hash) and nothing
else: no network, no other script, no inline handler.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import posixpath
import re
from functools import cache
from pathlib import Path
from typing import Any

from niwa.engine import games, load
from niwa.errors import WebError

STATIC_DIR = Path(__file__).parent / "static"
#: The viewer's entry module, relative to STATIC_DIR.
ENTRY = "viewer.js"

_IMPORT = re.compile(
    r'^import\s+(?:\{(?P<names>[^}]*)\}|\*\s+as\s+(?P<ns>\w+))\s+from\s+"(?P<src>\.[^"]+)";\s*$'
)
_EXPORT = re.compile(r"^export\s+(?:async\s+)?(?:function\*?|const|let|class)\s+(?P<name>\w+)")


class BundleError(WebError, ValueError):
    """A module the joiner cannot turn into a function (outside the module style)."""


def _module(name: str, source: str) -> tuple[list[str], str]:
    """The modules ``name`` imports and its body as a function's, returning its exports."""
    deps: list[str] = []
    lines: list[str] = []
    exports: list[str] = []
    for number, line in enumerate(source.splitlines(), 1):
        m = _IMPORT.match(line)
        if m:
            dep = posixpath.normpath(posixpath.join(posixpath.dirname(name), m["src"]))
            deps.append(dep)
            target = f"__modules[{json.dumps(dep)}]"
            if m["ns"]:
                lines.append(f"const {m['ns']} = {target};")
            else:
                lines.append(f"const {{{m['names']}}} = {target};")
            continue
        if line.startswith(("import ", "import{", "export {", "export default")):
            raise BundleError(f"{name}:{number}: an import or export outside the module style")
        e = _EXPORT.match(line)
        if e:
            exports.append(e["name"])
            line = line[len("export "):]
        lines.append(line)
    body = "\n".join(lines)
    wrapped = (f"__modules[{json.dumps(name)}] = (() => {{\n{body}\n"
               f"return {{ {', '.join(exports)} }};\n}})();")
    return deps, wrapped


@cache
def bundle(
    entry: str = ENTRY, static: Path = STATIC_DIR, extra: tuple[tuple[str, str], ...] = ()
) -> str:
    """Every module ``entry`` needs (in ``static``), each after the modules it imports,
    as one script that leaves them in ``__modules`` by path; ``extra``: more modules as
    (path, source), a game's renderer (read from its package, not from ``static``)."""
    given = dict(extra)
    done: dict[str, str] = {}
    visiting: set[str] = set()

    def visit(name: str) -> None:
        if name in done:
            return
        if name in visiting:
            raise BundleError(f"{name}: an import cycle")
        visiting.add(name)
        source = given.get(name)
        if source is None:
            source = (static / name).read_text(encoding="utf-8")
        deps, wrapped = _module(name, source)
        for dep in deps:
            visit(dep)
        done[name] = wrapped
        visiting.discard(name)

    visit(entry)
    for name, _source in extra:
        visit(name)
    return "const __modules = {};\n" + "\n".join(done.values())


def embed_json(value: Any) -> str:
    """JSON safe inside a ``<script type="application/json">`` element: no ``<``, ``>``
    or ``&`` that could close it, and no line separators."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    for ch, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                        ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(ch, escaped)
    return text


#: The bundle's name for the game's renderer: beside svg.js, as on the served site.
RENDERER = "games/renderer.js"

_BOOT = """
const payload = JSON.parse(document.getElementById("niwa-payload").textContent);
window.niwaViewer = __modules["viewer.js"].mountViewer(
  document.getElementById("niwa-viewer"), payload, __modules["games/renderer.js"]);
"""


def _renderer(payload: dict[str, Any], source: str | None = None) -> tuple[tuple[str, str], ...]:
    """The game's renderer module (``source``, else the game's own) as an extra for
    :func:`bundle`, if it ships one."""
    if source is not None:
        return ((RENDERER, source),)
    name = payload.get("game")
    if not payload.get("renderer") or name not in games():
        return ()
    asset = load(name).renderer_asset()
    return () if asset is None else ((RENDERER, asset.read_text(encoding="utf-8")),)


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def offline_html(
    payload: dict[str, Any], static: Path = STATIC_DIR, renderer: str | None = None
) -> str:
    """The viewer for ``payload`` (niwa.web.replay_view.replay_payload) as one HTML page;
    ``static``: another copy of niwa/web/static and ``renderer`` another copy of the
    game's renderer module (a benchmark's baseline)."""
    code = bundle(ENTRY, static, _renderer(payload, renderer))
    script = "(() => {\n\"use strict\";\n" + code + _BOOT + "})();\n"
    style = (static / "viewer.css").read_text(encoding="utf-8")
    if "</" in script or "</" in style:  # would end the element early: none is written so
        raise BundleError("the viewer's script or style holds '</'")
    csp = (f"default-src 'none'; script-src {_sha256(script)}; style-src {_sha256(style)}; "
           "img-src data:; base-uri 'none'; form-action 'none'")
    title = html.escape(f"niwa replay: {payload.get('version', '')} seed {payload.get('seed', '')}")
    return (
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{title}</title>\n<style>{style}</style>\n</head>\n<body>\n"
        "<main id=\"niwa-viewer\" class=\"niwa-viewer\"></main>\n"
        f"<script type=\"application/json\" id=\"niwa-payload\">{embed_json(payload)}</script>\n"
        f"<script>{script}</script>\n</body>\n</html>\n"
    )
