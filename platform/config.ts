/**
 * Process configuration: every environment variable StockPulse reads, parsed and validated in one place.
 */
import path from 'node:path';

/** Which parts of the system this process runs. */
export type Role = 'all' | 'gateway' | 'engine' | 'projections' | 'delivery';

/** Where market ticks come from. */
export type TickSource = 'simulator' | 'replay' | 'feed' | 'alpaca' | 'finnhub';

/** Log levels accepted by the logger (pino's levels plus `silent`). */
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** Limits on account creation and sign-in, per client address and overall. */
export interface AuthLimits {
  /** Registration attempts one address may make per hour, refused ones too (`REGISTRATIONS_PER_ADDRESS`). */
  readonly registrationsPerAddress: number;
  /** Registration attempts per hour from all addresses together (`REGISTRATIONS_PER_HOUR`). */
  readonly registrationsPerHour: number;
  /** Wrong passwords for one account from one address before each further one waits longer (`SIGNIN_FREE_FAILURES`). */
  readonly signInFreeFailures: number;
  /** Wrong passwords one address may send per hour, all accounts together (`SIGNIN_FAILURES_PER_ADDRESS`). */
  readonly signInFailuresPerAddress: number;
}

/** The validated, frozen configuration of one process. */
export interface Config {
  /** TCP port the gateway listens on (0 picks a free port). */
  readonly port: number;
  /** Absolute directory for the embedded stores' files. */
  readonly dataDir: string;
  /** EventStoreDB / KurrentDB connection string, or `null` for the SQLite log in {@link Config.dataDir}. */
  readonly eventStoreUrl: string | null;
  /** Redis URL, or `null` for in-process buses and stores. */
  readonly redisUrl: string | null;
  /** Which parts of the system this process runs. */
  readonly role: Role;
  /** Where market ticks come from. */
  readonly tickSource: TickSource;
  /** The simulator's market clock: `regular`, `accelerated` or `accelerated:<minutes per session>`. */
  readonly marketClock: string;
  /** The tick CSV played by the `replay` source (absolute), or `null`. */
  readonly replayFile: string | null;
  /** Bearer token of the feed ingestion route, or `null` when the route is off. */
  readonly feedToken: string | null;
  /**
   * This engine's name among the engines sharing the Redis tick bus (lower-case letters and digits), or `null`
   * for one derived from the host name; a restarted engine resumes under its name.
   */
  readonly engineName: string | null;
  /** The Alpaca market data stream, when `TICK_SOURCE=alpaca`. */
  readonly alpaca: AlpacaConfig | null;
  /** The Finnhub trade stream, when `TICK_SOURCE=finnhub`. */
  readonly finnhub: FinnhubConfig | null;
  /** Seed of the deterministic market generator. */
  readonly marketSeed: number;
  /**
   * `MARKET_AS_OF`: the day the simulated market's history ends on (`YYYY-MM-DD`; a day the exchange is closed
   * means the trading day before), or `null` for the last session closed by the wall clock.
   */
  readonly marketAsOf: string | null;
  /** The Alpaca market data REST API's base URL (`ALPACA_DATA_URL`): daily bars, imported and refreshed. */
  readonly alpacaDataUrl: string;
  /** Minimum level of log lines written. */
  readonly logLevel: LogLevel;
  /**
   * The origin browsers reach the app at (`https://stocks.example.com`), or `null` to take it from each request's
   * `Host`; state-changing requests and socket handshakes from any other `Origin` are refused.
   */
  readonly publicOrigin: string | null;
  /**
   * Whether a TLS proxy in front sets `X-Forwarded-For`/`-Proto`/`-Host`: the client address and protocol are
   * taken from them (and cookies marked Secure over HTTPS); off, those headers are ignored.
   */
  readonly trustProxy: boolean;
  /** Limits on registration and sign-in. */
  readonly authLimits: AuthLimits;
  /**
   * The secret that keys the log's hash chain and signs its seals (`CHAIN_KEY`), or `null` for the key generated
   * into {@link Config.dataDir} on first start; every process writing to one log needs the same.
   */
  readonly chainKey: string | null;
  /** Where alerts are delivered from: SMTP, VAPID keys, and the hosts webhooks may reach inside. */
  readonly delivery: DeliveryConfig;
}

