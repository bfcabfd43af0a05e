"""Accounts: password hashing, one-time sign-up tokens, API tokens and sessions stored hashed,
bot ownership, removal of a user, names and webhooks validated."""

from __future__ import annotations

import hashlib
import sqlite3
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from argon2 import PasswordHasher

from arena.server import accounts as accounts_module
from arena.server.accounts import AccountError, Accounts, User

CHEAP = PasswordHasher(time_cost=1, memory_cost=64, parallelism=1)
"""argon2id with tiny parameters: the tests check what is stored, not the cost."""

PASSWORD = "correct horse battery"


@pytest.fixture
def acc(tmp_path: Path) -> Iterator[Accounts]:
    with Accounts.open(tmp_path, hasher=CHEAP) as a:
        yield a


def rows(folder: Path, sql: str) -> list[tuple[object, ...]]:
    """What is in server.db, read with a connection of the test's own."""
    db = sqlite3.connect(folder / "server.db")
    try:
        return list(db.execute(sql))
    finally:
        db.close()


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def make(acc: Accounts, name: str, admin: bool = False) -> User:
    acc.add_user(name, admin=admin)
    user = acc.user(name)
    assert user is not None
    return user


# ---------------------------------------------------------------------------------------------
# the file


def test_server_db_is_private_and_wal(tmp_path: Path) -> None:
    with Accounts.open(tmp_path, hasher=CHEAP):
        pass
    assert stat.S_IMODE((tmp_path / "server.db").stat().st_mode) == 0o600
    assert rows(tmp_path, "PRAGMA journal_mode") == [("wal",)]


def test_two_handles_see_each_other(tmp_path: Path) -> None:
    """The server holds one open while the operator runs `arena user add`."""
    with Accounts.open(tmp_path, hasher=CHEAP) as server, Accounts.open(tmp_path) as cli:
        cli.add_user("alice")
        assert server.user("alice") == User(1, "alice", False)


# ---------------------------------------------------------------------------------------------
# users and passwords


@pytest.mark.parametrize("name", ["a", "Alice_1.x-y", "x" * 32, "9lives"])
def test_good_names(acc: Accounts, name: str) -> None:
    acc.add_user(name)
    assert [u.name for u in acc.users()] == [name]


@pytest.mark.parametrize(
    "name", ["", "x" * 33, "a b", "a/b", "../x", "..", ".hidden", "-rf", "é", "a\x00", "a\n", "<b>"]
)
def test_bad_names(acc: Accounts, name: str) -> None:
    with pytest.raises(AccountError, match="a user name is"):
        acc.add_user(name)
    assert acc.users() == []


def test_names_are_unique_whatever_their_case(acc: Accounts) -> None:
    acc.add_user("alice")
    with pytest.raises(AccountError, match="already"):
        acc.add_user("Alice")
    assert acc.user("ALICE") == User(1, "alice", False)


def test_the_stored_hash_is_argon2id_not_the_password(tmp_path: Path) -> None:
    """With the server's own parameters (argon2-cffi's defaults: RFC 9106, 64 MiB)."""
    with Accounts.open(tmp_path) as acc:
        acc.add_user("alice", password=PASSWORD)
        ((stored,),) = rows(tmp_path, "SELECT password FROM users")
        assert isinstance(stored, str)
        assert stored.startswith("$argon2id$") and "m=65536" in stored
        assert PASSWORD not in stored
        assert acc.check_password("alice", PASSWORD) == User(1, "alice", False)
        assert acc.check_password("alice", PASSWORD + "!") is None
        assert acc.check_password("alice", "") is None


def test_same_password_two_hashes(acc: Accounts, tmp_path: Path) -> None:
    acc.add_user("alice", password=PASSWORD)
    acc.add_user("bob", password=PASSWORD)
    (a,), (b,) = rows(tmp_path, "SELECT password FROM users")
    assert a != b, "salted"


def test_unknown_users_and_users_without_password_fail(acc: Accounts) -> None:
    acc.add_user("alice")
    assert acc.check_password("alice", "") is None
    assert acc.check_password("alice", PASSWORD) is None
    assert acc.check_password("nobody", PASSWORD) is None


