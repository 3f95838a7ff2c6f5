/**
 * The three ways a delivery leaves StockPulse, each answering an {@link AttemptResult}: a signed webhook POST,
 * an email through SMTP (nodemailer), and a Web Push message encrypted for the browser (web-push) and posted
 * to its push service. Webhooks and push services are reached through the address check of `guard.ts`.
 */
import fs from 'node:fs';
import path from 'node:path';
import nodemailer from 'nodemailer';
import webPush from 'web-push';
import type { Channel } from '../../domain/channels/channels.ts';
import type { WebhookPayload } from '../../domain/contract/channels.ts';
import { firingNotificationText } from '../../domain/contract/notifications.ts';
import { MARKET_LABEL } from '../../domain/market/zone.ts';
import { hourMinute, newYorkTime } from '../ticks/marketClock.ts';
import { ForbiddenAddressError, postChecked, type OutboundAnswer } from './guard.ts';
import { RETRY_AFTER_STATUSES } from './retry.ts';
import { signatureHeader } from './secrets.ts';

/** How long a receiver has to answer one attempt. */
export const ATTEMPT_TIMEOUT_MS = 3000;

/** How one attempt ended. */
export interface AttemptResult {
  /** The receiver accepted it. */
  readonly ok: boolean;
  /** Its HTTP status or SMTP reply code, when it answered. */
  readonly status: number | null;
  /** What went wrong. */
  readonly error: string | null;
  /** Whether trying again may succeed (network error, timeout, 408, 429, 5xx, a temporary SMTP refusal). */
  readonly retryable: boolean;
  /**
   * The target is gone for good: a push service said the subscription no longer exists (404, 410), or a webhook
   * receiver answered 410 Gone.
   */
  readonly gone?: boolean;
  /** The `Retry-After` of a 429 or 503 answer as sent (seconds or an HTTP date): when to try again. */
  readonly retryAfter?: string;
}

/** One message to send. */
export interface OutgoingMessage {
  /** The channel it goes through. */
  readonly channel: Channel;
  /** What it says (a webhook's body; the subject and text of an email; a push notification's content). */
  readonly payload: WebhookPayload;
  /** An email confirmation's link, for a `confirm` delivery. */
  readonly confirmLink?: string;
  /** A password reset's link, for a `reset` delivery. */
  readonly resetLink?: string;
  /**
   * An alert email's unsubscribe link (`List-Unsubscribe`, RFC 2369; its one-click POST, RFC 8058), also in the
   * footer of its text and HTML.
   */
  readonly unsubscribeLink?: string;
  /** The app's origin (`PUBLIC_ORIGIN`), which an alert email links the symbol's chart and the alerts at. */
  readonly origin?: string;
  /** An alert's: the trigger it tells of, which is the id of its notification in the bell. */
  readonly triggerId?: string | null;
  /**
   * An alert email's firings of one alert, in order, when it tells of more than one (a digest of the firings
   * held during the cooldown after its previous email); `payload` is one of them.
   */
  readonly digest?: readonly WebhookPayload[];
}

/** Sends one message through one kind of channel. */
export type Sender = (message: OutgoingMessage) => Promise<AttemptResult>;

function httpResult({ status, body, retryAfter }: OutboundAnswer): AttemptResult {
  if (status >= 200 && status < 300) return { ok: true, status, error: null, retryable: false };
  const retryable = status === 408 || status === 429 || status >= 500;
  const error =
    status >= 300 && status < 400
      ? `answered a redirect (${status}), which is not followed`
      : `answered ${status}${body ? `: ${body.slice(0, 200)}` : ''}`;
  // The processor reads it (`retry.ts`) to time the next attempt.
  const asked = retryAfter !== null && RETRY_AFTER_STATUSES.includes(status) ? { retryAfter } : {};
  return { ok: false, status, error, retryable, ...asked };
}

function networkResult(error: unknown): AttemptResult {
  if (error instanceof ForbiddenAddressError)
    return { ok: false, status: null, error: error.message, retryable: false };
  const message = error instanceof Error ? error.message : String(error);
  return { ok: false, status: null, error: message, retryable: true };
}

/** What the webhook sender needs. */
export interface WebhookSenderOptions {
  /** The signing secret of a channel, of its secret's generation (`secretGeneration`, 0 until rotated). */
  readonly secretOf: (channelId: string, generation: number) => string;
  /** Hosts reached even when their address is not public. */
  readonly allowedHosts: ReadonlySet<string>;
  /** Seconds since the epoch now (default the clock). */
  readonly nowSeconds?: () => number;
  readonly timeoutMs?: number;
}

