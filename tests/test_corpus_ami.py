"""AMI clips cut as the release cuts them: speaker segments, the speaker in the id and the manifest;
the consecutive-window cut; the release's meetings and bounds; clear errors on bad annotations."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import soundfile as sf
import yaml

from acousticlaim.corpus import ami
from acousticlaim.corpus.build import build_corpus
from acousticlaim.corpus.manifest import read_manifest, resolve_path
from tests.ami_fixtures import KEPT_IDS, MEETING, PAST_END_ID, SPEAKERS, SR, ami_params, write_ami_fixture
from tests.corpus_fixtures import ROOT, tiny_corpus_params

SERIAL = {"kind": "local", "workers": 1}
RELEASE_AMI = Path("/work/shared/data/release/references/ami_test.csv")


@pytest.fixture()
def fixture(tmp_path):
    return write_ami_fixture(tmp_path / "src")


def test_segment_clips_carry_the_speaker_in_id_and_manifest_and_the_release_bounds(fixture, tmp_path):
    result = build_corpus(tiny_corpus_params(**ami_params(fixture)), tmp_path / "out", executor=SERIAL)
    m = read_manifest(tmp_path / "out")
    # 4.00 s and exactly 3.00 s are kept; 2.50 s and 12.01 s are not; the one past the recording's end fails
    assert list(m.clip_id) == sorted(KEPT_IDS)  # the manifest is sorted by id: FEO072 before MEE071
    m = m.set_index("clip_id").loc[KEPT_IDS].reset_index()
    assert list(m.speaker_1) == [SPEAKERS["A"], SPEAKERS["B"]]
    assert list(m.meeting) == [MEETING, MEETING]
    assert np.allclose(m.start_s, [0.50, 5.00]) and np.allclose(m.end_s, [4.50, 8.00])
    assert np.allclose(m.duration_s, [4.00, 3.00])
    assert (m.corpus == "ami").all() and (m.kind == "clip").all() and (m.split == "test").all()
    assert result.n_failures == 1
    failure = pd.read_parquet(tmp_path / "out" / "failures.parquet").iloc[0]
    assert failure.clip_id == PAST_END_ID and "recording ends at 15.00 s" in failure.reason

    # each clip is the distant-microphone recording's samples over its segment, not the headset's
    source, _ = sf.read(fixture.recording)
    for row in m.itertuples():
        clip, sr = sf.read(resolve_path(tmp_path / "out", row.audio_path))
        i = int(round(row.start_s * SR))
        assert sr == SR and clip.size == int(round(row.duration_s * SR))
        assert np.max(np.abs(clip - source[i:i + clip.size])) < 1e-4  # 16-bit FLAC quantisation


def test_bounds_come_from_params(fixture, tmp_path):
    build_corpus(tiny_corpus_params(**ami_params(fixture, ami_segment_s=[2.5, 12.01])), tmp_path / "out", executor=SERIAL)
    ids = set(read_manifest(tmp_path / "out").clip_id)
    assert ids == {*KEPT_IDS, "AMI_EN2002a_sdm_MEE071_0001000_0001250", "AMI_EN2002a_sdm_MEE071_0000100_0001301"}


def test_window_cut_stays_available(fixture, tmp_path):
    build_corpus(tiny_corpus_params(**ami_params(fixture, ami_cut="windows", ami_clip_s=5.0, ami_annotations_dir=None)),
                 tmp_path / "out", executor=SERIAL)
    m = read_manifest(tmp_path / "out")
    assert list(m.clip_id) == [f"AMI_{MEETING}_sdm_0000000_0000500", f"AMI_{MEETING}_sdm_0000500_0001000",
                               f"AMI_{MEETING}_sdm_0001000_0001500"]
    assert m.speaker_1.isna().all() and np.allclose(m.duration_s, 5.0)


def test_null_meetings_cut_every_meeting_found_and_max_clips_caps(fixture, tmp_path):
    build_corpus(tiny_corpus_params(**ami_params(fixture, ami_meetings=None, ami_max_clips=1)), tmp_path / "out",
                 executor=SERIAL)
    assert list(read_manifest(tmp_path / "out").clip_id) == KEPT_IDS[:1]  # the plan runs in time order


def test_clip_ids_round_trip_in_the_release_form():
    clip_id = ami.ami_clip_id("EN2002a", 285.11, 290.29, "FEO070")
    assert clip_id == "AMI_EN2002a_sdm_FEO070_0028511_0029029"
    parsed = ami.parse_clip_id(clip_id + ".wav")
    assert (parsed.meeting, parsed.speaker, parsed.start_cs, parsed.end_cs) == ("EN2002a", "FEO070", 28511, 29029)
    assert parsed.duration_s == pytest.approx(5.18)
    assert ami.ami_clip_id("EN2002a", 0.0, 10.0) == "AMI_EN2002a_sdm_0000000_0001000"
    with pytest.raises(ValueError, match="not an AMI speaker-segment clip id"):
        ami.parse_clip_id("AMI_EN2002a_sdm_0000000_0001000")


@pytest.mark.skipif(not RELEASE_AMI.exists(), reason="the released data folder ../shared/data is not on this machine")
def test_params_state_the_release_meetings_and_bounds():
    cut = ami.release_cut(RELEASE_AMI)
    assert cut["clips"] == 3654 and len(cut["meetings"]) == 16 and len(cut["speakers"]) == 16
    assert (cut["shortest_s"], cut["longest_s"]) == (3.0, 11.97)
    corpus = yaml.safe_load((ROOT / "params.yaml").read_text())["corpus"]
    assert corpus["ami_meetings"] == cut["meetings"]
    lo, hi = corpus["ami_segment_s"]
    assert lo == cut["shortest_s"] and cut["longest_s"] <= hi < 12.01


def test_meetings_map_reads_the_nite_layout(fixture):
    assert ami.read_meeting_speakers(fixture.annotations_dir) == {(MEETING, k): v for k, v in SPEAKERS.items()}
    segments = ami.read_segments(fixture.annotations_dir, [MEETING])
    assert [(s.letter, s.speaker, s.start_s, s.end_s) for s in segments][:2] == [("A", "MEE071", 0.5, 4.5),
                                                                                 ("A", "MEE071", 1.0, 13.01)]


def test_bad_annotations_are_clear_errors(fixture, tmp_path):
    seg = fixture.annotations_dir / "segments" / f"{MEETING}.A.segments.xml"
    text = seg.read_text(encoding="iso-8859-1")
    seg.write_text(text.replace('transcriber_end="4.50"', 'transcriber_end="4,50"'), encoding="iso-8859-1")
    with pytest.raises(ami.AmiAnnotationError, match=r"EN2002a\.A\.segments\.xml: segment EN2002a\.sync\.1: transcriber_end='4,50'"):
        ami.read_segments(fixture.annotations_dir, [MEETING])
    seg.write_text(text[:200], encoding="iso-8859-1")
    with pytest.raises(ami.AmiAnnotationError, match="not well-formed XML"):
        ami.read_segments(fixture.annotations_dir, [MEETING])
    seg.write_text(text, encoding="iso-8859-1")
    (fixture.annotations_dir / "segments" / f"{MEETING}.E.segments.xml").write_text(text, encoding="iso-8859-1")
    with pytest.raises(ami.AmiAnnotationError, match="names no speaker nxt_agent='E' for meeting EN2002a"):
        ami.read_segments(fixture.annotations_dir, [MEETING])


def test_missing_inputs_are_clear_errors(fixture, tmp_path):
    with pytest.raises(ValueError, match="ami_annotations_dir is null"):
        build_corpus(tiny_corpus_params(**ami_params(fixture, ami_annotations_dir=None)), tmp_path / "o", executor=SERIAL)
    with pytest.raises(FileNotFoundError, match="no <meeting>.*.wav recording for ES2004a"):
        build_corpus(tiny_corpus_params(**ami_params(fixture, ami_meetings=[MEETING, "ES2004a"])), tmp_path / "o",
                     executor=SERIAL)
    with pytest.raises(ValueError, match="corpus.ami_cut 'turns'"):
        build_corpus(tiny_corpus_params(**ami_params(fixture, ami_cut="turns")), tmp_path / "o", executor=SERIAL)
    with pytest.raises(ValueError, match="corpus.ami_dir is null"):
        build_corpus(tiny_corpus_params(**ami_params(fixture, ami_dir=None)), tmp_path / "o", executor=SERIAL)
    (fixture.ami_dir / MEETING / "audio" / f"{MEETING}.Array1-01.wav").rename(fixture.ami_dir / "elsewhere.wav")
    with pytest.raises(FileNotFoundError, match=r"not exactly one EN2002a\.Array1-01\.wav"):
        (fixture.ami_dir / MEETING / "audio" / f"{MEETING}.Headset-1.wav").write_bytes(fixture.headset.read_bytes())
        build_corpus(tiny_corpus_params(**ami_params(fixture)), tmp_path / "o", executor=SERIAL)
