import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DailyBar } from '../../domain/market/types.ts';
import { createInProcessTickBus } from '../../platform/bus/inProcess.ts';
import { loadConfig } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { nextTradingDay } from '../marketdata/calendar.ts';
import { memoryDayCloseClaims } from './dayCloser.ts';
import { DEMO_SESSION_FILE, latestDemoSession, rememberedSessions } from './demoSessions.ts';
import { acceleratedMarketClock } from './marketClock.ts';
import { openTickSource } from './sources.ts';

const bars: DailyBar[] = [{ date: '2026-11-27', open: 100, high: 101, low: 99, close: 100, volume: 1000 }];

describe('demo sessions across restarts', function () {
  let dataDir: string;

  beforeEach(function () {
    dataDir = mkdtempSync(join(tmpdir(), 'demo-sessions-'));
  });
  afterEach(function () {
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Opens the simulator as `npm start` does (the demo clock of one-minute sessions) on `dataDir`. */
  const open = (env: Record<string, string> = {}) =>
    openTickSource(
      loadConfig({ TICK_SOURCE: 'simulator', MARKET_CLOCK: 'accelerated:1', DATA_DIR: dataDir, ...env }),
      createInProcessTickBus(),
      new Map([['KO', bars]]),
      memoryDayCloseClaims(),
      createLogger({ level: 'silent' }),
    );

  it('dates the sessions of a restart after the latest one before it, not from the last stored bar again', function () {
    const first = open().demoSessions!;
    const now = Date.now();
    const played = [first.sessionAt(now).date, first.sessionAt(now + 60_000).date];
    expect(played).to.deep.equal(['2026-11-30', '2026-12-01']);
    expect(latestDemoSession(dataDir)).to.equal('2026-12-01');
    // A restart: its first session is the trading day after the latest one told of.
    const again = open().demoSessions!;
    expect(again.sessionAt(Date.now()).date).to.equal('2026-12-02');
    expect(readFileSync(join(dataDir, DEMO_SESSION_FILE), 'utf8')).to.equal('2026-12-02\n');
  });

  it('starts from the last stored bar without a kept date, with one before it, or with an unreadable file', function () {
    expect(open().demoSessions!.sessionAt(Date.now()).date).to.equal('2026-11-30');
    writeFileSync(join(dataDir, DEMO_SESSION_FILE), '2026-01-05\n');
    expect(open().demoSessions!.sessionAt(Date.now()).date).to.equal('2026-11-30');
    writeFileSync(join(dataDir, DEMO_SESSION_FILE), 'not a date');
    expect(latestDemoSession(dataDir)).to.equal(null);
    expect(open().demoSessions!.sessionAt(Date.now()).date).to.equal('2026-11-30');
  });

  it('keeps nothing on New York hours, and reports a date it cannot keep while the sessions go on', function () {
    expect(open({ MARKET_CLOCK: 'regular' }).demoSessions).to.equal(undefined);
    expect(latestDemoSession(dataDir)).to.equal(null);
    // A folder where the file should be: the write fails, the clock answers.
    const blocked = mkdtempSync(join(tmpdir(), 'demo-blocked-'));
    try {
      mkdirSync(join(blocked, `${DEMO_SESSION_FILE}.tmp`));
      const errors: unknown[] = [];
      const sessions = rememberedSessions(acceleratedMarketClock(Date.now(), '2026-11-27', 1), blocked, (error) =>
        errors.push(error),
      );
      expect(sessions.sessionAt(Date.now()).date).to.equal(nextTradingDay('2026-11-27'));
      expect(errors).to.have.length(1);
      expect(latestDemoSession(blocked)).to.equal(null);
    } finally {
      rmSync(blocked, { recursive: true, force: true });
    }
  });
});