/**
 * Posts the payload as JSON, keyed by the delivery id and signed with the channel's current secret; a 410 Gone
 * answer says the receiver is `gone` (the processor disables the webhook).
 */
export function webhookSender(options: WebhookSenderOptions): Sender {
  return async ({ channel, payload }) => {
    if (channel.url === null) return { ok: false, status: null, error: 'the channel has no URL', retryable: false };
    const body = JSON.stringify(payload);
    const t = options.nowSeconds?.() ?? Math.floor(Date.now() / 1000);
    try {
      const answer = await postChecked({
        url: channel.url,
        headers: {
          'content-type': 'application/json',
          'idempotency-key': payload.id,
          'stockpulse-signature': signatureHeader(options.secretOf(channel.id, channel.secretGeneration ?? 0), t, body),
          'user-agent': 'StockPulse-Webhook/1',
        },
        body,
        timeoutMs: options.timeoutMs ?? ATTEMPT_TIMEOUT_MS,
        allowedHosts: options.allowedHosts,
      });
      const result = httpResult(answer);
      return answer.status === 410 ? { ...result, gone: true } : result;
    } catch (error) {
      return networkResult(error);
    }
  };
}

/** What the email sender needs: `SMTP_URL` and `SMTP_FROM`. */
export interface EmailSenderOptions {
  readonly smtpUrl: string | null;
  readonly from: string;
  readonly timeoutMs?: number;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * An instant as the market's wall clock reads it, to the second and labelled: `2026-11-30 12:16:22 ET`. The
 * engine's own New York clock (`engine/ticks/marketClock.ts`) reads it; the label is the app's (`domain/market/zone.ts`).
 * Text that is no time is answered as it is.
 */
export function marketTime(at: string): string {
  const ms = Date.parse(at);
  if (Number.isNaN(ms)) return at;
  const t = newYorkTime(ms);
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${t.date} ${two(t.hour)}:${two(t.minute)}:${two(t.second)} ${MARKET_LABEL}`;
}

/** An instant as the market's wall clock reads it, to the minute and labelled: `10:02 ET`. */
export function marketClockTime(at: string): string {
  const ms = Date.parse(at);
  if (Number.isNaN(ms)) return at;
  return `${hourMinute(newYorkTime(ms))} ${MARKET_LABEL}`;
}

/** The app's pages an alert email links: the symbol's chart and the alert manager. */
export function alertLinks(origin: string, symbol: string): { chart: string; alerts: string } {
  const base = origin.replace(/\/$/, '');
  return { chart: `${base}/PriceCharts?stock=${encodeURIComponent(symbol)}`, alerts: `${base}/Alerts` };
}

/** The firings an email tells of as a digest (more than one), or null for an email of one. */
function digestOf(message: OutgoingMessage): readonly WebhookPayload[] | null {
  return message.digest !== undefined && message.digest.length > 1 ? message.digest : null;
}

/** The subject, text and HTML of a message's email. */
export function emailContent(message: OutgoingMessage): { subject: string; text: string; html: string } {
  const { payload, confirmLink, resetLink } = message;
  if (resetLink !== undefined) {
    const expiry = 'The link expires in one hour and works only once.';
    const unasked = 'If you did not ask for this, ignore this message: nothing changes, your password stays as it is.';
    return {
      subject: 'Reset your StockPulse password',
      text: `Reset your StockPulse password by opening this link and choosing a new password:\n\n${resetLink}\n\n${expiry} ${unasked}`,
      html:
        `<p>Reset your StockPulse password by choosing a new one:</p>` +
        `<p><a href="${escapeHtml(resetLink)}">Reset your password</a></p><p>${expiry} ${unasked}</p>`,
    };
  }
  if (confirmLink !== undefined) {
    const text = `Confirm that StockPulse may send alerts to this address by opening this link:\n\n${confirmLink}\n\nIf you did not ask for this, ignore this message.`;
    return {
      subject: 'Confirm your StockPulse alert address',
      text,
      html: `<p>Confirm that StockPulse may send alerts to this address:</p><p><a href="${escapeHtml(confirmLink)}">Confirm this address</a></p><p>If you did not ask for this, ignore this message.</p>`,
    };
  }
  // The symbol and price, when the message is of an alert (a test message has neither), and the time, on the
  // market's clock like every time the app shows (not the payload's UTC).
  const detailOf = (firing: WebhookPayload): string => {
    const price = firing.price === null ? '' : ` at ${firing.price.toFixed(2)}`;
    return [`${firing.symbol}${price}`, marketTime(firing.at)].filter((part) => part !== '').join(', ');
  };
  const detail = detailOf(payload);
  // An alert's email links the symbol's chart and the alert manager; a test message, of no symbol, links
  // nothing, and neither does a message sent without the origin (links must be absolute in an email).
  const links =
    payload.symbol === '' || message.origin === undefined ? null : alertLinks(message.origin, payload.symbol);
  const linksText = links ? `\nChart: ${links.chart}\nYour alerts: ${links.alerts}\n` : '';
  const linksHtml = links
    ? `<p><a href="${escapeHtml(links.chart)}">${escapeHtml(payload.symbol)} chart</a> · ` +
      `<a href="${escapeHtml(links.alerts)}">Your alerts</a></p>`
    : '';
  const unsubscribe = message.unsubscribeLink;
  const footerText =
    unsubscribe === undefined ? '' : `\n--\nTo stop StockPulse alerts to this address, unsubscribe: ${unsubscribe}\n`;
  const footerHtml =
    unsubscribe === undefined
      ? ''
      : `<hr><p><small>To stop StockPulse alerts to this address: ` +
        `<a href="${escapeHtml(unsubscribe)}">unsubscribe</a>.</small></p>`;
  const digest = digestOf(message);
  if (digest !== null) {
    // One email for the firings of one alert held during its cooldown: each firing's message and time, in order.
    const latest = digest.at(-1)!;
    const heading = `${latest.symbol}: alert fired ${digest.length} times since ${marketClockTime(digest[0]!.at)}`;
    const note = latest.note === null ? '' : `\nYour note: ${latest.note}\n`;
    const lines = digest.map((firing) => `- ${firing.message}, ${marketTime(firing.at)}`).join('\n');
    const noteHtml = latest.note === null ? '' : `<p>Your note: ${escapeHtml(latest.note)}</p>`;
    const items = digest
      .map((firing) => `<li>${escapeHtml(firing.message)}, ${escapeHtml(marketTime(firing.at))}</li>`)
      .join('');
    return {
      subject: heading,
      text: `${heading}:\n\n${lines}\n${note}${linksText}${footerText}`,
      html: `<p><strong>${escapeHtml(heading)}</strong></p><ul>${items}</ul>${noteHtml}${linksHtml}${footerHtml}`,
    };
  }
  const note = payload.note === null ? '' : `Your note: ${payload.note}\n\n`;
  const text = `${payload.message}\n\n${note}${detail}\n${linksText}${footerText}`;
  const noteHtml = payload.note === null ? '' : `<p>Your note: ${escapeHtml(payload.note)}</p>`;
  return {
    subject: `StockPulse: ${payload.message}`,
    text,
    html:
      `<p><strong>${escapeHtml(payload.message)}</strong></p>${noteHtml}<p>${escapeHtml(detail)}</p>${linksHtml}` +
      footerHtml,
  };
}

/** Sends an email with a text and an HTML part through `SMTP_URL`. */
export function emailSender(options: EmailSenderOptions): Sender & { close(): void } {
  const transport =
    options.smtpUrl === null
      ? null
      : nodemailer.createTransport({
          url: options.smtpUrl,
          connectionTimeout: options.timeoutMs ?? ATTEMPT_TIMEOUT_MS * 3,
          greetingTimeout: options.timeoutMs ?? ATTEMPT_TIMEOUT_MS * 3,
          socketTimeout: options.timeoutMs ?? ATTEMPT_TIMEOUT_MS * 3,
        } as Parameters<typeof nodemailer.createTransport>[0]);
  // A pooled transport (`?pool=true`) reports an idle connection's failure as an event; each message's own
  // failure reaches its `sendMail`, so the event needs no more than a listener that keeps the process up.
  transport?.on('error', () => undefined);
  const send = async (message: OutgoingMessage): Promise<AttemptResult> => {
    if (transport === null)
      return { ok: false, status: null, error: 'email is not configured (SMTP_URL)', retryable: false };
    if (message.channel.address === null)
      return { ok: false, status: null, error: 'the channel has no address', retryable: false };
    const content = emailContent(message);
    const digest = digestOf(message);
    try {
      const info = (await transport.sendMail({
        from: options.from,
        to: message.channel.address,
        ...content,
        headers: {
          'X-StockPulse-Delivery': message.payload.id,
          // A digest names every delivery it carries, in the order of its firings.
          ...(digest !== null ? { 'X-StockPulse-Deliveries': digest.map((firing) => firing.id).join(', ') } : {}),
          // RFC 2369 and RFC 8058: a mail client's unsubscribe button POSTs `List-Unsubscribe=One-Click` to it.
          ...(message.unsubscribeLink !== undefined
            ? {
                'List-Unsubscribe': `<${message.unsubscribeLink}>`,
                'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
              }
            : {}),
        },
      })) as { response?: unknown };
      const code = /^(\d{3})/.exec(String(info.response))?.[1];
      return { ok: true, status: code ? Number(code) : 250, error: null, retryable: false };
    } catch (error) {
      const responseCode = (error as { responseCode?: number }).responseCode;
      const text = error instanceof Error ? error.message : String(error);
      if (typeof responseCode === 'number') {
        return { ok: false, status: responseCode, error: text, retryable: responseCode < 500 };
      }
      return { ok: false, status: null, error: text, retryable: true };
    }
  };
  return Object.assign(send, { close: () => transport?.close() });
}

/** The application server's VAPID key pair (base64url), which push services check the sender against. */
export interface VapidKeys {
  readonly publicKey: string;
  readonly privateKey: string;
}

/** The VAPID file inside `DATA_DIR`. */
export const VAPID_FILE = 'vapid.json';

/** The configured VAPID keys, or the ones in `DATA_DIR` (generated there on first use). */
export function loadVapidKeys(configured: VapidKeys | null, dataDir: string): VapidKeys {
  if (configured !== null) return configured;
  const file = path.join(dataDir, VAPID_FILE);
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    // `wx`: two processes starting at once on one folder keep the first pair written.
    fs.writeFileSync(file, JSON.stringify(webPush.generateVAPIDKeys()), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const keys = JSON.parse(fs.readFileSync(file, 'utf8')) as VapidKeys;
  if (typeof keys.publicKey !== 'string' || typeof keys.privateKey !== 'string') {
    throw new Error(`${file}: not a VAPID key pair`);
  }
  return { publicKey: keys.publicKey, privateKey: keys.privateKey };
}

/** What the Web Push sender needs. */
export interface PushSenderOptions {
  readonly vapid: VapidKeys;
  /** The contact push services may reach the sender at (`mailto:` or `https:`). */
  readonly subject: string;
  readonly allowedHosts: ReadonlySet<string>;
  readonly timeoutMs?: number;
}

/** What a push message carries to the service worker. */
export interface PushContent {
  readonly title: string;
  readonly body: string;
  readonly symbol: string;
  /** The page the notification opens. */
  readonly url: string;
  readonly id: string;
  /**
   * The notification's tag: an alert's is its notification's id in the bell (the trigger's), which an open tab
   * of the app tags its own system notification with too, so the browser shows one of the two, not both.
   */
  readonly tag: string;
}

/**
 * The notification a push message shows. The message says no time, and a notification may be shown late (a
 * browser offline), so the market time follows it on its first line, the note staying on a line of its own.
 */
export function pushContent(payload: WebhookPayload, triggerId: string | null = null): PushContent {
  return {
    ...firingNotificationText(payload.symbol, `${payload.message}, ${marketTime(payload.at)}`, payload.note),
    symbol: payload.symbol,
    url: payload.symbol === '' ? '/Settings' : `/PriceCharts?stock=${encodeURIComponent(payload.symbol)}`,
    id: payload.id,
    tag: triggerId ?? payload.id,
  };
}

/** Encrypts the message for the browser (aes128gcm) and posts it to its push service with a VAPID signature. */
export function pushSender(options: PushSenderOptions): Sender {
  return async ({ channel, payload, triggerId }) => {
    const subscription = channel.subscription;
    if (subscription === null)
      return { ok: false, status: null, error: 'the channel has no subscription', retryable: false };
    let details: ReturnType<typeof webPush.generateRequestDetails>;
    try {
      details = webPush.generateRequestDetails(
        { endpoint: subscription.endpoint, keys: { p256dh: subscription.p256dh, auth: subscription.auth } },
        JSON.stringify(pushContent(payload, triggerId ?? null)),
        {
          vapidDetails: {
            subject: options.subject,
            publicKey: options.vapid.publicKey,
            privateKey: options.vapid.privateKey,
          },
          TTL: 24 * 3600,
          contentEncoding: 'aes128gcm',
          urgency: 'high',
          topic: undefined,
        },
      );
    } catch (error) {
      return {
        ok: false,
        status: null,
        error: error instanceof Error ? error.message : String(error),
        retryable: false,
      };
    }
    try {
      const answer = await postChecked({
        url: details.endpoint,
        headers: Object.fromEntries(Object.entries(details.headers).map(([k, v]) => [k, String(v)])),
        body: details.body ?? Buffer.alloc(0),
        timeoutMs: options.timeoutMs ?? ATTEMPT_TIMEOUT_MS,
        allowedHosts: options.allowedHosts,
      });
      const result = httpResult(answer);
      return answer.status === 404 || answer.status === 410 ? { ...result, gone: true } : result;
    } catch (error) {
      return networkResult(error);
    }
  };
}
