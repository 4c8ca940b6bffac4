// The keyword form of a text, for BM25: English words Porter-stemmed and stop words dropped, other
// scripts kept as they are (the index's jieba tokenizer segments Chinese). The same function serves
// documents and queries, so "painting" in one meets "paints" in the other. Pure.
import { stemmer } from 'stemmer';

// A short list: function words only, so a query made of content words never loses one.
const STOP_WORDS = new Set(
  (
    'a an and are as at be been but by did do does for from had has have he her hers him his how i if in into is it its ' +
    'me my of on or our she so than that the their them then there these they this those to was we were what when where ' +
    'which who whom why will with you your'
  ).split(' '),
);

// Latin-script words (with inner apostrophes or hyphens); everything else is passed through.
const WORD = /[\p{Script=Latin}\d]+(?:['’][\p{Script=Latin}]+)*/gu;

/** A function word of the keyword form's list ("the", "which", ...). */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word.toLowerCase());
}

export function lexicalForm(text: string): string {
  return text.replace(WORD, (word) => {
    const lower = word.toLowerCase().replace(/['’]s$/, '');
    if (STOP_WORDS.has(lower)) return ' ';
    return /^\d+$/.test(lower) ? lower : stemmer(lower);
  });
}
