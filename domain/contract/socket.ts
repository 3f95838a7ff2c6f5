/**
 * The Socket.IO contract of api.md: the payloads as zod schemas and the event maps built from them, shared by
 * the server and the web app so both sides agree on every payload.
 */
import { z } from './zod.ts';
import { quoteAnswer } from './market.ts';
import { notificationAnswer } from './notifications.ts';
import { symbolSchema } from './common.ts';

/** Most symbols one socket may watch at once. */
export const MAX_WATCHED_SYMBOLS = 200;

/** A notification as `GET /personalize/usernotifications/{type}` answers it, plus its log position. */
export const notificationPush = notificationAnswer.extend({
  /** The trigger's log position (`commit/prepare`), for catching up after a reconnect. */
  position: z.string(),
});

/** A pushed notification. */
export type NotificationPush = z.infer<typeof notificationPush>;

/** What a client subscribes to or unsubscribes from. */
export const quotesRequest = z.object({
  symbols: z
    .array(symbolSchema)
    .min(1, 'must name at least one symbol')
    .max(MAX_WATCHED_SYMBOLS, `must name at most ${MAX_WATCHED_SYMBOLS} symbols`)
    .readonly(),
});

/** A subscription request as a client sends it. */
export type QuotesRequest = z.input<typeof quotesRequest>;

/** The acknowledgement of `quotes:subscribe` and `quotes:unsubscribe`. */
export const quotesAck = z.union([
  z.object({ ok: z.literal(true), symbols: z.array(z.string()), quotes: z.array(quoteAnswer) }),
  z.object({ ok: z.literal(false), message: z.string() }),
]);

/** An acknowledgement of a subscription change. */
export type QuotesAck = z.infer<typeof quotesAck>;

/** A read model that changed, and the log position it now includes (`commit/prepare`). */
export const readModelChange = z.object({ name: z.string(), position: z.string() });

/** A read model change as pushed. */
export type ReadModelChange = z.infer<typeof readModelChange>;

/** A pushed quote (the entry replaces the one of the same symbol). */
export type QuotePush = z.infer<typeof quoteAnswer>;

/** Events the server sends. */
export interface ServerToClientEvents {
  /** A symbol's quote changed (the entry replaces the one of the same symbol); at most 4 per second per symbol. */
  quote: (quote: QuotePush) => void;
  /** An alert of this user fired; sent once the trigger is durable and in the notifications read model. */
  notification: (notification: NotificationPush) => void;
  /** A read model of this user changed: screens showing it can read it again. */
  'readmodel:changed': (change: ReadModelChange) => void;
}

/** Events the client sends. */
export interface ClientToServerEvents {
  /** Watch the quotes of symbols; the acknowledgement carries their current quotes. */
  'quotes:subscribe': (request: QuotesRequest, ack: (answer: QuotesAck) => void) => void;
  /** Stop watching symbols; the acknowledgement carries the symbols still watched. */
  'quotes:unsubscribe': (request: QuotesRequest, ack: (answer: QuotesAck) => void) => void;
}

/** The schemas of the server's pushes, by event name, for a client that checks what it receives. */
export const serverPushes = {
  quote: quoteAnswer,
  notification: notificationPush,
  'readmodel:changed': readModelChange,
} as const;
