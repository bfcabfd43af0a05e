"""``arena submit DIR --server URL --token T [--wait]`` against a tiny stdlib HTTP server that
records each request (headers, body) and answers from a script."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from arena.cli import main
from arena.server import client
from arena.server.archive import unpack

TOKEN = "tok-123_abc"


@dataclass
class Seen:
    """One request the test server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes


Answer = tuple[int, dict[str, str], bytes]


@dataclass
class Fake:
    """The test server: the requests seen, and the answers to give, in order (the last one
    is repeated)."""

    url: str
    seen: list[Seen] = field(default_factory=list)
    answers: list[Answer] = field(default_factory=list)

    def script(self, *answers: Answer) -> None:
        self.answers[:] = answers


def js(status: int, value: object) -> Answer:
    return status, {"Content-Type": "application/json"}, json.dumps(value).encode()


@pytest.fixture
def fake() -> Iterator[Fake]:
    state = Fake("")

    class Handler(BaseHTTPRequestHandler):
        def answer(self) -> None:
            size = int(self.headers.get("Content-Length") or 0)
            state.seen.append(
                Seen(self.command, self.path, dict(self.headers.items()), self.rfile.read(size))
            )
            status, headers, body = (
                state.answers.pop(0) if len(state.answers) > 1 else state.answers[0]
            )
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = answer

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


@pytest.fixture
def bot(tmp_path: Path) -> Path:
    folder = tmp_path / "my-bot"
    (folder / "lib").mkdir(parents=True)
    (folder / "bot.toml").write_text('name = "mybot"\n')
    (folder / "bot.py").write_text("print('hello')\n")
    (folder / "bot.py").chmod(0o755)
    (folder / "lib" / "x.py").write_text("X = 1\n")
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"\0")
    return folder


def run(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, ["submit", *args], env=env)


SENT = js(201, {"validation": 7, "bot": "mybot", "status": "pending"})


def state(status: str, **more: object) -> Answer:
    value: dict[str, object] = {"id": 7, "bot": "mybot", "status": status}
    value.update({"faults": [], "hints": [], "stderr_tail": ""}, **more)
    return js(200, value)


# ---------------------------------------------------------------------------------------------
# the upload


def test_submit_sends_the_folder(fake: Fake, bot: Path, tmp_path: Path) -> None:
    fake.script(SENT)
    result = run(str(bot), "--server", fake.url + "/", "--token", TOKEN)
    assert result.exit_code == 0, result.output
    assert "sent mybot" in result.output and "validation 7 is pending" in result.output
    (request,) = fake.seen
    assert (request.method, request.path) == ("POST", "/api/v1/bots")
    assert request.headers["Authorization"] == f"Bearer {TOKEN}"
    assert request.headers["Content-Type"] == "application/gzip"
    assert request.headers["Accept"] == "application/json"
    got = unpack(request.body, tmp_path / "unpacked")
    files = sorted(p.relative_to(got).as_posix() for p in got.rglob("*"))
    assert files == ["bot.py", "bot.toml", "lib", "lib/x.py"]
    assert (got / "bot.py").read_text() == "print('hello')\n"
    assert (got / "bot.py").stat().st_mode & 0o111


def test_the_token_may_come_from_the_environment(fake: Fake, bot: Path) -> None:
    fake.script(SENT)
    result = run(str(bot), "--server", fake.url, env={"ARENA_TOKEN": TOKEN})
    assert result.exit_code == 0, result.output
    assert fake.seen[0].headers["Authorization"] == f"Bearer {TOKEN}"


def test_a_server_under_a_path(fake: Fake, bot: Path) -> None:
    fake.script(SENT, state("passed"))
    result = run(str(bot), "--server", fake.url + "/arena/", "--token", TOKEN, "--wait")
    assert result.exit_code == 0, result.output
    assert [s.path for s in fake.seen] == ["/arena/api/v1/bots", "/arena/api/v1/validations/7"]


# ---------------------------------------------------------------------------------------------
# --wait


def test_wait_until_entered(fake: Fake, bot: Path) -> None:
    fake.script(SENT, state("pending"), state("running"), state("running"), state("passed"))
    result = run(str(bot), "--server", fake.url, "--token", TOKEN, "--wait", "--poll", "0.01")
    assert result.exit_code == 0, result.output
    gets = [s for s in fake.seen if s.method == "GET"]
    assert [s.path for s in gets] == ["/api/v1/validations/7"] * 4
    assert all(s.headers["Authorization"] == f"Bearer {TOKEN}" for s in gets)
    assert "validation 7: running" in result.output
    assert result.output.count("validation 7: running") == 1, "each change once"
    assert "validation 7: passed: mybot is entered" in result.output


def test_wait_until_refused(fake: Fake, bot: Path) -> None:
    fault = {"where": "take5 at 2 seats", "status": "timeout", "step": 3, "message": "too slow"}
    fake.script(
        SENT,
        state("running"),
        state(
            "failed",
            faults=[fault],
            hints=["answer within the decision time"],
            stderr_tail="Traceback\n\x1b[31mboom\x1b[0m\n",
        ),
    )
    result = run(str(bot), "--server", fake.url, "--token", TOKEN, "--wait", "--poll", "0.01")
    assert result.exit_code == 1, result.output
    out = result.output
    assert "validation 7: failed: mybot is not entered" in out
    assert "  - take5 at 2 seats: timeout: too slow" in out
    assert "  - answer within the decision time" in out
    assert "  | Traceback" in out
    assert "\x1b" not in out and "\\x1b[31mboom" in out, "the bot's stderr is shown escaped"


