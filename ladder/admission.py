"""Admission control for the ladder's API: who may hold how many calls at once.

Every call is admitted or refused (RESOURCE_EXHAUSTED, one line naming the limit)
before its request message is read. A caller is an owner when it sends a token the
store knows, else anonymous (counted per peer address). Owners have budgets of their
own, so anonymous callers filling theirs cannot keep an owner or admin out. Streams
(WatchMatches, health Watch, reflection) and unary calls are counted apart, and so are
uploads: an anonymous ``SubmitBot`` is refused before its (up to 33 MB) archive is read.
"""

from __future__ import annotations

import asyncio
import hashlib
import ipaddress
import time
import urllib.parse
from collections import Counter, OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import grpc
import structlog
from google.protobuf.message import DecodeError

from ladder.store import Owner

TOKEN_HEADER = "authorization"
LADDER = "/niwa.v1.Ladder/"
SUBMIT = LADDER + "SubmitBot"
#: Calls that need a token: refused before their request is read when it is missing.
OWNER_ONLY = frozenset({SUBMIT, LADDER + "RetireBot", LADDER + "AddOwner"})

NEEDS_TOKEN = "this call needs a token: pass --token or set NIWA_TOKEN"
UNKNOWN_TOKEN = "unknown token: ask the ladder's admin for one (niwa ladder user add)"

log = structlog.get_logger("niwa.ladder.api")


@dataclass(frozen=True)
class Limits:
    """Every bound of the API (listed with their reasons in docs/security.md, "The
    ladder's API")."""

    streams: int = 100  # anonymous streams at once, in total
    streams_per_peer: int = 10  # ... from one address (IPv6: one /64)
    owner_streams: int = 20  # streams of callers with a valid token, in total
    streams_per_token: int = 4
    calls: int = 64  # anonymous unary calls in progress, in total
    calls_per_peer: int = 16
    owner_calls: int = 32
    calls_per_token: int = 8
    uploads: int = 2  # SubmitBot calls in progress (each up to the archive limit)
    uploads_per_owner: int = 1
    reads: int = 4  # requests being received at once, per class (anonymous, owners)
    read_timeout_s: float = 10.0  # a request must arrive within this, once admitted
    upload_timeout_s: float = 120.0  # ... an archive within this
    public_threads: int = 4  # threads for the store work of anonymous calls
    owner_threads: int = 4  # ... of calls with a valid token (uploads: `uploads` threads)

    @property
    def max_rpcs(self) -> int:
        """gRPC's own cap (maximum_concurrent_rpcs): every budget plus room for the
        calls being refused at that moment."""
        return self.streams + self.owner_streams + self.calls + self.owner_calls + 64


@dataclass(frozen=True)
class Caller:
    token: str  # as sent; "" when none
    owner: Owner | None  # None: no token, or one the store does not know


#: The caller of the call being served (set by :class:`Admission` for the servicer).
CALLER: ContextVar[Caller | None] = ContextVar("niwa_caller", default=None)


def caller() -> Caller:
    return CALLER.get() or Caller("", None)


def token_of(metadata: Any) -> str:
    for key, value in metadata or ():
        if key == TOKEN_HEADER and isinstance(value, str):
            return value.removeprefix("Bearer ").strip()
    return ""


def peer_key(peer: str) -> str:
    """The client's address without the port; IPv6 by /64 (one host's usual share)."""
    kind, _, rest = urllib.parse.unquote(peer).partition(":")
    host = rest.rsplit(":", 1)[0].strip("[]")
    try:
        if kind == "ipv4":
            return str(ipaddress.IPv4Address(host))
        if kind == "ipv6":
            return str(ipaddress.IPv6Network(f"{host}/64", strict=False))
    except ValueError:
        pass
    return peer