def test_password_length(acc: Accounts) -> None:
    acc.add_user("alice")
    with pytest.raises(AccountError, match="at least 8"):
        acc.set_password("alice", "short")
    with pytest.raises(AccountError, match="at most 1024"):
        acc.set_password("alice", "x" * 1025)
    with pytest.raises(AccountError, match="no user"):
        acc.set_password("bob", PASSWORD)
    acc.set_password("alice", PASSWORD)
    assert acc.check_password("alice", PASSWORD) is not None
    assert acc.check_password("alice", "x" * 5000) is None


def test_an_old_hash_is_redone_on_sign_in(tmp_path: Path) -> None:
    with Accounts.open(tmp_path, hasher=CHEAP) as acc:
        acc.add_user("alice", password=PASSWORD)
    ((old,),) = rows(tmp_path, "SELECT password FROM users")
    stronger = PasswordHasher(time_cost=2, memory_cost=128, parallelism=1)
    with Accounts.open(tmp_path, hasher=stronger) as acc:
        assert acc.check_password("alice", PASSWORD) is not None
        ((new,),) = rows(tmp_path, "SELECT password FROM users")
        assert new != old and "m=128,t=2" in str(new)
        assert acc.check_password("alice", PASSWORD) is not None


# ---------------------------------------------------------------------------------------------
# one-time sign-up tokens


def test_signup_token_works_once(acc: Accounts, tmp_path: Path) -> None:
    token = acc.add_user("alice")
    assert rows(tmp_path, "SELECT hash FROM signups") == [(sha(token),)]
    assert acc.redeem_signup(token, PASSWORD) == User(1, "alice", False)
    assert acc.check_password("alice", PASSWORD) is not None
    with pytest.raises(AccountError, match="used, expired or unknown"):
        acc.redeem_signup(token, "another password")
    assert acc.check_password("alice", PASSWORD) is not None