/** The delivery channels' settings. */
export interface DeliveryConfig {
  /** `SMTP_URL` (`smtp://user:pass@host:587`, `smtps://…`), or null when email is off. */
  readonly smtpUrl: string | null;
  /** `SMTP_FROM`: the sender of alert emails. */
  readonly smtpFrom: string;
  /** `VAPID_PUBLIC_KEY` and `VAPID_PRIVATE_KEY`, or null for the pair generated into `DATA_DIR`. */
  readonly vapid: { readonly publicKey: string; readonly privateKey: string } | null;
  /** `VAPID_SUBJECT`: the contact push services may reach the sender at. */
  readonly vapidSubject: string;
  /** `WEBHOOK_ALLOWED_HOSTS`: hosts webhooks and push endpoints may reach even on non-public addresses. */
  readonly webhookAllowedHosts: readonly string[];
}

/** The Alpaca market data v2 stream: `ALPACA_KEY_ID`, `ALPACA_SECRET_KEY`, `ALPACA_FEED`, `ALPACA_STREAM_URL`. */
export interface AlpacaConfig {
  /** API key id. */
  readonly keyId: string;
  /** API secret key. */
  readonly secretKey: string;
  /** `iex` (free plan) or `sip` (every US exchange, paid plan). */
  readonly feed: 'iex' | 'sip';
  /** The stream URL (default `wss://stream.data.alpaca.markets/v2/<feed>`). */
  readonly streamUrl: string;
}

/** Finnhub's trade WebSocket: `FINNHUB_TOKEN`, `FINNHUB_STREAM_URL`. */
export interface FinnhubConfig {
  /** API token. */
  readonly token: string;
  /** The stream URL, without the token (default `wss://ws.finnhub.io`). */
  readonly streamUrl: string;
}

/** A configuration value was refused; the message names the variable and what it allows. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    /** The environment variable that was refused. */
    readonly variable: string,
    message: string,
  ) {
    super(message);
  }
}

/** Process roles in the order they are documented. */
export const ROLES: readonly Role[] = Object.freeze(['all', 'gateway', 'engine', 'projections', 'delivery']);

/** Tick sources in the order they are documented. */
export const TICK_SOURCES: readonly TickSource[] = Object.freeze(['simulator', 'replay', 'feed', 'alpaca', 'finnhub']);

/** Accepted log levels. */
export const LOG_LEVELS: readonly LogLevel[] = Object.freeze([
  'fatal',
  'error',
  'warn',
  'info',
  'debug',
  'trace',
  'silent',
]);

/** URL schemes accepted for `EVENTSTORE_URL`. */
export const EVENTSTORE_SCHEMES: readonly string[] = Object.freeze([
  'esdb://',
  'esdb+discover://',
  'kurrentdb://',
  'kurrentdb+discover://',
]);

/** URL schemes accepted for `REDIS_URL`. */
export const REDIS_SCHEMES: readonly string[] = Object.freeze(['redis://', 'rediss://']);

/** Shortest accepted `FEED_TOKEN`. */
export const MIN_FEED_TOKEN_LENGTH = 16;

type Env = Readonly<Record<string, string | undefined>>;

/** Reads a variable, treating an empty or blank value as unset. */
function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function refuse(name: string, allowed: string, got: string): never {
  throw new ConfigError(name, `${name} must be ${allowed}, got ${JSON.stringify(got)}`);
}

/**
 * The whole number in variable `name` between `min` and `max`, or `fallback` when unset; otherwise a
 * {@link ConfigError} naming the variable and what it allows (`allowed`).
 */
