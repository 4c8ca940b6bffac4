// Reads a Milvus filter expression the way Milvus does, to check that no value escaped its string literal.

/**
 * Splits an expression into its string literals (unescaped) and the code around them, the way
 * Milvus' grammar reads double-quoted literals (`\\` and `\"` escapes). Throws on an unterminated
 * literal or an escape other than those two.
 */
export function tokenize(expr: string): { skeleton: string; literals: string[] } {
  let skeleton = '';
  const literals: string[] = [];
  let i = 0;
  while (i < expr.length) {
    const ch = expr[i]!;
    if (ch === "'") throw new Error(`single quote outside a literal at ${i}`);
    if (ch !== '"') {
      skeleton += ch;
      i++;
      continue;
    }
    let lit = '';
    i++;
    for (;;) {
      if (i >= expr.length) throw new Error('unterminated string literal');
      const c = expr[i]!;
      if (c === '\\') {
        const next = expr[i + 1];
        if (next !== '\\' && next !== '"') throw new Error(`unexpected escape \\${next}`);
        lit += next;
        i += 2;
      } else if (c === '"') {
        i++;
        break;
      } else {
        lit += c;
        i++;
      }
    }
    literals.push(lit);
    skeleton += '""';
  }
  return { skeleton, literals };
}
