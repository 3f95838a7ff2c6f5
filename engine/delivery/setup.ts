/**
 * The delivery parts a process builds from its configuration: the derived secrets, the three senders and the
 * VAPID public key browsers subscribe with.
 */
import { randomBytes } from 'node:crypto';
import { chainKeyOf } from '../../platform/audit/chainKey.ts';
import type { Config } from '../../platform/config.ts';
import type { EventStore } from '../../platform/eventstore/port.ts';
import type { Logger } from '../../platform/logger.ts';
import type { Senders } from './processor.ts';
import { deliverySecrets, type DeliverySecrets } from './secrets.ts';
import { emailSender, loadVapidKeys, pushSender, webhookSender } from './senders.ts';

/** What the routes and the processor share. */
export interface DeliverySetup {
  readonly secrets: DeliverySecrets;
  readonly senders: Senders;
  /** The VAPID public key (base64url) for `PushManager.subscribe`. */
  readonly vapidPublicKey: string;
  /**
   * The hosts reached even on addresses that are not public (`WEBHOOK_ALLOWED_HOSTS`, lower-cased): the senders
   * check against them when sending, and the channel routes when a URL is added (`guard.ts`).
   */
  readonly allowedHosts: ReadonlySet<string>;
  /**
   * The origin the links of messages (confirmation, chart, alert manager) point at, read at each send:
   * `PUBLIC_ORIGIN`, else `http://localhost:<port>` on the port the server listens on ({@link listeningOn}).
   */
  readonly publicOrigin: () => string;
  /**
   * Tells the links the port the API server bound: with `PORT=0` the system picks it only once the server
   * listens, after the delivery parts are built (the processor of role `all` starts first).
   */
  listeningOn(port: number): void;
  /** Closes the SMTP connections. */
  close(): void;
}

/** Builds the delivery parts of a process. Without `PUBLIC_ORIGIN` it warns, once, that links name localhost. */
export function setUpDelivery(config: Config, events: EventStore, logger: Pick<Logger, 'warn'>): DeliverySetup {
  // Without a chain key (a store opened by hand), secrets hold for this process only.
  const secrets = deliverySecrets(chainKeyOf(events) ?? randomBytes(32));
  const allowedHosts: ReadonlySet<string> = new Set(config.delivery.webhookAllowedHosts);
  const vapid = loadVapidKeys(config.delivery.vapid, config.dataDir);
  const email = emailSender({ smtpUrl: config.delivery.smtpUrl, from: config.delivery.smtpFrom });
  // Until the server reports its port, the configured one; `PORT=0` (any free port) falls back to the default
  // 3000 only for a message sent before the server listens.
  let port = config.port === 0 ? 3000 : config.port;
  const configuredOrigin = config.publicOrigin;
  // Only a process that sends e-mail says so (ROLE=delivery requires the origin; the other roles send none).
  if (configuredOrigin === null && config.role === 'all') {
    logger.warn(
      { port: config.port === 0 ? 'chosen when listening' : config.port },
      'PUBLIC_ORIGIN is unset: links in e-mails name http://localhost and the port the server listens on',
    );
  }
  return {
    secrets,
    senders: {
      webhook: webhookSender({ secretOf: (id, generation) => secrets.webhookSecret(id, generation), allowedHosts }),
      email,
      webpush: pushSender({ vapid, subject: config.delivery.vapidSubject, allowedHosts }),
    },
    vapidPublicKey: vapid.publicKey,
    allowedHosts,
    publicOrigin: () => configuredOrigin ?? `http://localhost:${port}`,
    listeningOn: (bound) => {
      port = bound;
    },
    close: () => email.close(),
  };
}