export function integer(env: Env, name: string, fallback: number, min: number, max: number, allowed: string): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!/^[+-]?\d+$/.test(raw)) refuse(name, allowed, raw);
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min || value > max) refuse(name, allowed, raw);
  return value;
}

function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const found = values.find((v) => v === raw);
  if (found === undefined) refuse(name, `one of ${values.join(', ')}`, raw);
  return found;
}

function url(env: Env, name: string, schemes: readonly string[]): string | null {
  const raw = read(env, name);
  if (raw === undefined) return null;
  // Only the scheme is checked: cluster strings (`esdb://a:2113,b:2113`) are valid but not WHATWG URLs.
  const scheme = schemes.find((s) => raw.startsWith(s));
  if (scheme === undefined || raw.length === scheme.length) {
    refuse(name, `a URL starting with ${schemes.join(', ')}`, raw);
  }
  return raw;
}

function token(env: Env, name: string, minLength = MIN_FEED_TOKEN_LENGTH): string | null {
  const raw = read(env, name);
  if (raw === undefined) return null;
  if (raw.length < minLength) {
    // The token is a secret: the message gives only its length.
    throw new ConfigError(name, `${name} must be at least ${minLength} characters, got ${raw.length}`);
  }
  return raw;
}

/** Shortest accepted `CHAIN_KEY`. */
export const MIN_CHAIN_KEY_LENGTH = 32;

/** Accepted `ENGINE_NAME` values. */
export const ENGINE_NAME_PATTERN = /^[a-z0-9]{1,32}$/;

function engineName(env: Env): string | null {
  const raw = read(env, 'ENGINE_NAME');
  if (raw === undefined) return null;
  if (!ENGINE_NAME_PATTERN.test(raw)) refuse('ENGINE_NAME', '1 to 32 lower-case letters or digits', raw);
  return raw;
}

/** Accepted `MARKET_CLOCK` values. */
const MARKET_CLOCK_PATTERN = /^(regular|accelerated(:\d+(\.\d+)?)?)$/;

function marketClock(env: Env): string {
  const raw = read(env, 'MARKET_CLOCK');
  if (raw === undefined) return 'accelerated';
  if (!MARKET_CLOCK_PATTERN.test(raw) || /^accelerated:0+(\.0+)?$/.test(raw)) {
    refuse('MARKET_CLOCK', 'regular, accelerated or accelerated:<minutes per session above 0>', raw);
  }
  return raw;
}

