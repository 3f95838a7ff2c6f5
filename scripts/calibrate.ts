/**
 * Generates the history of the shipped universe and prints its calibration table: each measured figure
 * against its target, with the relative error, figures beyond tolerance marked `!`.
 * Usage: `npm run calibrate [-- --seed N]` (default: MARKET_SEED, else 42). Exits 1 when a figure is flagged.
 */
import { formatCalibration, measureCalibration } from '../engine/marketdata/calibration.ts';
import { generateHistory } from '../engine/marketdata/generator.ts';
import { loadUniverse } from '../engine/marketdata/universe.ts';
import { loadConfig } from '../platform/config.ts';

function seedArgument(argv: readonly string[]): number {
  const at = argv.indexOf('--seed');
  if (at === -1) return loadConfig().marketSeed;
  const raw = argv[at + 1] ?? '';
  if (!/^[+-]?\d+$/.test(raw)) throw new Error(`--seed must be an integer, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

const seed = seedArgument(process.argv.slice(2));
const universe = loadUniverse();
const started = performance.now();
const history = generateHistory(universe, { seed });
const elapsed = performance.now() - started;
const report = measureCalibration(universe, history);
process.stdout.write(
  `seed ${seed}: generated ${universe.length} symbols in ${(elapsed / 1000).toFixed(2)} s\n${formatCalibration(report)}\n`,
);
process.exitCode = report.rows.some((r) => r.flagged) ? 1 : 0;
