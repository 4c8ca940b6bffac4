import remarkParse from 'remark-parse';
import { unified } from 'unified';
const inline = ['attention', 'autolink', 'characterEscape', 'characterReference', 'codeText', 'hardBreakEscape', 'htmlText', 'labelEnd', 'labelStartImage', 'labelStartLink'];
const full = unified().use(remarkParse);
const blockOnly = unified().use(remarkParse).data('micromarkExtensions', [{ disable: { null: inline } }]);
const cases = {
  quotes: (n) => '>'.repeat(n) + ' deep\n',
  quoteLines: (n) => Array.from({length: n}, (_, i) => '>'.repeat(i+1) + ' l').join('\n'),
  list: (n) => Array.from({length: n}, (_, i) => ' '.repeat(i*2) + '- item').join('\n'),
  listInline: (n) => '- '.repeat(n) + 'x\n',
  emph: (n) => '*'.repeat(n) + 'x' + '*'.repeat(n),
  backticks: (n) => Array.from({length: n}, (_, i) => '`'.repeat(i+1) + 'x').join(' '),
  normal: (n) => Array.from({length: n}, (_, i) => `## H${i}\n\nSome *text* with \`code\` and [link](http://x) ${i}.\n\n- a\n- b\n  - c\n\n> quote`).join('\n\n'),
};
const [name, n, which] = process.argv.slice(2);
const text = cases[name](Number(n));
const t = Date.now();
const tree = (which === 'full' ? full : blockOnly).parse(text);
console.log(name, n, which, text.length, 'bytes', tree.children.length, 'top', Date.now() - t, 'ms', tree.children.slice(0,3).map(c => c.type + '@' + c.position.start.line + '-' + c.position.end.line).join(','));
