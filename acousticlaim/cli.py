"""The ``acousticlaim`` command line: thin commands over the library.

A command that meets bad input prints one line per problem on stderr (what is wrong, where, and
what to do) and exits with status 1; a usage mistake exits with 2. Tracebacks only with ``--debug``.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Optional

import click
import typer
from rich.console import Console
from typer.core import TyperGroup

console = Console()
DEFAULT_MANIFEST = Path("data/corpus/manifest.parquet")


def problem_lines(exc: BaseException) -> list[str]:
    """What went wrong, one line per problem, for a person at a terminal (no traceback)."""
    from acousticlaim.panel.importing import GenerationImportError

    if isinstance(exc, GenerationImportError):
        return [exc.errors[0] if len(exc.errors) == 1 else f"{exc.path}: {len(exc.errors)} problems, nothing imported",
                *(exc.errors if len(exc.errors) > 1 else [])]
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        return [f"{exc.filename}: {exc.strerror.lower()}"]
    if isinstance(exc, (ValueError, RuntimeError, OSError, LookupError)) and str(exc) and type(exc) not in (KeyError, IndexError):
        return [line for line in str(exc).splitlines() if line.strip()]
    return [f"unexpected {type(exc).__name__}: {' '.join(str(exc).split()) or '(no message)'}; this is a bug in "
            "acousticlaim: rerun with --debug for the traceback and report it"]


class _Commands(TyperGroup):
    """Runs a command and turns any exception into one line per problem (the traceback with --debug)."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (typer.Exit, click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except Exception as exc:  # noqa: BLE001 - the one place errors become messages
            if ctx.params.get("debug"):
                raise
            for line in problem_lines(exc):
                typer.echo(f"error: {line}", err=True)
            raise typer.Exit(code=1) from None


app = typer.Typer(cls=_Commands, add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False)


@app.callback()
def _options(debug: bool = typer.Option(False, "--debug", help="show the Python traceback of an error")) -> None:
    """AcoustiClaim: instruments, claims and scoring for what audio-language models say about a recording."""


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


def _reading_cell(reading: dict) -> str:
    if reading["defined"]:
        value = reading["value"]
        return f"{value:.4g}" if isinstance(value, float) else str(value)
    return f"undefined: {reading['reason']}"


@app.command()
def measure(
    files: list[Path] = typer.Argument(..., help="audio files (any format soundfile reads; resampled to 16 kHz mono)"),
    fmt: str = typer.Option("json", "--format", help="json | table"),
    srmr_normal: bool = typer.Option(False, "--srmr-normal", help="SRMR with the time-domain gammatone filterbank (slow) instead of fast mode"),
) -> None:
    """The ten instrument readings of each file, with loudness (LUFS) and the F0 contour summary."""
    from acousticlaim.instruments.measure import measure_file

    if fmt not in ("json", "table"):
        raise typer.BadParameter(f"--format {fmt!r}: use json or table")
    results = [measure_file(f, srmr_fast=not srmr_normal) for f in files]
    if fmt == "json":
        payload = [r.to_dict() for r in results]
        typer.echo(json.dumps(payload[0] if len(payload) == 1 else payload, indent=2, default=str))
    else:
        from rich.table import Table

        from acousticlaim.quantities import get

        for r in results:
            d = r.to_dict()
            table = Table("quantity", "value", "unit", title=f"{r.path} ({r.duration_s if r.duration_s is not None else '?'} s)")
            for key, reading in d["readings"].items():
                table.add_row(key + ("" if get(key).scored else " (unscored)"), _reading_cell(reading), reading["unit"])
            lufs = d["loudness"].get("integrated_lufs")
            if lufs is not None:
                table.add_row("loudness", _reading_cell(lufs), "LUFS")
            contour = d["f0_contour"]
            if "median_hz" in contour:
                table.add_row("F0 contour", f"median {contour['median_hz']} Hz, 10-90 % range {contour['range_st']} st, "
                              f"slope {contour['slope_st_per_s']} st/s, voiced {contour['voiced_fraction']:.0%}", "")
            console.print(table)
    failed = [r for r in results if r.error]
    for r in failed:
        typer.echo(f"error: {r.error}", err=True)
    if failed:
        raise typer.Exit(code=1)


