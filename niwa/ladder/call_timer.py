"""The API's call times (``niwa_api_seconds``, :mod:`niwa.ladder.metrics`): a gRPC
server interceptor, at the gRPC edge with the rest of the server's gRPC code."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import grpc

from niwa.ladder.metrics import API_LATENCY

if TYPE_CHECKING:  # generic in grpc-stubs only
    _Interceptor = grpc.aio.ServerInterceptor[Any, Any]
else:
    _Interceptor = grpc.aio.ServerInterceptor


class CallTimer(_Interceptor):
    """Times every call with a single reply (a stream's time is how long its client
    watched, not how fast the ladder answered). Put first in the server's interceptors:
    it then times what the admission control adds too."""

    async def intercept_service(
        self, continuation: Callable[[Any], Awaitable[Any]], details: Any
    ) -> Any:
        handler = await continuation(details)
        if handler is None or handler.response_streaming:
            return handler
        # an unknown method never gets here (no handler): the label set stays bounded
        timer = API_LATENCY.labels(details.method.rsplit("/", 1)[-1])
        deserialize, serialize = handler.request_deserializer, handler.response_serializer
        if handler.request_streaming:
            inner_stream = handler.stream_unary

            async def stream_unary(requests: Any, context: Any) -> Any:
                started = time.perf_counter()
                try:
                    return await inner_stream(requests, context)
                finally:
                    timer.observe(time.perf_counter() - started)

            return grpc.stream_unary_rpc_method_handler(stream_unary, deserialize, serialize)
        inner = handler.unary_unary

        async def unary(request: Any, context: Any) -> Any:
            started = time.perf_counter()
            try:
                reply = inner(request, context)
                return await reply if isinstance(reply, Awaitable) else reply
            finally:
                timer.observe(time.perf_counter() - started)

        return grpc.unary_unary_rpc_method_handler(unary, deserialize, serialize)
