"""Taking an upload: read the body within the limit, unpack it safely into a staging folder,
check who may submit that bot, and rename it into place for the runner to validate.

The order makes a killed server leave an upload complete or absent: everything is written in
``uploads/.staging-<name>/`` (removed at the next start), then renamed to ``uploads/<name>/``
with its ``upload.json`` inside, then recorded in the queue (an upload renamed but not recorded
is recorded at the next start, :func:`arena.server.jobs.adopt`).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass
from pathlib import Path

from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request

from arena.league.core import League, LeagueError, bot_files, content_hash
from arena.runtime.manifest import BotError, load_bot, valid_name
from arena.runtime.scratch import remove_tree
from arena.server import archive, jobs
from arena.server.accounts import AccountError, Accounts, User

FORM_OVERHEAD = 64 * 1024
"""Bytes a multipart form may add to the archive (boundaries, headers, the CSRF field)."""


class UploadError(Exception):
    """An upload refused: ``status`` is the HTTP status, the message is safe to show."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, refused (413) past ``limit`` bytes: by its Content-Length before
    reading, and by counting while reading (a body without a length, or a lying one)."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise UploadError(400, "bad Content-Length")
        if int(declared) > limit:
            raise UploadError(413, f"the upload is larger than the limit of {limit} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise UploadError(413, f"the upload is larger than the limit of {limit} bytes")
    return bytes(body)


async def _once(data: bytes) -> AsyncGenerator[bytes, None]:
    yield data
    yield b""


async def archive_of(request: Request, limit: int) -> tuple[bytes, dict[str, str]]:
    """The uploaded archive and the other form fields: a multipart form's ``file`` field, or
    the raw body (``application/gzip``, ``application/zip``, ``application/octet-stream``)."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind == "multipart/form-data":
        body = await read_body(request, limit + FORM_OVERHEAD)
        parser = MultiPartParser(
            request.headers, _once(body), max_files=1, max_fields=10, max_part_size=64 * 1024
        )
        try:
            form = await parser.parse()
        except MultiPartException as exc:
            raise UploadError(400, f"a malformed form: {exc.message}") from None
        upload = form.get("file")
        if not isinstance(upload, UploadFile):
            raise UploadError(400, "the form has no file field named 'file'")
        data = await upload.read()
        await form.close()
        if len(data) > limit:
            raise UploadError(413, f"the upload is larger than the limit of {limit} bytes")
        fields = {k: v for k, v in form.items() if isinstance(v, str)}
        return data, fields
    if kind in (
        "application/gzip",
        "application/x-gzip",
        "application/zip",
        "application/octet-stream",
        "application/x-tar",
        "",
    ):
        return await read_body(request, limit), {}
    raise UploadError(415, "send the archive as multipart/form-data (field 'file') or as the body")


@dataclass(frozen=True)
class Staged:
    validation: int
    bot: str


def stage(
    folder: Path,
    data: bytes,
    user: User,
    accounts: Accounts,
    queue: jobs.Jobs,
    league: League,
    limits: archive.Limits,
) -> Staged:
    """Unpack, check ownership and newness, rename into place and queue the validation."""
    if not data:
        raise UploadError(400, "the upload is empty")
    name = jobs.new_upload_name()
    staging = jobs.staging_path(folder, name)
    staging.mkdir(mode=0o700)
    try:
        try:
            bot_folder = archive.unpack(data, staging / "bot", limits)
        except archive.ArchiveError as exc:
            raise UploadError(400, str(exc)) from None
        bot = bot_name(bot_folder)
        may_submit(bot, user, accounts, league)
        refuse_known(bot, bot_folder, league)
        jobs.write_meta(staging, user.name, bot, bot_folder)
        jobs.commit_upload(folder, staging, name)
    except BaseException:
        remove_tree(staging)
        raise
    return Staged(jobs.record_upload(queue, folder, name), bot)


def bot_name(bot_folder: Path) -> str:
    """The bot's name from its ``bot.toml`` (paths of the server left out of messages)."""
    try:
        spec = load_bot(str(bot_folder))
    except BotError as exc:
        text = str(exc).replace(str(bot_folder), "your bot")
        raise UploadError(400, f"not a bot folder: {text}") from None
    if spec.directory is None or not (bot_folder / "bot.toml").is_file():
        raise UploadError(400, "the archive holds no bot.toml at its top (or in its one folder)")
    if not valid_name(spec.name):
        raise UploadError(400, f"bad bot name {spec.name!r}: 1-64 letters, digits, _ . + -")
    return spec.name


def may_submit(bot: str, user: User, accounts: Accounts, league: League) -> None:
    """Refuse (403) a bot of another author; claim a new name for ``user``."""
    owner = accounts.owner_of(bot)
    if owner is None:
        others = {e.author for e in league.entrants() if e.name == bot} - {user.name}
        if others and not user.admin:
            raise UploadError(403, f"the name {bot!r} belongs to another author's bot")
        try:
            accounts.claim(bot, user)
        except AccountError as exc:
            raise UploadError(403, str(exc)) from None
    elif not accounts.may_change(bot, user):
        raise UploadError(403, f"{bot!r} is another author's bot: you may not replace it")


def refuse_known(bot: str, bot_folder: Path, league: League) -> None:
    """Refuse (409) a version already in the league (same files)."""
    try:
        version = content_hash({rel: f.data for rel, f in bot_files(bot_folder).items()})
    except LeagueError as exc:
        raise UploadError(400, str(exc).replace(str(bot_folder), "your bot")) from None
    for e in league.entrants():
        if e.name == bot and e.version == version:
            raise UploadError(409, f"this version of {bot} is already entered (entrant {e.id})")
