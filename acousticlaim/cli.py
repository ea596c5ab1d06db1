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


@app.command("rescore-release")
def rescore_release_cmd(
    panel: Path = typer.Option(Path("../shared/data/panel_sample"),
                               help="folder of released run files <system>_<corpus>_seed<k>.json"),
    release: Path = typer.Option(Path("../shared/data/release"),
                                 help="folder holding the released references/ and manifests/"),
    corpus: list[str] = typer.Option(["librimix", "ami"], help="corpora to re-score (those with run files)"),
    out: Path = typer.Option(Path("reports/release"), help="folder for table2.md/.csv, cells.parquet, metrics.json"),
    params: Path = typer.Option(Path("params.yaml"), help="parameter file whose scores: group is read, if present"),
    pool: Optional[str] = typer.Option(None, help="override scores.pool: first | mean"),
) -> None:
    """Re-score the paper's released panel: import its generations and references, parse, produce Table 2."""
    from acousticlaim.params import load_params
    from acousticlaim.scoring.config import ScoringConfig
    from acousticlaim.scoring.release import PAPER_SYSTEM_ORDER, panel_files_in, rescore_release, write_release

    group = dict(load_params(params).get("scores") or {}) if params.exists() else {}
    group.setdefault("system_order", list(PAPER_SYSTEM_ORDER))
    if pool is not None:
        group["pool"] = pool
    config = ScoringConfig.from_params(group)
    files = panel_files_in(panel, corpus)
    result = rescore_release(files, release / "references", release / "manifests", config)
    for path in write_release(result, out):
        console.print(f"wrote {path}")
    metrics = result.results.metrics
    for name, counts in metrics["table2"].items():
        console.print(f"{name}: {counts['cells']} cells at n >= {config.n_min}, {counts['ranked']} ranked, "
                      f"{counts['constant']} constant, {counts['over_bar']} over {config.bar:g}, "
                      f"null expectation {counts['null_expectation']:.2f}")
    console.print(json.dumps(metrics["consistency"], indent=1))


def main(argv: Optional[list[str]] = None) -> None:
    app(args=argv)


if __name__ == "__main__":
    main()
