"""The server's accounts: users, passwords, API tokens, sessions, bot ownership and webhooks.

Kept in the league folder's own SQLite file ``server.db`` (WAL), apart from the league's store:
the league knows nothing of who may change a bot.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Self


class AccountError(ValueError):
    """A request about accounts refused; the message is safe to show to the user."""


@dataclass(frozen=True)
class User:
    """A user of the server."""

    id: int
    name: str
    admin: bool


@dataclass(frozen=True)
class Webhook:
    """A URL called when one of ``events`` happens to one of its user's bots."""

    id: int
    url: str
    events: frozenset[str]


class Accounts:
    """The accounts of one league's server (a handle on ``server.db``)."""

    @classmethod
    def open(cls, league_folder: Path) -> Accounts:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        raise NotImplementedError

    # users
    def add_user(self, name: str, admin: bool = False, password: str | None = None) -> str:
        raise NotImplementedError

    def remove_user(self, name: str) -> None:
        raise NotImplementedError

    def users(self) -> list[User]:
        raise NotImplementedError

    def user(self, name: str) -> User | None:
        raise NotImplementedError

    def set_password(self, name: str, password: str) -> None:
        raise NotImplementedError

    def redeem_signup(self, token: str, password: str) -> User:
        raise NotImplementedError

    def check_password(self, name: str, password: str) -> User | None:
        raise NotImplementedError

    # API tokens
    def new_token(self, user: User, label: str = "") -> str:
        raise NotImplementedError

    def user_for_token(self, token: str) -> User | None:
        raise NotImplementedError

    def revoke_tokens(self, user: User) -> None:
        raise NotImplementedError

    # browser sessions
    def new_session(self, user: User) -> str:
        raise NotImplementedError

    def user_for_session(self, session: str) -> User | None:
        raise NotImplementedError

    def end_session(self, session: str) -> None:
        raise NotImplementedError

    # bot ownership
    def owner_of(self, bot: str) -> str | None:
        raise NotImplementedError

    def claim(self, bot: str, user: User) -> None:
        raise NotImplementedError

    def may_change(self, bot: str, user: User) -> bool:
        raise NotImplementedError

    def bots_of(self, user: User) -> list[str]:
        raise NotImplementedError

    # webhooks
    def add_webhook(self, user: User, url: str, events: frozenset[str]) -> int:
        raise NotImplementedError

    def webhooks(self, user: User) -> list[Webhook]:
        raise NotImplementedError

    def remove_webhook(self, user: User, hook_id: int) -> None:
        raise NotImplementedError