function calendarDate(env: Env, name: string): string | null {
  const raw = read(env, name);
  if (raw === undefined) return null;
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(raw) ? Date.parse(`${raw}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== raw) refuse(name, 'a YYYY-MM-DD date', raw);
  return raw;
}

function replayFile(env: Env): string | null {
  const raw = read(env, 'TICK_FILE');
  if (raw === undefined) {
    if (read(env, 'TICK_SOURCE') === 'replay')
      refuse('TICK_FILE', 'the tick CSV to replay when TICK_SOURCE=replay', '');
    return null;
  }
  return path.resolve(raw);
}

const WS_SCHEMES = ['ws://', 'wss://'];
const HTTP_SCHEMES = ['http://', 'https://'];

/** A provider secret: required when its source is chosen; the message never shows it. */
function secret(env: Env, name: string, source: TickSource): string | null {
  const raw = read(env, name);
  if (read(env, 'TICK_SOURCE') !== source) return null;
  if (raw === undefined) throw new ConfigError(name, `${name} must be set when TICK_SOURCE=${source}`);
  if (/\s/.test(raw)) throw new ConfigError(name, `${name} must not contain spaces (${raw.length} characters given)`);
  return raw;
}

function alpaca(env: Env): AlpacaConfig | null {
  const keyId = secret(env, 'ALPACA_KEY_ID', 'alpaca');
  const secretKey = secret(env, 'ALPACA_SECRET_KEY', 'alpaca');
  if (keyId === null || secretKey === null) return null;
  const feed = oneOf(env, 'ALPACA_FEED', ['iex', 'sip'] as const, 'iex');
  const streamUrl = url(env, 'ALPACA_STREAM_URL', WS_SCHEMES) ?? `wss://stream.data.alpaca.markets/v2/${feed}`;
  return { keyId, secretKey, feed, streamUrl };
}

function finnhub(env: Env): FinnhubConfig | null {
  const token = secret(env, 'FINNHUB_TOKEN', 'finnhub');
  if (token === null) return null;
  return { token, streamUrl: url(env, 'FINNHUB_STREAM_URL', WS_SCHEMES) ?? 'wss://ws.finnhub.io' };
}

function publicOrigin(env: Env): string | null {
  const raw = read(env, 'PUBLIC_ORIGIN');
  const allowed = 'an origin such as https://stocks.example.com (scheme, host and port only)';
  if (raw === undefined) {
    // A delivery process serves no page: the links of its e-mails must name where the gateways are reached.
    if (read(env, 'ROLE') === 'delivery') {
      refuse('PUBLIC_ORIGIN', `${allowed} with ROLE=delivery, whose e-mails link to the web app`, '');
    }
    return null;
  }
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    refuse('PUBLIC_ORIGIN', allowed, raw);
  }
  const bare = parsed.pathname === '/' && parsed.search === '' && parsed.hash === '' && parsed.username === '';
  if (!['http:', 'https:'].includes(parsed.protocol) || !bare || parsed.password !== '') {
    refuse('PUBLIC_ORIGIN', allowed, raw);
  }
  return parsed.origin;
}

function flag(env: Env, name: string): boolean {
  const raw = read(env, name);
  if (raw === undefined) return false;
  if (raw !== 'true' && raw !== 'false') refuse(name, 'true or false', raw);
  return raw === 'true';
}

/** The Alpaca market data REST API of the bars import: both keys required, whatever the tick source. */
export interface AlpacaDataConfig {
  /** API key id (`ALPACA_KEY_ID`). */
  readonly keyId: string;
  /** API secret key (`ALPACA_SECRET_KEY`). */
  readonly secretKey: string;
  /** `ALPACA_FEED`: `iex` (default) or `sip`. */
  readonly feed: 'iex' | 'sip';
  /** `ALPACA_DATA_URL` (default `https://data.alpaca.markets`). */
  readonly baseUrl: string;
}

/**
 * Reads the Alpaca REST API settings of the bars import from environment variables.
 * @throws ConfigError naming a missing key or a value that is not allowed.
 */
export function loadAlpacaDataConfig(env: Env = process.env): AlpacaDataConfig {
  const key = (name: string): string => {
    const raw = read(env, name);
    if (raw === undefined) throw new ConfigError(name, `${name} must be set to import bars from Alpaca`);
    if (/\s/.test(raw)) throw new ConfigError(name, `${name} must not contain spaces (${raw.length} characters given)`);
    return raw;
  };
  return Object.freeze({
    keyId: key('ALPACA_KEY_ID'),
    secretKey: key('ALPACA_SECRET_KEY'),
    feed: oneOf(env, 'ALPACA_FEED', ['iex', 'sip'] as const, 'iex'),
    baseUrl: url(env, 'ALPACA_DATA_URL', HTTP_SCHEMES) ?? 'https://data.alpaca.markets',
  });
}

