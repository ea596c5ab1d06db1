"""Blind selection of the fresh held-out panel texts (writes ids only; run from the repository root).

Only sampling seed 0 is released in ``../shared/data/panel_sample`` (no other seed's texts are on this
machine), so the fresh held-out set is drawn from the seed-0 stems that neither the development set
(``dev_panel_ids.jsonl``) nor the first held-out set (``heldout_stems.txt``, used in development
since it was relabelled) ever used: 17 of the 120 stems. A text that also occurs, byte for byte, under a
used stem is excluded (the P4 worked example is often reproduced verbatim). Per system x rung it
picks up to three texts with a digit and one without. It prints no text.
"""
import collections
import glob
import json
import random
import re

used = {json.loads(line)["stem"] for line in open("tests/data/dev_panel_ids.jsonl")}
used |= set(open("tests/data/heldout_stems.txt").read().split())
recs = []
for f in sorted(glob.glob("/work/shared/data/panel_sample/*_seed0.json")):
    d = json.load(open(f))
    for rung, block in d["results"][d["system"]].items():
        for x in block["generations"]:
            recs.append((d["system"], rung, x["stem"], x["text"]))
used_texts = {t for s, r, st, t in recs if st in used}
fresh_stems = sorted({st for s, r, st, t in recs if st not in used})
seen = set()
cells = collections.defaultdict(list)
for s, r, st, t in recs:
    if st not in used and t not in used_texts and t not in seen:
        seen.add(t)
        cells[(s, r)].append((s, r, st))
rng = random.Random(20261201)
chosen = []
for key in sorted(cells):
    items = cells[key]
    rng.shuffle(items)
    text = {(s, r, st): t for s, r, st, t in recs}
    dig = [x for x in items if re.search(r"\d", text[x])]
    nodig = [x for x in items if not re.search(r"\d", text[x])]
    chosen += dig[:3] + nodig[:1]
with open("tests/data/fresh_stems.txt", "w") as fh:
    fh.write("\n".join(fresh_stems) + "\n")
with open("tests/data/fresh_ids.jsonl", "w") as fh:
    for s, r, st in chosen:
        fh.write(json.dumps({"system": s, "rung": r, "stem": st}) + "\n")
print(len(fresh_stems), "stems;", len(chosen), "texts", collections.Counter(s for s, r, st in chosen))
