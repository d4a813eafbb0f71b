"""Talking to a ladder server: a channel, a stub, the caller's token as metadata, and
:class:`LadderClient`, whose calls take and return the ladder's own types
(``niwa.ladder.views``), the same values ``niwa.ladder.reads`` gives from a store, so the CLI and
``niwa.ladder.report`` never see gRPC or protobuf."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

import grpc

from niwa.errors import LadderError
from niwa.ladder.admission import CHUNK
from niwa.ladder.views import (
    BotListing,
    BotLogs,
    LadderBot,
    Leaderboard,
    LeaguesView,
    MatchQuery,
    MatchView,
    Replay,
    SeasonView,
)
from niwa.ladder.wire import from_message, to_message
from niwa.proto.v1 import ladder_pb2 as pb
from niwa.proto.v1 import ladder_pb2_grpc as pb_grpc

Metadata = tuple[tuple[str, str], ...]


#: Archives (sent) and replays (received) can pass gRPC's default 4 MiB.
OPTIONS = [
    ("grpc.max_send_message_length", 64 << 20),
    ("grpc.max_receive_message_length", 256 << 20),
]


def connect(address: str, tls_ca: Path | None = None) -> tuple[grpc.Channel, pb_grpc.LadderStub]:
    if tls_ca is not None:
        credentials = grpc.ssl_channel_credentials(root_certificates=tls_ca.read_bytes())
        channel = grpc.secure_channel(address, credentials, options=OPTIONS)
    else:
        channel = grpc.insecure_channel(address, options=OPTIONS)
    return channel, pb_grpc.LadderStub(channel)  # type: ignore[no-untyped-call]


def auth(token: str | None) -> Metadata:
    return (("authorization", f"Bearer {token}"),) if token else ()


class ReplayMismatch(LadderError, ValueError):
    """A downloaded replay is not the one the ladder recorded."""


def checked_replay(reply: Replay, match_id: int) -> bytes:
    """The replay's content, only if it is the asked match's and has the SHA-256 the
    ladder recorded when the match finished (sent along with it)."""
    if reply.match_id != match_id:
        raise ReplayMismatch(
            f"asked for the replay of match {match_id}, got match {reply.match_id}'s: not saved"
        )
    if not reply.sha256:
        raise ReplayMismatch(
            f"the ladder sent no SHA-256 with the replay of match {match_id}, so it cannot be "
            "checked: not saved (is the ladder older than this niwa?)"
        )
    digest = hashlib.sha256(reply.content).hexdigest()
    if not hmac.compare_digest(digest, reply.sha256.lower()):
        raise ReplayMismatch(
            f"the replay of match {match_id} does not match its recorded SHA-256 "
            f"({reply.sha256[:16]}, received {digest[:16]}): not saved; download it again"
        )
    return reply.content


class CallFailed(LadderError):
    """The server answered a call with an error status (or none answered:
    ``unavailable``); ``status`` is the status's name, ``details`` its text."""

    def __init__(self, status: str, details: str, unavailable: bool) -> None:
        super().__init__(f"{details} ({status.lower()})")
        self.status = status
        self.details = details
        self.unavailable = unavailable


def _failed(error: grpc.RpcError) -> CallFailed:
    code: grpc.StatusCode = error.code()
    details: str = error.details() or ""
    return CallFailed(code.name, details, code == grpc.StatusCode.UNAVAILABLE)


