# Round four: an int8 probe of all-mpnet-base-v2 (run as written, 2026-12-02 01:18-01:31 UTC, nice 10, load 12-19; see model-choice.md).
import os, sys, time
sys.path.insert(0, '/work/wt-mpnet/scripts/model-eval')
import torch, numpy as np, sentence_transformers, text_forms
th = int(sys.argv[1]); torch.set_num_threads(th)
m = sentence_transformers.SentenceTransformer('/tmp/model-dl/mpnet/m/all-mpnet-base-v2', device='cpu')
texts = text_forms.turn_texts('memdircased')['conv-26'][:48]
enc = lambda mm, xs: mm.encode(xs, batch_size=16, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
q = torch.quantization.quantize_dynamic(m, {torch.nn.Linear}, dtype=torch.qint8)
m = sentence_transformers.SentenceTransformer('/tmp/model-dl/mpnet/m/all-mpnet-base-v2', device='cpu')
for name, mm in (('int8', q), ('fp32', m)):
    enc(mm, texts[:16])
    t0 = time.perf_counter(); V = enc(mm, texts[16:48]); dt = time.perf_counter() - t0
    t1 = time.perf_counter(); [enc(mm, 'What did Caroline research?') for _ in range(5)]; qt = (time.perf_counter() - t1) / 5
    print(name, 'threads', th, 'passages/s %.1f' % (32 / dt), 'query ms %.0f' % (1000 * qt), 'load', os.getloadavg()[0], flush=True)
    if name == 'int8': Vq = V
    else: print('cos int8 vs fp32 min %.4f mean %.4f' % ((V * Vq).sum(1).min(), (V * Vq).sum(1).mean()))
