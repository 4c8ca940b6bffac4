// Covers the layer rules: what memory/, services/, adapters/, cli/ and mcp/ may import, and that only cli/ talks to the console or exits.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../src');

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

const inLayer = (layer: string) => FILES.filter((f) => f.path.startsWith(`${layer}/`));

const SDKS = ['@zilliz/milvus2-sdk-node', 'openai', 'chokidar', 'commander', 'simple-git', 'proper-lockfile'];
const isSdk = (spec: string, sdks = SDKS) => sdks.some((s) => spec === s || spec.startsWith(`${s}/`) || (s.startsWith('@') && spec.startsWith(s.split('/')[0]! + '/')));

/** Imports of a layer's files that break a rule, as "file -> import" strings (empty when clean). */
function violations(layer: string, forbidden: (spec: string) => boolean): string[] {
  return inLayer(layer).flatMap((f) => f.imports.filter(forbidden).map((i) => `${f.path} -> ${i}`));
}

/** `console.*` uses and `process.exit` references, found in the syntax tree (comments and strings don't count). */
function consoleAndExitUses(file: SourceFile): string[] {
  const sf = ts.createSourceFile(file.path, file.text, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression)) {
      const obj = node.expression.text;
      const prop = node.name.text;
      if (obj === 'console' || (obj === 'process' && (prop === 'exit' || prop === 'exitCode'))) {
        const { line } = sf.getLineAndCharacterOfPosition(node.getStart());
        found.push(`${file.path}:${line + 1} ${obj}.${prop}`);
      }
    }
    if (ts.isElementAccessExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'console') {
      found.push(`${file.path} console[...]`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

describe('architecture', () => {
  it('finds the source files of every layer and reads their imports', () => {
    for (const layer of ['memory', 'services', 'adapters', 'cli', 'mcp']) expect(inLayer(layer).length).toBeGreaterThan(0);
    const sync = FILES.find((f) => f.path === 'services/core/sync.ts')!;
    expect(sync.imports).toContain('memory/parse.ts');
    expect(sync.imports).toContain('services/ports.ts');
    const openMemory = FILES.find((f) => f.path === 'open-memory.ts')!;
    // Dynamic imports are seen too.
    expect(openMemory.imports).toContain('adapters/milvus/milvus-index.ts');
    expect(FILES.find((f) => f.path === 'adapters/milvus/milvus-index.ts')!.imports).toContain('@zilliz/milvus2-sdk-node');
  });

  it('the import reader handles multi-line, type-only, re-export, side-effect and dynamic imports', () => {
    const text = "import type {\n  A,\n} from '../services/ports.js';\nexport * from './x.js';\nimport 'commander';\nawait import('../cli/main.js');\n";
    expect(importsOf(join(SRC, 'memory', 'probe.ts'), text)).toEqual(['services/ports.ts', 'memory/x.ts', 'commander', 'cli/main.ts']);
  });

  it('memory/ is pure: no services, adapters, cli, config, open-memory or SDK imports', () => {
    expect(
      violations('memory', (i) =>
        i.startsWith('services/') || i.startsWith('adapters/') || i.startsWith('cli/') ||
        i === 'config.ts' || i === 'open-memory.ts' || isSdk(i)),
    ).toEqual([]);
  });

  it('services/ import no adapters, cli or SDK', () => {
    expect(violations('services', (i) => i.startsWith('adapters/') || i.startsWith('cli/') || i === 'open-memory.ts' || isSdk(i))).toEqual([]);
  });

  it('adapters/ import nothing from cli/ or mcp/, and from services/ only the ports', () => {
    expect(violations('adapters', (i) => i.startsWith('cli/') || i.startsWith('mcp/') || (i.startsWith('services/') && i !== 'services/ports.ts'))).toEqual([]);
  });

  it('cli/ imports no adapters and neither the Milvus nor the OpenAI SDK', () => {
    expect(violations('cli', (i) => i.startsWith('adapters/') || isSdk(i, ['@zilliz/milvus2-sdk-node', 'openai']))).toEqual([]);
  });

  it('mcp/ is a thin shell like cli/: services and types only, no adapters, composition root, cli or index SDKs', () => {
    expect(
      violations('mcp', (i) =>
        i.startsWith('adapters/') || i.startsWith('cli/') || i === 'open-memory.ts' || i === 'config.ts' ||
        isSdk(i, ['@zilliz/milvus2-sdk-node', 'openai', 'chokidar'])),
    ).toEqual([]);
    // ...and the rule would catch one.
    const probe = importsOf(join(SRC, 'mcp', 'probe.ts'), "import { MilvusIndex } from '../adapters/milvus/milvus-index.js';");
    expect(probe).toEqual(['adapters/milvus/milvus-index.ts']);
  });

  it('services/ and memory/ import nothing from mcp/', () => {
    expect([...violations('services', (i) => i.startsWith('mcp/')), ...violations('memory', (i) => i.startsWith('mcp/'))]).toEqual([]);
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
