// Covers the layer rules: what each folder and top-level file of src/ may import (services/core/ below the use
// cases, each adapter apart from the others but the local state one), that the import graph has no cycles, that no
// comment cites the project's history instead of saying why, that only config.ts reads process.env, that only cli/
// talks to the console or exits, that every package src/ imports is a declared dependency, that the shipped product
// (src/) never imports the dev-only benchmarks (bench/) nor its own internal door (src/internal.ts), and that the
// benchmarks reach the product only through its entry points (`memdir`, dist/internal.js), and that services/ name the
// index's roles, never the whole index. Each rule is also shown to catch a planted violation.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(REPO, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const abs = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(abs);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [abs] : [];
  });
}

interface SourceFile {
  /** Path relative to src/, forward slashes. */
  path: string;
  text: string;
  /** Relative imports resolved to src-relative paths ("services/ports.ts"); packages as written ("openai"). */
  imports: string[];
}

/** Static, re-export, side-effect and dynamic import specifiers, read with the TypeScript pre-processor. */
function importsOf(file: string, text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map(({ fileName }) => {
    if (!fileName.startsWith('.')) return fileName;
    const abs = resolve(dirname(file), fileName).replace(/\.js$/, '.ts');
    return relative(SRC, abs).split('\\').join('/');
  });
}

const FILES: SourceFile[] = sourceFiles(SRC).map((abs) => {
  const text = readFileSync(abs, 'utf8');
  return { path: relative(SRC, abs).split('\\').join('/'), text, imports: importsOf(abs, text) };
});

/** A file as if it were in src/ (for planting violations). */
const planted = (path: string, text: string): SourceFile => ({ path, text, imports: importsOf(join(SRC, path), text) });

// ---- packages -------------------------------------------------------------------------------------

const PACKAGE = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const DEPENDENCIES = Object.keys(PACKAGE.dependencies);

/** The package an import specifier names ("@scope/name/sub.js" -> "@scope/name"); null for node: and src/ files (resolved to ".ts"). */
function packageOf(spec: string): string | null {
  if (spec.startsWith('node:') || spec.endsWith('.ts') || spec.startsWith('.')) return null;
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}
const isRelative = (spec: string) => !spec.startsWith('node:') && packageOf(spec) === null;

// Libraries that compute without touching an outside system; every other dependency in package.json
// (an index, model, VCS, file-watch, terminal or protocol client) counts as an outside system.
const PURE = [
  'gray-matter',
  'mdast-util-from-markdown',
  'zod',
  'stemmer',
  'ms',
  'chrono-node',
  'jsonc-parser',
  '@secretlint/core',
  '@secretlint/secretlint-rule-preset-recommend',
  'node-diff3',
];
const isOutsideSystem = (spec: string, allowed: string[] = []) => {
  const pkg = packageOf(spec);
  return pkg !== null && !PURE.includes(pkg) && !allowed.includes(pkg);
};

// ---- layers ---------------------------------------------------------------------------------------

const FOLDERS = ['memory', 'services', 'adapters', 'cli', 'mcp', 'daemon', 'open'] as const;
const TOP_LEVEL = ['config.ts', 'errors.ts', 'index.ts', 'internal.ts', 'open-memory.ts', 'server-control.ts'];

const under = (prefix: string) => (i: string) => i.startsWith(`${prefix}/`);
const is =
  (...paths: string[]) =>
  (i: string) =>
    paths.includes(i);
const any =
  (...checks: ((i: string) => boolean)[]) =>
  (i: string) =>
    checks.some((c) => c(i));

const ENTRY_POINTS = any(under('cli'), under('mcp'), under('daemon'));
/** The internal door: what the dev-only benchmarks reach beyond the library API; re-exports only, not in "exports". */
const KIT = 'internal.ts';
/** An import that leaves src/ (resolved against it, "../bench/locomo/run.ts"): the shipped product never does. */
const outsideSrc = (i: string) => i.startsWith('../');
/** The composition root (open-memory.ts and the steps of opening a root, open/), server control and the library API. */
const ROOTS = any(is('open-memory.ts', 'server-control.ts', 'index.ts'), under('open'));
/** The daemon's socket client and its wire format: how another process reaches a running daemon. */
const DAEMON_CLIENT = is('adapters/daemon/client.ts', 'adapters/daemon/protocol.ts');

