// A context block as it goes into a model's input from the prompt hook: rendered from the search's results, then any
// secret a memory holds masked. One piece for both places that render it (the warm daemon, and the hook itself when
// an older daemon did not), so the two cannot drift apart.
import { maskSecrets } from '../../memory/secrets.js';
import type { SearchResult } from '../search.js';
import { formatContext, type ContextLabel } from './context.js';

export async function maskedContext(results: SearchResult[], user: string, tokens: number, label: ContextLabel): Promise<string> {
  return maskSecrets(formatContext(results, user, tokens, label).text);
}
