/**
 * The delivery secrets, derived rather than stored, so none of them is written to the log: a webhook's
 * signing secret and an email address's confirmation token are HMACs of the channel under a key derived from
 * the log's chain key (`CHAIN_KEY`, shared by every process of a deployment).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The secrets of one deployment. */
export interface DeliverySecrets {
  /** The signing secret of a webhook channel. */
  webhookSecret(channelId: string): string;
  /** The token of an email channel's confirmation link. */
  confirmToken(userId: string, channelId: string): string;
  /** Whether a token is the confirmation token of that channel (constant time). */
  checkConfirmToken(userId: string, channelId: string, token: string): boolean;
}

/** The secrets derived from a deployment key. */
export function deliverySecrets(key: Buffer): DeliverySecrets {
  const derived = createHmac('sha256', key).update('stockpulse delivery secrets v1').digest();
  const mac = (text: string): string => createHmac('sha256', derived).update(text).digest('hex');
  const confirmToken = (userId: string, channelId: string): string =>
    mac(`confirm/${userId}/${channelId.toLowerCase()}`);
  return {
    webhookSecret: (channelId) => `whsec_${mac(`webhook/${channelId.toLowerCase()}`)}`,
    confirmToken,
    checkConfirmToken: (userId, channelId, token) => {
      const expected = Buffer.from(confirmToken(userId, channelId), 'utf8');
      const given = Buffer.from(token, 'utf8');
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}

/** The `StockPulse-Signature` header of a body sent at `unixSeconds`: `t=<t>,v1=<hex HMAC-SHA256("<t>.<body>")>`. */
export function signatureHeader(secret: string, unixSeconds: number, rawBody: string): string {
  const v1 = createHmac('sha256', secret).update(`${unixSeconds}.${rawBody}`).digest('hex');
  return `t=${unixSeconds},v1=${v1}`;
}
