"""A replay is (game, seats, options, seed, actions); playing it back reproduces the game exactly."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from arena.games import JSON, Action, State, get_game


@dataclass(frozen=True)
class Replay:
    game: str
    seats: int
    seed: int
    options: Mapping[str, JSON] = field(default_factory=dict)
    actions: tuple[tuple[int, Action], ...] = ()
    """Every (seat, action) in the order applied."""

    def to_json(self) -> dict[str, JSON]:
        return {
            "game": self.game,
            "seats": self.seats,
            "seed": self.seed,
            "options": dict(self.options),
            "actions": [[seat, action] for seat, action in self.actions],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> Replay:
        return cls(
            game=data["game"],
            seats=data["seats"],
            seed=data["seed"],
            options=dict(data.get("options", {})),
            actions=tuple((int(seat), action) for seat, action in data["actions"]),
        )

    def new_state(self) -> State:
        return get_game(self.game).new(self.seed, self.seats, self.options)

    def play(self) -> State:
        """The state after every action; raises IllegalActionError if one does not apply."""
        state = self.new_state()
        for seat, action in self.actions:
            state.apply(seat, action)
        return state

    def states(self) -> list[State]:
        """The state before the first action and after each one (for viewers)."""
        state = self.new_state()
        out = [state.clone()]
        for seat, action in self.actions:
            state.apply(seat, action)
            out.append(state.clone())
        return out
