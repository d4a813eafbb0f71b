"""Odd input on a real served ladder (``niwa ladder serve --web``), on each store engine:
every web route and every gRPC field, found from the app's routes and the service's
descriptor (a new one is fuzzed without touching this file), gets a 4xx or a
classified status, never a 500 or INTERNAL/UNKNOWN."""

from __future__ import annotations

import ast
import re
import subprocess
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import descriptor, message_factory
from starlette.routing import Mount, Route

import niwa.web.app
from niwa.ladder.challenges import Challenges
from niwa.ladder.store import RETIRED, Store
from niwa.proto.v1 import ladder_pb2 as pb
from tests.ladder.conftest import ENGINES
from tests.ladder.test_replay_integrity import finished_match
from tests.polling import PATIENCE_S
from tests.postgres import Server
from tests.web.matches import play
from tests.web.served import start_web_ladder

ODD_TEXT = [
    "²", "٣", "１", "-1", "0", "-99999999999999999999", "99999999999999999999",
    "9223372036854775807", "9223372036854775808", "1e3", " 1", "0x10",
    "\0", "a\0b", "x" * 5000, "\u202e", "%", "../../etc/passwd",
]  # fmt: skip
ODD_INTS = [-1, -(2**31), 2**31 - 1, -(2**63), 2**63 - 1, 2**64 - 1]
ODD_BYTES = [b"", b"\0" * 64, b"x" * 5000]
# A bad request's statuses; DEADLINE_EXCEEDED: a watch that accepted its request waits.
CLASSIFIED = {
    grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.RESOURCE_EXHAUSTED,
    grpc.StatusCode.DATA_LOSS, grpc.StatusCode.DEADLINE_EXCEEDED,
}  # fmt: skip
#: How long a watch is followed: one that accepted its request sends nothing.
WATCH_S = 2.0
SERVICE = pb.DESCRIPTOR.services_by_name["Ladder"]


class Served:
    def __init__(self, address: str, web: str, token: str, match_id: int) -> None:
        self.address, self.web, self.token = address, web, token
        #: What a request names when the field under test is another: what exists.
        self.plain = {"match_id": match_id, "bot_id": 1, "bot": "a@1"}


@pytest.fixture(scope="module", params=ENGINES)
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("odd-input")
    url = str(root / "ladder.db")
    if request.param == "postgresql":
        server: Server = request.getfixturevalue("postgres_server")
        url = server.database()
    store = Store.open(url, root / "data")
    _, token = store.owners.add_owner("admin", admin=True)
    replay = play("blossom", root).read_bytes()  # a real one: the viewer shows it
    match_id = finished_match(store, replay)  # bots a@1 and b@1 played it
    assert match_id == 1  # the requests below name match 1
    for bot in store.bots.bots("blossom"):
        store.bots.set_bot_status(bot.id, RETIRED, "never scheduled: their archives are fake")
    store.close()
    proc, address, site = start_web_ladder(url, root / "ladder.log", "--data", str(root / "data"))
    try:
        yield Served(address, site, token, match_id)
    finally:
        proc.terminate()
        try:
            proc.wait(PATIENCE_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# -- the web pages ---------------------------------------------------------------------


def route_paths() -> list[tuple[str, list[str]]]:
    """Every route of the app: its path and its path parameters' names."""
    with tempfile.TemporaryDirectory() as tmp:
        store = Store.open(str(Path(tmp) / "ladder.db"))
        # with challenges, as niwa ladder serve --web builds it: their routes too
        app = niwa.web.app.create_app(store, challenges=Challenges(store))
        store.close()
    found = []
    for r in app.routes:
        if isinstance(r, Route):
            found.append((r.path, list(r.param_convertors)))
        elif isinstance(r, Mount):
            found.append((r.path + "/{path}", ["path"]))
    return found


def query_names() -> list[str]:
    """Every query parameter niwa/web/app.py reads (through ``number``, ``text`` or
    ``query_params.get``)."""
    tree = ast.parse(Path(niwa.web.app.__file__).read_text())
    names = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        args = [a.value for a in node.args if isinstance(a, ast.Constant)]
        if called in ("number", "text", "get") and args and str(args[0]).isidentifier():
            names.add(str(args[0]))
    return sorted(names)


def fill(path: str, values: dict[str, str]) -> str:
    return re.sub(r"{(\w+)(:\w+)?}", lambda m: values[m.group(1)], path)


def odd_urls() -> list[str]:
    """Each odd value in each path parameter, and in each query parameter of each route."""
    urls = []
    for path, params in route_paths():
        plain = fill(path, dict.fromkeys(params, "1"))
        for value in ODD_TEXT:
            quoted = urllib.parse.quote(value, safe="")
            urls += [fill(path, {**dict.fromkeys(params, "1"), p: quoted}) for p in params]
            urls += [f"{plain}?{name}={quoted}" for name in query_names()]
    return urls


def status_of(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=PATIENCE_S) as response:
            if response.headers.get("content-type", "").startswith("text/event-stream"):
                return int(response.status)  # a live stream: its first answer is enough
            response.read()
            return int(response.status)
    except urllib.error.HTTPError as e:
        return e.code


def test_the_fuzz_reaches_every_route_and_query_parameter() -> None:
    paths = {p for p, _ in route_paths()}
    assert {"/bots/{bot_id:int}", "/matches", "/matches/{match_id:int}", "/play/{key}"} <= paths
    assert {"page", "limit", "before", "after", "bot", "game", "state"} <= set(query_names())


def test_no_odd_input_on_any_route_gives_a_server_error(served: Served) -> None:
    failed = {u: s for u in odd_urls() if (s := status_of(served.web + u)) >= 500}
    assert failed == {}


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/matches?limit=%C2%B2", 400), ("/matches?before=%C2%B2", 400),
        ("/matches?bot=%C2%B2", 400), ("/matches?bot=99999999999999999999", 404),
        ("/bots/99999999999999999999", 404), ("/matches/99999999999999999999", 404),
        ("/matches?game=a%00b", 400), ("/matches?bot=" + "b" * 65, 400),
    ],
)  # fmt: skip
def test_the_reported_odd_inputs_are_a_400_or_a_404(served: Served, path: str, status: int) -> None:
    assert status_of(served.web + path) == status


