# Round four: an int8 probe of all-mpnet-base-v2 (run as written, 2026-12-02 01:18-01:31 UTC, nice 10, load 12-19; see model-choice.md).
import os, sys, time, warnings
warnings.filterwarnings('ignore')
sys.path.insert(0, '/work/wt-mpnet/scripts/model-eval')
import torch, numpy as np, sentence_transformers, text_forms
torch.set_num_threads(1)
from torch.ao.quantization import default_dynamic_qconfig as qc
P='/tmp/model-dl/mpnet/m/all-mpnet-base-v2'
texts = text_forms.turn_texts('memdircased')['conv-26'][16:22]
enc = lambda mm, xs: mm.encode(xs, batch_size=16, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
m = sentence_transformers.SentenceTransformer(P, device='cpu')
V = enc(m, texts)
names = [n for n, x in m.named_modules() if isinstance(x, torch.nn.Linear)]
print(len(names), names[:8])
for label, pick in (('attn+inter', lambda n: 'attention' in n or 'intermediate' in n), ('inter', lambda n: 'intermediate' in n)):
    q = torch.quantization.quantize_dynamic(sentence_transformers.SentenceTransformer(P, device='cpu'), {n: qc for n in names if pick(n)})
    Vq = enc(q, texts)
    print(label, 'cos min %.4f mean %.4f' % ((V * Vq).sum(1).min(), (V * Vq).sum(1).mean()), flush=True)
    more = text_forms.turn_texts('memdircased')['conv-26'][30:46]
    enc(q, more[:4]); t0=time.perf_counter(); enc(q, more); a=time.perf_counter()-t0
    enc(m, more[:4]); t0=time.perf_counter(); enc(m, more); b=time.perf_counter()-t0
    print(label, 'passages/s int8 %.2f fp32 %.2f load %.1f' % (16/a, 16/b, os.getloadavg()[0]), flush=True)
for label, pick in ():
  for label, pick in (('ffn', lambda n: 'intermediate' in n or ('output.dense' in n and 'attention' not in n)),
                    ('attn', lambda n: 'attention' in n),
                    ('layer0', lambda n: '.layer.0.' in n),
                    ('out_only', lambda n: 'output.dense' in n and 'attention' not in n)):
    q = torch.quantization.quantize_dynamic(sentence_transformers.SentenceTransformer(P, device='cpu'), {n: qc for n in names if pick(n)})
    Vq = enc(q, texts)
    print(label, 'cos min %.4f mean %.4f' % ((V * Vq).sum(1).min(), (V * Vq).sum(1).mean()), flush=True)
