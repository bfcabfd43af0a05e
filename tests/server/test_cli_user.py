"""``arena user add/list/remove/token/signup``: the operator's side of a server's accounts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from arena.cli import main
from arena.server.accounts import Accounts

PASSWORD = "a long enough password"


@pytest.fixture
def league(tmp_path: Path) -> Path:
    folder = tmp_path / "lg"
    folder.mkdir()
    (folder / "league.toml").write_text("")
    return folder


def user(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(main, ["user", *args], input=input)


def printed_token(output: str) -> str:
    (token,) = re.findall(r"^  (\S{40,})$", output, re.MULTILINE)
    return token


def test_add_prints_a_one_time_signup_token(league: Path) -> None:
    result = user("add", str(league), "alice")
    assert result.exit_code == 0, result.output
    assert "added alice (author)" in result.output
    assert "/account/signup" in result.output and "valid 7 days" in result.output
    token = printed_token(result.output)
    with Accounts.open(league) as acc:
        assert acc.redeem_signup(token, PASSWORD).name == "alice"
        assert acc.check_password("alice", PASSWORD) is not None


def test_add_an_admin_with_a_password(league: Path) -> None:
    typed = f"short\nshort\n{PASSWORD}\n{PASSWORD}\n"
    result = user("add", str(league), "root", "--admin", "--password", input=typed)
    assert result.exit_code == 0, result.output
    assert "at least 8 characters" in result.output
    assert "added root (admin) with a password" in result.output
    assert "sign-up token" not in result.output
    assert PASSWORD not in result.output, "typed hidden"
    with Accounts.open(league) as acc:
        found = acc.check_password("root", PASSWORD)
        assert found is not None and found.admin


def test_add_refusals(league: Path, tmp_path: Path) -> None:
    assert user("add", str(league), "alice").exit_code == 0
    result = user("add", str(league), "ALICE", "--password", input="never asked\n")
    assert result.exit_code == 1 and "there is a user ALICE already" in result.output
    assert "password:" not in result.output, "refused before asking for a password"
    result = user("add", str(league), "../x")
    assert result.exit_code == 1 and "a user name is" in result.output
    result = user("add", str(tmp_path / "nowhere"), "bob")
    assert result.exit_code == 1 and "is not a league" in result.output
    assert not (tmp_path / "nowhere").exists()


def test_a_bare_name_is_a_league_under_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "results" / "club").mkdir(parents=True)
    (tmp_path / "results" / "club" / "league.toml").write_text("")
    monkeypatch.chdir(tmp_path)
    assert user("add", "club", "alice").exit_code == 0
    assert (tmp_path / "results" / "club" / "server.db").exists()


def test_list(league: Path) -> None:
    assert "no users" in user("list", str(league)).output
    user("add", str(league), "alice")
    user("add", str(league), "root", "--admin")
    with Accounts.open(league) as acc:
        alice = acc.user("alice")
        assert alice is not None
        acc.claim("alpha", alice)
        acc.claim("beta", alice)
    result = user("list", str(league))
    assert result.exit_code == 0, result.output
    lines = [line.split() for line in result.output.splitlines()]
    assert lines == [
        ["name", "role", "bots"],
        ["alice", "author", "alpha,", "beta"],
        ["root", "admin", "-"],
    ]


def test_token(league: Path) -> None:
    user("add", str(league), "alice")
    result = user("token", str(league), "alice", "--label", "laptop")
    assert result.exit_code == 0, result.output
    assert "arena submit" in result.output
    token = printed_token(result.output)
    with Accounts.open(league) as acc:
        found = acc.user_for_token(token)
        assert found is not None and found.name == "alice"
    result = user("token", str(league), "bob")
    assert result.exit_code == 1 and "no user bob" in result.output


def test_signup_makes_a_new_token(league: Path) -> None:
    old = printed_token(user("add", str(league), "alice").output)
    result = user("signup", str(league), "alice")
    assert result.exit_code == 0, result.output
    new = printed_token(result.output)
    with Accounts.open(league) as acc:
        with pytest.raises(ValueError, match="used, expired or unknown"):
            acc.redeem_signup(old, PASSWORD)
        assert acc.redeem_signup(new, PASSWORD).name == "alice"
    result = user("signup", str(league), "bob")
    assert result.exit_code == 1 and "no user bob" in result.output


def test_remove(league: Path) -> None:
    user("add", str(league), "alice")
    token = printed_token(user("token", str(league), "alice").output)
    result = user("remove", str(league), "alice")
    assert result.exit_code == 0 and "removed alice" in result.output
    with Accounts.open(league) as acc:
        assert acc.user_for_token(token) is None
        assert acc.users() == []
    result = user("remove", str(league), "alice")
    assert result.exit_code == 1 and "no user alice" in result.output
