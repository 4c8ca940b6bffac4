import remarkParse from 'remark-parse';
import { unified } from 'unified';
const full = unified().use(remarkParse);
const mk = (n) => Array.from({length: n}, (_, i) => `Paragraph number ${i} has plain words in it and nothing else at all.`).join('\n\n');
for (const n of [100, 1000, 4000]) { const t = Date.now(); full.parse(mk(n)); console.log('para', n, mk(n).length, Date.now()-t, 'ms'); }
const q = (n) => Array.from({length: n}, (_, i) => `## H${i}\n\n> quote ${i}`).join('\n\n');
for (const n of [250, 500, 1000]) { const t = Date.now(); full.parse(q(n)); console.log('quote', n, q(n).length, Date.now()-t, 'ms'); }
const l = (n) => Array.from({length: n}, (_, i) => `## H${i}\n\n- a\n- b`).join('\n\n');
for (const n of [250, 500, 1000]) { const t = Date.now(); full.parse(l(n)); console.log('list', n, l(n).length, Date.now()-t, 'ms'); }
const h = (n) => Array.from({length: n}, (_, i) => `## H${i}\n\ntext`).join('\n\n');
for (const n of [250, 500, 1000]) { const t = Date.now(); full.parse(h(n)); console.log('head', n, h(n).length, Date.now()-t, 'ms'); }
