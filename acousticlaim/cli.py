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


@app.command("import-generations")
def import_generations_cmd(
    file: Path = typer.Argument(..., help="generations made elsewhere: our JSONL, or the paper's released per-run JSON"),
    system: str = typer.Option(..., "--system", help="the panel name to file them under (data/generations/<system>.jsonl)"),
    out: Path = typer.Option(Path("data/generations"), help="the generations folder"),
) -> None:
    """Validate every record of FILE and add the generations to the system's store (nothing is written if any is malformed)."""
    from acousticlaim.panel.importing import GenerationImportError, import_generations
    from acousticlaim.panel.systems import check_system_name

    try:
        check_system_name(system)
        summary = import_generations(file, system, out)
    except (GenerationImportError, ValueError) as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(code=1)
    typer.echo(
        f"{summary.path} ({summary.format}): {summary.n_records} generations, {summary.n_written} written, "
        f"{summary.n_skipped} already present -> {summary.store}"
    )


def main(argv: Optional[list[str]] = None) -> None:
    app(args=argv)


if __name__ == "__main__":
    main()
