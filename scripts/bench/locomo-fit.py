# Fits a learned combination of the signals memdir already computes, on the pools that locomo-pools.mjs dumps
# (issue 12, docs/benchmarks.md 1.15), held out by conversation: fit on four, rank the fifth's pools, score them
# with the rules of src/bench/locomo/metrics.ts. A measuring tool (numpy only); nothing here is used by memdir.
# Usage: python3 scripts/bench/locomo-fit.py POOLS.json [ROW [FEATURES]]   (ROW: the pool's run, default "default";
# FEATURES: a comma-separated subset of NAMES below)
import json
import re
import sys

import numpy as np

path = sys.argv[1]
run = sys.argv[2] if len(sys.argv) > 2 else "default"
data = json.load(open(path))
records, questions = data["records"], data["questions"]
SHALLOW = 50  # what the read path asks of each signal for k = 10
ADVERSARIAL = 5

# A run's results are keyed "path#start-end"; the signal lists by chunk id: join them through the records.
unit_id = {}
for cid, r in records.items():
    if r["kind"] == "unit" and "#" not in cid:
        unit_id[f"{r['path']}#{r['lines'][0]}-{r['lines'][1]}"] = cid


def session_key(turn):
    m = re.match(r"^(.*?)D(\d+):\d+$", turn)
    return f"{m.group(1)}S{int(m.group(2))}" if m else turn


def ranked_turns(keys):
    out = []
    for k in keys:
        for t in records[k]["turns"]:
            if t not in out:
                out.append(t)
    return out


def recall(ranked, evidence, k):
    top = set(ranked[:k])
    return sum(e in top for e in evidence) / len(evidence) if evidence else 0.0


def scores_of(q, keys, k=10):
    # The bench ranks the turns of its first k results only (k = 10), sessions included.
    turns = ranked_turns(keys[:k])
    sessions = list(dict.fromkeys(session_key(t) for t in turns))
    ev_sessions = list(dict.fromkeys(session_key(e) for e in q["evidence"]))
    return recall(turns, q["evidence"], 10), recall(sessions, ev_sessions, 5)


def scaled(hits):
    """memdir's weighted fusion: min-max over the first SHALLOW units and the first SHALLOW windows together."""
    if not hits:
        return {}
    vals = [s for _, s in hits]
    lo, hi = min(vals), max(vals)
    return {cid: (1.0 if hi - lo < 1e-9 else (s - lo) / (hi - lo)) for cid, s in hits}


NAMES = ["rel", "bm25", "dense", "second", "w_bm25", "w_dense", "w_second", "window", "file_best", "file_mean3"]


def features(q):
    rows = q["runs"][run]
    sig = {}
    for m in ("bm25", "dense", "second"):
        sig[m] = scaled(q["sig"].get(f"{m}/unit", [])[:SHALLOW] + q["sig"].get(f"{m}/window", [])[:SHALLOW])
    windows = {m: [(records[c], v) for c, v in sig[m].items() if records[c]["kind"] == "window"] for m in sig}
    by_file = {}
    for key, rel, *_ in rows:
        by_file.setdefault(records[key]["path"], []).append(rel)
    X, keys, rec, score = [], [], [], []
    for key, rel, sc, recency, window, *_ in rows:
        r = records[key]
        cid = unit_id.get(key)
        own = [sig[m].get(cid, 0.0) if cid else 0.0 for m in ("bm25", "dense", "second")]
        lo, hi = r["lines"]
        wbest = [
            max([v for w, v in windows[m] if w["path"] == r["path"] and w["lines"][0] <= lo and w["lines"][1] >= hi] or [0.0])
            for m in ("bm25", "dense", "second")
        ]
        f = sorted(by_file[r["path"]], reverse=True)
        X.append([rel, *own, *wbest, window, f[0], np.mean(f[:3])])
        keys.append(key)
        rec.append(recency)
        score.append(sc)
    return np.array(X), keys, np.array(rec), np.array(score)


def labels(q, keys):
    ev = set(q["evidence"])
    return np.array([1.0 if ev & set(records[k]["turns"]) else 0.0 for k in keys])


def fit_logistic(X, y, l2=1.0, iters=60):
    """Newton's method on the L2-penalised log-loss; the intercept is not penalised."""
    Xb = np.hstack([X, np.ones((len(X), 1))])
    w = np.zeros(Xb.shape[1])
    reg = np.full(Xb.shape[1], l2)
    reg[-1] = 0.0
    for _ in range(iters):
        p = 1 / (1 + np.exp(-Xb @ w))
        g = Xb.T @ (p - y) + reg * w
        H = (Xb * (p * (1 - p))[:, None]).T @ Xb + np.diag(reg + 1e-9)
        step = np.linalg.solve(H, g)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


prepared = []
for q in questions:
    if run not in q["runs"] or not q["runs"][run]:
        continue
    X, keys, rec, score = features(q)
    prepared.append((q, X, keys, rec, score, labels(q, keys)))

convs = sorted({q["conv"] for q, *_ in prepared})
cols = [NAMES.index(n) for n in (sys.argv[3].split(",") if len(sys.argv) > 3 else NAMES)]
print(f"{len(prepared)} questions, run {run}, features {[NAMES[c] for c in cols]}")


def evaluate(items, rank_of):
    t, s = [], []
    for q, X, keys, rec, score, y in items:
        if q["category"] == ADVERSARIAL:
            continue
        order = np.argsort(-rank_of(X, rec, score), kind="stable")
        tr, sr = scores_of(q, [keys[i] for i in order])
        t.append(tr)
        s.append(sr)
    return np.mean(t), np.mean(s)


rows = []
for conv in convs:
    train = [p for p in prepared if p[0]["conv"] != conv]
    test = [p for p in prepared if p[0]["conv"] == conv]
    Xtr = np.vstack([p[1][:, cols] for p in train])
    ytr = np.concatenate([p[5] for p in train])
    mu, sd = Xtr.mean(0), Xtr.std(0) + 1e-9
    w = fit_logistic((Xtr - mu) / sd, ytr)
    prob = lambda X, rec, score: 1 / (1 + np.exp(-(np.hstack([(X[:, cols] - mu) / sd, np.ones((len(X), 1))]) @ w)))
    base = evaluate(test, lambda X, rec, score: score)
    base_plain = evaluate(test, lambda X, rec, score: X[:, 0])
    learned = evaluate(test, prob)
    rows.append((conv, base, base_plain, learned, w[:-1] / sd))
    print(
        f"{conv}: pipeline {base[0]:.3f}/{base[1]:.3f}"
        f"  | relevance alone {base_plain[0]:.3f}/{base_plain[1]:.3f}  learned alone {learned[0]:.3f}/{learned[1]:.3f}"
    )
    print("   weights (per unit of each feature):", " ".join(f"{NAMES[c]}={v:+.2f}" for c, v in zip(cols, w[:-1] / sd)))

# Totals over all held-out questions (each fold's questions weigh by their number, as the bench's mean does).
# The model is compared with relevance alone: its probability is on another scale than relevance, so it is not
# blended with recency as memdir's score is ("pipeline").
for name, f in (("pipeline", 1), ("relevance alone", 2), ("learned alone", 3)):
    n = [sum(1 for p in prepared if p[0]["conv"] == c and p[0]["category"] != ADVERSARIAL) for c in convs]
    t = sum(r[f][0] * k for r, k in zip(rows, n)) / sum(n)
    s = sum(r[f][1] * k for r, k in zip(rows, n)) / sum(n)
    print(f"all held out, {name}: turn R@10 {t:.3f}, session R@5 {s:.3f}")