function vapid(env: Env): DeliveryConfig['vapid'] {
  const publicKey = read(env, 'VAPID_PUBLIC_KEY');
  const privateKey = read(env, 'VAPID_PRIVATE_KEY');
  if (publicKey === undefined && privateKey === undefined) return null;
  if (publicKey === undefined || !/^[A-Za-z0-9_-]{86,88}$/.test(publicKey)) {
    throw new ConfigError(
      'VAPID_PUBLIC_KEY',
      'VAPID_PUBLIC_KEY must be a base64url P-256 public key (with VAPID_PRIVATE_KEY)',
    );
  }
  if (privateKey === undefined || !/^[A-Za-z0-9_-]{42,44}$/.test(privateKey)) {
    // A secret: the message never shows it.
    throw new ConfigError(
      'VAPID_PRIVATE_KEY',
      'VAPID_PRIVATE_KEY must be a base64url P-256 private key (with VAPID_PUBLIC_KEY)',
    );
  }
  return { publicKey, privateKey };
}

function delivery(env: Env): DeliveryConfig {
  const smtpFrom = read(env, 'SMTP_FROM') ?? 'StockPulse <alerts@localhost>';
  if (/[\r\n]/.test(smtpFrom)) refuse('SMTP_FROM', 'one line', smtpFrom);
  const subject = read(env, 'VAPID_SUBJECT') ?? 'mailto:alerts@localhost';
  if (!/^(mailto:|https:\/\/)/.test(subject)) refuse('VAPID_SUBJECT', 'a mailto: or https: URL', subject);
  return Object.freeze({
    smtpUrl: url(env, 'SMTP_URL', ['smtp://', 'smtps://']),
    smtpFrom,
    vapid: vapid(env),
    vapidSubject: subject,
    webhookAllowedHosts: Object.freeze(
      (read(env, 'WEBHOOK_ALLOWED_HOSTS') ?? '')
        .split(',')
        .map((host) => host.trim().toLowerCase())
        .filter((host) => host !== ''),
    ),
  });
}

/**
 * Reads and validates the configuration from environment variables.
 * @throws ConfigError naming the first variable with a value that is not allowed.
 */
export function loadConfig(env: Env = process.env): Config {
  return Object.freeze({
    port: integer(env, 'PORT', 3000, 0, 65535, 'an integer 0-65535'),
    dataDir: path.resolve(read(env, 'DATA_DIR') ?? './var'),
    eventStoreUrl: url(env, 'EVENTSTORE_URL', EVENTSTORE_SCHEMES),
    redisUrl: url(env, 'REDIS_URL', REDIS_SCHEMES),
    role: oneOf(env, 'ROLE', ROLES, 'all'),
    tickSource: oneOf(env, 'TICK_SOURCE', TICK_SOURCES, 'simulator'),
    marketClock: marketClock(env),
    replayFile: replayFile(env),
    feedToken: token(env, 'FEED_TOKEN'),
    engineName: engineName(env),
    alpaca: alpaca(env),
    finnhub: finnhub(env),
    marketSeed: integer(env, 'MARKET_SEED', 42, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 'an integer'),
    marketAsOf: calendarDate(env, 'MARKET_AS_OF'),
    alpacaDataUrl: url(env, 'ALPACA_DATA_URL', HTTP_SCHEMES) ?? 'https://data.alpaca.markets',
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    publicOrigin: publicOrigin(env),
    trustProxy: flag(env, 'TRUST_PROXY'),
    authLimits: Object.freeze({
      registrationsPerAddress: integer(env, 'REGISTRATIONS_PER_ADDRESS', 10, 1, 1_000_000, 'an integer 1-1000000'),
      registrationsPerHour: integer(env, 'REGISTRATIONS_PER_HOUR', 500, 1, 1_000_000, 'an integer 1-1000000'),
      signInFreeFailures: integer(env, 'SIGNIN_FREE_FAILURES', 5, 1, 1000, 'an integer 1-1000'),
      signInFailuresPerAddress: integer(env, 'SIGNIN_FAILURES_PER_ADDRESS', 100, 1, 1_000_000, 'an integer 1-1000000'),
    }),
    chainKey: token(env, 'CHAIN_KEY', MIN_CHAIN_KEY_LENGTH),
    delivery: delivery(env),
  });
}
