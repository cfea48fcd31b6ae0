"""Formatting report cells and grids as Markdown and LaTeX (no numbers are computed here)."""

from __future__ import annotations


def num(value, digits: int = 2) -> str:
    if value is None or value == "":
        return "–"
    if isinstance(value, float) and digits == 0:
        return f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:.{digits}f}"


def mean_std(mean, std, digits: int = 2) -> str:
    if mean is None:
        return "–"
    return num(mean, digits) if std is None else f"{num(mean, digits)}±{num(std, digits)}"


def md(headers: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _tex_escape(text: str) -> str:
    return (str(text).replace("\\", "\\textbackslash{}").replace("&", "\\&").replace("%", "\\%")
            .replace("_", "\\_").replace("#", "\\#").replace("±", "$\\pm$").replace("–", "--")
            .replace("†", "$^\\dagger$"))


def tex(headers: list[str], rows: list[list[str]], caption: str) -> str:
    cols = "l" * len(headers)
    out = ["\\begin{table}[t]", "\\centering", "\\small", f"\\caption{{{_tex_escape(caption)}}}",
           f"\\begin{{tabular}}{{{cols}}}", "\\hline",
           " & ".join(_tex_escape(h) for h in headers) + " \\\\", "\\hline"]
    out += [" & ".join(_tex_escape(c) for c in row) + " \\\\" for row in rows]
    out += ["\\hline", "\\end{tabular}", "\\end{table}"]
    return "\n".join(out) + "\n"
