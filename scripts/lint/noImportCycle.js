// @ts-check
/**
 * ESLint rule `layering/no-import-cycle`: refuses an import from which a chain of relative imports leads back to
 * the importing file. Unlike `import-x/no-cycle`, type-only imports count: two modules that need each other's
 * types are as tangled as two that need each other's values. Each file's imports are read once per change
 * with TypeScript's `preProcessFile` (no type checking), so the whole repository costs a fraction of a second.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** A file's resolved relative imports, by path, with the modification time they were read at. */
const graph = new Map();

/** The files a relative specifier can name: as written (the repository writes extensions), then with one added. */
function resolveSpecifier(from, specifier) {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return null;
  const base = path.resolve(path.dirname(from), specifier);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')]) {
    if (/\.(ts|tsx|js|mjs|cjs)$/.test(candidate) && fs.existsSync(candidate) && fs.statSync(candidate).isFile()) {
      return candidate;
    }
  }
  return null;
}

/** The files `file` imports (type-only, re-exports and dynamic imports included), read from the disk. */
function importsOf(file) {
  let mtimeMs;
  try {
    mtimeMs = fs.statSync(file).mtimeMs;
  } catch {
    return [];
  }
  const known = graph.get(file);
  if (known && known.mtimeMs === mtimeMs) return known.imports;
  const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
  const imports = [...new Set(importedFiles.map((f) => resolveSpecifier(file, f.fileName)).filter((p) => p !== null))];
  graph.set(file, { mtimeMs, imports });
  return imports;
}

/** The shortest chain of imports from `start` back to `target` (both included), or null. */
function chainBack(start, target) {
  const previous = new Map([[start, null]]);
  const queue = [start];
  for (let at = queue.shift(); at !== undefined; at = queue.shift()) {
    for (const next of importsOf(at)) {
      if (next === target) {
        const chain = [target];
        for (let step = at; step !== null; step = previous.get(step)) chain.unshift(step);
        return chain;
      }
      if (!previous.has(next)) {
        previous.set(next, at);
        queue.push(next);
      }
    }
  }
  return null;
}

/** @type {import('eslint').Rule.RuleModule} */
export const noImportCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'Refuse imports that lead back to the importing module, type-only imports included' },
    schema: [],
    messages: { cycle: 'Import cycle: {{chain}}' },
  },
  create(context) {
    const file = context.physicalFilename;
    const root = context.cwd;
    const check = (node, source) => {
      if (!source || source.type !== 'Literal' || typeof source.value !== 'string') return;
      const imported = resolveSpecifier(file, source.value);
      if (imported === null || imported === file) return;
      const chain = chainBack(imported, file);
      if (chain === null) return;
      const shown = [file, ...chain].map((p) => path.relative(root, p)).join(' -> ');
      context.report({ node, messageId: 'cycle', data: { chain: shown } });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
    };
  },
};
