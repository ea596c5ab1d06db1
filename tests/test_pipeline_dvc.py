"""End to end: `dvc repro` on a tiny configuration, reruns, and sharing through a DVC remote."""

import subprocess
from pathlib import Path

import pandas as pd
import pytest
import yaml

from tests.pipeline_fixtures import project_copy, run



ROOT = Path(__file__).resolve().parents[1]


def test_every_declared_output_is_cached_or_committed():
    """An output with ``cache: false`` reaches a teammate only through git: it must not be gitignored."""
    stages = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]
    uncached = []
    for stage in stages.values():
        stage = stage.get("do", stage)
        for section in ("outs", "metrics", "plots"):
            for entry in stage.get(section, []):
                if isinstance(entry, dict):
                    (path, opts), = entry.items()
                    if opts and opts.get("cache") is False:
                        uncached.append(path.replace("${item}", "x"))
    ignored = [p for p in uncached
               if subprocess.run(["git", "check-ignore", "-q", p], cwd=ROOT).returncode == 0]
    assert not ignored, f"declared cache: false but gitignored (no teammate gets them): {', '.join(ignored)}"


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return project_copy(tmp_path_factory.mktemp("project"))


@pytest.mark.slow
def test_repro_builds_then_does_nothing_then_reruns_on_a_corpus_param(repo):
    run(["dvc", "repro"], repo)
    manifest = pd.read_parquet(repo / "data/corpus/manifest.parquet")
    assert len(manifest) == 2 * (6 + 4)
    check_the_report_page_shows_this_run(repo)
    second = run(["dvc", "repro"], repo)
    assert "Running stage" not in second.stdout
    assert "up to date" in second.stdout
    status = run(["dvc", "status"], repo)
    assert "up to date" in status.stdout

    text = (repo / "params.yaml").read_text().replace("seed: 0", "seed: 1", 1)
    (repo / "params.yaml").write_text(text)
    third = run(["dvc", "repro"], repo)
    assert "Running stage 'corpus'" in third.stdout


def _declared_outputs(repo) -> list[str]:
    """Every output, metric and plot file the pipeline of ``repo`` declares (foreach stages expanded)."""
    from dvc.repo import Repo

    with Repo(str(repo)) as dvc_repo:
        return sorted({str(out.def_path) for out in dvc_repo.index.outs})


@pytest.mark.slow
def test_a_teammates_pull_is_complete(repo, tmp_path):
    """As a new user: repro, push to a local remote, commit; a fresh clone and `dvc pull` then hold every
    declared output, metric and plot file, and `dvc status` there has nothing to rerun."""
    run(["dvc", "repro"], repo)
    run(["dvc", "remote", "add", "-d", "-f", "storage", str(tmp_path / "remote")], repo)
    run(["git", "add", "-A"], repo)
    run(["git", "commit", "-qm", "pipeline run"], repo)
    run(["dvc", "push"], repo)

    clone = tmp_path / "clone"
    run(["git", "clone", "-q", str(repo), str(clone)], tmp_path)
    assert not (clone / "data/corpus").exists() and not (clone / "metrics").exists()
    run(["dvc", "pull"], clone)
    status = run(["dvc", "status"], clone)
    assert "Data and pipelines are up to date" in status.stdout, status.stdout
    declared = _declared_outputs(clone)
    assert any(p.startswith("metrics/") for p in declared) and any(p.startswith("plots/") for p in declared)
    for rel in declared:
        assert (clone / rel).exists(), f"{rel} did not reach the clone"
    for folder in ("metrics", "plots", "reports"):
        here = sorted(p.relative_to(repo).as_posix() for p in (repo / folder).rglob("*") if p.is_file())
        there = sorted(p.relative_to(clone).as_posix() for p in (clone / folder).rglob("*") if p.is_file())
        assert here == there, f"{folder}/ differs after the pull"
    a = pd.read_parquet(repo / "data/corpus/manifest.parquet")
    b = pd.read_parquet(clone / "data/corpus/manifest.parquet")
    pd.testing.assert_frame_equal(a, b)
    for rel in b.audio_path:
        assert (clone / "data/corpus" / rel).read_bytes() == (repo / "data/corpus" / rel).read_bytes()


def check_the_report_page_shows_this_run(repo):
    """reports/index.html carries this run's own Table 2 rows and Table 1, and opens cleanly in a browser."""
    table2 = pd.read_csv(repo / "reports/table2.csv")
    html = (repo / "reports/index.html").read_text()
    for system in set(table2["system"]):
        assert f'<td class="name">{system}</td>' in html
    assert "Table 1 is waiting" not in html and 'href="cells/table1/snr.png"' in html
    cells = pd.read_parquet(repo / "data/scores/cells.parquet")
    for _, cell in cells[(cells["status"] == "ranked") & cells["seed"].isna()].iterrows():
        assert (repo / "reports/cells" / cell["corpus"] / cell["system"] / f"{cell['rung']}__{cell['quantity']}.png").exists()
    # Table 3: both local systems answer P5_intervals on every event type, beside chance and the estimator
    table3 = pd.read_csv(repo / "reports/table3.csv")
    p5 = table3[table3["rung"] == "P5_intervals"]
    assert {(s, e) for s, e in zip(p5["system"], p5["event"])} == {
        (s, e) for s in ("estimator", "constant") for e in ("overlap", "pause", "noise")}
    assert p5["chance_segment_f1"].notna().any() and p5["estimator_segment_f1"].notna().all()
    assert "Table 3: claims in time" in (repo / "reports/table3.md").read_text()
    pictures = sorted((repo / "reports/figures/intervals").glob("*.png"))
    assert len(pictures) == 3 and all(f'src="figures/intervals/{p.name}"' in html for p in pictures)
    try:
        import playwright  # noqa: F401
    except ImportError:
        return
    from tests.report_browser import check_page, chromium_path

    if chromium_path() is not None:
        check = check_page(repo / "reports/index.html")
        assert check.console_errors == [] and check.page_errors == [] and check.unresolved_links() == []