def test_signup_token_unknown_short_password_and_expiry(
    acc: Accounts, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = acc.add_user("alice")
    with pytest.raises(AccountError, match="used, expired or unknown"):
        acc.redeem_signup("not-a-token", PASSWORD)
    with pytest.raises(AccountError, match="at least 8"):
        acc.redeem_signup(token, "short")
    later = accounts_module.time.time() + accounts_module.SIGNUP_SECONDS + 1
    monkeypatch.setattr(accounts_module.time, "time", lambda: later)
    with pytest.raises(AccountError, match="used, expired or unknown"):
        acc.redeem_signup(token, PASSWORD)


def test_a_password_given_means_no_signup_token(acc: Accounts, tmp_path: Path) -> None:
    assert acc.add_user("alice", password=PASSWORD) == ""
    assert rows(tmp_path, "SELECT * FROM signups") == []


def test_a_new_signup_token_replaces_the_old(acc: Accounts) -> None:
    old = acc.add_user("alice")
    new = acc.new_signup("alice")
    with pytest.raises(AccountError):
        acc.redeem_signup(old, PASSWORD)
    assert acc.redeem_signup(new, PASSWORD).name == "alice"
    with pytest.raises(AccountError, match="no user"):
        acc.new_signup("bob")


# ---------------------------------------------------------------------------------------------
# API tokens and sessions


def test_api_tokens_are_stored_hashed(acc: Accounts, tmp_path: Path) -> None:
    alice = make(acc, "alice")
    token = acc.new_token(alice, "laptop")
    stored = rows(tmp_path, "SELECT hash, label FROM tokens")
    assert stored == [(sha(token), "laptop")]
    assert acc.user_for_token(token) == alice
    assert acc.user_for_token(sha(token)) is None, "the stored hash is not a token"
    assert acc.user_for_token(token[:-1]) is None
    assert acc.user_for_token("") is None


def test_no_secret_is_in_the_file(tmp_path: Path) -> None:
    with Accounts.open(tmp_path, hasher=CHEAP) as acc:
        signup = acc.add_user("alice")
        bob = make(acc, "bob")
        secrets = [signup, acc.new_token(bob), acc.new_session(bob)]
        acc.set_password("bob", PASSWORD)
    data = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    for secret in [*secrets, PASSWORD]:
        assert secret.encode() not in data


def test_revoke_tokens(acc: Accounts) -> None:
    alice, bob = make(acc, "alice"), make(acc, "bob")
    a1, a2, b1 = acc.new_token(alice), acc.new_token(alice), acc.new_token(bob)
    acc.revoke_tokens(alice)
    assert acc.user_for_token(a1) is None and acc.user_for_token(a2) is None
    assert acc.user_for_token(b1) == bob


def test_sessions(acc: Accounts, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    alice = make(acc, "alice")
    session = acc.new_session(alice)
    assert len(session) >= 43  # 32 random bytes
    assert rows(tmp_path, "SELECT hash FROM sessions") == [(sha(session),)]
    assert acc.user_for_session(session) == alice
    assert acc.user_for_session(sha(session)) is None
    acc.end_session(session)
    assert acc.user_for_session(session) is None
    acc.end_session(session)  # twice: nothing happens


def test_sessions_expire_after_14_days(acc: Accounts, monkeypatch: pytest.MonkeyPatch) -> None:
    alice = make(acc, "alice")
    session = acc.new_session(alice)
    now = accounts_module.time.time()
    monkeypatch.setattr(accounts_module.time, "time", lambda: now + 13 * 86400)
    assert acc.user_for_session(session) == alice
    monkeypatch.setattr(accounts_module.time, "time", lambda: now + 14 * 86400 + 1)
    assert acc.user_for_session(session) is None


# ---------------------------------------------------------------------------------------------
# removal


def test_removing_a_user_ends_everything(acc: Accounts, tmp_path: Path) -> None:
    alice = make(acc, "alice")
    bob = make(acc, "bob")
    token, session = acc.new_token(alice), acc.new_session(alice)
    signup = acc.new_signup("alice")
    acc.add_webhook(alice, "https://example.org/hook", frozenset({"settled"}))
    acc.claim("alpha", alice)
    acc.remove_user("alice")
    assert acc.user("alice") is None
    assert acc.user_for_token(token) is None
    assert acc.user_for_session(session) is None
    with pytest.raises(AccountError):
        acc.redeem_signup(signup, PASSWORD)
    for table in ("tokens", "sessions", "signups", "webhooks"):
        assert rows(tmp_path, f"SELECT * FROM {table} WHERE user_id = {alice.id}") == [], table
    assert rows(tmp_path, f"SELECT count(*) FROM signups WHERE user_id = {bob.id}") == [(1,)]
    with pytest.raises(AccountError, match="no user"):
        acc.new_token(alice)  # a User kept from before the removal opens nothing
    assert not acc.may_change("alpha", alice)
    # the bot stays known, owned by no one: bob cannot take it over
    assert acc.owner_of("alpha") is None
    with pytest.raises(AccountError, match="someone else"):
        acc.claim("alpha", bob)
    assert not acc.may_change("alpha", bob)
    with pytest.raises(AccountError, match="no user"):
        acc.remove_user("alice")


def test_a_new_user_of_a_removed_name_gets_nothing_back(acc: Accounts) -> None:
    alice = make(acc, "alice")
    acc.claim("alpha", alice)
    acc.remove_user("alice")
    again = make(acc, "alice")
    assert acc.bots_of(again) == []
    assert not acc.may_change("alpha", again)


# ---------------------------------------------------------------------------------------------
# ownership


def test_ownership(acc: Accounts) -> None:
    alice, bob, root = make(acc, "alice"), make(acc, "bob"), make(acc, "root", admin=True)
    acc.claim("alpha", alice)
    acc.claim("alpha", alice)  # again: nothing changes
    assert acc.owner_of("alpha") == "alice"
    with pytest.raises(AccountError, match="someone else"):
        acc.claim("alpha", bob)
    assert acc.owner_of("alpha") == "alice"
    assert acc.may_change("alpha", alice)
    assert not acc.may_change("alpha", bob)
    assert acc.may_change("alpha", root)
    acc.claim("alpha", root)  # an admin may change it; alice keeps it
    assert acc.owner_of("alpha") == "alice"
    acc.claim("beta", alice)
    acc.claim("gamma", bob)
    assert acc.bots_of(alice) == ["alpha", "beta"]
    assert acc.bots_of(bob) == ["gamma"]
    assert acc.bots_of(root) == []


def test_an_unowned_bot_only_an_admin_may_change(acc: Accounts) -> None:
    alice, root = make(acc, "alice"), make(acc, "root", admin=True)
    assert acc.owner_of("cli-bot") is None
    assert not acc.may_change("cli-bot", alice)
    assert acc.may_change("cli-bot", root)


def test_an_admin_takes_over_a_bot_whose_owner_left(acc: Accounts) -> None:
    alice, root = make(acc, "alice"), make(acc, "root", admin=True)
    acc.claim("alpha", alice)
    acc.remove_user("alice")
    acc.claim("alpha", root)
    assert acc.owner_of("alpha") == "root"


# ---------------------------------------------------------------------------------------------
# webhooks


def test_webhooks(acc: Accounts) -> None:
    alice, bob = make(acc, "alice"), make(acc, "bob")
    one = acc.add_webhook(alice, "https://example.org/hook?x=1", frozenset({"validation"}))
    two = acc.add_webhook(alice, "http://10.0.0.1:8080/h", frozenset({"validation", "settled"}))
    hooks = acc.webhooks(alice)
    assert [(h.id, h.url, h.events) for h in hooks] == [
        (one, "https://example.org/hook?x=1", frozenset({"validation"})),
        (two, "http://10.0.0.1:8080/h", frozenset({"validation", "settled"})),
    ]
    assert acc.webhooks(bob) == []
    with pytest.raises(AccountError, match="no webhook"):
        acc.remove_webhook(bob, one)  # not bob's
    acc.remove_webhook(alice, one)
    assert [h.id for h in acc.webhooks(alice)] == [two]
    with pytest.raises(AccountError, match="no webhook"):
        acc.remove_webhook(alice, one)


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.org/x",
        "file:///etc/passwd",
        "javascript:alert(1)",
        "gopher://example.org/",
        "example.org/hook",
        "http://",
        "https:///path",
        "http://exa mple.org/",
        "http://example.org/\x00",
        "http://example.org:99999/",
        "http://[::1/",
        "https://example.org/" + "x" * 2000,
    ],
)
def test_webhooks_only_http_urls(acc: Accounts, url: str) -> None:
    alice = make(acc, "alice")
    with pytest.raises(AccountError):
        acc.add_webhook(alice, url, frozenset({"validation"}))
    assert acc.webhooks(alice) == []


@pytest.mark.parametrize(
    "events", [frozenset(), frozenset({"deploy"}), frozenset({"settled", "x"})]
)
def test_webhook_events(acc: Accounts, events: frozenset[str]) -> None:
    alice = make(acc, "alice")
    with pytest.raises(AccountError, match="some of: settled, validation"):
        acc.add_webhook(alice, "https://example.org/", events)


def test_webhooks_per_user_are_bounded(acc: Accounts) -> None:
    alice = make(acc, "alice")
    for i in range(accounts_module.MAX_WEBHOOKS):
        acc.add_webhook(alice, f"https://example.org/{i}", frozenset({"settled"}))
    with pytest.raises(AccountError, match="at most"):
        acc.add_webhook(alice, "https://example.org/more", frozenset({"settled"}))


# ---------------------------------------------------------------------------------------------
# threads


def test_one_handle_shared_by_threads(acc: Accounts) -> None:
    """The server's threads share one Accounts: calls from several at once all land."""
    alice = make(acc, "alice")
    sessions: list[str] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(20):
                s = acc.new_session(alice)
                assert acc.user_for_session(s) == alice
                sessions.append(s)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(set(sessions)) == 80
