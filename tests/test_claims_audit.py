"""The parser audit: label files, matching rule, the audit-parser command, and the development set."""

import json
from pathlib import Path

import pytest

from acousticlaim.claims.audit import LabelsError, audit, format_report, load_labels, value_matches
from acousticlaim.cli import app

DATA = Path(__file__).parent / "data"


def write(tmp_path, records):
    p = tmp_path / "labels.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in records))
    return p


def test_value_matching_tolerance():
    assert value_matches(101.0, 100.0) and not value_matches(101.5, 100.0)
    assert value_matches(0.009, 0.0) and not value_matches(0.02, 0.0)


def test_audit_counts_hits_misses_and_false_positives(tmp_path):
    p = write(
        tmp_path,
        [
            {"text": "The SNR is 12 dB and the HNR is 9 dB.", "gold": [{"quantity": "snr", "value": 12}, {"quantity": "hnr", "value": 10}]},
            {"text": "Shimmer: 0.3 dB", "gold": [{"quantity": "shimmer", "value": 0.3}]},  # gold says %, parser says dB
            {"text": "five pauses", "gold": [{"quantity": "pause_count", "value": 5, "unit": "count", "span": [0, 11]}]},
        ],
    )
    report = audit(load_labels(p))
    assert (report.overall.tp, report.overall.fp, report.overall.fn) == (2, 2, 2)
    assert report.per_quantity["hnr"].fp == 1 and report.per_quantity["hnr"].fn == 1
    assert report.per_quantity["shimmer"].precision == 0.0
    assert report.per_quantity["pause_count"].recall == 1.0
    assert "overall" in format_report(report)


def test_bad_label_files_name_the_line(tmp_path):
    p = tmp_path / "bad.jsonl"
    p.write_text('{"text": "a", "gold": []}\n{"text": "b", "gold": [{"quantity": "loudness", "value": 1}]}\n')
    with pytest.raises(LabelsError, match=r"bad.jsonl:2: gold\[0\] needs a 'quantity'"):
        load_labels(p)
    p.write_text("not json\n")
    with pytest.raises(LabelsError, match="bad.jsonl:1: not JSON"):
        load_labels(p)


def test_audit_parser_command(tmp_path, capsys):
    p = write(tmp_path, [{"text": "SNR: 7 dB", "gold": [{"quantity": "snr", "value": 7}]}])
    with pytest.raises(SystemExit) as e:
        app(["audit-parser", str(p)])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "snr" in out and "1.000" in out
    with pytest.raises(SystemExit) as e:
        app(["audit-parser", str(tmp_path / "missing.jsonl")])
    assert e.value.code == 2


def test_development_set_meets_the_targets():
    """The labelled development set (real panel generations and written texts, >= 250)."""
    items = load_labels(DATA / "dev_labels.jsonl")
    assert len(items) >= 250
    report = audit(items)
    assert report.overall.precision >= 0.995
    assert report.overall.recall >= 0.95


def test_heldout_set_meets_the_targets():
    """The held-out panel texts (labelled before the parser was first run on them; see
    tests/data/LABELLING.md). Their first audit gave precision 0.998 and recall 0.998; this test now
    guards against regressions."""
    items = load_labels(DATA / "heldout_labels.jsonl")
    assert len(items) >= 100
    report = audit(items)
    assert report.overall.precision >= 0.995
    assert report.overall.recall >= 0.95


@pytest.mark.parametrize("name", ["fresh_labels.jsonl", "fresh_written.jsonl"])
def test_fresh_heldout_sets_meet_the_targets(name):
    """Texts the parser was not developed on (tests/data/LABELLING.md): real panel generations of
    the 17 seed-0 stems no labelled set had used, and texts written before SPEC §1's attribution rules
    were coded. Labelled, and the labels committed, before the parser was run on them; their first
    audit gave precision 1.000 / recall 1.000 (real, 282 gold claims) and 1.000 / 0.987 (written, 79)."""
    items = load_labels(DATA / name)
    report = audit(items)
    assert report.overall.precision >= 0.995
    assert report.overall.recall >= 0.95


def test_unread_labels_are_listed_with_counts_and_an_example(tmp_path, capsys):
    from acousticlaim.claims.audit import unread_labels

    texts = [
        '{"SNR": "20", "SRRM": "0.5", "HRN_ratio": "9"}',
        '{"SNR": "21", "SRRM": "0.7"}',
        "The HHR is 14 dB. The jitter is 1.1 percent.",
    ]
    rows = {r.label: r for r in unread_labels(texts)}
    assert rows["srrm"].count == 2 and '"SRRM": "0.5"' in rows["srrm"].example and rows["srrm"].names == ""
    assert rows["hrn_ratio"].count == 1 and rows["hhr"].count == 1
    assert "snr" not in rows and "jitter" not in rows  # read as claims
    (tmp_path / "g.jsonl").write_text("".join(json.dumps({"text": t}) + "\n" for t in texts))
    with pytest.raises(SystemExit) as e:
        app(["audit-parser", str(tmp_path), "--top", "5"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "3 texts" in out and "srrm" in out
