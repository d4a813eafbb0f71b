"""Admission control for the ladder's API: who may hold how many calls at once.

A call holds no slot before its request has arrived: it first waits for its request
among a bounded set of waiting calls (per address and in total; when the set is full the
longest-waiting call is dropped, so callers that send headers and stall cannot keep
honest ones out), with a short receive deadline, and only then is admitted or refused
(RESOURCE_EXHAUSTED, one line naming the limit). A caller is an owner when it sends a
token the store knows, else anonymous (counted per peer address). Owners have budgets
of their own, so anonymous callers filling theirs cannot keep an owner or admin out.
Streams (WatchMatches, health Watch, reflection) and unary calls are counted apart, and
so are uploads: ``SubmitBot`` needs a known token before its archive is read, and its
archive comes as a stream of small messages (every message on the server is at most
``MAX_MESSAGE``), so no anonymous call can make the ladder buffer a large body.
"""

from __future__ import annotations

import asyncio
import hashlib
import ipaddress
import sys
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

from niwa.errors import LadderError
from niwa.ladder import archive, metrics
from niwa.ladder.db import DatabaseError, unavailable
from niwa.ladder.store import Owner
from niwa.proto.v1 import ladder_pb2 as pb

TOKEN_HEADER = "authorization"
LADDER = "/niwa.v1.Ladder/"
SUBMIT = LADDER + "SubmitBot"
#: Calls that need a token: refused before their request is read when it is missing.
OWNER_ONLY = frozenset(
    {SUBMIT, LADDER + "RetireBot", LADDER + "AddOwner", LADDER + "StartSeason",
     LADDER + "SetLeagues", LADDER + "ForkMatch"}
)
#: The largest message any call may send. The largest valid non-upload request is under
#: 1 KiB (ListMatches: three strings of at most 64 characters, 4 bytes each in UTF-8, and
#: a few ids); an archive comes in chunks of ``CHUNK``.
MAX_MESSAGE = 64 << 10
CHUNK = 32 << 10

NEEDS_TOKEN = "this call needs a token: pass --token or set NIWA_TOKEN"
UNKNOWN_TOKEN = "unknown token: ask the ladder's admin for one (niwa ladder user add)"

log = structlog.get_logger("niwa.ladder.api")


@dataclass(frozen=True)
class ApiLimits:
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
    waiting: int = 1024  # calls waiting for their request message, in total
    waiting_per_peer: int = 16  # ... from one address (as many as it may have in progress)
    receive_timeout_s: float = 5.0  # a request must arrive within this of its headers
    upload_timeout_s: float = 120.0  # ... an archive within this
    public_threads: int = 4  # threads for the store work of anonymous calls
    owner_threads: int = 4  # ... of calls with a valid token (uploads: `uploads` threads)

    @property
    def max_rpcs(self) -> int:
        """gRPC's own cap (maximum_concurrent_rpcs): every budget plus room for the
        calls being refused at that moment."""
        return (
            self.streams + self.owner_streams + self.calls + self.owner_calls
            + self.waiting + 64
        )  # fmt: skip


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


class NotReceived(LadderError):
    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(details)
        self.code, self.details = code, details


