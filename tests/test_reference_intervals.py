"""The references in time (acousticlaim.instruments.intervals): which noise counts as an event, and merging."""

from acousticlaim.instruments.intervals import (list_rows, merge_segments, noise_reference,
                                                scene_noise_events, stationary_noise_events)
from acousticlaim.quantities import EVENT_KEYS


def test_merge_joins_overlapping_and_touching_intervals():
    assert merge_segments([(3, 4), (0, 1), (0.5, 2), (2, 2.5), (5, 6)]) == [(0.0, 2.5), (3.0, 4.0), (5.0, 6.0)]


def test_stationary_noise_is_one_event_over_the_clip_when_loud_enough():
    assert stationary_noise_events(20.0, 8.0, -30.0) == [(0.0, 8.0)]
    assert stationary_noise_events(30.0, 8.0, -30.0) == [(0.0, 8.0)]  # exactly at the level
    assert stationary_noise_events(35.0, 8.0, -30.0) == []
    assert stationary_noise_events(float("nan"), 8.0, -30.0) == []


def test_scene_sources_count_above_the_pinned_level_and_merge():
    events = [{"onset_s": 0.5, "offset_s": 1.5, "level_db": -10.0},
              {"onset_s": 1.0, "offset_s": 2.0, "level_db": -10.0},   # overlaps the first: one event
              {"onset_s": 4.0, "offset_s": 5.0, "level_db": -40.0},   # too quiet
              {"onset_s": 6.5, "offset_s": 9.0, "level_db": -20.0}]   # runs past the clip: clipped to it
    assert scene_noise_events(events, 8.0, -30.0) == [(0.5, 2.0), (6.5, 8.0)]


def test_which_clips_have_a_noise_reference():
    mixture = {"kind": "mixture", "noise_path": "stems/x/noise.flac", "snr_db": 10.0}
    assert noise_reference(mixture, 6.0, -30.0) == [(0.0, 6.0)]
    assert noise_reference({"kind": "twin"}, 6.0, -30.0) == []  # the clean twin holds no noise
    assert noise_reference({"kind": "clip"}, 6.0, -30.0) is None  # AMI: not known
    scene = {"kind": "mixture", "scene_mode": "design", "noise_path": "n.flac", "snr_db": 0.0, "scene_events": []}
    assert noise_reference(scene, 6.0, -30.0) == []  # the design's clean version


def test_an_unread_list_is_undefined_not_empty():
    intervals, lists = list_rows("c", 5.0, {"overlap": (None, "no stems", "channel"), "pause": ([(1.0, 1.5)], "", "channel"),
                                            "noise": ([], "", "noise")})
    assert intervals == [{"clip_id": "c", "event": "pause", "start_s": 1.0, "end_s": 1.5}]
    by_event = {r["event"]: r for r in lists}
    assert set(by_event) == set(EVENT_KEYS)
    assert not by_event["overlap"]["defined"] and by_event["overlap"]["reason"] == "no stems"
    assert by_event["noise"]["defined"] and by_event["noise"]["n"] == 0


def test_ami_overlap_is_where_two_participants_annotated_speech_meets():
    from acousticlaim.corpus.ami import AmiClip, AmiSegment, annotated_speech
    from acousticlaim.instruments.intervals import annotated_overlap

    segments = [AmiSegment("M", "A", "S1", 1.0, 4.0), AmiSegment("M", "A", "S1", 3.5, 6.0),
                AmiSegment("M", "B", "S2", 5.0, 9.0), AmiSegment("M", "C", "S3", 8.95, 12.0),
                AmiSegment("OTHER", "B", "S9", 0.0, 100.0)]
    clip = AmiClip("c", "M", "m.wav", 2.0, 10.0, "S1")
    speech = annotated_speech(segments, clip)
    # cut to the window and in the clip's time; another meeting's speech is not this clip's
    assert [(r["speaker"], r["start_s"], r["end_s"]) for r in speech] == [
        ("S1", 0.0, 2.0), ("S1", 1.5, 4.0), ("S2", 3.0, 7.0), ("S3", 6.95, 8.0)]
    # S1 and S2 meet over 3-4 s; S2 and S3 over 6.95-7 s, shorter than 0.1 s; a talker never overlaps itself
    assert annotated_overlap(speech, 0.1) == [(3.0, 4.0)]
    assert annotated_overlap(speech, 0.0) == [(3.0, 4.0), (6.95, 7.0)]
    assert annotated_overlap([r for r in speech if r["speaker"] == "S1"], 0.0) == []
