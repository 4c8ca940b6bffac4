// Edits of agents' configuration text that can be undone exactly: marked blocks in TOML and Markdown,
// and entries in JSON settings objects (other keys and their order are kept). Pure.
import { isObject, type JsonObject } from './json-edit.js';

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

/** A value memdir would have to replace to add its own: the person's file is not in the shape the agent documents. */
export class UnexpectedShape extends Error {
  constructor(
    readonly at: string[],
    readonly expected: string,
  ) {
    super(`"${at.join('.')}" is not ${expected}`);
  }
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

/** Settings with these hook groups added (after removing any earlier copy of ours); a value in the way is never replaced. */
export function withHooks(settings: JsonObject, specs: HookSpec[], ours: (command: string) => boolean): JsonObject {
  if (settings.hooks !== undefined && !isObject(settings.hooks)) throw new UnexpectedShape(['hooks'], 'an object of events');
  for (const s of specs) {
    const groups = (settings.hooks as JsonObject | undefined)?.[s.event];
    if (groups !== undefined && !Array.isArray(groups)) throw new UnexpectedShape(['hooks', s.event], 'a list of hook groups');
  }
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
  if (settings[key] !== undefined && !isObject(settings[key])) throw new UnexpectedShape([key], 'an object of named entries');
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