class LadderClient:
    """One connection to a ladder server, calling as the owner of ``token`` (None:
    anonymous). Every failed call raises :class:`CallFailed`."""

    def __init__(
        self, address: str, tls_ca: Path | None = None, token: str | None = None,
        timeout_s: float = 60.0,
    ) -> None:  # fmt: skip
        self._channel, self._stub = connect(address, tls_ca)
        self._metadata = auth(token)
        self._timeout_s = timeout_s

    def __enter__(self) -> LadderClient:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:  # fmt: skip
        self.close()

    def close(self) -> None:
        self._channel.close()

    def _call(self, method: str, request: Any) -> Any:
        try:
            return getattr(self._stub, method)(
                request, metadata=self._metadata, timeout=self._timeout_s
            )
        except grpc.RpcError as e:
            raise _failed(e) from None

    def submit(self, archive: bytes) -> tuple[LadderBot, ...]:
        """Upload a bot archive: one bot per game it plays, queued for validation."""
        # In chunks: the ladder takes no message over 64 KiB (niwa.ladder.admission.MAX_MESSAGE).
        chunks = (
            pb.SubmitBotRequest(archive=archive[i : i + CHUNK])
            for i in range(0, max(len(archive), 1), CHUNK)
        )
        try:
            reply = self._stub.SubmitBot(chunks, metadata=self._metadata, timeout=self._timeout_s)
        except grpc.RpcError as e:
            raise _failed(e) from None
        return tuple(from_message(LadderBot, b) for b in reply.bots)

    def retire(self, bot_id: int) -> LadderBot:
        return from_message(LadderBot, self._call("RetireBot", pb.RetireBotRequest(bot_id=bot_id)))

    def list_bots(self, game_name: str = "", everyone: bool = False) -> BotListing:
        request = pb.ListBotsRequest(game=game_name, all=everyone)
        return from_message(BotListing, self._call("ListBots", request))

    def leaderboards(self, game_name: str = "", season_name: str = "") -> tuple[Leaderboard, ...]:
        request = pb.LeaderboardRequest(game=game_name, season=season_name)
        reply = self._call("GetLeaderboard", request)
        return tuple(from_message(Leaderboard, b) for b in reply.boards)

    def seasons(self, name: str = "") -> tuple[SeasonView, ...]:
        reply = self._call("ListSeasons", pb.ListSeasonsRequest(name=name))
        return tuple(from_message(SeasonView, s) for s in reply.seasons)

    def set_leagues(self, game: str, specs: tuple[str, ...], share_above: float) -> LeaguesView:
        """Set ``game``'s leagues (none: clear them); an admin token's call."""
        request = pb.SetLeaguesRequest(game=game, leagues=specs, share_above=share_above)
        return from_message(LeaguesView, self._call("SetLeagues", request))

    def start_season(self, name: str, games: tuple[str, ...], time_control: str) -> SeasonView:
        request = pb.StartSeasonRequest(name=name, games=games, time_control=time_control)
        return from_message(SeasonView, self._call("StartSeason", request))

    def fork_match(self, match_id: int, step: int, seat: int, bot: str) -> MatchView:
        """Queue a replay of ``match_id`` from ``step`` with ``bot`` (name@version or id,
        the caller's) in ``seat``; the caller's token. The new match, queued."""
        request = pb.ForkMatchRequest(match_id=match_id, step=step, seat=seat, bot=bot)
        return from_message(MatchView, self._call("ForkMatch", request))

    def list_matches(self, query: MatchQuery) -> tuple[MatchView, ...]:
        reply = self._call("ListMatches", to_message(query, pb.ListMatchesRequest))
        return tuple(from_message(MatchView, m) for m in reply.matches)

    def bot_logs(self, match_id: int, bot_text: str) -> BotLogs:
        request = pb.GetBotLogsRequest(match_id=match_id, bot=bot_text)
        return from_message(BotLogs, self._call("GetBotLogs", request))

    def replay(self, match_id: int) -> Replay:
        return from_message(Replay, self._call("GetReplay", pb.GetReplayRequest(match_id=match_id)))

    def watch(self, game_name: str = "", after_seq: int = 0) -> Iterator[MatchView]:
        """Matches as they finish (after ``after_seq``, else from now on), until the
        stream ends; no deadline."""
        request = pb.WatchMatchesRequest(game=game_name, after_seq=after_seq)
        try:
            for match in self._stub.WatchMatches(request, metadata=self._metadata):
                yield from_message(MatchView, match)
        except grpc.RpcError as e:
            raise _failed(e) from None
