# Round four: an int8 probe of all-mpnet-base-v2 (run as written, 2026-12-02 01:18-01:31 UTC, nice 10, load 12-19; see model-choice.md).
import os, sys, time, warnings
warnings.filterwarnings('ignore')
sys.path.insert(0, '/work/wt-mpnet/scripts/model-eval')
import torch, numpy as np, sentence_transformers, text_forms
torch.set_num_threads(1)
from torch.ao.quantization import per_channel_dynamic_qconfig, default_dynamic_qconfig
P='/tmp/model-dl/mpnet/m/all-mpnet-base-v2'
texts = text_forms.turn_texts('memdircased')['conv-26'][16:28]
enc = lambda mm, xs: mm.encode(xs, batch_size=16, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
m = sentence_transformers.SentenceTransformer(P, device='cpu')
V = enc(m, texts)
print(torch.backends.quantized.engine, torch.backends.quantized.supported_engines)
for label, qc in (('pertensor', default_dynamic_qconfig), ('perchannel', per_channel_dynamic_qconfig)):
    q = torch.quantization.quantize_dynamic(sentence_transformers.SentenceTransformer(P, device='cpu'), {torch.nn.Linear: qc})
    Vq = enc(q, texts)
    print(label, 'cos min %.4f mean %.4f' % ((V * Vq).sum(1).min(), (V * Vq).sum(1).mean()), flush=True)
# is any Linear skipped / how is attention done?
print([type(x).__name__ for x in q.modules()][:40])
