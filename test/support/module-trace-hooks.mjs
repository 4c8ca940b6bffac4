// The loader hooks of module-trace.mjs: records each module's URL before it loads.
import { appendFileSync } from 'node:fs';

let file;

export function initialize(data) {
  file = data;
}

export async function load(url, context, next) {
  if (file) appendFileSync(file, `${url}\n`);
  return next(url, context);
}
