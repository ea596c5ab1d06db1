import pandas as pd

from acousticlaim.model.run import _subsample


def test_subsample_keeps_mixtures_with_their_twins_and_is_the_same_every_time():
    ids = []
    for i in range(10):
        ids += [f"m{i}", f"m{i}_s1clean"]
    table = pd.DataFrame({"clip_id": ids})
    a = _subsample(table, 7)
    assert len(a) == 6  # whole pairs only
    kept = set(a["clip_id"])
    assert all((cid + "_s1clean" in kept) for cid in kept if not cid.endswith("_s1clean"))
    assert a.equals(_subsample(table, 7))
    assert _subsample(table, None) is table and len(_subsample(table, 100)) == 20
