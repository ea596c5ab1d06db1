"""The report page and its cell pictures: every ranked and "c" cell drawn with its data, and the page opened
in a real headless browser (no console error, every link resolves, a screenshot)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from acousticlaim.quantities import SCORED_KEYS
from acousticlaim.report.page import git_commit, write_report
from acousticlaim.scoring.pipeline import read_results, score, write_results
from tests.test_scoring_tables import CONFIG, MIX, long_refs
from tests.test_scoring_tables import panel  # noqa: F401 - the fixture

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _predictions(refs: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Readout B of two training seeds and the matched ridge on the mixtures and their twins, and twin references."""
    rng = np.random.default_rng(5)
    twin_refs = {(m + "_s1clean", q): float(rng.normal(10, 4)) for m in MIX for q in SCORED_KEYS}
    halves = {k: (v + rng.normal(0, 1), v + rng.normal(0, 1)) for k, v in twin_refs.items()}
    all_refs = pd.concat([refs, long_refs(twin_refs, halves)], ignore_index=True)
    value = all_refs.set_index(["clip_id", "quantity"])["value"]
    rows = []
    for system, noise in (("reference", 1.0), ("ridge", 4.0)):
        for seed in (0, 1):
            for clip in MIX + [m + "_s1clean" for m in MIX]:
                for q in SCORED_KEYS:
                    rows.append({"system": system, "train_seed": seed, "clip_id": clip, "split": "test",
                                 "kind": "twin" if clip.endswith("_s1clean") else "mixture", "quantity": q,
                                 "value": value[(clip, q)] + rng.normal(0, noise), "logvar": 0.0})
    return pd.DataFrame(rows), all_refs


@pytest.fixture(scope="module")
def report(panel, tmp_path_factory):  # noqa: F811 - the imported fixture
    claims, gens, refs = panel
    # our own system's claims come from readout B here (Table 1); Table 2's "reference" row stays readout A
    predictions, all_refs = _predictions(refs)
    result = score(claims, all_refs, CONFIG, generations=gens, predictions=predictions)
    out = tmp_path_factory.mktemp("report")
    write_results(result, reports=out, cells_path=out / "scores" / "cells.parquet", metrics_path=out / "scores.json")
    figure = out / "plots" / "withholding.png"
    figure.parent.mkdir()
    figure.write_bytes(_tiny_png())
    (out / "plots" / "withholding.csv").write_text("quantity,withheld\nsnr,0.25\n")
    back = read_results(out / "scores" / "cells.parquet", out / "scores.json", CONFIG)
    table3, pairs = _claims_in_time()
    written = write_report(back, out, title="Test report", figures=[figure, out / "plots" / "absent.png"],
                           params={"scores": {"bar": 0.3}}, commit="0123abc", metrics={"calibrate": {"pooled": {"withholding_rate": 0.25}}},
                           table3=table3, interval_pairs=pairs, waveform=_waveform)
    return result, out, written


def _waveform(clip_id: str):
    """A 6-s test waveform for every clip but one, which is drawn without it."""
    if clip_id == "m2":
        return None
    t = np.arange(6 * 16000) / 16000
    return 0.3 * np.sin(2 * np.pi * 150 * t) * (np.sin(2 * np.pi * 0.5 * t) > 0), 16000


