/**
 * How opening the market data shows its progress while it builds or analyses the market on first start.
 */
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import { progressBar, renderProgress, type ProgressBar } from '../../platform/progress.ts';
import type { MarketPhase, MarketProgress } from './marketData.ts';

const PHASE_LABELS: Readonly<Record<MarketPhase, string>> = {
  build: 'building market data',
  analyse: 'analysing market data',
};

/**
 * How opening the market data shows its progress: a progress bar on a terminal (standard error), else a log
 * line at each tenth; nothing when logging is off.
 */
export function marketProgress(config: Config, logger: Logger): MarketProgress | undefined {
  if (config.logLevel === 'silent') return undefined;
  if (process.stderr.isTTY === true) {
    let current: { phase: MarketPhase; bar: ProgressBar } | undefined;
    return (phase, done, total) => {
      if (current?.phase !== phase) current = { phase, bar: progressBar(PHASE_LABELS[phase]) };
      current.bar.update(done, total);
      if (done >= total) current.bar.finish();
    };
  }
  let last = { phase: '', tenth: -1 };
  return (phase, done, total) => {
    const tenth = total > 0 ? Math.floor((10 * done) / total) : 10;
    if (last.phase === phase && tenth <= last.tenth) return;
    last = { phase, tenth };
    logger.info({ phase, done, total }, renderProgress(PHASE_LABELS[phase], done, total));
  };
}