class Waiting:
    """Calls whose request has not arrived yet: at most ``each`` per address (more are
    refused) and ``total`` in all. A call arriving when all are taken drops the one that
    has waited longest, if that one has waited ``GRACE_S`` (a request sent with its call
    arrives well within that), else it is refused itself. A waiting call costs a
    coroutine and a few KiB, never a call slot. Used only on the event loop's thread."""

    GRACE_S = 1.0

    def __init__(self, total: int, each: int) -> None:
        self.total, self.each = total, each
        # waiting call (its drop signal) -> (address, since)
        self.calls: OrderedDict[asyncio.Future[None], tuple[str, float]] = OrderedDict()
        self.by_key: Counter[str] = Counter()

    def _room(self, key: str) -> None:
        if self.by_key[key] >= self.each:
            raise NotReceived(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"at most {self.each} calls per address may wait for their request: "
                "send each request with its call",
            )
        if len(self.calls) >= self.total:
            oldest, (_, since) = next(iter(self.calls.items()))
            if time.monotonic() - since < self.GRACE_S:
                raise NotReceived(
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    f"{self.total} calls are waiting for their request: retry later",
                )
            del self.calls[oldest]
            oldest.set_result(None)

    async def receive(self, key: str, requests: Any, timeout: float) -> Any:
        """The next request message (None at the end of the requests); raises
        :class:`NotReceived` naming why none came."""
        self._room(key)
        dropped: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.calls[dropped] = (key, time.monotonic())
        self.by_key[key] += 1
        reading = asyncio.ensure_future(anext(aiter(requests), None))
        try:
            await asyncio.wait({reading, dropped}, timeout=timeout, return_when="FIRST_COMPLETED")
        finally:
            self.by_key[key] -= 1
            if not self.by_key[key]:
                del self.by_key[key]
            self.calls.pop(dropped, None)
        if reading.done():
            return reading.result()
        # The read ends with the call (aborted next); its outcome is of no use.
        reading.add_done_callback(lambda r: r.cancelled() or r.exception())
        if dropped.done():
            raise NotReceived(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"the request did not arrive while {self.total} other calls waited for theirs: "
                "send it at once",
            )
        raise NotReceived(
            grpc.StatusCode.DEADLINE_EXCEEDED,
            f"the request did not arrive within {timeout:g} s of the call: send it at once",
        )


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
    try:
        await context.abort(code, details)
    except grpc.aio.AbortError:
        raise
    except Exception:  # the call is already over (its caller went away): no one to tell
        raise asyncio.CancelledError from None


if TYPE_CHECKING:  # generic in grpc-stubs only
    _Interceptor = grpc.aio.ServerInterceptor[Any, Any]
else:
    _Interceptor = grpc.aio.ServerInterceptor


