"""The ``acousticlaim`` command line: thin commands over the library."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

app = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__)
console = Console()


@app.command()
def version() -> None:
    """Print the package and parser versions."""
    from acousticlaim import __version__
    from acousticlaim._parser import parser_version

    console.print(json.dumps({"acousticlaim": __version__, "parser": parser_version()}))


@app.command()
def quantities() -> None:
    """List the 13 quantities, their units, whether they are scored, and their tiers."""
    from rich.table import Table

    from acousticlaim.quantities import QUANTITIES, Corpus

    table = Table("key", "quantity", "unit", "scored", *[c.value for c in Corpus])
    for q in QUANTITIES.values():
        tiers = [(q.tier(c).value if q.tier(c) else "—") for c in Corpus]
        table.add_row(q.key, q.name, q.unit, "yes" if q.scored else "no", *tiers)
    console.print(table)


@app.command("build-corpus")
def build_corpus_cmd(
    out: Path = typer.Option(Path("data/corpus"), help="output folder (audio, stems, manifest.parquet)"),
    params: Path = typer.Option(Path("params.yaml"), help="parameter file; its corpus: and executor: groups are read"),
) -> None:
    """Build the corpus configured in params.yaml (the `corpus` DVC stage runs the same function)."""
    from acousticlaim.corpus.build import build_corpus
    from acousticlaim.params import load_params

    p = load_params(params)
    result = build_corpus(p["corpus"], out, executor=p.get("executor"))
    console.print(f"{result.n_clips} clips, {result.n_failures} failures → {out}")


@app.command("audit-parser")
def audit_parser_cmd(
    labels: Path = typer.Argument(..., help="JSON Lines of {text, gold: [{quantity, value, unit, span}], truncated?}"),
    show: int = typer.Option(0, "--show", help="also print up to this many mistakes (missed / false positive)"),
) -> None:
    """Precision and recall of the claim parser per quantity against hand-labelled texts."""
    from acousticlaim.claims.audit import LabelsError, audit, format_report, load_labels

    try:
        items = load_labels(labels)
    except LabelsError as e:
        console.print(f"[red]{e}[/red]")
        raise typer.Exit(2)
    report = audit(items)
    print(format_report(report))
    for m in report.mistakes[:show]:
        snippet = m.text.replace("\n", " ")[:300]
        print(f"- {m.id}: {m.kind} {m.quantity}={m.value:g} | {snippet}")


def main(argv: Optional[list[str]] = None) -> None:
    app(args=argv)


if __name__ == "__main__":
    main()
