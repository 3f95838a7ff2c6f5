/**
 * Imports real market data into the market store (`DATA_DIR/market.db`), building the store first if needed:
 *
 *   npm run import -- bars <file.csv> [--symbol SYM]      daily bars (Date,Open,High,Low,Close,Adj Close,Volume)
 *   npm run import -- facts <companyfacts.json> [--symbol SYM]   SEC EDGAR company facts
 *
 * A bad file is refused whole with a message naming the bad line or entry, and the store is left unchanged.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { marketEndDate } from '../engine/market/marketDate.ts';
import { ImportError, importBarsCsv, importCompanyFacts, symbolFromFileName } from '../engine/marketdata/import.ts';
import { MARKET_DB_FILE, buildMarket, openMarketStore } from '../engine/marketdata/store.ts';
import { loadUniverse } from '../engine/marketdata/universe.ts';
import { ConfigError, loadConfig } from '../platform/config.ts';
import { progressBar } from '../platform/progress.ts';

const USAGE = `usage: npm run import -- bars <file.csv> [--symbol SYM]
       npm run import -- facts <companyfacts.json> [--symbol SYM]`;

/** The command line, parsed. */
interface Command {
  readonly kind: 'bars' | 'facts';
  readonly file: string;
  readonly symbol: string | undefined;
}

/** A command line that cannot be run; the message says why and shows the usage. */
class UsageError extends Error {}

function parseArguments(argv: readonly string[]): Command {
  const rest: string[] = [];
  let symbol: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--symbol') {
      symbol = argv[++i];
      if (symbol === undefined || symbol.startsWith('--')) throw new UsageError('--symbol needs a symbol');
    } else if (arg.startsWith('--symbol=')) {
      symbol = arg.slice('--symbol='.length);
    } else if (arg.startsWith('-')) {
      throw new UsageError(`unknown option ${arg}`);
    } else rest.push(arg);
  }
  const [kind, file, ...extra] = rest;
  if (kind !== 'bars' && kind !== 'facts') throw new UsageError(`the first argument must be bars or facts`);
  if (file === undefined) throw new UsageError(`a ${kind === 'bars' ? 'CSV' : 'JSON'} file is needed`);
  if (extra.length > 0) throw new UsageError(`unexpected argument ${extra[0]}`);
  return { kind, file, symbol };
}

function main(argv: readonly string[]): number {
  const command = parseArguments(argv);
  const text = readFileSync(command.file, 'utf8');
  const config = loadConfig();
  const universe = loadUniverse();
  const store = openMarketStore({ file: path.join(config.dataDir, MARKET_DB_FILE) });
  try {
    const build = progressBar('building market data');
    const built = buildMarket(store, {
      seed: config.marketSeed,
      universe,
      endDate: marketEndDate(config.marketAsOf, Date.now()),
      onProgress: (done, total) => build.update(done, total),
    });
    if (built.built + built.extended > 0) build.finish();

    const bar = progressBar(`importing ${path.basename(command.file)}`);
    const onProgress = (done: number, total: number) => bar.update(done, total);
    if (command.kind === 'bars') {
      const symbol = command.symbol ?? symbolFromFileName(command.file);
      const result = importBarsCsv(store, { text, symbol, universe, onProgress });
      bar.finish();
      process.stdout.write(`${result.symbol}: ${result.bars} bars imported, ${result.from} to ${result.to}\n`);
    } else {
      const result = importCompanyFacts(store, { text, symbol: command.symbol, universe, onProgress });
      bar.finish();
      const counts = Object.entries(result.counts)
        .map(([type, n]) => `${type} ${n}`)
        .join(', ');
      process.stdout.write(`${result.symbol} (CIK ${result.cik}, ${result.entityName}): ${counts}\n`);
    }
    return 0;
  } finally {
    store.close();
  }
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (err) {
  if (err instanceof UsageError) process.stderr.write(`${err.message}\n${USAGE}\n`);
  else if (err instanceof ImportError || err instanceof ConfigError) {
    process.stderr.write(`\nimport refused, nothing written: ${err.message}\n`);
  } else if ((err as { code?: unknown }).code === 'ENOENT') process.stderr.write(`${(err as Error).message}\n`);
  else process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
}