class Admission(_Interceptor):
    """Wraps every method so that it is admitted first, then reads its one request
    (unary-request methods are served as request-streaming ones for that), and never
    lets an unexpected exception out as an UNKNOWN status with a traceback."""

    def __init__(self, limits: ApiLimits, tokens: Tokens) -> None:
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
        self.waiting = Waiting(limits.waiting, limits.waiting_per_peer)

    async def intercept_service(
        self, continuation: Callable[[Any], Awaitable[Any]], details: Any
    ) -> Any:
        handler = await continuation(details)
        if handler is None:
            return None
        return self._wrap(handler, details.method, token_of(details.invocation_metadata))

    async def _identify(self, method: str, token: str, context: Any) -> Owner | None:
        """The caller's owner (None: anonymous); a call that needs a token and has no
        known one is refused here, before anything else."""
        owner = await self.tokens.owner(token)
        if method in OWNER_ONLY and owner is None:
            metrics.ADMISSION_REFUSALS.labels("unknown_token" if token else "no_token").inc()
            await _abort(
                context, grpc.StatusCode.UNAUTHENTICATED, UNKNOWN_TOKEN if token else NEEDS_TOKEN
            )
        return owner

    @asynccontextmanager
    async def _admit(
        self, method: str, stream: bool, token: str, owner: Owner | None, context: Any
    ) -> AsyncIterator[Caller]:
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
                    metrics.ADMISSION_REFUSALS.labels(b.what.replace(" ", "_")).inc()
                    await _abort(context, grpc.StatusCode.RESOURCE_EXHAUSTED, refused)
                taken.append(b)
            who = Caller(token, owner)
            CALLER.set(who)
            yield who
        finally:
            for b in taken:
                b.give(key)

    async def _read_one(
        self, requests: Any, context: Any, method: str, end_ok: bool = False
    ) -> Any:
        """The call's next request, among the bounded waiting calls and within the
        receive deadline."""
        try:
            request = await self.waiting.receive(
                peer_key(context.peer()), requests, self.limits.receive_timeout_s
            )
        except DecodeError:
            await _abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                f"the request is not a valid {method.rsplit('/', 1)[-1]} request message",
            )
        except NotReceived as e:
            late = e.code == grpc.StatusCode.DEADLINE_EXCEEDED
            metrics.ADMISSION_REFUSALS.labels("request_late" if late else "waiting_calls").inc()
            log.info("not_received", method=method, who=peer_key(context.peer()), reason=e.details)
            await _abort(context, e.code, e.details)
        if request is None and context.done():
            # gRPC ended the call itself (a message over MAX_MESSAGE: RESOURCE_EXHAUSTED).
            raise asyncio.CancelledError
        if request is None and not end_ok:
            await _abort(context, grpc.StatusCode.INVALID_ARGUMENT, "the call had no request")
        return request

    async def _read_archive(self, requests: Any, context: Any) -> pb.SubmitBotRequest:
        """An upload's archive: its chunks joined, at most the archive limit, all within
        the upload timeout (the upload budget bounds how many are read at once)."""
        limit = archive.DEFAULT_LIMITS.archive_bytes
        timeout = self.limits.upload_timeout_s

        async def read() -> bytes | None:
            parts: list[bytes] = []
            size = 0
            async for chunk in requests:
                size += len(chunk.archive)
                if size > limit:
                    return None
                parts.append(chunk.archive)
            return b"".join(parts)

        try:
            joined = await asyncio.wait_for(read(), timeout)
        except DecodeError:
            await _abort(
                context, grpc.StatusCode.INVALID_ARGUMENT,
                "the request is not a valid SubmitBot request message",
            )  # fmt: skip
        except TimeoutError:
            metrics.ADMISSION_REFUSALS.labels("upload_late").inc()
            await _abort(
                context,
                grpc.StatusCode.DEADLINE_EXCEEDED,
                f"the archive did not arrive within {timeout:g} s: upload it on a faster link",
            )
        if joined is None:
            metrics.ADMISSION_REFUSALS.labels("archive_too_large").inc()
            await _abort(
                context,
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"the archive is larger than {limit} bytes: leave out what the bot does not need",
            )
        assert joined is not None
        return pb.SubmitBotRequest(archive=joined)

    async def _read_each(self, requests: Any, context: Any, method: str) -> AsyncIterator[Any]:
        """A request stream read like single requests: each message among the waiting
        calls and within the receive deadline."""
        while True:
            request = await self._read_one(requests, context, method, end_ok=True)
            if request is None:
                return
            yield request

    async def _failed(self, context: Any, method: str) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, DatabaseError):  # the store's server away: the next call reconnects
            log.error("store_unavailable", method=method, error=str(error))
            await _abort(context, grpc.StatusCode.UNAVAILABLE, unavailable(error))
            return
        log.exception("call_failed", method=method)
        await _abort(
            context,
            grpc.StatusCode.INTERNAL,
            f"the ladder failed on {method.rsplit('/', 1)[-1]}: its log has the details",
        )

    def _wrap(self, handler: Any, method: str, token: str) -> Any:
        stream = handler.request_streaming or handler.response_streaming
        deserialize, serialize = handler.request_deserializer, handler.response_serializer

        if method == SUBMIT:  # admitted (a known owner) before its archive is read
            upload = handler.stream_unary

            async def submit(requests: Any, context: Any) -> Any:
                try:
                    owner = await self._identify(method, token, context)
                    async with self._admit(method, False, token, owner, context):
                        joined = await self._read_archive(requests, context)
                        return await upload(_one(joined), context)
                except (grpc.aio.AbortError, asyncio.CancelledError):
                    raise
                except Exception:
                    await self._failed(context, method)

            return grpc.stream_unary_rpc_method_handler(submit, deserialize, serialize)

        if handler.request_streaming:  # reflection: it reads its own requests
            inner = handler.stream_stream

            async def streams(requests: Any, context: Any) -> AsyncIterator[Any]:
                try:
                    owner = await self._identify(method, token, context)
                    async with self._admit(method, True, token, owner, context):
                        gated = self._read_each(requests, context, method)
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
                    owner = await self._identify(method, token, context)
                    request = await self._read_one(requests, context, method)
                    async with self._admit(method, stream, token, owner, context):
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
                owner = await self._identify(method, token, context)
                request = await self._read_one(requests, context, method)
                async with self._admit(method, stream, token, owner, context):
                    reply = unary(request, context)
                    return await reply if asyncio.iscoroutine(reply) else reply
            except (grpc.aio.AbortError, asyncio.CancelledError):
                raise
            except Exception:
                await self._failed(context, method)

        return grpc.stream_unary_rpc_method_handler(call, deserialize, serialize)


async def _one(message: Any) -> AsyncIterator[Any]:
    """A stream of the one message given (an upload's chunks, joined)."""
    yield message
