/**
 * Imports real market data into the market store (`DATA_DIR/market.db`), building the store first if needed:
 *
 *   npm run import -- bars <file.csv> [--symbol SYM]      daily bars (Date,Open,High,Low,Close,Adj Close,Volume)
 *   npm run import -- facts <companyfacts.json> [--symbol SYM]   SEC EDGAR company facts
 *   npm run import -- provider alpaca --symbols AAPL,MSFT [--from DATE] [--name NAME] [--sector SECTOR]
 *                                                         daily bars from Alpaca's REST API (ALPACA_KEY_ID,
 *                                                         ALPACA_SECRET_KEY, ALPACA_FEED, ALPACA_DATA_URL)
 *
 * A bad file or answer is refused whole with a message naming the bad line, entry or row, and the store is left
 * unchanged.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SECTORS, type Sector } from '../domain/market/types.ts';
import { isSymbol } from '../domain/symbol.ts';
import { marketEndDate } from '../engine/market/marketDate.ts';
import { ProviderError } from '../engine/marketdata/alpacaBars.ts';
import { addDays, isValidDate } from '../engine/marketdata/calendar.ts';
import { ImportError, importBarsCsv, importCompanyFacts, symbolFromFileName } from '../engine/marketdata/import.ts';
import { BAR_PROVIDERS, importProviderBars } from '../engine/marketdata/providerImport.ts';
import { MARKET_DB_FILE, buildMarket, openMarketStore, type MarketStore } from '../engine/marketdata/store.ts';
import { loadUniverse } from '../engine/marketdata/universe.ts';
import { ConfigError, loadAlpacaDataConfig, loadConfig } from '../platform/config.ts';
import { progressBar } from '../platform/progress.ts';

const USAGE = `usage: npm run import -- bars <file.csv> [--symbol SYM]
       npm run import -- facts <companyfacts.json> [--symbol SYM]
       npm run import -- provider alpaca --symbols AAPL,MSFT [--from YYYY-MM-DD] [--name NAME] [--sector SECTOR]`;

/** Symbols one provider import takes. */
const MAX_PROVIDER_SYMBOLS = 100;

/** The command line, parsed. */
type Command =
  | { readonly kind: 'bars' | 'facts'; readonly file: string; readonly symbol: string | undefined }
  | {
      readonly kind: 'provider';
      readonly provider: (typeof BAR_PROVIDERS)[number];
      readonly symbols: readonly string[];
      readonly from: string | undefined;
      readonly name: string | undefined;
      readonly sector: Sector | undefined;
    };

/** A command line that cannot be run; the message says why and shows the usage. */
class UsageError extends Error {}

const OPTIONS = ['symbol', 'symbols', 'from', 'name', 'sector'] as const;
type Option = (typeof OPTIONS)[number];

function parseArguments(argv: readonly string[]): Command {
  const rest: string[] = [];
  const options: Partial<Record<Option, string>> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const option = OPTIONS.find((o) => arg === `--${o}` || arg.startsWith(`--${o}=`));
    if (option !== undefined) {
      const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[++i];
      if (value === undefined || value.startsWith('--')) throw new UsageError(`--${option} needs a value`);
      options[option] = value;
    } else if (arg.startsWith('-')) {
      throw new UsageError(`unknown option ${arg}`);
    } else rest.push(arg);
  }
  const [kind, target, ...extra] = rest;
  if (extra.length > 0) throw new UsageError(`unexpected argument ${extra[0]}`);
  if (kind === 'provider') return providerCommand(target, options);
  if (kind !== 'bars' && kind !== 'facts') throw new UsageError(`the first argument must be bars, facts or provider`);
  if (target === undefined) throw new UsageError(`a ${kind === 'bars' ? 'CSV' : 'JSON'} file is needed`);
  const other = OPTIONS.find((o) => o !== 'symbol' && options[o] !== undefined);
  if (other !== undefined) throw new UsageError(`--${other} is an option of the provider import`);
  return { kind, file: target, symbol: options.symbol };
}

