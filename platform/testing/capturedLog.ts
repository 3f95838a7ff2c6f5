/** A logger whose lines a test reads: what an operator would see in the log. */
import { createLogger, type Logger } from '../logger.ts';

/** A logger at `info` writing its JSON lines into `lines`. */
export function capturedLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: createLogger({ level: 'info' }, { write: (line: string) => void lines.push(line) }), lines };
}
