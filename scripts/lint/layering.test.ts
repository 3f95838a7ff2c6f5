import path from 'node:path';
import { expect } from 'chai';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { layering } from './layering.js';

const root = path.resolve(import.meta.dirname, '../..');
const fixtures = path.join(import.meta.dirname, 'fixtures');

/** The layering alone, without the type-aware rules, so each check lints in milliseconds. */
function layeringLint(): ESLint {
  return new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, ...layering],
  });
}

/** The rule and message of each problem ESLint finds in `code` as the file `file` of the repository. */
async function problems(eslint: ESLint, file: string, code: string): Promise<{ rule: string; message: string }[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result!.messages.map((m) => ({ rule: m.ruleId ?? `(fatal) ${m.message}`, message: m.message }));
}

describe('lint: the layering', function () {
  let eslint: ESLint;
  before(function () {
    eslint = layeringLint();
  });

  it('refuses a domain module importing a node: built-in', async function () {
    const found = await problems(
      eslint,
      'domain/fixture.ts',
      "import { readFileSync } from 'node:fs';\nreadFileSync('x');\n",
    );
    expect(found).to.have.length(1);
    expect(found[0]!.rule).to.equal('no-restricted-imports');
    expect(found[0]!.message).to.include('domain/ imports only domain/ modules and zod');
  });

  it('refuses a domain module importing another layer, and lets it import the domain and zod', async function () {
    const wrong = await problems(
      eslint,
      'domain/fixture.ts',
      "export type { EventStore } from '../platform/eventstore/port.ts';\n",
    );
    expect(wrong.map((p) => p.rule)).to.include('import-x/no-restricted-paths');
    const right = await problems(
      eslint,
      'domain/fixture.ts',
      "import { z } from 'zod';\nimport { streamName } from './ids.ts';\nexport const s = z.string().parse(streamName('a', 'b'));\n",
    );
    expect(right).to.deep.equal([]);
  });

  it('refuses a platform module importing the gateway', async function () {
    const found = await problems(eslint, 'platform/fixture.ts', "export { createApp } from '../gateway/app.ts';\n");
    expect(found).to.have.length(1);
    expect(found[0]!.rule).to.equal('import-x/no-restricted-paths');
    expect(found[0]!.message).to.include('platform/ may not import engine, projections, gateway, ui, scripts');
  });

  it('refuses a type-only import the wrong way too: the engine importing a projection', async function () {
    const found = await problems(
      eslint,
      'engine/fixture.ts',
      "import type { Projection } from '../projections/projection.ts';\nexport type P = Projection<unknown>;\n",
    );
    expect(found.map((p) => p.rule)).to.deep.equal(['import-x/no-restricted-paths']);
  });

  it('refuses better-sqlite3 outside the SQLite adapters, and lets an adapter import it', async function () {
    const code = "import Database from 'better-sqlite3';\nexport const open = (f: string) => new Database(f);\n";
    const found = await problems(eslint, 'engine/fixture.ts', code);
    expect(found).to.have.length(1);
    expect(found[0]!.rule).to.equal('no-restricted-imports');
    expect(found[0]!.message).to.include('Only the SQLite adapters import better-sqlite3');
    expect(await problems(eslint, 'platform/readmodels/sqlite.ts', code)).to.deep.equal([]);
  });

  it('refuses @eventstore/db-client outside the EventStoreDB adapter', async function () {
    const found = await problems(eslint, 'platform/eventstore/sqlite.ts', "export * from '@eventstore/db-client';\n");
    expect(found.map((p) => p.rule)).to.deep.equal(['no-restricted-imports']);
  });

  it('passes imports that point inward', async function () {
    const found = await problems(
      eslint,
      'gateway/fixture.ts',
      [
        "import type { Config } from '../platform/config.ts';",
        "import { ALL_PROJECTIONS } from '../projections/index.ts';",
        "import { startEngine } from '../engine/running.ts';",
        "import { streamName } from '../domain/ids.ts';",
        'export const parts = [ALL_PROJECTIONS, startEngine, streamName] as const;',
        'export type C = Config;',
        '',
      ].join('\n'),
    );
    expect(found).to.deep.equal([]);
  });

  it('refuses a two-module cycle, naming the chain', async function () {
    const [first, second] = await eslint.lintFiles([
      path.join(fixtures, 'cycle/first.ts'),
      path.join(fixtures, 'cycle/second.ts'),
    ]);
    for (const result of [first!, second!]) {
      expect(result.messages.map((m) => m.ruleId)).to.deep.equal(['layering/no-import-cycle']);
    }
    expect(first!.messages[0]!.message).to.equal(
      'Import cycle: scripts/lint/fixtures/cycle/first.ts -> scripts/lint/fixtures/cycle/second.ts -> scripts/lint/fixtures/cycle/first.ts',
    );
  });

  it('refuses a cycle of type-only imports', async function () {
    const [result] = await eslint.lintFiles([path.join(fixtures, 'cycle/typeFirst.ts')]);
    expect(result!.messages.map((m) => m.ruleId)).to.deep.equal(['layering/no-import-cycle']);
  });

  it('is part of the repository lint, which leaves the fixtures out', async function () {
    const repository = new ESLint({ cwd: root });
    const config = (await repository.calculateConfigForFile(path.join(root, 'platform/config.ts'))) as Linter.Config;
    expect(config.rules).to.include.keys(
      'layering/no-import-cycle',
      'import-x/no-restricted-paths',
      'no-restricted-imports',
    );
    expect(await repository.isPathIgnored(path.join(fixtures, 'cycle/first.ts'))).to.equal(true);
  });
});
