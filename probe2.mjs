import { parseMemory } from './dist/memory/parse.js';
import { toChunkRecords } from './dist/memory/records.js';
const ctx = { path: 'a/b.md', defaultUser: 'd', fallbackTime: new Date().toISOString() };
const cases = {
  quotes: (n) => '>'.repeat(n) + ' deep\n',
  quotesSpaced: (n) => '> '.repeat(n) + 'deep\n',
  quoteLines: (n) => Array.from({length: n}, (_, i) => '>'.repeat(i+1) + ' l').join('\n'),
  list: (n) => Array.from({length: n}, (_, i) => ' '.repeat(i*2) + '- item').join('\n'),
  listInline: (n) => '- '.repeat(n) + 'x\n',
  brackets: (n) => '['.repeat(n) + 'x' + ']'.repeat(n),
  emph: (n) => '*'.repeat(n) + 'x' + '*'.repeat(n),
  emphAlt: (n) => '*a _'.repeat(n) + 'x',
  html: (n) => '<div>'.repeat(n),
  links: (n) => '[a]('.repeat(n),
  backticks: (n) => Array.from({length: n}, (_, i) => '`'.repeat(i+1) + 'x').join(' '),
  headings: (n) => Array.from({length: n}, (_, i) => '#'.repeat(1 + i % 6) + ' H' + i + '\n\ntext ' + i).join('\n\n'),
  tableish: (n) => '|a'.repeat(n) + '\n' + '|-'.repeat(n) + '\n',
};
const [name, n] = process.argv.slice(2);
const text = cases[name](Number(n));
const t = Date.now();
const doc = parseMemory(text, ctx);
const recs = toChunkRecords(doc, { maxChars: 1500 });
console.log(name, n, text.length, 'bytes', recs.length, 'chunks', Date.now() - t, 'ms');
