"""A person at the terminal takes a seat: sees the position drawn and the legal moves in words,
numbered as in the protocol's ``legal`` list; a decision with one move is taken for them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import click

from arena.boards import action_text, board
from arena.games import get_game
from arena.terminal import shown


class HumanAgent:
    """An in-process agent that asks a person; ``read`` and ``write`` are swappable for tests."""

    version = "human"

    def __init__(
        self,
        name: str = "human",
        read: Callable[[str], str] | None = None,
        write: Callable[[str], None] | None = None,
    ) -> None:
        self.name = name
        self._read = read or (lambda prompt: click.prompt(prompt, type=str, prompt_suffix=" "))
        self._write = write or click.echo
        self._describe: Callable[[dict[str, Any]], str] = str
        self._game = ""

    def receive(self, message: Mapping[str, Any]) -> None:
        kind = message.get("type")
        if kind == "start":
            game = get_game(message["game"])
            self._describe = game.state_class.describe
            self._game = game.name
            players = ", ".join(f"{i}: {shown(n)}" for i, n in enumerate(message["players"]))
            self._write(f"== {game.title}: you are seat {message['seat']} ({players})")
        elif kind == "end":
            self._show_events(message.get("events", []))
            result = message["result"]
            self._write(f"== Game over: scores {result['scores']}, places {message['ranks']}")

    def _show_events(self, events: list[dict[str, Any]]) -> None:
        for event in events:
            self._write("  " + shown(self._describe(event)))

    def act(self, message: Mapping[str, Any]) -> Mapping[str, Any]:
        self._show_events(message.get("events", []))
        observation = message["observation"]
        legal = message["legal"]
        for line in board(self._game, observation):
            self._write(shown(line))
        words = [shown(action_text(self._game, observation, a)) for a in legal]
        if len(legal) == 1:
            self._write(f"  only one move: {words[0]}")
            return {"id": message["id"], "index": 0}
        for i, text in enumerate(words):
            self._write(f"  [{i}] {text}")
        while True:
            text = self._read(f"your move 0-{len(legal) - 1}:").strip()
            if text.isdigit() and int(text) < len(legal):
                return {"id": message["id"], "index": int(text)}
            self._write(f"please type a number from 0 to {len(legal) - 1}")
