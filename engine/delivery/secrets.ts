/**
 * The delivery secrets, derived rather than stored, so none of them is written to the log: a webhook's
 * signing secret is an HMAC of the channel and its secret's generation (bumped by each rotation), an email
 * address's confirmation and unsubscribe tokens HMACs of the user and the channel, and a password reset link's
 * token an HMAC of the user and the request, under a key derived from the log's chain key (`CHAIN_KEY`, shared
 * by every process of a deployment). Each kind has its own purpose label, so no token stands for another.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The secrets of one deployment. */
export interface DeliverySecrets {
  /**
   * The signing secret of a webhook channel: of `generation` (the channel's `secretGeneration`, 0 until its
   * first rotation, which is the secret of webhooks never rotated).
   */
  webhookSecret(channelId: string, generation?: number): string;
  /** The token of an email channel's confirmation link. */
  confirmToken(userId: string, channelId: string): string;
  /** Whether a token is the confirmation token of that channel (constant time). */
  checkConfirmToken(userId: string, channelId: string, token: string): boolean;
  /** The token of an alert email's unsubscribe link (`List-Unsubscribe`) to that channel. */
  unsubscribeToken(userId: string, channelId: string): string;
  /** Whether a token is the unsubscribe token of that channel (constant time). */
  checkUnsubscribeToken(userId: string, channelId: string, token: string): boolean;
  /** The token of a password reset link: of user `userId`'s reset request `requestId`. */
  resetToken(userId: string, requestId: string): string;
  /** Whether a token is the token of that reset request (constant time). */
  checkResetToken(userId: string, requestId: string, token: string): boolean;
}

/** Whether `given` is `expected`, in a time that does not depend on where they differ. */
function sameToken(expected: string, given: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(given, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The secrets derived from a deployment key. */
export function deliverySecrets(key: Buffer): DeliverySecrets {
  const derived = createHmac('sha256', key).update('stockpulse delivery secrets v1').digest();
  const mac = (text: string): string => createHmac('sha256', derived).update(text).digest('hex');
  const confirmToken = (userId: string, channelId: string): string =>
    mac(`confirm/${userId}/${channelId.toLowerCase()}`);
  const resetToken = (userId: string, requestId: string): string =>
    mac(`password-reset/${userId}/${requestId.toLowerCase()}`);
  const unsubscribeToken = (userId: string, channelId: string): string =>
    mac(`unsubscribe/${userId}/${channelId.toLowerCase()}`);
  return {
    // Generation 0 is of the channel alone: a webhook never rotated keeps the secret it was added with.
    webhookSecret: (channelId, generation = 0) => {
      const channel = `webhook/${channelId.toLowerCase()}`;
      return `whsec_${mac(generation === 0 ? channel : `${channel}/${generation}`)}`;
    },
    confirmToken,
    checkConfirmToken: (userId, channelId, token) => sameToken(confirmToken(userId, channelId), token),
    unsubscribeToken,
    checkUnsubscribeToken: (userId, channelId, token) => sameToken(unsubscribeToken(userId, channelId), token),
    resetToken,
    checkResetToken: (userId, requestId, token) => sameToken(resetToken(userId, requestId), token),
  };
}

/** The `StockPulse-Signature` header of a body sent at `unixSeconds`: `t=<t>,v1=<hex HMAC-SHA256("<t>.<body>")>`. */
export function signatureHeader(secret: string, unixSeconds: number, rawBody: string): string {
  const v1 = createHmac('sha256', secret).update(`${unixSeconds}.${rawBody}`).digest('hex');
  return `t=${unixSeconds},v1=${v1}`;
}
