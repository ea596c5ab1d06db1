"""End to end: `dvc repro` on a tiny configuration, reruns, and sharing through a DVC remote."""

import pandas as pd
import pytest

from tests.pipeline_fixtures import project_copy, run

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return project_copy(tmp_path_factory.mktemp("project"))


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


def test_push_to_a_local_remote_and_pull_into_a_fresh_clone(repo, tmp_path):
    run(["dvc", "repro", "corpus"], repo)
    run(["dvc", "remote", "add", "-d", "-f", "storage", str(tmp_path / "remote")], repo)
    run(["git", "add", "-A"], repo)
    run(["git", "commit", "-qm", "corpus built"], repo)
    run(["dvc", "push", "corpus"], repo)

    clone = tmp_path / "clone"
    run(["git", "clone", "-q", str(repo), str(clone)], tmp_path)
    assert not (clone / "data/corpus").exists()
    run(["dvc", "pull", "corpus"], clone)
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
    try:
        import playwright  # noqa: F401
    except ImportError:
        return
    from tests.report_browser import check_page, chromium_path

    if chromium_path() is not None:
        check = check_page(repo / "reports/index.html")
        assert check.console_errors == [] and check.page_errors == [] and check.unresolved_links() == []