/** Each folder of adapters/ holds one outside system (state/: memdir's local state files and locks). */
const ADAPTER_FOLDERS = readdirSync(join(SRC, 'adapters'), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name);

interface Rule {
  name: string;
  /** Which files the rule is about. */
  applies: (path: string) => boolean;
  forbidden: (spec: string) => boolean;
}

const RULES: Rule[] = [
  {
    name: 'memory/ is pure: only memory/, errors.ts and pure libraries',
    applies: under('memory'),
    forbidden: (i) => (isRelative(i) && !i.startsWith('memory/') && i !== 'errors.ts') || isOutsideSystem(i),
  },
  {
    name: 'services/ import memory/, errors.ts and other services only: no adapters, entry points, config or composition root',
    applies: under('services'),
    forbidden: (i) => (isRelative(i) && !i.startsWith('memory/') && !i.startsWith('services/') && i !== 'errors.ts') || isOutsideSystem(i),
  },
  {
    // Use cases build on core (sync, links, documents, purge); core knows no use case above it.
    name: 'services/core/ imports memory/, errors.ts, the ports and core/ only: no use case above it',
    applies: under('services/core'),
    forbidden: (i) => isRelative(i) && !i.startsWith('memory/') && !i.startsWith('services/core/') && !is('services/ports.ts', 'errors.ts')(i),
  },
  ...ADAPTER_FOLDERS.map((folder): Rule => ({
    // Each adapter holds one outside system; the local state primitives (locks, state folders) serve them all.
    name: `adapters/${folder}/ imports no other adapter${folder === 'state' ? '' : ' but adapters/state/'}`,
    applies: under(`adapters/${folder}`),
    forbidden: (i) => under('adapters')(i) && !under(`adapters/${folder}`)(i) && !(folder !== 'state' && under('adapters/state')(i)),
  })),
  {
    // The daemon's client side (its socket client, wire format, and the index reached through it) is adapters/daemon/.
    name: 'adapters/ import no entry point or composition root, and from services/ only the ports',
    applies: under('adapters'),
    forbidden: any(ENTRY_POINTS, ROOTS, (i) => i.startsWith('services/') && i !== 'services/ports.ts'),
  },
  {
    // The `mem` command line dispatches to the other entry points (mem mcp, mem daemon). It talks to the daemon, another
    // process, through the daemon's socket client: light, so the fast path of `mem search` loads no composition root.
    name: "cli/ imports no adapters but the daemon's socket client (nor the internal door) and neither the Milvus nor the OpenAI SDK",
    applies: under('cli'),
    forbidden: any(
      (i) => under('adapters')(i) && !DAEMON_CLIENT(i),
      is(KIT),
      (i) => ['@zilliz/milvus2-sdk-node', 'openai'].includes(packageOf(i) ?? ''),
    ),
  },
  {
    name: 'mcp/ is a thin shell: services and types only, no adapters, composition root, config, other entry points or SDKs but its own',
    applies: under('mcp'),
    forbidden: any(under('adapters'), ROOTS, is('config.ts'), under('cli'), under('daemon'), (i) => isOutsideSystem(i, ['@modelcontextprotocol/sdk'])),
  },
  {
    // The server speaks the wire format its clients speak, defined once beside the client (adapters/daemon/protocol.ts),
    // and nothing else of the client side: it never asks a daemon itself.
    name: 'daemon/ is a thin shell like mcp/: no adapters but the wire format, composition root, config, other entry points or SDKs',
    applies: under('daemon'),
    forbidden: any(
      (i) => under('adapters')(i) && i !== 'adapters/daemon/protocol.ts',
      ROOTS,
      is('config.ts'),
      under('cli'),
      under('mcp'),
      (i) => isOutsideSystem(i),
    ),
  },
  {
    // The benchmarks live in bench/ at the repository's root, compiled apart (dist-bench/), and the package does not ship them.
    name: 'src/ (the shipped product) imports nothing outside src/ (the dev-only bench/ least of all), nor its internal door',
    applies: () => true,
    forbidden: any(outsideSrc, is(KIT)),
  },
  {
    // What the benchmarks need beyond the library API (server control, the raw index, parser and chunker, tuned search).
    name: 'internal.ts (the internal door) re-exports for bench/ and scripts/bench/: no cli/, mcp/, daemon/, and no package directly',
    applies: is(KIT),
    forbidden: any(under('cli'), under('mcp'), under('daemon'), (i) => packageOf(i) !== null),
  },
  {
    name: 'errors.ts imports nothing',
    applies: is('errors.ts'),
    forbidden: () => true,
  },
  {
    name: 'config.ts imports only memory/, errors.ts and node',
    applies: is('config.ts'),
    forbidden: (i) => !i.startsWith('node:') && !i.startsWith('memory/') && i !== 'errors.ts',
  },
  {
    name: 'the composition root and server control import no entry point',
    applies: is('open-memory.ts', 'server-control.ts'),
    forbidden: any(ENTRY_POINTS, is('index.ts')),
  },
  {
    // open-memory.ts composes the steps; a step never reaches back into it (or another root) nor into an entry point.
    name: 'open/ (the steps of opening a root) imports no entry point, nor open-memory.ts, server-control.ts or index.ts',
    applies: under('open'),
    forbidden: any(ENTRY_POINTS, is('open-memory.ts', 'server-control.ts', 'index.ts')),
  },
  {
    name: 'index.ts (the library API) exports no adapters or entry points',
    applies: is('index.ts'),
    forbidden: any(under('adapters'), ENTRY_POINTS, (i) => packageOf(i) !== null),
  },
];