# -- the gRPC API ----------------------------------------------------------------------


def odd_values(field: descriptor.FieldDescriptor) -> list[object]:
    if field.type == descriptor.FieldDescriptor.TYPE_STRING:
        return list(ODD_TEXT)
    if field.type == descriptor.FieldDescriptor.TYPE_BYTES:
        return list(ODD_BYTES)
    if field.type == descriptor.FieldDescriptor.TYPE_BOOL:
        return [True]
    bits = 32 if field.cpp_type in (field.CPPTYPE_INT32, field.CPPTYPE_UINT32) else 64
    signed = field.cpp_type in (field.CPPTYPE_INT32, field.CPPTYPE_INT64)
    low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)
    return [v for v in sorted({*ODD_INTS, 0}) if low <= v <= high]


def odd_calls() -> list[tuple[str, str, object]]:
    return [
        (method.name, field.name, value)
        for method in SERVICE.methods
        for field in method.input_type.fields
        for value in odd_values(field)
    ]


def _serialize(message: Any) -> bytes:
    return bytes(message.SerializeToString())


def _raw(data: bytes) -> bytes:
    return data


def call(served: Served, method_name: str, fields: dict[str, object]) -> grpc.StatusCode:
    method = SERVICE.methods_by_name[method_name]
    message = message_factory.GetMessageClass(method.input_type)(**fields)
    path = f"/{SERVICE.full_name}/{method.name}"
    metadata: tuple[tuple[str, str | bytes], ...] = (
        ("authorization", f"Bearer {served.token}"),
    )
    with grpc.insecure_channel(served.address) as channel:
        try:
            if method.server_streaming:
                stream = channel.unary_stream(path, _serialize, _raw)
                next(iter(stream(message, metadata=metadata, timeout=WATCH_S)))
            else:
                unary = channel.unary_unary(path, _serialize, _raw)
                unary(message, metadata=metadata, timeout=PATIENCE_S)
        except grpc.RpcError as e:
            code: grpc.StatusCode = e.code()
            return code
    return grpc.StatusCode.OK


def test_the_fuzz_reaches_every_method_and_field() -> None:
    called = {(m, f) for m, f, _ in odd_calls()}
    for method in SERVICE.methods:
        assert {(method.name, f.name) for f in method.input_type.fields} <= called


def test_no_odd_field_of_any_method_gives_internal(served: Served) -> None:
    failed = {}
    for m, f, v in odd_calls():
        names = {x.name for x in SERVICE.methods_by_name[m].input_type.fields}
        fields = {**{k: v for k, v in served.plain.items() if k in names}, f: v}
        code = call(served, m, fields)
        if code not in CLASSIFIED | {grpc.StatusCode.OK}:
            failed[m, f, repr(v)[:40]] = code
    assert failed == {}


@pytest.mark.parametrize(
    ("method", "fields", "code"),
    [
        ("GetBotLogs", {"match_id": 1, "bot": "²"}, grpc.StatusCode.INVALID_ARGUMENT),
        ("GetBotLogs", {"match_id": 1, "bot": "99999999999999999999"}, grpc.StatusCode.NOT_FOUND),
        ("ListMatches", {"bot": "²"}, grpc.StatusCode.INVALID_ARGUMENT),
        ("ListMatches", {"bot": "99999999999999999999"}, grpc.StatusCode.NOT_FOUND),
        ("ListMatches", {"game": "a\0b"}, grpc.StatusCode.INVALID_ARGUMENT),
        ("ListMatches", {"before_id": -1}, grpc.StatusCode.INVALID_ARGUMENT),
        ("GetReplay", {"match_id": 2**63 - 1}, grpc.StatusCode.NOT_FOUND),
    ],
)
def test_the_reported_odd_fields_are_classified(
    served: Served, method: str, fields: dict[str, object], code: grpc.StatusCode
) -> None:
    assert call(served, method, fields) == code
