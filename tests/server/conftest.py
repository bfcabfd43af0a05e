"""Fixtures of the server's tests: leagues, accounts with a cheap password hash, bot archives,
and a Starlette TestClient on the app (no runner: the tests drive it themselves)."""

from __future__ import annotations

import io
import shutil
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from argon2 import PasswordHasher
from starlette.testclient import TestClient

from arena.server.accounts import Accounts
from arena.server.app import make_app
from arena.server.archive import pack
from arena.server.context import Settings

CHEAP = PasswordHasher(time_cost=1, memory_cost=64, parallelism=1)
REPO = Path(__file__).resolve().parents[2]
PASSWORD = "correct horse battery"


def bot_folder(root: Path, name: str, source: str = "random", body: str | None = None) -> Path:
    """A copy of a bundled bot renamed ``name`` (``body``: its bot.py replaced)."""
    folder = root / f"src-{name}"
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(REPO / "bots" / source, folder)
    toml = (folder / "bot.toml").read_text()
    toml = "\n".join(
        f'name = "{name}"' if line.startswith("name =") else line for line in toml.splitlines()
    )
    (folder / "bot.toml").write_text(toml + "\n")
    if body is not None:
        (folder / "bot.py").write_text(body)
    return folder


def bot_archive(root: Path, name: str, body: str | None = None) -> bytes:
    return pack(bot_folder(root, name, body=body))


def tar_of(members: dict[str, bytes]) -> bytes:
    """A .tar.gz holding ``members`` by name as given (even hostile names)."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


class People:
    """Users of a test server: alice and bob (authors), root (admin), with API tokens."""

    def __init__(self, folder: Path) -> None:
        with Accounts.open(folder, hasher=CHEAP) as accounts:
            for name, admin in (("alice", False), ("bob", False), ("root", True)):
                if accounts.user(name) is None:
                    accounts.add_user(name, admin=admin, password=PASSWORD)
            self.tokens = {
                name: accounts.new_token(user)
                for name in ("alice", "bob", "root")
                if (user := accounts.user(name)) is not None
            }

    def auth(self, name: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[name]}"}


def client_for(folder: Path, **settings: object) -> TestClient:
    app = make_app(Settings(folder, folder / "site", **settings), webhooks=False, hasher=CHEAP)  # type: ignore[arg-type]
    return TestClient(app, raise_server_exceptions=False, follow_redirects=False)


def sign_in(client: TestClient, name: str, password: str = PASSWORD) -> None:
    """Sign ``client`` in through the form (the CSRF cookie and field first)."""
    page = client.get("/account/signin")
    csrf = client.cookies.get("arena_csrf")
    assert csrf and f'value="{csrf}"' in page.text
    answer = client.post("/account/signin", data={"csrf": csrf, "name": name, "password": password})
    assert answer.status_code == 303, answer.text


@pytest.fixture
def people_factory() -> type[People]:
    return People


@pytest.fixture
def client_factory() -> Iterator[object]:
    clients: list[TestClient] = []

    def make(folder: Path, **settings: object) -> TestClient:
        client = client_for(folder, **settings)
        client.__enter__()  # runs the app's start-up; its shut-down closes its handles
        clients.append(client)
        return client

    yield make
    for c in clients:
        c.__exit__(None, None, None)