function providerCommand(provider: string | undefined, options: Partial<Record<Option, string>>): Command {
  const known = BAR_PROVIDERS.find((p) => p === provider);
  if (known === undefined) throw new UsageError(`the provider must be one of ${BAR_PROVIDERS.join(', ')}`);
  if (options.symbol !== undefined) throw new UsageError('the provider import takes --symbols');
  if (options.symbols === undefined) throw new UsageError('--symbols is needed, e.g. --symbols AAPL,MSFT');
  const symbols = options.symbols.split(',').map((s) => s.trim().toUpperCase());
  const bad = symbols.findIndex((s) => !isSymbol(s));
  if (bad >= 0) throw new UsageError(`--symbols: ${JSON.stringify(symbols[bad])} is not a symbol`);
  const twice = symbols.findIndex((s, i) => symbols.indexOf(s) !== i);
  if (twice >= 0) throw new UsageError(`--symbols: ${symbols[twice]} is named twice`);
  if (symbols.length > MAX_PROVIDER_SYMBOLS) throw new UsageError(`--symbols: at most ${MAX_PROVIDER_SYMBOLS}`);
  if (options.from !== undefined && !isValidDate(options.from)) {
    throw new UsageError(`--from must be a YYYY-MM-DD date, got ${JSON.stringify(options.from)}`);
  }
  if ((options.name !== undefined || options.sector !== undefined) && symbols.length !== 1) {
    throw new UsageError('--name and --sector describe one symbol: import it alone');
  }
  const sector = options.sector === undefined ? undefined : SECTORS.find((s) => s === options.sector);
  if (options.sector !== undefined && sector === undefined) {
    throw new UsageError(`--sector must be one of ${SECTORS.join(', ')}`);
  }
  return { kind: 'provider', provider: known, symbols, from: options.from, name: options.name, sector };
}

/** Opens the market store and brings the generated market to today first, with a progress bar. */
function openBuiltStore(): MarketStore {
  const config = loadConfig();
  const store = openMarketStore({ file: path.join(config.dataDir, MARKET_DB_FILE) });
  const build = progressBar('building market data');
  const built = buildMarket(store, {
    seed: config.marketSeed,
    universe: loadUniverse(),
    endDate: marketEndDate(config.marketAsOf, Date.now()),
    onProgress: (done, total) => build.update(done, total),
  });
  if (built.built + built.extended > 0) build.finish();
  return store;
}

async function main(argv: readonly string[]): Promise<number> {
  const command = parseArguments(argv);
  const api = command.kind === 'provider' ? loadAlpacaDataConfig() : undefined;
  const text = command.kind === 'provider' ? '' : readFileSync(command.file, 'utf8');
  const universe = loadUniverse();
  const store = openBuiltStore();
  try {
    if (command.kind === 'provider') {
      const from = command.from ?? addDays(new Date().toISOString().slice(0, 10), -5 * 365);
      const fetching = progressBar(`fetching daily bars from ${command.provider}`);
      const writing = progressBar('writing');
      const results = await importProviderBars(store, {
        api: api!,
        symbols: command.symbols,
        from,
        universe,
        company: {
          ...(command.name ? { name: command.name } : {}),
          ...(command.sector ? { sector: command.sector } : {}),
        },
        onFetch: (done, total) => fetching.update(done, total),
        onWrite: (done, total) => writing.update(done, total),
      });
      fetching.finish();
      writing.finish();
      for (const r of results) {
        const listed = r.listed ? ' (not in the shipped universe: listed)' : '';
        process.stdout.write(`${r.symbol}: ${r.bars} bars imported, ${r.from} to ${r.to}${listed}\n`);
      }
      return 0;
    }
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
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  if (err instanceof UsageError) process.stderr.write(`${err.message}\n${USAGE}\n`);
  else if (err instanceof ImportError || err instanceof ConfigError || err instanceof ProviderError) {
    process.stderr.write(`\nimport refused, nothing written: ${err.message}\n`);
  } else if ((err as { code?: unknown }).code === 'ENOENT') process.stderr.write(`${(err as Error).message}\n`);
  else process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
}