@app.command()
def check(
    file: Path = typer.Argument(..., help="the audio file the text describes"),
    text: str = typer.Argument(..., help="a description with numeric claims, e.g. \"mean pitch about 180 Hz, jitter 1.2%\""),
    fmt: str = typer.Option("table", "--format", help="table | json"),
) -> None:
    """Parse the claims in TEXT, measure FILE, and print each claim beside the instrument's value and the error."""
    from acousticlaim.instruments.check import check_claims
    from acousticlaim.instruments.measure import measure_file

    if fmt not in ("json", "table"):
        raise typer.BadParameter(f"--format {fmt!r}: use json or table")
    try:
        from acousticlaim.claims.parser import parse
    except ImportError as exc:
        typer.echo(f"error: the claim parser (acousticlaim.claims.parser) is not available in this build: {exc}; rebuild it with maturin", err=True)
        raise typer.Exit(code=2)
    claims = parse(text)
    measurement = measure_file(file)
    checks = check_claims(measurement, claims, text)
    if fmt == "json":
        typer.echo(json.dumps({"file": str(file), "error": measurement.error or None, "claims": [c.to_dict() for c in checks]}, indent=2))
    else:
        from rich.table import Table

        if not checks:
            console.print("no numeric claims found in the text")
        table = Table("quantity", "stated", "measured", "unit", "error", "relative", "note", title=str(file))
        for c in checks:
            measured = "" if c.measured is None else (f"{c.measured.value:.4g}" if c.measured.defined else "undefined")
            err = "" if c.error != c.error else f"{c.error:+.4g}"
            rel = "" if c.relative_error != c.relative_error else f"{c.relative_error:+.1%}"
            table.add_row(c.quantity, f"{c.stated:.4g}", measured, c.unit, err, rel, c.note)
        console.print(table)
    if measurement.error:
        typer.echo(f"error: {measurement.error}", err=True)
        raise typer.Exit(code=1)


@app.command("import-generations")
def import_generations_cmd(
    file: Path = typer.Argument(..., help="generations made elsewhere: our JSONL, or the paper's released per-run JSON"),
    system: str = typer.Option(..., "--system", help="the panel name to file them under (data/generations/<system>.jsonl)"),
    out: Path = typer.Option(Path("data/generations"), help="the generations folder"),
    manifest: Optional[Path] = typer.Option(
        None, help="clips the generations may name: a corpus manifest.parquet (or its folder), a CSV with clip_id/"
        "mixture_ID/filename, or a text file of ids; default data/corpus/manifest.parquet when it exists"),
) -> None:
    """Validate every record of FILE and add the generations to the system's store (nothing is written if any is malformed)."""
    from acousticlaim.panel.importing import import_generations
    from acousticlaim.panel.systems import check_system_name

    check_system_name(system)
    if manifest is None and DEFAULT_MANIFEST.exists():
        manifest = DEFAULT_MANIFEST
    summary = import_generations(file, system, out, manifest=manifest)
    typer.echo(
        f"{summary.path} ({summary.format}): {summary.n_records} generations, {summary.n_written} written, "
        f"{summary.n_skipped} already present -> {summary.store}"
    )


@app.command("audit-parser")
def audit_parser_cmd(
    labels: Path = typer.Argument(..., help="JSON Lines of {text, gold: [{quantity, value, unit, span}], truncated?}; "
                                  "or a folder of generations (released run files, *.jsonl): list its unread labels"),
    show: int = typer.Option(0, "--show", help="also print up to this many mistakes (missed / false positive)"),
    top: int = typer.Option(30, "--top", help="unread labels to list"),
) -> None:
    """Precision and recall of the claim parser per quantity against hand-labelled texts; for a folder
    of generations, the labels that carry a number but name no quantity (counts, an example each)."""
    from acousticlaim.claims.audit import (LabelsError, audit, format_report, format_unread, load_labels,
                                           read_generation_texts, unread_labels)

    if labels.is_dir():
        texts = read_generation_texts(labels)
        print(f"{len(texts)} texts in {labels}; labels that carry a number the parser does not read:")
        print(format_unread(unread_labels(texts), top))
        return
    try:
        items = load_labels(labels)
    except LabelsError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2)
    report = audit(items)
    print(format_report(report))
    for m in report.mistakes[:show]:
        snippet = m.text.replace("\n", " ")[:300]
        print(f"- {m.id}: {m.kind} {m.quantity}={m.value:g} | {snippet}")


