/**
 * An alert's delivery channels in words: each channel named as the builder's "Deliver to" names it, and an alert's
 * choice as the alert manager's grid shows it.
 */
import { CHANNEL_TYPES, CHANNEL_TYPE_LABELS } from '../../domain/channels/channels.ts';
import type { ChannelAnswer, DeliveryAnswer } from '../../domain/contract/channels.ts';
import { formatTime, type Zone } from '../services/time.ts';

/** A channel as the choice names it: its name, and its kind when the name does not say it. */
export function channelName(channel: ChannelAnswer): string {
  const kind = CHANNEL_TYPE_LABELS[channel.type];
  return channel.name.toLowerCase().includes(kind.toLowerCase()) ? channel.name : `${channel.name} (${kind})`;
}

/**
 * A channel in the builder's choice: its name, and why it receives nothing when it does not (not confirmed yet,
 * unsubscribed, or disabled).
 */
export function channelLabel(channel: ChannelAnswer): string {
  const name = channelName(channel);
  if (channel.disabled) return `${name}, disabled`;
  if (channel.confirmed) return name;
  return channel.unsubscribedAt ? `${name}, unsubscribed` : `${name}, not confirmed yet`;
}

/** Why a webhook receives nothing, in the settings' words: `Disabled: the receiver answered 410 Gone`. */
export function disabledText(disabled: NonNullable<ChannelAnswer['disabled']>): string {
  return `Disabled: the receiver answered ${disabled.status}${disabled.status === 410 ? ' Gone' : ''}`;
}

/**
 * Where an alert's triggers go besides the bell: "Every channel" (null; "The bell only (no channel yet)" for a user
 * with none, as the builder says), "The bell only" (none, which the server
 * no longer answers: an alert whose named channels were all removed goes to every channel), or the channels
 * named, in the user's order; `known` null while the user's channels are not loaded (then they are counted).
 */
export function deliveryText(chosen: readonly string[] | null, known: readonly ChannelAnswer[] | null): string {
  if (chosen === null) return known?.length === 0 ? 'The bell only (no channel yet)' : 'Every channel';
  if (chosen.length === 0) return 'The bell only';
  if (known === null) return chosen.length === 1 ? '1 channel' : `${chosen.length} channels`;
  const names = known.filter((channel) => chosen.includes(channel.id)).map(channelName);
  // A channel removed since the user's list was loaded is still counted.
  const unknown = chosen.length - names.length;
  if (unknown > 0) names.push(unknown === 1 ? '1 other channel' : `${unknown} other channels`);
  return names.join(', ');
}

/**
 * Where a delivery stands after its last attempt, in words: `delivered`, `failed: <why>`, `retrying at 10:05`
 * or `sending`, with the attempts made when more than one.
 */
export function deliveryStatusText(delivery: DeliveryAnswer, timeZone: Zone): string {
  const status =
    delivery.status === 'succeeded'
      ? 'delivered'
      : delivery.status === 'failed'
        ? `failed${delivery.lastError ? `: ${delivery.lastError}` : ''}`
        : delivery.retryAt
          ? `retrying at ${formatTime(delivery.retryAt, timeZone, { seconds: false })}`
          : 'sending';
  return delivery.attempts > 1 ? `${status} (${delivery.attempts} attempts)` : status;
}

/** Orders deliveries by their channel's type as the app lists them: webhook, email, Web Push. */
export function byChannelType(a: Pick<DeliveryAnswer, 'channelType'>, b: Pick<DeliveryAnswer, 'channelType'>): number {
  return CHANNEL_TYPES.indexOf(a.channelType) - CHANNEL_TYPES.indexOf(b.channelType);
}

/** The channel a delivery went to, named as the builder names it, or by its kind once the channel is removed. */
export function deliveryChannelName(delivery: DeliveryAnswer, known: readonly ChannelAnswer[] | null): string {
  const channel = known?.find((c) => c.id === delivery.channelId);
  return channel ? channelName(channel) : CHANNEL_TYPE_LABELS[delivery.channelType];
}
