import { readFileSync, writeFileSync } from 'node:fs';
import { expect } from 'chai';
import { capClassOf, type DailyBar, type Sector, type UniverseEntry } from '../../domain/market/types.ts';
import { generateHistory } from './generator.ts';

const FIXTURE = new URL('./fixtures/golden.json', import.meta.url);
const BARS = 300;

function entry(symbol: string, name: string, sector: Sector, shares: number, close: number): UniverseEntry {
  const marketcap = shares * close;
  return {
    symbol,
    name,
    sector,
    industry: 'Golden fixture',
    shares,
    close,
    marketcap,
    capclass: capClassOf(marketcap),
  };
}

/** Three symbols of different sectors and cap classes, fixed here so that universe edits do not move them. */
const GOLDEN_UNIVERSE: readonly UniverseEntry[] = [
  entry('AAPL', 'Apple Inc.', 'Information Technology', 15_117_000_000, 250.42),
  entry('DUK', 'Duke Energy Corporation', 'Utilities', 772_000_000, 107.74),
  entry('SM', 'SM Energy Company', 'Energy', 114_000_000, 38.76),
];

/** The last {@link BARS} bars of each golden symbol at seed 42. */
function goldenBars(): Record<string, DailyBar[]> {
  const history = generateHistory(GOLDEN_UNIVERSE, { seed: 42 });
  return Object.fromEntries(GOLDEN_UNIVERSE.map((e) => [e.symbol, history.get(e.symbol)!.slice(-BARS)]));
}

/** One bar as a single line of JSON, in the layout Prettier keeps. */
function barLine(bar: DailyBar): string {
  return `{ ${Object.entries(bar)
    .map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`)
    .join(', ')} }`;
}

/** Rewrites the fixture; run with `UPDATE_GOLDEN=1 npm test -- engine/marketdata/golden.test.ts` after an intended change. */
function writeGolden(): void {
  const symbols = Object.entries(goldenBars()).map(
    ([symbol, bars]) =>
      `    ${JSON.stringify(symbol)}: [\n${bars.map((b) => `      ${barLine(b)}`).join(',\n')}\n    ]`,
  );
  writeFileSync(FIXTURE, `{\n  "seed": 42,\n  "bars": {\n${symbols.join(',\n')}\n  }\n}\n`);
}

describe('generator golden fixture', () => {
  before(() => {
    if (process.env['UPDATE_GOLDEN'] === '1') writeGolden();
  });

  it('still generates exactly the recorded bars at seed 42', () => {
    const golden = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { seed: number; bars: Record<string, DailyBar[]> };
    expect(golden.seed).to.equal(42);
    expect(Object.keys(golden.bars)).to.deep.equal(['AAPL', 'DUK', 'SM']);
    for (const bars of Object.values(golden.bars)) expect(bars).to.have.length(BARS);
    expect(goldenBars()).to.deep.equal(golden.bars);
  });
});
