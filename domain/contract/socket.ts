/**
 * The Socket.IO event maps of api.md, shared by the server and the UI so both sides agree on every payload.
 */
import type { Quote } from '../market/types.ts';

/** A notification as `GET /personalize/usernotifications/{type}` answers it, plus its log position. */
export interface NotificationPush {
  /** The notification's id (the trigger event's id). */
  readonly id: string;
  /** The alert's symbol. */
  readonly symbol: string;
  /** 1 = Price, 2 = SMA. */
  readonly notificationtype: number;
  /** The message (the spec's spelling). */
  readonly notifcationmessage: string;
  /** When it fired (ISO 8601). */
  readonly createdt: string;
  /** Whether it was read (a pushed notification is new). */
  readonly read: boolean;
  /** The trigger's log position (`commit/prepare`), for catching up after a reconnect. */
  readonly position: string;
}

/** The acknowledgement of `quotes:subscribe` and `quotes:unsubscribe`. */
export type QuotesAck =
  | { readonly ok: true; readonly symbols: readonly string[]; readonly quotes: readonly Quote[] }
  | { readonly ok: false; readonly message: string };

/** What a client subscribes to or unsubscribes from. */
export interface QuotesRequest {
  /** The symbols. */
  readonly symbols: readonly string[];
}

/** Events the server sends. */
export interface ServerToClientEvents {
  /** A symbol's quote changed (the entry replaces the one of the same symbol); at most 4 per second per symbol. */
  quote: (quote: Quote) => void;
  /** An alert of this user fired; sent once the trigger is durable and in the notifications read model. */
  notification: (notification: NotificationPush) => void;
  /** A read model of this user changed: screens showing it can read it again. */
  'readmodel:changed': (change: ReadModelChange) => void;
}

/** A read model that changed, and the log position it now includes (`commit/prepare`). */
export interface ReadModelChange {
  /** The projection's name. */
  readonly name: string;
  /** The position committed. */
  readonly position: string;
}

/** Events the client sends. */
export interface ClientToServerEvents {
  /** Watch the quotes of symbols; the acknowledgement carries their current quotes. */
  'quotes:subscribe': (request: QuotesRequest, ack: (answer: QuotesAck) => void) => void;
  /** Stop watching symbols; the acknowledgement carries the symbols still watched. */
  'quotes:unsubscribe': (request: QuotesRequest, ack: (answer: QuotesAck) => void) => void;
}
