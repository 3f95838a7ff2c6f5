/**
 * The delivery parts a process builds from its configuration: the derived secrets, the three senders and the
 * VAPID public key browsers subscribe with.
 */
import { randomBytes } from 'node:crypto';
import { chainKeyOf } from '../../platform/audit/chainKey.ts';
import type { Config } from '../../platform/config.ts';
import type { EventStore } from '../../platform/eventstore/port.ts';
import type { Senders } from './processor.ts';
import { deliverySecrets, type DeliverySecrets } from './secrets.ts';
import { emailSender, loadVapidKeys, pushSender, webhookSender } from './senders.ts';

/** What the routes and the processor share. */
export interface DeliverySetup {
  readonly secrets: DeliverySecrets;
  readonly senders: Senders;
  /** The VAPID public key (base64url) for `PushManager.subscribe`. */
  readonly vapidPublicKey: string;
  /** The origin confirmation links point at. */
  readonly publicOrigin: string;
  /** Closes the SMTP connections. */
  close(): void;
}

/** Builds the delivery parts of a process. */
export function setUpDelivery(config: Config, events: EventStore): DeliverySetup {
  // Without a chain key (a store opened by hand), secrets hold for this process only.
  const secrets = deliverySecrets(chainKeyOf(events) ?? randomBytes(32));
  const allowedHosts = new Set(config.delivery.webhookAllowedHosts);
  const vapid = loadVapidKeys(config.delivery.vapid, config.dataDir);
  const email = emailSender({ smtpUrl: config.delivery.smtpUrl, from: config.delivery.smtpFrom });
  return {
    secrets,
    senders: {
      webhook: webhookSender({ secretOf: (id) => secrets.webhookSecret(id), allowedHosts }),
      email,
      webpush: pushSender({ vapid, subject: config.delivery.vapidSubject, allowedHosts }),
    },
    vapidPublicKey: vapid.publicKey,
    publicOrigin: config.publicOrigin ?? `http://localhost:${config.port === 0 ? 3000 : config.port}`,
    close: () => email.close(),
  };
}
