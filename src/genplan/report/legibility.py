"""Whether a figure reads as a person would see it: its size in pixels against a screen, and
the texts (tick labels, titles, annotations, cell texts) that cover one another once drawn, by their
window extents. Used by tests/test_report_figures.py and perf/report_check.py."""

from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.transforms import Bbox

SCREEN = (1920, 1080)  # pixels: a figure may be as wide as one screen and as tall as two
MAX_SIZE = (SCREEN[0] + 80, 2 * SCREEN[1] - 160)  # 2000 x 2000


def pixels(fig: Figure, dpi: float | None = None) -> tuple[int, int]:
    """The figure's width and height in pixels when saved at `dpi` (default: its own)."""
    width, height = fig.get_size_inches() * (dpi or fig.dpi)
    return round(width), round(height)


def png_pixels(path: Path) -> tuple[int, int]:
    """A PNG's width and height, read from its header."""
    head = Path(path).read_bytes()[:24]
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG file")
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def drawn_texts(fig: Figure) -> list[tuple[str, Bbox]]:
    """Every non-empty text the figure draws (its own, tick labels, titles, annotations, cell
    texts; not the tick labels a scale keeps outside its view) with its box in pixels: the texts
    are those the renderer is asked to draw."""
    renderer = fig.canvas.get_renderer()
    drawn: list[Text] = []
    draw_text = renderer.draw_text

    def record(gc, x, y, s, prop, angle, ismath=False, mtext=None):
        if mtext is not None and s.strip():
            drawn.append(mtext)
        return draw_text(gc, x, y, s, prop, angle, ismath=ismath, mtext=mtext)

    renderer.draw_text = record
    try:
        fig.draw(renderer)
    finally:
        del renderer.draw_text
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in dict.fromkeys(drawn)]
    return [(text, box) for text, box in boxes if box.width > 0 and box.height > 0]


def cut_off(fig: Figure, pad: float = 0.5) -> list[str]:
    """The texts that reach past the figure's edges (cut off in the saved picture)."""
    return [text for text, box in drawn_texts(fig) if not fig.bbox.padded(pad).contains(box.x0, box.y0)
            or not fig.bbox.padded(pad).contains(box.x1, box.y1)]


def overlaps(fig: Figure, pad: float = 0.5) -> list[tuple[str, str]]:
    """Pairs of texts whose drawn boxes (shrunk by `pad` pixels each side) intersect."""
    boxes = [(text, box.padded(-pad)) for text, box in drawn_texts(fig)]
    hits = []
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1:]:
            if box_a.overlaps(box_b):
                hits.append((a, b))
    return hits