class Budget:
    """At most ``total`` at once, at most ``each`` per key. Used only on the event
    loop's thread, so it needs no lock."""

    def __init__(self, what: str, total: int, each: int, per: str) -> None:
        self.what, self.total, self.each, self.per = what, total, each, per
        self.used = 0
        self.by_key: Counter[str] = Counter()

    def take(self, key: str) -> str | None:
        """Take one; return why not (one line) when full."""
        if self.used >= self.total:
            return f"the ladder takes at most {self.total} {self.what} at once: retry later"
        if self.by_key[key] >= self.each:
            return f"at most {self.each} {self.what} at once per {self.per}: end one first"
        self.used += 1
        self.by_key[key] += 1
        return None

    def give(self, key: str) -> None:
        self.used -= 1
        self.by_key[key] -= 1
        if not self.by_key[key]:
            del self.by_key[key]


class Tokens:
    """Token to owner, looked up on a thread of its own (so a saturated public pool
    never delays an owner) and cached: known tokens for a minute, unknown ones for ten
    seconds (bounded), so a flood of made-up tokens costs at most one lookup each."""

    KNOWN_S = 60.0
    UNKNOWN_S = 10.0
    UNKNOWN_MAX = 10_000

    def __init__(self, lookup: Callable[[str], Awaitable[Owner | None]]) -> None:
        self._lookup = lookup
        self._known: dict[str, tuple[Owner, float]] = {}
        self._unknown: OrderedDict[str, float] = OrderedDict()

    async def owner(self, token: str) -> Owner | None:
        if not token:
            return None
        key = hashlib.sha256(token.encode()).hexdigest()
        now = time.monotonic()
        known = self._known.get(key)
        if known is not None and now - known[1] < self.KNOWN_S:
            return known[0]
        seen = self._unknown.get(key)
        if seen is not None and now - seen < self.UNKNOWN_S:
            return None
        owner = await self._lookup(token)
        if owner is None:
            self._unknown[key] = now
            self._unknown.move_to_end(key)
            while len(self._unknown) > self.UNKNOWN_MAX:
                self._unknown.popitem(last=False)
        else:
            self._known[key] = (owner, now)
            self._unknown.pop(key, None)
        return owner


async def _abort(context: Any, code: grpc.StatusCode, details: str) -> None:
    await context.abort(code, details)


if TYPE_CHECKING:  # generic in grpc-stubs only
    _Interceptor = grpc.aio.ServerInterceptor[Any, Any]
else:
    _Interceptor = grpc.aio.ServerInterceptor


