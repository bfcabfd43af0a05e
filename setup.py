"""Build hook: compile the rules of the games, the match loop and a few other hot modules to C with
mypyc (arena/native.py lists them; everything else stays pure Python), and build the optional C
modules (:data:`C_MODULES`, :data:`BOT_MODULES`).

The data hook: everything the arena reads at run time (the site's templates, the bundled bots, the
rules documents, the protocol's documents and JSON Schemas) lives in top-level folders of the
repository, which stay the source of truth. A wheel holds packages only, so ``build_py`` copies
those folders into the built package as ``arena/_data/<folder>``; arena/resources.py finds the
packaged copy, or the repository's folder when running from a checkout or an editable install
(which gets no copy: it reads the repository's folders themselves, so edits show at once).

The compiled modules are the same source files, type-checked and translated by mypyc; the pure
Python files remain the reference and are used whenever the compiled ones are missing, stale or
turned off (``ARENA_PURE_PYTHON=1``, at build time or at run time). After the build a manifest,
``arena/_compiled.json``, records a digest of each compiled source, so that arena/native.py can tell
when a source was edited after the build (then it imports the pure sources instead). Which modules
are compiled is arena/native.py's list, read from that file alone (the build does not import the
package).

Why mypyc: the issue's target of 3,000 Take 5 games per second through the public interface is
out of reach of CPython's interpreter here (about 0.4-0.5 of a bare loop of the same rules);
compiled, the interface runs at about the bare loop's speed (benchmarks/bench_take5.py). The
match loop (arena.match, arena.runtime.botproc and wire) is compiled for the same reason: the
arena's own CPU per decision with process bots (benchmarks/REPORT-loop.md, issue 15).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import sysconfig
from pathlib import Path
from types import ModuleType

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


def load_native() -> ModuleType:
    """arena/native.py run as a module of its own (it imports only the standard library)."""
    spec = importlib.util.spec_from_file_location("_arena_native", HERE / "arena" / "native.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


NATIVE = load_native()
COMPILED = [NATIVE.source_of(module, Path("arena")).as_posix() for module in NATIVE.NATIVE_MODULES]
"""The sources mypyc compiles: arena.native.NATIVE_MODULES, as paths (arena/games/base.py, ...)."""

DATA_FOLDERS = ("templates", "bots", "seeds", "protocol")
"""Kept in step with arena.resources.FOLDERS (a test checks): copied into arena/_data."""
DATA_IGNORE = shutil.ignore_patterns("__pycache__", "*.py[cod]", "*.so", ".*")

BOT_MODULES = {"_playout": Path("bots/reference/take5/playout.c")}
"""C modules of the bundled bots (name: source), each built into its bot's own folder for the
interpreter being built for (the arena runs bots with it): the reference bot's Take 5 playouts.
The source's SHA-256 is compiled in (``PLAYOUT_DIGEST``), so the bot can tell a module built from
another version of its source and use its pure-Python loop instead (as it does when none was
built: no compiler, or ``ARENA_PURE_PYTHON=1``)."""


C_MODULES = {"arena.runtime._gather": "arena/runtime/gather.c"}
"""The arena's hand-written C modules (name: source), each optional, with a pure-Python path
used when it is missing: botproc's wait for the bots' replies (issue 15)."""


class BuildWithManifest(build_ext):
    """build_ext, then arena/_compiled.json beside the built modules if every one of them built."""

    def run(self) -> None:
        super().run()
        self.build_bot_modules()
        mypyc = [ext for ext in self.extensions if ext.name not in C_MODULES]
        outputs = [Path(self.get_ext_fullpath(ext.name)) for ext in mypyc]
        if not outputs or not all(path.exists() for path in outputs):
            return
        package = Path(self.get_ext_fullpath("arena.games.base")).parent.parent
        manifest = {
            module: NATIVE.digest(NATIVE.source_of(module, HERE / "arena"))
            for module in NATIVE.NATIVE_MODULES
        }
        (package / NATIVE.MANIFEST.name).write_text(json.dumps(manifest, indent=1) + "\n")

    def build_bot_modules(self) -> None:
        """:data:`BOT_MODULES`, into the bot's folder: the repository's for an editable install
        (beside the source, tagged with this interpreter's ABI), the package's copy
        (``arena/_data/bots/...``, made by :class:`BuildWithData` first) for a wheel. Optional:
        a module that fails to build leaves the bot on its pure-Python code."""
        from setuptools.errors import CompileError, LinkError

        if self.compiler is None or isinstance(self.compiler, str):
            return  # nothing was compiled (ARENA_PURE_PYTHON=1): no compiler was set up
        editable = self.inplace or getattr(self, "editable_mode", False)
        base = HERE if editable else Path(self.build_lib) / "arena" / "_data"
        for name, source in BOT_MODULES.items():
            digest = hashlib.sha256((HERE / source).read_bytes()).hexdigest()
            target = base / source.parent / (name + sysconfig.get_config_var("EXT_SUFFIX"))
            try:
                objects = self.compiler.compile(
                    [str(HERE / source)],
                    output_dir=self.build_temp,
                    macros=[("PLAYOUT_DIGEST", f'"{digest}"')],
                    include_dirs=self.include_dirs,
                    extra_postargs=["-O2", "-ffp-contract=off"],
                )
                target.parent.mkdir(parents=True, exist_ok=True)
                self.compiler.link_shared_object(
                    objects,
                    str(target),
                    library_dirs=self.library_dirs,
                    export_symbols=[f"PyInit_{name}"],
                    build_temp=self.build_temp,
                    target_lang="c",
                )
            except (CompileError, LinkError) as error:
                print(f"warning: {source} not built ({error}): the bot plays its Python loop")


class BuildWithData(build_py):
    """build_py, then the run-time data folders copied into the built package (arena/_data).

    Skipped for an editable install: the package stays in the repository, beside the folders.
    """

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "arena" / "_data"
        for name in DATA_FOLDERS:
            destination = target / name
            if destination.exists():
                shutil.rmtree(destination)
            shutil.copytree(HERE / name, destination, ignore=DATA_IGNORE)


def native_extensions() -> list:  # type: ignore[type-arg]
    if os.environ.get(NATIVE.PURE_ENV):
        return []
    from mypyc.build import mypycify

    extensions = mypycify(COMPILED, group_name=NATIVE.GROUP, opt_level="3")
    extensions += [
        Extension(name, [source], extra_compile_args=["-O2"]) for name, source in C_MODULES.items()
    ]
    for extension in extensions:
        extension.optional = True  # no C compiler: install the pure-Python modules, still usable
    return extensions


setup(
    ext_modules=native_extensions(),
    cmdclass={"build_ext": BuildWithManifest, "build_py": BuildWithData},
)
