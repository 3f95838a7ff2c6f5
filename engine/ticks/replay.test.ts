import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ManualClock } from './clock.ts';
import { TickCsvError, TickReplay, parseTickCsv, readTickCsv } from './replay.ts';
import type { ClosedDay, Tick } from './tick.ts';
import { tickSourceContract } from './tickSource.contract.ts';

/** Two New York days: the evening of 2025-01-02 in UTC is still that day in New York. */
const CSV = [
  'ts,symbol,price,size',
  '2025-01-02T14:30:00.000Z,AAPL,250.00,100',
  '2025-01-02T14:30:00.500Z,MSFT,420.10,50',
  '2025-01-02T15:00:00Z,AAPL,251.25,200',
  '1735851600000,AAPL,249.50,300',
  '2025-01-02T20:59:59-05:00,MSFT,421.00,10',
  '',
  '2025-01-03T09:30:00-05:00,AAPL,252.00,400',
  '2025-01-03T15:59:00.000-05:00,MSFT,419.99,70',
  '2025-01-03T15:59:30.000-05:00,AAPL,252.10,80',
].join('\n');

tickSourceContract('replay', () => {
  const replay = new TickReplay(parseTickCsv(CSV), { batchSize: 2 });
  return { source: replay, run: () => replay.done };
});

async function play(replay: TickReplay): Promise<{ ticks: Tick[]; days: ClosedDay[]; log: string[] }> {
  const ticks: Tick[] = [];
  const days: ClosedDay[] = [];
  const log: string[] = [];
  replay.start({
    onTicks: (batch) => {
      ticks.push(...batch);
      log.push(...batch.map((t) => `${t.symbol}@${t.price}`));
    },
    onDayClosed: (day) => {
      days.push(day);
      log.push(`close ${day.date}`);
    },
  });
  await replay.done;
  return { ticks, days, log };
}

function refusal(text: string): TickCsvError {
  try {
    parseTickCsv(text, 'feed.csv');
  } catch (error) {
    if (error instanceof TickCsvError) return error;
    throw error;
  }
  throw new Error('expected a TickCsvError');
}

describe('tick replay', function () {
  it('reads ts as epoch milliseconds or as an ISO instant with its zone', function () {
    const ticks = parseTickCsv(CSV);
    expect(ticks).to.have.length(8);
    expect(ticks[0]).to.deep.equal({ symbol: 'AAPL', price: 250, size: 100, ts: Date.parse('2025-01-02T14:30:00Z') });
    expect(ticks[3]!.ts).to.equal(1_735_851_600_000);
    expect(ticks[4]!.ts).to.equal(Date.parse('2025-01-03T01:59:59Z'));
  });

  it('closes a day when the New York date moves on, and the last day at the end', async function () {
    const { days, log } = await play(new TickReplay(parseTickCsv(CSV)));
    expect(log).to.deep.equal([
      'AAPL@250',
      'MSFT@420.1',
      'AAPL@251.25',
      'AAPL@249.5',
      'MSFT@421',
      'close 2025-01-02',
      'AAPL@252',
      'MSFT@419.99',
      'AAPL@252.1',
      'close 2025-01-03',
    ]);
    expect(days[0]!.bars).to.deep.equal([
      { symbol: 'AAPL', date: '2025-01-02', open: 250, high: 251.25, low: 249.5, close: 249.5, volume: 600 },
      { symbol: 'MSFT', date: '2025-01-02', open: 420.1, high: 421, low: 420.1, close: 421, volume: 60 },
    ]);
  });

  it('leaves the last day open when asked to', async function () {
    const { days } = await play(new TickReplay(parseTickCsv(CSV), { closeLastDay: false }));
    expect(days.map((d) => d.date)).to.deep.equal(['2025-01-02']);
  });

  it('paces the ticks at a multiple of the recorded speed', function () {
    const clock = new ManualClock(1_000_000);
    const ticks = [0, 10_000, 20_000].map((offset, i) => ({
      symbol: 'AAPL',
      price: 100 + i,
      size: 1,
      ts: Date.parse('2025-01-02T15:00:00Z') + offset,
    }));
    const replay = new TickReplay(ticks, { speed: 2, clock, stepMs: 100 });
    const seen: number[] = [];
    replay.start({ onTicks: (batch) => void seen.push(...batch.map((t) => t.price)) });
    clock.advance(0);
    expect(seen).to.deep.equal([100]);
    clock.advance(4_900);
    expect(seen).to.deep.equal([100]);
    clock.advance(100);
    expect(seen).to.deep.equal([100, 101]);
    clock.advance(5_000);
    expect(seen).to.deep.equal([100, 101, 102]);
  });

  it('reads a file and names it in its errors', function () {
    const dir = mkdtempSync(join(tmpdir(), 'sp-ticks-'));
    try {
      writeFileSync(join(dir, 'day.csv'), `\uFEFF${CSV}\r\n`);
      expect(readTickCsv(join(dir, 'day.csv'))).to.have.length(8);
      writeFileSync(join(dir, 'bad.csv'), 'ts,symbol,price,size\n1735830000000,AAPL,abc,1\n');
      expect(() => readTickCsv(join(dir, 'bad.csv'))).to.throw(TickCsvError, /^bad\.csv line 2: price/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const refusals: [string, string, number, RegExp][] = [
    ['a wrong header', 'time,symbol,price,size\n1,AAPL,1,1', 1, /line 1: the header must be ts,symbol,price,size/],
    ['a missing field', 'ts,symbol,price,size\n1735830000000,AAPL,1', 2, /line 2: expected 4 fields/],
    [
      'a time without a zone',
      'ts,symbol,price,size\n2025-01-02T14:30:00,AAPL,1,1',
      2,
      /line 2: ts "2025-01-02T14:30:00"/,
    ],
    ['a bad symbol', 'ts,symbol,price,size\n1735830000000,AAPL$,1,1', 2, /line 2: symbol "AAPL\$"/],
    ['a zero price', 'ts,symbol,price,size\n1735830000000,AAPL,1,1\n1735830000001,AAPL,0,1', 3, /line 3: price/],
    ['a price that is not a number', 'ts,symbol,price,size\n1735830000000,AAPL,12a,1', 2, /line 2: price .*12a/],
    ['a fractional size', 'ts,symbol,price,size\n1735830000000,AAPL,1,1.5', 2, /line 2: size/],
    ['a negative size', 'ts,symbol,price,size\n1735830000000,AAPL,1,-1', 2, /line 2: size/],
    [
      'a tick earlier than the one above',
      'ts,symbol,price,size\n1735830000001,AAPL,1,1\n\n1735830000000,AAPL,1,1',
      4,
      /line 4: .*time order/,
    ],
  ];
  for (const [what, text, line, message] of refusals) {
    it(`refuses ${what}, naming line ${line}`, function () {
      const error = refusal(text);
      expect(error.line).to.equal(line);
      expect(error.message).to.match(/^feed\.csv line \d+: /);
      expect(error.message).to.match(message);
    });
  }

  it('upper-cases symbols', function () {
    expect(parseTickCsv('ts,symbol,price,size\n1735830000000, brk.b ,1,1')[0]!.symbol).to.equal('BRK.B');
  });
});
