"""Bundles the explorer's renderer from npm while building, so the wheel carries it (no Node where it installs)."""

import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

JS = Path(__file__).resolve().parent / "kg" / "viz" / "js"
BUNDLE = JS.parent / "static" / "vendor.js"
SOURCES = ("package.json", "package-lock.json", "build.mjs", "entry.js")


class BuildPyWithBundle(build_py):
    """build_py that first builds kg/viz/static/vendor.js (as `make` does) when it is missing or stale."""

    def run(self) -> None:
        stale = not BUNDLE.is_file() or any((JS / s).stat().st_mtime > BUNDLE.stat().st_mtime for s in SOURCES)
        if stale:
            npm = shutil.which("npm")
            if npm is None:
                raise SystemExit(
                    "paperkg: building needs Node.js and npm to bundle the explorer's renderer (kg/viz/js, "
                    "sigma.js + graphology); install them and retry, or install a built paperkg wheel"
                )
            subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=JS, check=True)
            subprocess.run([npm, "run", "--silent", "build"], cwd=JS, check=True)
        super().run()


setup(cmdclass={"build_py": BuildPyWithBundle})
