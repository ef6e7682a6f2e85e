"""Pictures of the analytics a reader can check by eye: a trend plot and a pyvis ego view, the
view rendered in headless Chromium with every request off the machine blocked (it must need none).

Usage:
    python scripts/screenshots.py --trends OUT_WITH_YEARS --pyvis OUT [--entity NAME] -o DIR

Writes DIR/trends.png (``kg analytics trends``: the Methods that rose most since 2020) and
DIR/pyvis.png (``kg view --renderer pyvis --entity NAME --hops 2``, screenshot after the layout has
settled).  Needs Playwright and a Chromium at /usr/bin/chromium (``make test`` installs both).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import kg

CHROMIUM = "/usr/bin/chromium"


def trends(out: Path, target: Path) -> None:
    kg.api.analyse(out, "trends", target, type="Method", since=2020, top=6)


def pyvis(out: Path, entity: str, target: Path) -> list[str]:
    """Screenshot of the pyvis page; returns the URLs it asked for off the machine (blocked)."""
    from playwright.sync_api import sync_playwright

    page_file = Path(tempfile.mkdtemp()) / "pyvis.html"
    kg.api.view(out, page_file, renderer="pyvis", entity=entity, hops=2)
    elsewhere: list[str] = []

    def only_local(route) -> None:
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            elsewhere.append(route.request.url)
            route.abort()

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1100, "height": 800})
        page.route("**/*", only_local)
        page.goto(page_file.as_uri())
        page.wait_for_timeout(4000)  # vis-network's physics settles the layout
        page.screenshot(path=str(target))
        browser.close()
    return elsewhere


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trends", type=Path, required=True, help="a built graph with papers from several years")
    parser.add_argument("--pyvis", type=Path, required=True, help="a built graph (e.g. the seeds)")
    parser.add_argument("--entity", default="Equilibrium Propagation")
    parser.add_argument("-o", "--output", type=Path, default=Path("screenshots"))
    args = parser.parse_args()
    args.output.mkdir(parents=True, exist_ok=True)
    trends(args.trends, args.output / "trends.png")
    blocked = pyvis(args.pyvis, args.entity, args.output / "pyvis.png")
    print(f"wrote {args.output / 'trends.png'} and {args.output / 'pyvis.png'}; requests off the machine: {blocked or 'none'}")


if __name__ == "__main__":
    main()
