"""The results as a person would see them: every committed figure's size against a screen,
the leaderboard's figures' texts (none covering another, none cut off), then the HTML report built
by the README's command from the committed results (its time and size), opened in a real headless
browser (Debian's Chromium): the page it shows first must be the summary, and screenshots of it,
of the whole summary and of the leaderboard figure are written. Without Chromium the browser part
is skipped with a message; the rest still runs (tests/test_report_figures.py checks the figures
without a browser, in CI).

    python perf/report_check.py --out /tmp/genplan-report     # screenshots and report.html there

Exit 0 when every check passes (or only the browser is missing), 1 otherwise."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import matplotlib.pyplot as plt

from genplan.report import leaderboard_figure, legibility

REPO = Path(__file__).resolve().parents[1]
BROWSERS = ("chromium", "chromium-browser", "google-chrome")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# in the page the browser rendered (the report's script holds them too, but with its quotes escaped)
RENDERED = ('<h1 class="title">genplan: results at a glance</h1>', '<div id="genplan-summary-figure">')


def check_figures(results: Path) -> list[str]:
    """Problems with the committed figures: too big for two screens, texts covering or cut."""
    problems = []
    for png in sorted((results / "figures").glob("*.png")):
        size = legibility.png_pixels(png)
        print(f"{png.relative_to(REPO) if png.is_relative_to(REPO) else png}: {size[0]} x {size[1]} px")
        if any(n > m for n, m in zip(size, legibility.MAX_SIZE)):
            problems.append(f"{png}: {size[0]} x {size[1]} px, more than {legibility.MAX_SIZE}")
    rows = leaderboard_figure.read_rows(results / "tables" / "leaderboard.csv")
    for name, fig in leaderboard_figure.figures(rows).items():
        covered, cut = legibility.overlaps(fig), legibility.cut_off(fig)
        print(f"{name}: {len(legibility.drawn_texts(fig))} texts, {len(covered)} overlapping pairs, {len(cut)} cut off")
        problems += [f"{name}: {a!r} covers {b!r}" for a, b in covered] + [f"{name}: {t!r} cut off" for t in cut]
    plt.close("all")
    return problems


def build_report(config: str, html: Path) -> None:
    """The README's command: `snakemake --configfile CONFIG --report HTML`; prints its time and size."""
    snakemake = Path(sys.executable).with_name("snakemake")
    command = [str(snakemake) if snakemake.exists() else "snakemake", "--configfile", config, "--report", str(html)]
    start = time.perf_counter()
    res = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{res.stderr[-3000:]}")
    print(f"report: {html}, {html.stat().st_size / 1e6:.2f} MB, built in {time.perf_counter() - start:.1f} s "
          f"({' '.join(command[1:])})")


def _browser(browser: str, url: str, *args: str) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory(prefix="genplan-chromium-") as profile:
        return subprocess.run([browser, *FLAGS, f"--user-data-dir={profile}", *args, url],
                              capture_output=True, text=True, timeout=180, check=False)


def screenshot(browser: str, url: str, png: Path, window: str) -> list[str]:
    res = _browser(browser, url, f"--screenshot={png}", f"--window-size={window}")
    if not png.is_file():
        return [f"{browser} wrote no screenshot of {url}: {res.stderr[-1000:]}"]
    width, height = legibility.png_pixels(png)
    print(f"screenshot: {png} ({width} x {height} px, {png.stat().st_size / 1e3:.0f} KB)")
    return []


def check_browser(html: Path, figure: Path, out: Path, window: str) -> list[str]:
    """The report in a real browser: the DOM after its scripts ran opens on the summary; screenshots."""
    browser = next((b for b in BROWSERS if shutil.which(b)), None)
    if browser is None:
        print(f"no browser found ({', '.join(BROWSERS)}; Debian: apt-get install chromium): screenshots skipped")
        return []
    url = html.resolve().as_uri()
    dom = _browser(browser, url, "--dump-dom").stdout
    problems = [f"{html}: the page the browser renders first has no {part!r}" for part in RENDERED if part not in dom]
    print(f"{browser}: the first page rendered {'is' if not problems else 'is NOT'} the summary, with its figure")
    width = window.split(",")[0]
    problems += screenshot(browser, url, out / "report-summary.png", window)
    problems += screenshot(browser, url, out / "report-summary-full.png", f"{width},2600")
    problems += screenshot(browser, figure.resolve().as_uri(), out / "leaderboard-in-browser.png", window)
    return problems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", type=Path, default=REPO / "results", help="the results root (default: results)")
    ap.add_argument("--config", default="workflow/configs/paper-cpu.yaml",
                    help="the configuration whose results root it is (default: paper-cpu, the committed results)")
    ap.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "genplan-report",
                    help="where report.html and the screenshots go (default: $TMPDIR/genplan-report)")
    ap.add_argument("--window", default="1400,1000", help="the browser window, WIDTH,HEIGHT (default: 1400,1000)")
    args = ap.parse_args(argv)
    if not (args.results / "tables" / "leaderboard.csv").is_file():
        ap.error(f"--results {args.results}: no tables/leaderboard.csv there")
    args.out.mkdir(parents=True, exist_ok=True)
    problems = check_figures(args.results)
    html = args.out / "report.html"
    build_report(args.config, html)
    problems += check_browser(html, args.results / "figures" / "leaderboard.png", args.out, args.window)
    for p in problems:
        print(f"PROBLEM: {p}")
    print("all checks passed" if not problems else f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