def _claims_in_time() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Table 3 of two systems on three clips (m0 has the most reference intervals, then m1, then m2)."""
    from acousticlaim.scoring.config import IntervalScoring
    from acousticlaim.scoring.intervals import interval_table

    clips = {"m0": [(1.0, 1.5), (3.0, 3.4), (4.5, 5.0)], "m1": [(2.0, 2.6), (4.0, 4.4)], "m2": [(0.5, 1.0)]}
    lists = pd.DataFrame([{"clip_id": c, "event": e, "defined": True, "n": 0, "duration_s": 6.0}
                          for c in clips for e in ("overlap", "pause", "noise")])
    refs = pd.DataFrame([{"clip_id": c, "event": "pause", "start_s": a, "end_s": b} for c, iv in clips.items() for a, b in iv])
    gens = pd.DataFrame([{"system": s, "corpus": "librimix", "clip_id": c, "rung": "P5_intervals", "seed": 0}
                         for s in ("estimator", "sysA") for c in clips])
    stated = pd.DataFrame([
        {"system": "estimator", "corpus": "librimix", "clip_id": c, "rung": "P5_intervals", "seed": 0, "event": "pause",
         "start_s": a + 0.1, "end_s": b, "point": False} for c, iv in clips.items() for a, b in iv
    ] + [{"system": "sysA", "corpus": "librimix", "clip_id": "m0", "rung": "P5_intervals", "seed": 0, "event": "noise",
          "start_s": 2.0, "end_s": 2.0, "point": True}])
    return interval_table(gens, stated, refs, lists, IntervalScoring(chance_draws=5, figure_clips=2))


def _tiny_png() -> bytes:
    import io

    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(2, 1))
    ax.plot([0, 1], [0, 1])
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return buf.getvalue()


def _picture(out: Path, corpus: str, system: str, rung: str, quantity: str) -> tuple[Path, Path]:
    base = out / "cells" / corpus / system / f"{rung}__{quantity}"
    return base.with_suffix(".png"), base.with_suffix(".csv")


def test_every_ranked_cell_has_a_picture_and_its_data(report):
    result, out, _ = report
    ranked = result.cells[(result.cells["status"] == "ranked") & (result.cells["n"] >= CONFIG.n_min)]
    assert len(ranked) >= 3  # sysA's SNR at two rungs and its SRMR on AMI
    for _, cell in ranked.iterrows():
        png, csv = _picture(out, cell["corpus"], cell["system"], cell["rung"], cell["quantity"])
        assert png.read_bytes()[:8] == PNG_MAGIC, png
        data = pd.read_csv(csv)
        assert list(data.columns[:3]) == ["clip_id", "reference", "stated"]
        assert len(data) == cell["n"]  # exactly the clips the cell is scored on
        # the CSV carries the values scored: its Spearman ρ is the cell's
        assert data["stated"].rank().corr(data["reference"].rank()) == pytest.approx(cell["spearman"], abs=1e-9)
    # our own system: one picture per ranked (corpus, rung, quantity), every training seed in it
    ours = result.seed_cells[result.seed_cells["status"] == "ranked"]
    for (corpus, rung, quantity), cells in ours.groupby(["corpus", "rung", "quantity"]):
        png, csv = _picture(out, corpus, "reference", rung, quantity)
        data = pd.read_csv(csv)
        assert png.exists() and sorted(data["series"].unique()) == [f"training seed {s}" for s in sorted(cells["seed"])]
        assert len(data) == cells["n"].sum()


def test_a_c_cell_is_a_strip_of_the_values_stated(report):
    result, out, _ = report
    cell = result.cells.set_index(["system", "corpus", "rung", "quantity"]).loc[("sysA", "librimix", "P2_named", "f0_mean")]
    assert cell["status"] == "constant"
    png, csv = _picture(out, "librimix", "sysA", "P2_named", "f0_mean")
    data = pd.read_csv(csv)
    assert png.exists() and len(data) == cell["n"] and sorted(data["stated"].unique()) == [100, 150, 200, 250]
    # a cell under the claim minimum gets no picture
    assert not _picture(out, "librimix", "sysA", "P2_named", "jitter")[0].exists()


def test_table1_rows_and_the_heatmap_are_drawn(report):
    result, out, _ = report
    assert result.table1 is not None
    points = result.table1_points
    for quantity in SCORED_KEYS:
        data = pd.read_csv(out / "cells" / "table1" / f"{quantity}.csv")
        assert len(data) == (points["quantity"] == quantity).sum()
        assert (out / "cells" / "table1" / f"{quantity}.png").read_bytes()[:8] == PNG_MAGIC
    # readout A (our system's parsed text, training seeds 1-3) on SNR, the ridge scored on the same clips
    snr = pd.read_csv(out / "cells" / "table1" / "snr.csv")
    assert set(snr["system"]) == {"reference", "ridge"} and set(snr["train_seed"]) == {1, 2, 3}
    assert (snr["system"] == "reference").sum() == (snr["system"] == "ridge").sum() == 3 * len(MIX)
    heat = pd.read_csv(out / "figures" / "table2_heatmap.csv")
    assert len(heat) == len(result.table2)
    snr = heat[(heat["corpus"] == "librimix") & (heat["system"] == "sysA") & (heat["quantity"] == "snr")].iloc[0]
    assert bool(snr["over_bar"]) and snr["rho"] > 0.3


def test_the_page_links_table_entries_to_their_pictures(report):
    result, out, _ = report
    html = (out / "index.html").read_text()
    entry = result.table2.set_index(["corpus", "system", "quantity"]).loc[("librimix", "sysA", "snr")]
    assert f'<a href="cells/librimix/sysA/{entry["rung"]}__snr.png">{entry["text"]}</a>' in html
    assert '<a href="cells/librimix/sysA/P2_named__f0_mean.png">c</a>' in html
    assert 'href="cells/table1/jitter.png"' in html and "0123abc" in html
    assert 'src="figures/withholding.png"' in html and 'href="figures/withholding.csv"' in html
    assert "absent.png" not in html  # a figure the run did not make is left out, not linked
    assert not re.search(r'(src|href)="(https?:)?//', html)  # nothing from the network


def test_table3_and_the_pictures_of_clips_in_time(report):
    _, out, _ = report
    html = (out / "index.html").read_text()
    assert '<h2 id="table3">' in html and '<td class="name">sysA</td><td class="name">Libri2Mix</td><td class="name">non-speech noise</td>' in html
    # CONFIG draws three clips (figure_clips' default): the most reference intervals first, m2 without its waveform
    for clip in ("m0", "m1", "m2"):
        png = out / "figures" / "intervals" / f"librimix__{clip}.png"
        assert png.read_bytes()[:8] == PNG_MAGIC
        assert f'src="figures/intervals/librimix__{clip}.png"' in html
    drawn = pd.read_csv(out / "figures" / "intervals" / "librimix__m0.csv")
    assert sorted(drawn["system"].unique()) == ["estimator", "reference", "sysA"]
    assert (drawn["system"] == "reference").sum() == 3 and bool(drawn.loc[drawn["system"] == "sysA", "point"].iloc[0])


def test_git_commit_outside_a_checkout(tmp_path):
    assert git_commit(tmp_path).startswith("unknown")


def test_the_page_in_a_real_browser(report, tmp_path):
    pytest.importorskip("playwright", reason="Playwright (the test extra) drives the browser")
    from tests.report_browser import check_page, chromium_path

    if chromium_path() is None:
        pytest.skip("no chromium on the PATH (.ci/run installs Debian's chromium)")
    result, out, _ = report
    shot = tmp_path / "page.png"
    check = check_page(out / "index.html", shot, full_page=True)
    assert check.title == "Test report"
    assert check.console_errors == [] and check.page_errors == [] and check.failed_requests == []
    assert check.unresolved_links() == []
    assert len(check.links) > 20 and all(loaded for _, loaded in check.images) and len(check.images) >= 2
    assert "sysA" in check.text and "Table 1" in check.text
    assert shot.read_bytes()[:8] == PNG_MAGIC and shot.stat().st_size > 10_000
    # Table 3 and its pictures of clips in time are on the page, and the browser loaded each picture
    assert "Table 3: claims in time" in check.text
    interval_figures = [(src, loaded) for src, loaded in check.images if "/figures/intervals/" in src]
    assert len(interval_figures) == 3 and all(loaded for _, loaded in interval_figures)


def test_the_browser_check_sees_a_broken_page(tmp_path):
    """The check itself: a missing picture, a dead link and a script error are all reported."""
    pytest.importorskip("playwright", reason="Playwright (the test extra) drives the browser")
    from tests.report_browser import check_page, chromium_path

    if chromium_path() is None:
        pytest.skip("no chromium on the PATH (.ci/run installs Debian's chromium)")
    page = tmp_path / "index.html"
    page.write_text('<!DOCTYPE html><html><head><title>b</title></head><body><img src="gone.png">'
                    '<a href="nowhere.html">x</a><a href="#nope">y</a><script>throw new Error("boom")</script></body></html>')
    check = check_page(page)
    assert any("ERR_FILE_NOT_FOUND" in e for e in check.console_errors)
    assert check.page_errors and "boom" in check.page_errors[0]
    assert any(u.endswith("gone.png") for u in check.failed_requests)
    assert sorted(Path(u).name for u in check.unresolved_links()) == ["#nope", "nowhere.html"]
    assert check.images and not check.images[0][1]


def test_rescore_release_writes_the_same_page_for_the_released_panel(tmp_path):
    from typer.testing import CliRunner

    from acousticlaim.cli import app
    from tests.test_scoring_release import write_release_tree

    write_release_tree(tmp_path)
    out = tmp_path / "out"
    ran = CliRunner().invoke(app, ["rescore-release", "--panel", str(tmp_path / "panel"), "--release", str(tmp_path),
                                   "--corpus", "librimix", "--out", str(out), "--params", str(tmp_path / "absent.yaml")])
    assert ran.exit_code == 0, ran.output
    html = (out / "index.html").read_text()
    assert '<td class="name">Sys-X</td>' in html and "released panel" in html
    assert '<a href="cells/librimix/Sys-X/P2_named__snr.png">' in html
    data = pd.read_csv(out / "cells/librimix/Sys-X/P2_named__snr.csv")
    assert len(data) == 35  # the pooled cell's clips
    assert "No Table 1 for this run" in html and (out / "table2.md").exists() and (out / "params.yaml").exists()
