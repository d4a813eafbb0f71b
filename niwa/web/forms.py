"""Reading a POST's body with a hard limit, and the two form encodings a browser sends.

The body is read as it arrives and refused (413) as soon as it passes the limit, or
before a byte is read when its Content-Length says it would: a client cannot make the
server hold more than the limit. The parsers work on that bounded body, so they need no
limits of their own beyond the count of fields.
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass

from starlette.exceptions import HTTPException
from starlette.requests import Request

#: Fields a form may carry (the largest, the upload's, has four).
MAX_FIELDS = 8


@dataclass(frozen=True)
class Upload:
    """A file field: the name the browser gave it, and its bytes."""

    filename: str
    content: bytes


Form = dict[str, str | Upload]


async def read_body(request: Request, limit: int, what: str) -> bytes:
    """The request's body, refused with a 413 naming ``what`` as soon as it is known to
    pass ``limit`` bytes."""
    too_large = HTTPException(413, f"{what} is larger than {limit} bytes: send less")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise too_large
    parts: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise too_large
        parts.append(chunk)
    return b"".join(parts)


def text_form(body: bytes) -> Form:
    """An ``application/x-www-form-urlencoded`` body (a field given twice: the first)."""
    try:
        pairs = urllib.parse.parse_qsl(
            body.decode("ascii"), keep_blank_values=True, strict_parsing=False,
            max_num_fields=MAX_FIELDS,
        )  # fmt: skip
    except (UnicodeDecodeError, ValueError) as e:
        raise HTTPException(
            400, f"the form is not URL-encoded text ({e}): send it from the page"
        ) from None
    form: Form = {}
    for key, value in pairs:
        form.setdefault(key, value)
    return form


def file_form(request: Request, body: bytes) -> Form:
    """A ``multipart/form-data`` body: text fields as text, file fields as :class:`Upload`."""
    boundary = _boundary(request.headers.get("content-type", ""))
    delimiter = b"--" + boundary
    chunks = body.split(delimiter)
    # chunks[0] is the preamble; the last starts with "--" (the closing delimiter)
    if len(chunks) < 2 or not chunks[-1].startswith(b"--"):
        raise HTTPException(400, "the form's body is cut short: send it again from the page")
    if len(chunks) - 2 > MAX_FIELDS:
        raise HTTPException(400, f"the form has more than {MAX_FIELDS} fields")
    form: Form = {}
    for chunk in chunks[1:-1]:
        head, sep, content = chunk.removeprefix(b"\r\n").partition(b"\r\n\r\n")
        if not sep or not content.endswith(b"\r\n"):
            raise HTTPException(400, "a part of the form has no headers: send it from the page")
        name, filename = _disposition(head)
        value = content[:-2]
        if filename is None:
            try:
                form.setdefault(name, value.decode())
            except UnicodeDecodeError:
                raise HTTPException(400, f"the form's field {name!r} is not UTF-8 text") from None
        else:
            form.setdefault(name, Upload(filename, value))
    return form


def _boundary(content_type: str) -> bytes:
    kind, _, params = content_type.partition(";")
    if kind.strip().lower() != "multipart/form-data":
        raise HTTPException(415, "the upload must be sent as multipart/form-data, from the page")
    for param in params.split(";"):
        key, _, value = param.strip().partition("=")
        if key.lower() == "boundary" and 0 < len(value.strip('"')) <= 70:
            return value.strip('"').encode("ascii", "replace")
    raise HTTPException(400, "the upload's Content-Type names no boundary: send it from the page")


def _disposition(head: bytes) -> tuple[str, str | None]:
    """The field's name, and its file name (None: a text field)."""
    for line in head.decode("utf-8", "replace").split("\r\n"):
        key, _, value = line.partition(":")
        if key.strip().lower() != "content-disposition":
            continue
        name: str | None = None
        filename: str | None = None
        for param in value.split(";")[1:]:
            k, _, v = param.strip().partition("=")
            if k == "name":
                name = v.strip('"')
            elif k == "filename":
                filename = v.strip('"')
        if name:
            return name, filename
    raise HTTPException(400, "a part of the form has no field name: send it from the page")