class Admission(_Interceptor):
    """Wraps every method so that it is admitted first, then reads its one request
    (unary-request methods are served as request-streaming ones for that), and never
    lets an unexpected exception out as an UNKNOWN status with a traceback."""

    def __init__(self, limits: Limits, tokens: Tokens) -> None:
        self.limits = limits
        self.tokens = tokens
        self.anonymous_streams = Budget(
            "anonymous streams", limits.streams, limits.streams_per_peer, "address"
        )
        self.owner_streams = Budget(
            "streams with a token", limits.owner_streams, limits.streams_per_token, "token"
        )
        self.anonymous_calls = Budget(
            "anonymous calls", limits.calls, limits.calls_per_peer, "address"
        )
        self.owner_calls = Budget(
            "calls with a token", limits.owner_calls, limits.calls_per_token, "token"
        )
        self.uploads = Budget("uploads", limits.uploads, limits.uploads_per_owner, "owner")
        self._reads = {owner: asyncio.Semaphore(limits.reads) for owner in (True, False)}

    async def intercept_service(
        self, continuation: Callable[[Any], Awaitable[Any]], details: Any
    ) -> Any:
        handler = await continuation(details)
        if handler is None:
            return None
        return self._wrap(handler, details.method, token_of(details.invocation_metadata))

    @asynccontextmanager
    async def _admit(
        self, method: str, stream: bool, token: str, context: Any
    ) -> AsyncIterator[Caller]:
        owner = await self.tokens.owner(token)
        if method in OWNER_ONLY and owner is None:
            await _abort(
                context, grpc.StatusCode.UNAUTHENTICATED, UNKNOWN_TOKEN if token else NEEDS_TOKEN
            )
        assert method not in OWNER_ONLY or owner is not None
        if owner is None:
            key = peer_key(context.peer())
            budget = self.anonymous_streams if stream else self.anonymous_calls
        else:
            key = f"owner {owner.id}"
            budget = self.owner_streams if stream else self.owner_calls
        taken: list[Budget] = []
        try:
            for b in [budget, self.uploads] if method == SUBMIT else [budget]:
                refused = b.take(key)
                if refused is not None:
                    log.info("refused", method=method, who=key, reason=refused)
                    await _abort(context, grpc.StatusCode.RESOURCE_EXHAUSTED, refused)
                taken.append(b)
            who = Caller(token, owner)
            CALLER.set(who)
            yield who
        finally:
            for b in taken:
                b.give(key)

    async def _read_one(
        self, requests: Any, context: Any, caller: Caller, method: str, end_ok: bool = False
    ) -> Any:
        """The call's one request, read only now that the call is admitted, within the
        read timeout and among at most ``reads`` requests of its class at once."""
        upload = method == SUBMIT
        timeout = self.limits.upload_timeout_s if upload else self.limits.read_timeout_s
        gate = self._reads[caller.owner is not None]

        async def read() -> Any:
            if upload:  # bounded by the upload budget already
                return await anext(aiter(requests), None)
            async with gate:
                return await anext(aiter(requests), None)

        try:
            request = await asyncio.wait_for(read(), timeout)
        except DecodeError:
            await _abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                f"the request is not a valid {method.rsplit('/', 1)[-1]} request message",
            )
        except TimeoutError:
            await _abort(
                context,
                grpc.StatusCode.DEADLINE_EXCEEDED,
                f"the request did not arrive within {timeout:g} s of the call: send it at once",
            )
        if request is None and not end_ok:
            await _abort(context, grpc.StatusCode.INVALID_ARGUMENT, "the call had no request")
        return request

    async def _read_each(
        self, requests: Any, context: Any, caller: Caller, method: str
    ) -> AsyncIterator[Any]:
        """A request stream read like single requests: each message under the read gate
        and the read timeout."""
        while True:
            request = await self._read_one(requests, context, caller, method, end_ok=True)
            if request is None:
                return
            yield request

    async def _failed(self, context: Any, method: str) -> None:
        log.exception("call_failed", method=method)
        await _abort(
            context,
            grpc.StatusCode.INTERNAL,
            f"the ladder failed on {method.rsplit('/', 1)[-1]}: its log has the details",
        )

    def _wrap(self, handler: Any, method: str, token: str) -> Any:
        stream = handler.request_streaming or handler.response_streaming
        deserialize, serialize = handler.request_deserializer, handler.response_serializer

        if handler.request_streaming:  # reflection: it reads its own requests
            inner = handler.stream_stream

            async def streams(requests: Any, context: Any) -> AsyncIterator[Any]:
                try:
                    async with self._admit(method, True, token, context) as caller:
                        gated = self._read_each(requests, context, caller, method)
                        async for reply in inner(gated, context):
                            yield reply
                except (grpc.aio.AbortError, asyncio.CancelledError):
                    raise
                except Exception:
                    await self._failed(context, method)

            return grpc.stream_stream_rpc_method_handler(streams, deserialize, serialize)

        if handler.response_streaming:
            unary_stream = handler.unary_stream

            async def watch(requests: Any, context: Any) -> AsyncIterator[Any]:
                try:
                    async with self._admit(method, stream, token, context) as caller:
                        request = await self._read_one(requests, context, caller, method)
                        async for reply in unary_stream(request, context):
                            yield reply
                except (grpc.aio.AbortError, asyncio.CancelledError):
                    raise
                except Exception:
                    await self._failed(context, method)

            return grpc.stream_stream_rpc_method_handler(watch, deserialize, serialize)

        unary = handler.unary_unary

        async def call(requests: Any, context: Any) -> Any:
            try:
                async with self._admit(method, stream, token, context) as caller:
                    request = await self._read_one(requests, context, caller, method)
                    reply = unary(request, context)
                    return await reply if asyncio.iscoroutine(reply) else reply
            except (grpc.aio.AbortError, asyncio.CancelledError):
                raise
            except Exception:
                await self._failed(context, method)

        return grpc.stream_unary_rpc_method_handler(call, deserialize, serialize)
