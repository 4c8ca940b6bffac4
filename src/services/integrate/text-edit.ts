// Edits of agents' configuration text that can be undone exactly: marked blocks in TOML and Markdown,
// and entries in JSON settings (other keys, their order and the file's indentation are kept). Pure.
import { UsageError } from '../../errors.js';

export interface Markers {
  begin: string;
  end: string;
}

/** The text with this block in place of any earlier copy of it; at the end, or at the start. */
export function withBlock(text: string | null, body: string, m: Markers, at: 'start' | 'end' = 'end'): string {
  const base = withoutBlock(text ?? '', m);
  const block = `${m.begin}\n${body.trimEnd()}\n${m.end}\n`;
  if (base === '') return block;
  if (at === 'start') return `${block}\n${base}`;
  return `${base}${base.endsWith('\n') ? '' : '\n'}\n${block}`;
}

/** The text without the block (and the blank line set before or after it). */
export function withoutBlock(text: string, m: Markers): string {
  const start = text.indexOf(`${m.begin}\n`);
  if (start < 0) return text;
  const endAt = text.indexOf(`${m.end}\n`, start);
  if (endAt < 0) return text;
  let before = text.slice(0, start);
  let after = text.slice(endAt + m.end.length + 1);
  if (before === '' && after.startsWith('\n')) after = after.slice(1);
  else if (before.endsWith('\n\n')) before = before.slice(0, -1);
  return before + after;
}

export type JsonObject = Record<string, unknown>;

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A settings file's object ({} for a missing or blank file); a clear error, by path and line, otherwise. */
export function parseJsonObject(text: string | null, path: string): JsonObject {
  if (text === null || text.trim() === '') return {};
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    const pos = /position (\d+)/.exec((err as Error).message);
    const line = pos ? text.slice(0, Number(pos[1])).split('\n').length : 1;
    throw new UsageError(`${path}:${line}: not valid JSON (${(err as Error).message}); fix it, then run mem integrate again (nothing was changed)`);
  }
  if (!isObject(data)) throw new UsageError(`${path}:1: expected a JSON object; nothing was changed`);
  return data;
}

/** JSON text indented like the original (two spaces by default), ending with a newline like it. */
export function stringifyLike(value: JsonObject, original: string | null): string {
  const indent = original ? (/^([ \t]+)"/m.exec(original)?.[1] ?? '  ') : '  ';
  const newline = original === null || original === '' || original.endsWith('\n') ? '\n' : '';
  return `${JSON.stringify(value, null, indent)}${newline}`;
}

/** A hook group in Claude Code's and Gemini CLI's settings shape: { matcher?, hooks: [ {type, command, ...} ] }. */
export interface HookSpec {
  event: string;
  matcher?: string;
  hook: JsonObject & { command: string };
}

/** Settings without hook commands that `ours` recognises; empty groups and events are dropped. */
export function withoutHooks(settings: JsonObject, ours: (command: string) => boolean): JsonObject {
  if (!isObject(settings.hooks)) return settings;
  const hooks: JsonObject = {};
  for (const [event, groups] of Object.entries(settings.hooks)) {
    if (!Array.isArray(groups)) {
      hooks[event] = groups;
      continue;
    }
    const kept = groups.flatMap((g) => {
      if (!isObject(g) || !Array.isArray(g.hooks)) return [g];
      const rest = g.hooks.filter((h) => !(isObject(h) && typeof h.command === 'string' && ours(h.command)));
      if (rest.length === g.hooks.length) return [g];
      return rest.length ? [{ ...g, hooks: rest }] : [];
    });
    if (kept.length) hooks[event] = kept;
  }
  const { hooks: _old, ...rest } = settings;
  return Object.keys(hooks).length ? { ...settings, hooks } : rest;
}

/** Settings with these hook groups added (after removing any earlier copy of ours). */
export function withHooks(settings: JsonObject, specs: HookSpec[], ours: (command: string) => boolean): JsonObject {
  const base = withoutHooks(settings, ours);
  const hooks: JsonObject = isObject(base.hooks) ? { ...base.hooks } : {};
  for (const s of specs) {
    const groups = Array.isArray(hooks[s.event]) ? [...(hooks[s.event] as unknown[])] : [];
    groups.push({ ...(s.matcher ? { matcher: s.matcher } : {}), hooks: [s.hook] });
    hooks[s.event] = groups;
  }
  // Where the file had its hooks key, it stays (a second install must give the same text).
  return 'hooks' in settings ? { ...settings, ...base, hooks } : { ...base, hooks };
}

/** Settings with these entries under a key such as mcpServers (replacing same-named ones). */
export function withEntries(settings: JsonObject, key: string, entries: JsonObject): JsonObject {
  const current = isObject(settings[key]) ? (settings[key] as JsonObject) : {};
  return { ...settings, [key]: { ...current, ...entries } };
}

export function withoutEntries(settings: JsonObject, key: string, names: string[]): JsonObject {
  if (!isObject(settings[key])) return settings;
  const rest = Object.fromEntries(Object.entries(settings[key] as JsonObject).filter(([k]) => !names.includes(k)));
  if (Object.keys(rest).length) return { ...settings, [key]: rest };
  const { [key]: _gone, ...others } = settings;
  return others;
}
