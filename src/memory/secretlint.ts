// Runs secretlint's recommended rule preset (cloud and SaaS token formats, kept up to date by its maintainers)
// over a text in memory; loaded on first use, so commands that never check a text do not pay for it.
import type { lintSource } from '@secretlint/core';

import type { SecretSpan } from './secret-rules.js';

type Config = Parameters<typeof lintSource>[0]['options']['config'];

let config: Promise<{ lint: typeof lintSource; config: Config }> | undefined;

function load() {
  config ??= Promise.all([import('@secretlint/core'), import('@secretlint/secretlint-rule-preset-recommend')]).then(([core, preset]) => ({
    lint: core.lintSource,
    config: {
      rules: [
        {
          id: preset.creator.meta.id,
          rule: preset.creator,
          rules: [
            // AWS access key ids (AKIA…) are off by default in the preset; a memory file is no place for one either.
            { id: '@secretlint/secretlint-rule-aws', options: { enableIDScanRule: true } },
            // A `secretlint-disable` comment in the text must not turn the check off: the text is not ours to trust.
            { id: '@secretlint/secretlint-rule-filter-comments', disabled: true },
          ],
        },
      ],
    },
  }));
  return config;
}

/** Loads secretlint ahead of its first use (a hook overlaps that with its wait for the search daemon). */
export async function prepareSecretlint(): Promise<void> {
  await load();
}

/** "found GitHub Token(****): ****" → "GitHub Token": the rule's own words, never the (masked) secret. */
function kindOf(message: string): string {
  const kind = message
    .replace(/^found\s+/i, '')
    .replace(/\(.*?\)/g, '')
    .replace(/:[\s\S]*$/, '')
    .trim();
  return kind || 'secret';
}

// Some rules report `NAME = value` from the name on: the name is no secret, and stays readable.
const NAME_HEAD = /^["']?[A-Za-z0-9_.-]+["']?\s*(?::|=>|=)(?!\/\/)\s*["']?/;

/** The spans secretlint's preset reports, as found in `text` (the ranges of some rules end early: callers widen them). */
export async function secretlintSpans(text: string): Promise<SecretSpan[]> {
  const { lint, config: rules } = await load();
  const result = await lint({
    source: { content: text, filePath: 'memory.md', ext: '.md', contentType: 'text' },
    options: { config: rules, maskSecrets: true, noPhysicFilePath: true },
  });
  return result.messages.map((m) => {
    const start = m.range[0] + (NAME_HEAD.exec(text.slice(m.range[0], m.range[1]))?.[0].length ?? 0);
    return {
      kind: kindOf(m.message),
      reason: `secretlint ${m.ruleId.replace(/^@secretlint\/secretlint-rule-/, '')} rule (${m.messageId})`,
      start,
      end: Math.max(start, m.range[1]),
    };
  });
}
