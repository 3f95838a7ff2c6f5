/**
 * Structured logging (pino): one root logger per process, one child per component. Lines are JSON, one object
 * per line, except on a terminal, where they are printed readably (time, level, component, message).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';
import PinoPretty from 'pino-pretty';
import type { LogLevel } from './config.ts';

/** The logger type passed to every component. */
export type Logger = PinoLogger;

/** What the logger needs to know: the level (a {@link Config} satisfies it). */
export interface LoggerOptions {
  /** Minimum level of lines written; `silent` writes nothing. */
  readonly logLevel?: LogLevel;
  /** Alias of `logLevel`, for callers that build options by hand. */
  readonly level?: LogLevel;
  /** Readable lines instead of JSON (default: when standard output is a terminal). */
  readonly pretty?: boolean;
}

/** A stream writing readable lines to standard output, for a person at a terminal. */
export function prettyStream(destination: NodeJS.WritableStream = process.stdout): DestinationStream {
  return PinoPretty({
    colorize: destination === process.stdout && process.stdout.hasColors?.() === true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,component',
    messageFormat: '{if component}[{component}] {end}{msg}',
    hideObject: false,
    singleLine: true,
    destination,
    sync: true,
  });
}

/** What every line written while a piece of work runs carries, e.g. the id of the request being handled. */
export interface LogContext {
  readonly requestId: string;
}

const logContexts = new AsyncLocalStorage<LogContext>();

/**
 * Runs `work` so that every line a logger of {@link createLogger} writes meanwhile, in this call and in what it
 * awaits or schedules, carries `context`.
 */
export function withLogContext<T>(context: LogContext, work: () => T): T {
  return logContexts.run(context, work);
}

/** The context of the work running now, if any. */
export function currentLogContext(): LogContext | undefined {
  return logContexts.getStore();
}

/**
 * Creates the process's root logger, writing to `destination`, or to standard output: readable lines on a
 * terminal, one JSON object per line otherwise.
 */
export function createLogger(options: LoggerOptions = {}, destination?: DestinationStream): Logger {
  const level = options.logLevel ?? options.level ?? 'info';
  const settings = {
    level,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    // A fresh object each line: pino merges the line's own fields into it.
    mixin: () => {
      const context = logContexts.getStore();
      return context ? { requestId: context.requestId } : {};
    },
  };
  if (destination) return pino(settings, destination);
  return (options.pretty ?? process.stdout.isTTY === true) ? pino(settings, prettyStream()) : pino(settings);
}

/** Returns a child logger whose lines carry `component: name`, so one part's lines can be filtered. */
export function componentLogger(logger: Logger, name: string): Logger {
  return logger.child({ component: name });
}