const PRODUCT_RULE = RULES.find((r) => r.name.startsWith('src/ (the shipped product)'))!;

/** Imports that break a rule, as "file -> import" strings (empty when clean). */
function violations(rule: Rule, files: SourceFile[] = FILES): string[] {
  return files.filter((f) => rule.applies(f.path)).flatMap((f) => f.imports.filter(rule.forbidden).map((i) => `${f.path} -> ${i}`));
}

/** Every import cycle among src/ files, each as "a -> b -> a". */
function cycles(files: SourceFile[]): string[] {
  const graph = new Map(files.map((f) => [f.path, f.imports.filter((i) => files.some((g) => g.path === i))]));
  const found: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next].join(' -> '));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return found;
}

// ---- syntax checks --------------------------------------------------------------------------------

/** `object.property` (or `object['property']`) uses found in the syntax tree: comments and strings don't count. */
function propertyUses(file: SourceFile, matches: (obj: string, prop: string | null) => boolean): string[] {
  const sf = ts.createSourceFile(file.path, file.text, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const at = (node: ts.Node) => `${file.path}:${sf.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const visit = (node: ts.Node) => {
    if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && matches(node.expression.text, node.name.text)) {
      found.push(`${at(node)} ${node.expression.text}.${node.name.text}`);
    }
    if (ts.isElementAccessExpression(node) && ts.isIdentifier(node.expression)) {
      const arg = node.argumentExpression;
      const prop = ts.isStringLiteral(arg) ? arg.text : null;
      if (matches(node.expression.text, prop)) found.push(`${at(node)} ${node.expression.text}[...]`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

const consoleAndExitUses = (file: SourceFile) =>
  propertyUses(file, (obj, prop) => obj === 'console' || (obj === 'process' && (prop === 'exit' || prop === 'exitCode')));
const envUses = (file: SourceFile) => propertyUses(file, (obj, prop) => obj === 'process' && (prop === 'env' || prop === null));

/** Where a file names `name` as an identifier (an import, a type): comments and strings don't count. */
function identifierUses(file: SourceFile, name: string): string[] {
  const sf = ts.createSourceFile(file.path, file.text, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node) && node.text === name) found.push(`${file.path}:${sf.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** Files of services/ that name the whole index rather than the roles they use (ports.ts declares it). */
const wholeIndexUses = (files: SourceFile[]) =>
  files.filter((f) => f.path.startsWith('services/') && f.path !== 'services/ports.ts').flatMap((f) => identifierUses(f, 'VectorIndex'));

/** Top-level statements of a file that are not `export ... from '...'`, as "file:line". */
function nonReExports(file: SourceFile): string[] {
  const sf = ts.createSourceFile(file.path, file.text, ts.ScriptTarget.ES2022, true);
  return sf.statements
    .filter((s) => !(ts.isExportDeclaration(s) && s.moduleSpecifier !== undefined))
    .map((s) => `${file.path}:${sf.getLineAndCharacterOfPosition(s.getStart()).line + 1}`);
}

/** Where a comment cites the project's history (a notebook section, an issue, a round, a review log) instead of saying why. */
const HISTORY =
  /§ ?\d|\bsections? \d|benchmarks\.md|\bissue \d|\bround (?:\d|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b|review-\w+\.md|model-choice\.md/i;

function historyCitations(file: SourceFile): string[] {
  const found = new Set<string>();
  const sf = ts.createSourceFile(file.path, file.text, ts.ScriptTarget.ES2022, true);
  const scanner = ts.createScanner(ts.ScriptTarget.ES2022, false, ts.LanguageVariant.Standard, file.text);
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    const isComment = kind === ts.SyntaxKind.SingleLineCommentTrivia || kind === ts.SyntaxKind.MultiLineCommentTrivia;
    if (!isComment || !HISTORY.test(scanner.getTokenText())) continue;
    const start = scanner.getTokenStart();
    const lines = scanner.getTokenText().split('\n');
    lines.forEach((line, i) => {
      if (HISTORY.test(line)) found.add(`${file.path}:${sf.getLineAndCharacterOfPosition(start).line + 1 + i}`);
    });
  }
  return [...found];
}

// ---- benchmarks (scripts/bench/, bench/) -----------------------------------------------------------

const SCRIPTS_DIR = join(REPO, 'scripts', 'bench');
/** What a benchmark may import of the product: the library (by package name or path) and the internal door. */
const PUBLIC = ['memdir', 'dist/index.js', 'dist/internal.js'];

/** A script's imports: relative ones resolved to repo-relative paths ("dist/index.js", "scripts/bench/corpus.mjs"). */
const plantedScript = (path: string, text: string): SourceFile => ({
  path,
  text,
  imports: ts.preProcessFile(text, true, true).importedFiles.map(({ fileName }) =>
    fileName.startsWith('.')
      ? relative(REPO, resolve(dirname(join(REPO, path)), fileName))
          .split('\\')
          .join('/')
      : fileName,
  ),
});
const SCRIPTS: SourceFile[] = readdirSync(SCRIPTS_DIR)
  .filter((n) => n.endsWith('.mjs') || n.endsWith('.js'))
  .map((n) => plantedScript(`scripts/bench/${n}`, readFileSync(join(SCRIPTS_DIR, n), 'utf8')));
/** The LoCoMo benchmark's sources (bench/, compiled apart into dist-bench/). */
const BENCH: SourceFile[] = readdirSync(join(REPO, 'bench'), { recursive: true, encoding: 'utf8' })
  .filter((n) => n.endsWith('.ts'))
  .map((n) => plantedScript(`bench/${n.split('\\').join('/')}`, readFileSync(join(REPO, 'bench', n), 'utf8')));

/** Imports of src/, dist/ or the package other than its entry points, and computed import() calls (which hide them). */
function scriptViolations(file: SourceFile): string[] {
  const bad = file.imports
    .filter((i) => (i.startsWith('src/') || i.startsWith('dist/') || i === 'memdir' || i.startsWith('memdir/')) && !PUBLIC.includes(i))
    .map((i) => `${file.path} -> ${i}`);
  const sf = ts.createSourceFile(file.path, file.text, ts.ScriptTarget.ES2022, true);
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && !ts.isStringLiteralLike(node.arguments[0]!)) {
      bad.push(`${file.path}:${sf.getLineAndCharacterOfPosition(node.getStart()).line + 1} computed import()`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return bad;
}

// ---- tests ----------------------------------------------------------------------------------------

describe('architecture', () => {
  it('finds the source files of every layer and reads their imports', () => {
    for (const layer of FOLDERS) expect(FILES.filter((f) => f.path.startsWith(`${layer}/`)).length, layer).toBeGreaterThan(0);
    const sync = FILES.find((f) => f.path === 'services/core/sync.ts')!;
    // Dynamic imports are seen too (sync loads the parser with the first file it reads).
    expect(sync.imports).toContain('services/core/file-records.ts');
    expect(FILES.find((f) => f.path === 'services/core/file-records.ts')!.imports).toContain('memory/parse.ts');
    expect(sync.imports).toContain('services/ports.ts');
    expect(FILES.find((f) => f.path === 'open-memory.ts')!.imports).toContain('open/connect.ts');
    // Dynamic imports are seen too.
    expect(FILES.find((f) => f.path === 'open/index-client.ts')!.imports).toContain('adapters/milvus/lazy-index.ts');
    expect(FILES.find((f) => f.path === 'adapters/milvus/milvus-index.ts')!.imports).toContain('@zilliz/milvus2-sdk-node');
  });

  it('the import reader handles multi-line, type-only, re-export, side-effect and dynamic imports', () => {
    const text = "import type {\n  A,\n} from '../services/ports.js';\nexport * from './x.js';\nimport 'commander';\nawait import('../cli/main.js');\n";
    expect(importsOf(join(SRC, 'memory', 'probe.ts'), text)).toEqual(['services/ports.ts', 'memory/x.ts', 'commander', 'cli/main.ts']);
  });

  it('every file of src/ sits in a known layer or is a known top-level file', () => {
    const unknown = FILES.filter((f) => !TOP_LEVEL.includes(f.path) && !FOLDERS.some((l) => f.path.startsWith(`${l}/`)));
    expect(unknown.map((f) => f.path)).toEqual([]);
    for (const top of TOP_LEVEL)
      expect(
        FILES.some((f) => f.path === top),
        top,
      ).toBe(true);
  });

  it.each(RULES.map((r) => [r.name, r] as const))('%s', (_name, rule) => {
    expect(FILES.some((f) => rule.applies(f.path))).toBe(true);
    expect(violations(rule)).toEqual([]);
  });

  it('each layer rule catches a planted violation', () => {
    const plants: Record<string, SourceFile> = {
      'memory/': planted('memory/probe.ts', "import type { VectorIndex } from '../services/ports.js';"),
      'services/': planted('services/probe.ts', "import { MilvusIndex } from '../adapters/milvus/milvus-index.js';"),
      'adapters/': planted('adapters/x/probe.ts', "import { addMemory } from '../../services/add.js';"),
      'services/core/': planted('services/core/probe.ts', "import { DEFAULT_FUSION } from '../retrieval/fuse.js';"),
      ...Object.fromEntries(
        ADAPTER_FOLDERS.map((folder) => [
          `adapters/${folder}/`,
          planted(`adapters/${folder}/probe.ts`, `import { x } from '../${folder === 'milvus' ? 'git' : 'milvus'}/probe.js';`),
        ]),
      ),
      'cli/': planted('cli/probe.ts', "import OpenAI from 'openai';"),
      'mcp/': planted('mcp/probe.ts', "import { openMemory } from '../open-memory.js';"),
      'daemon/': planted('daemon/probe.ts', "import { loadConfig } from '../config.js';"),
      'internal.ts': planted('internal.ts', "export { main } from './cli/main.js';"),
      'errors.ts': planted('errors.ts', "import { x } from './memory/ids.js';"),
      'config.ts': planted('config.ts', "import { DEFAULT_FUSION } from './services/retrieval/fuse.js';"),
      'open-memory.ts': planted('open-memory.ts', "import { main } from './cli/main.js';"),
      'open/': planted('open/probe.ts', "import { openMemory } from '../open-memory.js';"),
      'index.ts': planted('index.ts', "export { FileLock } from './adapters/state/file-lock.js';"),
    };
    for (const rule of RULES.filter((r) => r !== PRODUCT_RULE)) {
      const plant = Object.entries(plants).find(([prefix]) => rule.applies(prefix.endsWith('/') ? `${prefix}probe.ts` : prefix));
      expect(plant, rule.name).toBeDefined();
      expect(violations(rule, [plant![1]]), rule.name).toHaveLength(1);
    }
    // A new dependency counts as an outside system until it is named pure.
    expect(violations(RULES[1]!, [planted('services/probe.ts', "import got from 'got';")])).toEqual(['services/probe.ts -> got']);
    expect(violations(RULES[1]!, [planted('services/probe.ts', "import { z } from 'zod';")])).toEqual([]);
    // The door is no way around the rules: the CLI may not import it.
    const rule = (prefix: string) => RULES.find((r) => r !== PRODUCT_RULE && r.applies(`${prefix}probe.ts`))!;
    expect(violations(rule('cli/'), [planted('cli/probe.ts', "import { MilvusIndex } from '../internal.js';")])).toHaveLength(1);
    // No file of the product imports the benchmarks or the door, in any layer, statically or not.
    expect(
      violations(PRODUCT_RULE, [
        planted('cli/probe.ts', "const { runLocomo } = await import('../../bench/locomo/run.js');"),
        planted('services/probe.ts', "import type { RankingTuning } from '../internal.js';"),
        planted('open-memory.ts', "import { ABLATIONS } from '../bench/locomo/run.js';"),
      ]),
    ).toEqual(['cli/probe.ts -> ../bench/locomo/run.ts', 'services/probe.ts -> internal.ts', 'open-memory.ts -> ../bench/locomo/run.ts']);
    expect(violations(PRODUCT_RULE, [planted('cli/probe.ts', "import { x } from '../services/search.js';")])).toEqual([]);
    // No adapter reaches into the daemon; the CLI uses the daemon's socket client only; the daemon its wire format only.
    expect(violations(rule('adapters/x/'), [planted('adapters/x/probe.ts', "import { runDaemon } from '../../daemon/server.js';")])).toHaveLength(1);
    expect(violations(rule('cli/'), [planted('cli/probe.ts', "import { askDaemon } from '../adapters/daemon/client.js';")])).toEqual([]);
    expect(violations(rule('cli/'), [planted('cli/probe.ts', "import { DaemonIndex } from '../adapters/daemon/daemon-index.js';")])).toHaveLength(1);
    expect(violations(rule('daemon/'), [planted('daemon/probe.ts', "import { socketPath } from '../adapters/daemon/protocol.js';")])).toEqual([]);
    expect(violations(rule('daemon/'), [planted('daemon/probe.ts', "import { askDaemon } from '../adapters/daemon/client.js';")])).toHaveLength(1);
  });

  it('the internal door only re-exports (no logic of its own), and package.json exports the library alone', () => {
    const kit = FILES.find((f) => f.path === KIT)!;
    expect(kit).toBeDefined();
    expect(nonReExports(kit)).toEqual([]);
    expect(nonReExports(planted(KIT, "export { a } from '../memory/ids.js';\nexport const b = 1;\nimport { c } from './x.js';"))).toEqual([
      'internal.ts:2',
      'internal.ts:3',
    ]);
    expect(Object.keys(PACKAGE.exports)).toEqual(['.']);
  });

  it('scripts/bench/ and bench/ reach the product through memdir and the internal door only (no src/, no other dist/ module)', () => {
    expect(SCRIPTS.length).toBeGreaterThan(5);
    expect(BENCH.map((f) => f.path)).toContain('bench/locomo/run.ts');
    expect([...SCRIPTS, ...BENCH].flatMap(scriptViolations)).toEqual([]);
    // They do use the entry points (the rule is not vacuous).
    const used = new Set([...SCRIPTS, ...BENCH].flatMap((f) => f.imports));
    expect(used).toContain('memdir');
    expect(used).toContain('dist/internal.js');
    expect(scriptViolations(plantedScript('bench/locomo/probe.ts', "import { searchMemories } from '../../src/services/search.js';"))).toEqual([
      'bench/locomo/probe.ts -> src/services/search.js',
    ]);
    const plant = (text: string) => scriptViolations(plantedScript('scripts/bench/probe.mjs', text));
    expect(plant("import { resolveLinks } from '../../dist/services/core/links.js';")).toEqual(['scripts/bench/probe.mjs -> dist/services/core/links.js']);
    expect(plant("const dist = (p) => import(join(REPO, 'dist', p));")).toEqual(['scripts/bench/probe.mjs:1 computed import()']);
    expect(plant("import { x } from 'memdir/dist/memory/parse.js';")).toEqual(['scripts/bench/probe.mjs -> memdir/dist/memory/parse.js']);
    expect(plant("import { openMemory } from '../../dist/index.js';\nimport { MilvusIndex } from '../../dist/internal.js';")).toEqual([]);
    expect(plant("import { runLocomo } from '../../dist-bench/locomo/run.js';")).toEqual([]);
    expect(plant("import { prng } from './corpus.mjs';\nimport { spawn } from 'node:child_process';")).toEqual([]);
  });

  it('the import graph of src/ has no cycles (and the check finds a planted one)', () => {
    expect(cycles(FILES)).toEqual([]);
    const a = planted('services/a.ts', "import { b } from './b.js';");
    const b = planted('services/b.ts', "import type { A } from './a.js';");
    expect(cycles([a, b, planted('services/c.ts', "import { a } from './a.js';")])).toEqual(['services/a.ts -> services/b.ts -> services/a.ts']);
  });

  it('every package src/ imports is a runtime dependency in package.json, and the pure list names only those', () => {
    const used = new Set(FILES.flatMap((f) => f.imports.map(packageOf).filter((p): p is string => p !== null)));
    expect([...used].filter((p) => !DEPENDENCIES.includes(p))).toEqual([]);
    expect(PURE.filter((p) => !DEPENDENCIES.includes(p))).toEqual([]);
    expect(packageOf('@modelcontextprotocol/sdk/server/mcp.js')).toBe('@modelcontextprotocol/sdk');
    expect(packageOf('node:fs')).toBeNull();
    expect(packageOf('services/ports.ts')).toBeNull();
  });

  it('only config.ts reads process.env (and the check sees process.env and process["env"], not comments)', () => {
    expect(FILES.filter((f) => f.path !== 'config.ts').flatMap(envUses)).toEqual([]);
    expect(envUses(FILES.find((f) => f.path === 'config.ts')!).length).toBeGreaterThan(0);
    expect(envUses(planted('cli/probe.ts', "const u = process.env.MEM_USER;\nconst d = process['env'];\n// process.env.X"))).toEqual([
      'cli/probe.ts:1 process.env',
      'cli/probe.ts:2 process[...]',
    ]);
  });

  it('comments say why in their own words: none cites a notebook section, an issue, a round or a review log', () => {
    expect(FILES.flatMap(historyCitations)).toEqual([]);
    const plant = planted('services/probe.ts', "// measured in docs/benchmarks.md 38\n/* issue 12, round four */\nconst s = 'section 3';\n");
    expect(historyCitations(plant)).toEqual(['services/probe.ts:1', 'services/probe.ts:2']);
  });

  it('services/ reach the index through its roles: none but ports.ts names VectorIndex (the adapters and the composition root hold the whole)', () => {
    expect(wholeIndexUses(FILES)).toEqual([]);
    const named = planted('services/probe.ts', "import type { VectorIndex } from './ports.js';\nexport type Deps = { index: VectorIndex };");
    const mentioned = planted('services/other.ts', "// not a VectorIndex\nconst s = 'VectorIndex';");
    expect(wholeIndexUses([named, mentioned, planted('services/ports.ts', 'export interface VectorIndex {}')])).toEqual([
      'services/probe.ts:1',
      'services/probe.ts:2',
    ]);
  });

  it('only cli/ uses console.* or process.exit', () => {
    const outside = FILES.filter((f) => !f.path.startsWith('cli/')).flatMap(consoleAndExitUses);
    expect(outside).toEqual([]);
  });

  it('the console/exit detector sees real uses and ignores comments and strings', () => {
    const probe = (text: string) => consoleAndExitUses({ path: 'probe.ts', text, imports: [] });
    expect(probe("console.log('x');\nprocess.exit(1);")).toEqual(['probe.ts:1 console.log', 'probe.ts:2 process.exit']);
    expect(probe("// console.log('x')\nconst s = 'process.exit(1)';")).toEqual([]);
  });
});
