import { chunkMarkdown } from './dist/memory/chunk.js';
const [kind, n] = process.argv.slice(2);
const gens = {
  sawq: (n) => Array.from({length: n}, (_, i) => '>'.repeat(1 + i % 32) + ' q ' + i).join('\n'),
  flatlist: (n) => Array.from({length: n}, (_, i) => '- item ' + i).join('\n'),
  lists: (n) => Array.from({length: n}, (_, i) => (i % 5 === 0 ? '\n' : '') + '- item ' + i).join('\n'),
};
const text = gens[kind](Number(n)); const t = Date.now(); const c = chunkMarkdown(text, 1, { maxChars: 1500 });
console.log(kind, n, text.length, c.length, Date.now() - t, 'ms');
