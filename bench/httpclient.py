"""A small asyncio HTTP/1.1 client with keep-alive and cookies: a browser, as far as a rater loop goes.

The load generator shares the two cores with the server it measures, so it must cost little:
one coroutine per simulated rater over a persistent connection, no thread per client and no
general-purpose HTTP library. It speaks only what gunicorn and Django send back: a status
line, headers, a body framed by ``Content-Length`` or chunked, or ended by closing.
"""

import asyncio
import re
import time
from dataclasses import dataclass, field
from urllib.parse import urlencode, urlsplit

REQUEST_TIMEOUT_SECONDS = 30.0
MAX_HEADER_LINES = 200
CSRF_INPUT = re.compile(rb'name="csrfmiddlewaretoken" value="([^"]+)"')


class HTTPError(Exception):
    """The connection failed or the response could not be read (not an HTTP error status)."""


@dataclass
class Response:
    status: int
    headers: dict  # lower-case name -> list of values
    body: bytes
    seconds: float

    def header(self, name, default=None):
        values = self.headers.get(name.lower())
        return values[-1] if values else default

    @property
    def location(self):
        location = self.header("location")
        return urlsplit(location)._replace(scheme="", netloc="").geturl() if location else None

    def csrf_token(self):
        match = CSRF_INPUT.search(self.body)
        return match.group(1).decode() if match else None

    @property
    def text(self):
        return self.body.decode("utf-8", "replace")


@dataclass
class Browser:
    """One simulated user: a keep-alive connection to ``host:port`` and a cookie jar."""

    host: str
    port: int
    timeout: float = REQUEST_TIMEOUT_SECONDS
    cookies: dict = field(default_factory=dict)
    reconnects: int = 0  # requests resent on a new connection after the kept-alive one failed
    _reader: asyncio.StreamReader | None = None
    _writer: asyncio.StreamWriter | None = None

    @property
    def origin(self):
        return f"http://{self.host}:{self.port}"

    async def get(self, path):
        return await self.request("GET", path)

    async def post(self, path, fields, referer=None):
        body = urlencode(fields).encode()
        headers = {"Content-Type": "application/x-www-form-urlencoded", "Origin": self.origin}
        if referer:
            headers["Referer"] = self.origin + referer
        return await self.request("POST", path, body, headers)

    async def request(self, method, path, body=b"", headers=None):
        """Send one request (reconnecting once if the kept-alive connection was closed)."""
        for attempt in (1, 2):
            fresh = self._writer is None
            if fresh:
                await self._connect()
            started = time.perf_counter()
            try:
                self._writer.write(self._head(method, path, body, headers or {}) + body)
                response = await asyncio.wait_for(self._read_response(method), self.timeout)
            except (TimeoutError, ConnectionError, asyncio.IncompleteReadError, HTTPError) as exc:
                await self.close()
                if fresh or attempt == 2 or isinstance(exc, asyncio.TimeoutError):
                    raise HTTPError(f"{method} {path}: {type(exc).__name__}: {exc}") from None
                self.reconnects += 1
                continue
            response.seconds = time.perf_counter() - started
            self._store_cookies(response)
            if "close" in (response.header("connection") or "").lower():
                await self.close()
            return response
        raise AssertionError("unreachable")

    async def close(self):
        if self._writer is not None:
            self._writer.close()
            try:
                await self._writer.wait_closed()
            except (ConnectionError, OSError):
                pass
        self._reader = self._writer = None

    async def _connect(self):
        try:
            self._reader, self._writer = await asyncio.wait_for(
                asyncio.open_connection(self.host, self.port), self.timeout
            )
        except (TimeoutError, OSError) as exc:
            raise HTTPError(f"cannot connect to {self.origin}: {exc}") from None

    def _head(self, method, path, body, headers):
        lines = [
            f"{method} {path} HTTP/1.1",
            f"Host: {self.host}:{self.port}",
            "Connection: keep-alive",
            "Accept: text/html",
            f"Content-Length: {len(body)}",
        ]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        if self.cookies:
            lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    async def _read_response(self, method):
        status_line = await self._reader.readline()
        if not status_line:
            raise ConnectionResetError("server closed the connection")
        parts = status_line.split(None, 2)
        if len(parts) < 2 or not parts[1].isdigit():
            raise HTTPError(f"bad status line {status_line[:80]!r}")
        headers = {}
        for _ in range(MAX_HEADER_LINES):
            line = await self._reader.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            headers.setdefault(name.strip().lower(), []).append(value.strip())
        else:
            raise HTTPError("too many header lines")
        response = Response(int(parts[1]), headers, b"", 0.0)
        if method == "HEAD" or response.status in (204, 304):
            return response
        if "chunked" in (response.header("transfer-encoding") or "").lower():
            response.body = await self._read_chunked()
        elif response.header("content-length") is not None:
            response.body = await self._reader.readexactly(int(response.header("content-length")))
        else:
            response.body = await self._reader.read()
            response.headers["connection"] = ["close"]
        return response

    async def _read_chunked(self):
        chunks = []
        while True:
            size = int((await self._reader.readline()).split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while (await self._reader.readline()) not in (b"\r\n", b"\n", b""):
                    pass
                return b"".join(chunks)
            chunks.append(await self._reader.readexactly(size))
            await self._reader.readexactly(2)

    def _store_cookies(self, response):
        for cookie in response.headers.get("set-cookie", []):
            pair, _, attributes = cookie.partition(";")
            name, _, value = pair.strip().partition("=")
            expired = "max-age=0" in attributes.lower().replace(" ", "") or value in ('""', "")
            if expired:
                self.cookies.pop(name, None)
            else:
                self.cookies[name] = value


async def log_in(browser, username, password, login_path="/accounts/login/"):
    """Log in through the login form, as a person would: GET it (CSRF token), POST it."""
    page = await browser.get(login_path)
    token = page.csrf_token()
    if page.status != 200 or not token:
        raise HTTPError(f"GET {login_path}: status {page.status}, no login form")
    response = await browser.post(
        login_path, {"csrfmiddlewaretoken": token, "username": username, "password": password}, referer=login_path
    )
    if response.status != 302:
        raise HTTPError(f"POST {login_path} as {username}: status {response.status} (wrong password?)")
    return response
