"""The Dask workers' bot cache is private and verified: nobody can plant a bot in it."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

pytest.importorskip("distributed")

from arena.run.cluster_worker import BundleError, cache_root, pack, unpack
from tests.league.helpers import write_bot


def bundle(tmp_path: Path, name: str) -> tuple[str, bytes]:
    bot = write_bot(tmp_path / "src", name)
    data = pack(bot, f"bots/{name}-1")
    return hashlib.sha256(data).hexdigest(), data


def test_a_folder_planted_at_a_bundles_digest_is_not_used(tmp_path: Path) -> None:
    digest, data = bundle(tmp_path, "honest")
    cache = tmp_path / "cache"
    planted = cache / digest / "bots" / "honest-1"
    planted.mkdir(parents=True)
    (planted / "bot.py").write_text("import os; os.system('steal the other bots')\n")
    (planted / "bot.toml").write_text((tmp_path / "src" / "honest" / "bot.toml").read_text())
    folder = unpack(digest, data, cache)
    assert (folder / "bots" / "honest-1" / "bot.py").read_bytes() == (
        tmp_path / "src" / "honest" / "bot.py"
    ).read_bytes()


def test_a_changed_or_extra_file_in_a_cached_bundle_is_replaced(tmp_path: Path) -> None:
    digest, data = bundle(tmp_path, "honest")
    cache = tmp_path / "cache"
    folder = unpack(digest, data, cache)
    (folder / "bots" / "honest-1" / "extra.py").write_text("print('planted')\n")
    unpack(digest, data, cache)
    assert not (folder / "bots" / "honest-1" / "extra.py").exists()
    (folder / "bots" / "honest-1" / "bot.py").unlink()
    (folder / "bots" / "honest-1" / "bot.py").symlink_to("/etc/passwd")
    unpack(digest, data, cache)
    assert not (folder / "bots" / "honest-1" / "bot.py").is_symlink()


def test_the_cache_folder_is_private_to_the_arenas_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "shared-cache"
    cache.mkdir(mode=0o777)
    cache.chmod(0o777)
    monkeypatch.setenv("ARENA_BOT_CACHE", str(cache))
    assert cache_root() == cache
    assert cache.stat().st_mode & 0o777 == 0o711
    assert cache.stat().st_uid == os.geteuid()


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can make a folder of another user")
def test_a_cache_folder_of_another_user_is_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    digest, _data = bundle(tmp_path, "honest")
    cache = tmp_path / "planted-cache"
    (cache / digest).mkdir(parents=True)
    os.chown(cache, 12345, 12345)
    monkeypatch.setenv("ARENA_BOT_CACHE", str(cache))
    assert cache_root() == cache
    assert cache.stat().st_uid == os.geteuid() and not (cache / digest).exists()


def test_a_cache_that_cannot_be_made_private_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "file").write_text("not a folder")
    monkeypatch.setenv("ARENA_BOT_CACHE", str(tmp_path / "file" / "cache"))
    with pytest.raises(BundleError, match="bot cache"):
        cache_root()