@app.command("rescore-release")
def rescore_release_cmd(
    panel: Path = typer.Option(Path("../shared/data/panel_sample"),
                               help="folder of released run files <system>_<corpus>_seed<k>.json"),
    release: Path = typer.Option(Path("../shared/data/release"),
                                 help="folder holding the released references/ and manifests/"),
    corpus: list[str] = typer.Option(["librimix", "ami"], help="corpora to re-score (those with run files)"),
    out: Path = typer.Option(Path("reports/release"),
                             help="folder for index.html (the report page), table2.md/.csv, cells.parquet, metrics.json"),
    params: Path = typer.Option(Path("params.yaml"), help="parameter file whose scores: group is read, if present"),
    pool: Optional[str] = typer.Option(None, help="override scores.pool: first | mean"),
) -> None:
    """Re-score the paper's released panel: import its generations and references, parse, produce Table 2 and its page."""
    from acousticlaim.params import load_params
    from acousticlaim.report.page import write_report
    from acousticlaim.report.tables import write_tables_markdown
    from acousticlaim.scoring.config import ScoringConfig
    from acousticlaim.scoring.release import PAPER_SYSTEM_ORDER, panel_files_in, rescore_release, write_release

    for option, folder in (("--panel", panel), ("--release", release)):
        if not folder.is_dir():
            raise FileNotFoundError(f"{option} {folder}: no such folder; give the folder with {option} PATH")
    group = dict(load_params(params).get("scores") or {}) if params.exists() else {}
    group.setdefault("system_order", list(PAPER_SYSTEM_ORDER))
    if pool is not None:
        group["pool"] = pool
    config = ScoringConfig.from_params(group)
    files = panel_files_in(panel, corpus)
    result = rescore_release(files, release / "references", release / "manifests", config)
    for path in write_release(result, out) + write_tables_markdown(result.results, out, table1=False):
        console.print(f"wrote {path}")
    page = write_report(result.results, out, title="AcoustiClaim: the released panel, re-scored", table1=False,
                        params={"scores": json.loads(json.dumps(dataclasses.asdict(config))), "panel": str(panel), "release": str(release),
                                "corpus": list(corpus)},
                        metrics={"consistency": result.consistency})
    console.print(f"wrote {out / 'index.html'} and {len(page) - 1} pictures and files beside it")
    metrics = result.results.metrics
    for name, counts in metrics["table2"].items():
        console.print(f"{name}: {counts['cells']} cells at n >= {config.n_min}, {counts['ranked']} ranked, "
                      f"{counts['constant']} constant, {counts['over_bar']} over {config.bar:g}, "
                      f"null expectation {counts['null_expectation']:.2f}")
    console.print(json.dumps(metrics["consistency"], indent=1))


@app.command("compare-references")
def compare_references_cmd(
    release_csv: Path = typer.Argument(..., help="a reference table in the released layout (e.g. references/ami_test.csv)"),
    ours: Path = typer.Option(Path("data/references"), help="our references.parquet, or the folder holding it"),
    corpus: str = typer.Option("ami", help="the released table's corpus: ami | librimix"),
    out: Path = typer.Option(Path("reports/reference_agreement"), help="folder for agreement.csv/.json and the scatter plot"),
) -> None:
    """Our references against a released table, clip by clip: Spearman ρ and median relative difference per quantity."""
    from rich.table import Table

    from acousticlaim.io import write_csv, write_json
    from acousticlaim.scoring.reference_agreement import compare_with_release, plot_agreement

    agreement = compare_with_release(ours, release_csv, corpus)
    clips = agreement.clips
    console.print(f"clips: {clips['ours']} ours, {clips['released']} released, {clips['common']} in both")
    table = Table("quantity", "n", "Spearman ρ", "median rel. diff", "median |rel. diff|")
    def number(value: float, fmt: str) -> str:
        return "–" if value != value else format(value, fmt)  # NaN: too few pairs

    for row in agreement.table.itertuples(index=False):
        table.add_row(row.quantity, str(row.n), number(row.spearman_rho, ".3f"), number(row.median_rel_diff, "+.3f"),
                      number(row.median_abs_rel_diff, ".3f"))
    console.print(table)
    write_csv(out / "agreement.csv", agreement.table)
    records = agreement.table.astype(object).where(agreement.table.notna(), None).to_dict(orient="records")
    write_json(out / "agreement.json", {"clips": clips, "release_csv": str(release_csv), "ours": str(ours),
                                        "quantities": records})
    console.print(f"wrote {out / 'agreement.csv'}, {out / 'agreement.json'}, {plot_agreement(agreement, out / 'agreement.png')}")


def main(argv: Optional[list[str]] = None) -> None:
    app(args=argv)


if __name__ == "__main__":
    main()
