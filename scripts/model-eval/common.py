"""Shared data loading + metrics for the LoCoMo-dev retrieval eval (numpy only)."""
import json
import os
import re

import numpy as np

# The dev split is read where it lies (its license forbids copying it into this repository).
DATA = os.environ.get("LOCOMO_DATA", os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data", "locomo-dev.json"))
EVID_RE = re.compile(r"^D:?(\d+):0*(\d+)$")


def norm_evidence(ev_list):
    """Split on ';'/whitespace, strip leading zeros, fix 'D:11:26' -> 'D11:26'.
    Returns (normalized ids, list of unparseable raw pieces)."""
    out, bad = [], []
    for e in ev_list:
        for piece in re.split(r"[;\s]+", e.strip()):
            if not piece:
                continue
            m = EVID_RE.match(piece)
            if m:
                out.append(f"D{int(m.group(1))}:{int(m.group(2))}")
            else:
                bad.append(piece)
    return out, bad


def session_of(dia_id):
    return int(dia_id.split(":")[0][1:])


def load(date_prefix=False):
    """Returns list of conversations: dict(sample_id, ids, texts, questions).
    questions: list of dict(question, category, evidence(set of ids present in corpus))."""
    data = json.load(open(DATA))
    convs = []
    stats = {"q_total": 0, "q_cat1_4": 0, "q_used": 0, "q_no_evidence": 0,
             "evid_unparseable": [], "evid_missing": []}
    for c in data:
        conv = c["conversation"]
        snums = sorted(int(k.split("_")[1]) for k in conv if re.fullmatch(r"session_\d+", k))
        ids, texts = [], []
        for s in snums:
            date = conv.get(f"session_{s}_date_time", "")
            for t in conv[f"session_{s}"]:
                txt = f"{t['speaker']}: {t['text']}"
                if t.get("blip_caption"):
                    txt += f" [image: {t['blip_caption']}]"
                if date_prefix and date:
                    txt = f"[{date}] {txt}"
                m = EVID_RE.match(t["dia_id"])
                ids.append(f"D{int(m.group(1))}:{int(m.group(2))}")
                texts.append(txt)
        idset = set(ids)
        qs = []
        for q in c["qa"]:
            stats["q_total"] += 1
            if q["category"] not in (1, 2, 3, 4):
                continue
            stats["q_cat1_4"] += 1
            ev, bad = norm_evidence(q.get("evidence", []))
            stats["evid_unparseable"] += [(c["sample_id"], b) for b in bad]
            missing = [e for e in ev if e not in idset]
            stats["evid_missing"] += [(c["sample_id"], e) for e in missing]
            ev = set(e for e in ev if e in idset)
            if not ev:
                stats["q_no_evidence"] += 1
                continue
            stats["q_used"] += 1
            qs.append({"question": q["question"], "category": q["category"], "evidence": ev})
        convs.append({"sample_id": c["sample_id"], "ids": ids, "texts": texts, "questions": qs})
    return convs, stats


def metrics_for_ranking(order, ids, evidence):
    """order: doc indices best-first (full ranking). Returns dict of per-question metrics."""
    ranked = [ids[i] for i in order]
    top5, top10 = set(ranked[:5]), set(ranked[:10])
    r5 = len(evidence & top5) / len(evidence)
    r10 = len(evidence & top10) / len(evidence)
    ev_sess = {session_of(e) for e in evidence}
    top5_sess = {session_of(e) for e in ranked[:5]}
    s5 = len(ev_sess & top5_sess) / len(ev_sess)
    rr = 0.0
    for rank, d in enumerate(ranked, 1):
        if d in evidence:
            rr = 1.0 / rank
            break
    return {"R@5": r5, "R@10": r10, "S@5": s5, "MRR": rr}


def aggregate(per_q):
    """per_q: list of (category, metrics dict). Returns overall + per-category means."""
    keys = ["R@5", "R@10", "S@5", "MRR"]
    out = {"all": {k: float(np.mean([m[k] for _, m in per_q])) for k in keys}}
    out["all"]["n"] = len(per_q)
    for cat in (1, 2, 3, 4):
        sub = [m for c, m in per_q if c == cat]
        if sub:
            out[f"cat{cat}"] = {k: float(np.mean([m[k] for m in sub])) for k in keys}
            out[f"cat{cat}"]["n"] = len(sub)
    return out


def rank_dense(doc_emb, q_emb):
    scores = doc_emb @ q_emb
    return np.argsort(-scores, kind="stable")


_WORD = re.compile(r"[a-z0-9]+")
_stem = None


def stemmed_tokens(text):
    """BM25's tokens: lower-cased [a-z0-9]+ words, Snowball English stems (the stemmer loaded on first use)."""
    global _stem
    if _stem is None:
        import snowballstemmer

        _stem = snowballstemmer.stemmer("english").stemWords
    return _stem(_WORD.findall(text.lower()))


def minmax_top(scores, pool):
    """Scores scaled to [0, 1] over the signal's own top `pool`; everything below that counts 0."""
    top = np.argsort(-scores, kind="stable")[:pool]
    lo, hi = scores[top].min(), scores[top].max()
    out = np.zeros_like(scores, dtype=np.float64)
    if hi > lo:
        out[top] = (scores[top] - lo) / (hi - lo)
    return out
