"""Blind selection of the held-out panel texts (writes ids only; run from the repository root).

The held-out stems (tests/data/heldout_stems.txt) were drawn with random.Random(20261130) from the
117 panel stems not shown while first looking at the data; a held-out text is any text of a held-out
stem that does not also occur (byte for byte) under a development stem. This script picks, per
system x rung, texts with digits first and one without, and writes their ids. It prints no text.
"""
import json, glob, re, random, collections
H = set(open('tests/data/heldout_stems.txt').read().split())
recs = []
for f in sorted(glob.glob('/work/shared/data/panel_sample/*_seed0.json')):
    d = json.load(open(f))
    for rung, block in d['results'][d['system']].items():
        for x in block['generations']:
            recs.append((d['system'], rung, x['stem'], x['text']))
dev_texts = {t for s, r, st, t in recs if st not in H}
seen = set(); cells = collections.defaultdict(list)
for s, r, st, t in recs:
    if st in H and t not in dev_texts and t not in seen:
        seen.add(t); cells[(s, r)].append((s, r, st, t))
rng = random.Random(4)
chosen = []
for key in sorted(cells):
    items = cells[key]; rng.shuffle(items)
    dig = [x for x in items if re.search(r'\d', x[3])]
    nodig = [x for x in items if not re.search(r'\d', x[3])]
    nd = 8 if key == ('Gemini-3.8-Flash', 'P1_numeric') else (6 if key[0] == 'Gemini-3.8-Flash' and key[1] != 'P0_free' else 4)
    pick = dig[:nd] + nodig[:1]
    if len(pick) < 5:
        pick += [x for x in items if x not in pick][: 5 - len(pick)]
    chosen += pick
with open('tests/data/heldout_ids.jsonl', 'w') as fh:
    for s, r, st, t in chosen:
        fh.write(json.dumps({'system': s, 'rung': r, 'stem': st}) + '\n')
print(len(chosen), collections.Counter((s) for s, r, st, t in chosen))
