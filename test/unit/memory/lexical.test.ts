// The keyword form used for BM25: stemming, stop words, other scripts untouched.
import { describe, expect, it } from 'vitest';

import { lexicalForm } from '../../../src/memory/lexical.js';

const tokens = (text: string) =>
  lexicalForm(text)
    .split(/[\s.,;:?!()]+/)
    .filter(Boolean);

describe('lexicalForm', () => {
  it('stems English words so inflections meet', () => {
    expect(tokens('She was painting sunsets')).toEqual(tokens('paints a sunset'));
    expect(tokens('Caroline’s paintings')).toEqual(['carolin', 'paint']);
  });

  it('drops function words but keeps content words and numbers', () => {
    expect(tokens('What did he do in 2023 at the lake?')).toEqual(['2023', 'lake']);
  });

  it('passes Chinese through untouched for the index tokenizer', () => {
    expect(lexicalForm('用户明确表示不接受股票类高风险产品')).toBe('用户明确表示不接受股票类高风险产品');
    expect(tokens('用户 likes stocks')).toEqual(['用户', 'like', 'stock']);
  });

  it('is the same function for documents and queries (idempotent on its own output)', () => {
    const once = lexicalForm('Running races in Munich');
    expect(tokens(lexicalForm(once))).toEqual(tokens(once));
  });
});
