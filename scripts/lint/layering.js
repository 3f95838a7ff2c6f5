// @ts-check
/**
 * The layering of `style.md`, enforced by ESLint: dependencies point inward (`ui → domain`;
 * `gateway → domain, platform, projections, engine`; `engine, projections → domain, platform`;
 * `platform → domain`; `scripts` may import anything but `ui`), the domain imports nothing with I/O, only the
 * adapters import their drivers, and no import leads back to the importing module.
 */
import importX from 'eslint-plugin-import-x';
import { createNodeResolver } from 'eslint-plugin-import-x/node-resolver';
import path from 'node:path';
import { noImportCycle } from './noImportCycle.js';

const root = path.resolve(import.meta.dirname, '../..');

/** The layers, innermost first, and the folders each may not import. */
const forbidden = {
  domain: ['platform', 'engine', 'projections', 'gateway', 'ui', 'scripts'],
  platform: ['engine', 'projections', 'gateway', 'ui', 'scripts'],
  engine: ['projections', 'gateway', 'ui', 'scripts'],
  projections: ['engine', 'gateway', 'ui', 'scripts'],
  gateway: ['ui', 'scripts'],
  ui: ['platform', 'engine', 'projections', 'gateway', 'scripts'],
  scripts: ['ui'],
};

/** The `import-x/no-restricted-paths` zone of a layer. */
function zone(layer, from = forbidden[layer]) {
  return {
    target: `./${layer}`,
    from: from.map((folder) => `./${folder}`),
    message: `${layer}/ may not import ${from.join(', ')} (style.md: dependencies point inward).`,
  };
}

const drivers = {
  sqlite: {
    name: 'better-sqlite3',
    message:
      'Only the SQLite adapters import better-sqlite3 (tests alter a file through platform/testing/sqliteFile.ts).',
  },
  esdb: { name: '@eventstore/db-client', message: 'Only the EventStoreDB adapter imports @eventstore/db-client.' },
};
const esdbSubpaths = { group: ['@eventstore/db-client/*'], message: drivers.esdb.message };

/**
 * The SQLite adapters (event log, read models and their writers' lock, sessions, the market data store), their
 * tests and test helper.
 */
const sqliteAdapters = [
  'platform/eventstore/sqlite.ts',
  'platform/readmodels/sqlite.ts',
  'platform/readmodels/writerLock.ts',
  'platform/sessions/sqlite.ts',
  'platform/*/sqlite.test.ts',
  'platform/testing/sqliteFile.ts',
  'engine/marketdata/store.ts',
  'scripts/bench/eventstore.ts',
];

/** The EventStoreDB adapter, its test and the fake server its test runs against. */
const esdbAdapter = [
  'platform/eventstore/esdb.ts',
  'platform/eventstore/esdb.test.ts',
  'platform/eventstore/esdbFakeServer.ts',
];

/** Domain modules import only other domain modules and zod: no built-in, driver or other package, so no I/O. */
const domainImports = {
  regex: '^(?!\\.\\.?/|zod$)',
  message: 'domain/ imports only domain/ modules and zod: no node: built-ins, drivers or other packages (no I/O).',
};

/** The layering as ESLint flat config; `files` narrows it (the lint test lints fixtures with it alone). */
export const layering = [
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.js'],
    plugins: { 'import-x': importX, layering: { rules: { 'no-import-cycle': noImportCycle } } },
    settings: { 'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.js'] })] },
    rules: {
      'layering/no-import-cycle': 'error',
      'import-x/no-restricted-paths': [
        'error',
        { basePath: root, zones: Object.keys(forbidden).map((layer) => zone(layer)) },
      ],
      'no-restricted-imports': ['error', { paths: [drivers.sqlite, drivers.esdb], patterns: [esdbSubpaths] }],
    },
  },
  {
    files: ['domain/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [domainImports] }] },
  },
  {
    // Domain tests also use chai, fast-check for property tests, and node:crypto as the reference the pure hashes
    // are checked against.
    files: ['domain/**/*.test.ts', 'domain/testing/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ ...domainImports, regex: '^(?!\\.\\.?/|zod$|chai$|fast-check$|node:crypto$)' }] },
      ],
    },
  },
  {
    // An engine test may run a projection over what the engine appended; engine code may not.
    files: ['engine/**/*.test.ts'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          basePath: root,
          zones: [
            zone(
              'engine',
              forbidden.engine.filter((folder) => folder !== 'projections'),
            ),
          ],
        },
      ],
    },
  },
  {
    files: sqliteAdapters,
    rules: { 'no-restricted-imports': ['error', { paths: [drivers.esdb], patterns: [esdbSubpaths] }] },
  },
  {
    files: esdbAdapter,
    rules: { 'no-restricted-imports': ['error', { paths: [drivers.sqlite] }] },
  },
];
