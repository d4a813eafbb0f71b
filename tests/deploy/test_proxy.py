"""deploy/nginx/ for real: Debian's nginx, started here on the shipped files with a
certificate made here, in front of a real ``niwa ladder web --config`` (a page, the
match events, the redirect to HTTPS, the body limit) and a real ``niwa ladder serve``
(the gRPC API through ``grpc_pass``)."""

from __future__ import annotations

import http.client
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from niwa.cli import main
from tests.ladder.serving import printed_address, start_ladder, stop
from tests.polling import PATIENCE_S, wait_for
from tests.web.ladders import played_store

NGINX = Path(__file__).parents[2] / "deploy" / "nginx"


@dataclass(frozen=True)
class Proxy:
    https: int
    http: int
    cert: Path

    def tls(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=str(self.cert))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for localhost and 127.0.0.1, and its key."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is not installed: apt-get install openssl")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=PATIENCE_S,
    )  # fmt: skip
    return cert, key


def site(name: str, proxy: Proxy, key: Path, upstream: str) -> str:
    """The shipped file ``name`` with this test's ports, certificate and upstream."""
    text = (NGINX / name).read_text()
    text = re.sub(r"^\s*listen \[::\].*\n", "", text, flags=re.MULTILINE)  # maybe no IPv6
    text = text.replace("listen 80;", f"listen 127.0.0.1:{proxy.http};")
    text = text.replace("listen 443 ssl", f"listen 127.0.0.1:{proxy.https} ssl")
    text = re.sub(r"ssl_certificate \S+;", f"ssl_certificate {proxy.cert};", text)
    text = re.sub(r"ssl_certificate_key \S+;", f"ssl_certificate_key {key};", text)
    return re.sub(r"server 127\.0\.0\.1:\d+;", f"server {upstream};", text)


@pytest.fixture
def nginx(tmp_path: Path) -> Iterator[tuple[Path, Proxy, Path]]:
    """nginx's binary, this test's ports and certificate, and the folder its files go in."""
    binary = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx")
                                       else None)  # fmt: skip
    if binary is None:
        pytest.skip("nginx is not installed: apt-get install nginx-light (.ci/run does)")
    folder = tmp_path / "nginx"
    folder.mkdir()
    cert, key = certificate(folder)
    yield Path(binary), Proxy(free_port(), free_port(), cert), key


def run_nginx(binary: Path, folder: Path, proxy: Proxy, conf: str) -> subprocess.Popen[bytes]:
    (folder / "site.conf").write_text(conf)
    temp = "".join(f"    {k}_temp_path {folder}/{k};\n"
                   for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))  # fmt: skip
    (folder / "nginx.conf").write_text(
        f"daemon off;\nworker_processes 1;\npid {folder}/nginx.pid;\n"
        f"error_log {folder}/error.log;\nevents {{ worker_connections 64; }}\n"
        f"http {{\n    access_log off;\n{temp}    include {folder}/site.conf;\n}}\n"
    )
    proc = subprocess.Popen(
        [str(binary), "-p", str(folder), "-e", str(folder / "error.log"),
         "-c", str(folder / "nginx.conf")],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip

    def listening() -> bool:
        if proc.poll() is not None:
            raise AssertionError(f"nginx stopped: {proc.stderr.read() if proc.stderr else ''!r}")
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", proxy.https)) == 0

    wait_for("nginx to listen", listening)
    return proc


@pytest.fixture
def web_behind_nginx(tmp_path: Path, nginx: tuple[Path, Proxy, Path]) -> Iterator[Proxy]:
    """A played store served by ``niwa ladder web --config`` behind nginx."""
    binary, proxy, key = nginx
    db = played_store(tmp_path, matches=1)
    toml = tmp_path / "web.toml"
    toml.write_text(f'db = "{db}"\nlisten = "127.0.0.1:0"\n')
    web = subprocess.Popen(
        [sys.executable, "-m", "niwa", "ladder", "web", "--config", str(toml)],
        stdout=subprocess.PIPE, stderr=(tmp_path / "web.log").open("w"), text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    try:
        address = printed_address(web, r"web on http://(\S+)", tmp_path / "web.log")
        conf = site("niwa-web.conf", proxy, key, address)
        proxy_proc = run_nginx(binary, tmp_path / "nginx", proxy, conf)
        try:
            yield proxy
        finally:
            stop(proxy_proc)
    finally:
        stop(web)


def test_a_page_comes_through_over_https(web_behind_nginx: Proxy) -> None:
    proxy = web_behind_nginx
    url = f"https://localhost:{proxy.https}/games/blossom"
    with urllib.request.urlopen(url, timeout=PATIENCE_S, context=proxy.tls()) as response:
        assert "random@1" in response.read().decode()


def test_the_match_events_come_through_unbuffered(web_behind_nginx: Proxy) -> None:
    proxy = web_behind_nginx
    conn = http.client.HTTPSConnection(
        "localhost", proxy.https, timeout=PATIENCE_S, context=proxy.tls()
    )
    try:
        conn.request("GET", "/matches/events?after=0")
        response = conn.getresponse()
        assert response.getheader("content-type", "").startswith("text/event-stream")
        # the played match arrives while the stream stays open: nothing holds it back
        # (proxy_buffering off there, and the app's own X-Accel-Buffering: no)
        lines = iter(response.readline, b"")
        assert next(line for line in lines if line.startswith(b"event:")) == b"event: match\n"
        assert b'"state": "done"' in next(lines)
    finally:
        conn.close()


def test_plain_http_is_sent_to_https(web_behind_nginx: Proxy) -> None:
    conn = http.client.HTTPConnection("localhost", web_behind_nginx.http, timeout=PATIENCE_S)
    try:
        conn.request("GET", "/matches")
        response = conn.getresponse()
        assert response.status == 301
        assert response.getheader("location") == "https://localhost/matches"
    finally:
        conn.close()


def test_a_body_over_the_pages_limit_is_refused_by_nginx(web_behind_nginx: Proxy) -> None:
    proxy = web_behind_nginx
    request = urllib.request.Request(
        f"https://localhost:{proxy.https}/matches", data=b"x" * (64 << 10), method="POST"
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=PATIENCE_S, context=proxy.tls())
    assert refused.value.code == 413


def test_the_grpc_api_comes_through_with_tls(
    tmp_path: Path, nginx: tuple[Path, Proxy, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    binary, proxy, key = nginx
    db = played_store(tmp_path, matches=1)
    ladder, address = start_ladder(db, tmp_path / "serve.log", "--matches", "0")
    try:
        proxy_proc = run_nginx(binary, tmp_path / "nginx", proxy,
                               site("niwa-api.conf", proxy, key, address))  # fmt: skip
        try:
            argv = ["ladder", "leaderboard", "blossom", "--server", f"localhost:{proxy.https}",
                    "--tls-ca", str(proxy.cert)]  # fmt: skip
            assert main(argv) == 0
        finally:
            stop(proxy_proc)
    finally:
        stop(ladder)
    assert "random@1" in capsys.readouterr().out
