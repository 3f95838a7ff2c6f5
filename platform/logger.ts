/**
 * Structured JSON logging (pino): one root logger per process, one child per component.
 */
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';
import type { LogLevel } from './config.ts';

/** The logger type passed to every component. */
export type Logger = PinoLogger;

/** What the logger needs to know: the level (a {@link Config} satisfies it). */
export interface LoggerOptions {
  /** Minimum level of lines written; `silent` writes nothing. */
  readonly logLevel?: LogLevel;
  /** Alias of `logLevel`, for callers that build options by hand. */
  readonly level?: LogLevel;
}

/** Creates the process's root logger, writing one JSON object per line to stdout or to `destination`. */
export function createLogger(options: LoggerOptions = {}, destination?: DestinationStream): Logger {
  const level = options.logLevel ?? options.level ?? 'info';
  const settings = {
    level,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
  };
  return destination ? pino(settings, destination) : pino(settings);
}

/** Returns a child logger whose lines carry `component: name`, so one part's lines can be filtered. */
export function componentLogger(logger: Logger, name: string): Logger {
  return logger.child({ component: name });
}
