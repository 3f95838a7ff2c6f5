/**
 * The demo clock's sessions across restarts. Each start dates its sessions from the trading day after a date;
 * were it the last stored bar's at every start, a restart would play the dates of the run before again, and a
 * once-per-bar alert that fired on them then would keep silent until they had passed once more (its trigger's
 * command id names the date, and the log has it). So the latest date the clock tells of is kept in a file of
 * `DATA_DIR`, and a restart's sessions start after it.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isValidDate } from '../marketdata/calendar.ts';
import type { MarketClock } from './marketClock.ts';

/** The file of `DATA_DIR` holding the date of the latest demo session. */
export const DEMO_SESSION_FILE = 'demo-session';

/** The date of the latest demo session a run in `dataDir` told of, or null (none, or an unreadable file). */
export function latestDemoSession(dataDir: string): string | null {
  try {
    const date = readFileSync(join(dataDir, DEMO_SESSION_FILE), 'utf8').trim();
    return isValidDate(date) ? date : null;
  } catch {
    return null;
  }
}

/**
 * The sessions of `clock`, the date of each new one written to `dataDir` as the clock tells of it (replacing the
 * file whole, so a crash leaves the old date or the new one). A write that fails is reported to `onError`; the
 * sessions go on.
 */
export function rememberedSessions(
  clock: MarketClock,
  dataDir: string,
  onError: (error: unknown) => void = () => undefined,
): MarketClock {
  const file = join(dataDir, DEMO_SESSION_FILE);
  let latest = latestDemoSession(dataDir);
  return {
    mode: clock.mode,
    sessionAt(ms) {
      const session = clock.sessionAt(ms);
      if (latest === null || session.date > latest) {
        latest = session.date;
        try {
          writeFileSync(`${file}.tmp`, `${latest}\n`);
          renameSync(`${file}.tmp`, file);
        } catch (error) {
          onError(error);
        }
      }
      return session;
    },
  };
}