def test_wait_retries_a_server_that_restarts(fake: Fake, bot: Path) -> None:
    fake.script(SENT, js(503, {"error": "restarting"}), state("passed"))
    result = run(str(bot), "--server", fake.url, "--token", TOKEN, "--wait", "--poll", "0.01")
    assert result.exit_code == 0, result.output
    assert len(fake.seen) == 3


def test_wait_gives_up_after_some_failures(fake: Fake, bot: Path) -> None:
    fake.script(SENT, js(502, {"error": "bad gateway"}))
    result = run(str(bot), "--server", fake.url, "--token", TOKEN, "--wait", "--poll", "0.01")
    assert result.exit_code == 1
    assert "HTTP 502: bad gateway" in result.output
    assert len(fake.seen) == 1 + client.RETRIES


def test_wait_stops_at_once_on_a_refusal(fake: Fake, bot: Path) -> None:
    fake.script(SENT, js(404, {"error": "no such validation of yours"}))
    result = run(str(bot), "--server", fake.url, "--token", TOKEN, "--wait", "--poll", "0.01")
    assert result.exit_code == 1
    assert "HTTP 404: no such validation of yours" in result.output
    assert len(fake.seen) == 2


# ---------------------------------------------------------------------------------------------
# refusals and failures: exit 1 with the reason


def test_a_token_refused(fake: Fake, bot: Path) -> None:
    fake.script(js(401, {"error": "unknown token"}))
    result = run(str(bot), "--server", fake.url, "--token", "wrong")
    assert result.exit_code == 1
    assert "did not take the token (HTTP 401): unknown token" in result.output


def test_an_upload_refused(fake: Fake, bot: Path) -> None:
    fake.script(js(400, {"error": "a symbolic link: 'x'"}))
    result = run(str(bot), "--server", fake.url, "--token", TOKEN)
    assert result.exit_code == 1
    assert "HTTP 400: a symbolic link: 'x'" in result.output


def test_a_plain_text_error(fake: Fake, bot: Path) -> None:
    fake.script((413, {"Content-Type": "text/plain"}, b"Request Entity\n Too Large"))
    result = run(str(bot), "--server", fake.url, "--token", TOKEN)
    assert result.exit_code == 1
    assert "HTTP 413: Request Entity Too Large" in result.output


def test_a_redirect_is_not_followed(fake: Fake, bot: Path) -> None:
    """Following it would send the token to wherever the redirect points."""
    fake.script((302, {"Location": "http://elsewhere.example/steal"}, b""))
    result = run(str(bot), "--server", fake.url, "--token", TOKEN)
    assert result.exit_code == 1
    assert "redirects to http://elsewhere.example/steal" in result.output
    assert len(fake.seen) == 1


def test_not_an_arena_server(fake: Fake, bot: Path) -> None:
    fake.script((200, {"Content-Type": "text/html"}, b"<html>hello</html>"))
    result = run(str(bot), "--server", fake.url, "--token", TOKEN)
    assert result.exit_code == 1
    assert "is it an arena server?" in result.output


def test_no_server_there(bot: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, not listening: connections are refused
        result = run(str(bot), "--server", f"http://127.0.0.1:{port}", "--token", TOKEN)
    assert result.exit_code == 1
    assert "cannot reach http://127.0.0.1:" in result.output


def test_a_folder_that_cannot_be_packed(fake: Fake, bot: Path) -> None:
    (bot / "link").symlink_to("/etc/passwd")
    fake.script(SENT)
    result = run(str(bot), "--server", fake.url, "--token", TOKEN)
    assert result.exit_code == 1
    assert "link is a symbolic link" in result.output
    assert fake.seen == []
    result = run(str(bot / "nothing"), "--server", fake.url, "--token", TOKEN)
    assert result.exit_code == 1 and "not a folder" in result.output


# ---------------------------------------------------------------------------------------------
# usage


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--server", "http://x"], "--server needs --token"),
        (["--server", "http://x", "--token", "t", "--league", "L"], "are for a local league"),
        (["--server", "http://x", "--token", "t", "--no-check"], "are for a local league"),
        (["--league", "L", "--wait"], "--token and --wait go with --server"),
        (["--league", "L", "--token", "t"], "--token and --wait go with --server"),
        ([], "Missing option '--league'"),
    ],
)
def test_usage(args: list[str], message: str, bot: Path) -> None:
    result = run(str(bot), *args)
    assert result.exit_code == 2
    assert message in result.output


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://x", "starts with http:// or https://"),
        ("localhost:8000", "starts with http:// or https://"),
        ("http://x/?a=1", "address only"),
    ],
)
def test_bad_server_urls(url: str, message: str, bot: Path) -> None:
    result = run(str(bot), "--server", url, "--token", TOKEN)
    assert result.exit_code == 1
    assert message in result.output


def test_an_empty_token(bot: Path) -> None:
    result = run(str(bot), "--server", "http://x", "--token", "  ")
    assert result.exit_code == 1
    assert "an empty token" in result.output
