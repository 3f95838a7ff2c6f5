/**
 * The delivery read models: each user's channels (folded with the channels decider), and each user's latest
 * deliveries with where each stands after its last attempt.
 */
import { channelsDecider, type ChannelsEvent, type ChannelsState } from '../../domain/channels/channels.ts';
import type { DeliveryAnswer } from '../../domain/contract/channels.ts';
import type { DeliveriesEvent } from '../../domain/deliveries/deliveries.ts';
import { deciderProjection, type Projection } from '../projection.ts';

/** Most deliveries kept per user, newest first. */
export const DELIVERIES_KEPT = 500;

/** `GET /personalize/channels`: each user's channels and the channels each alert named. */
export const channelsProjection: Projection<ChannelsState> = deciderProjection('channels', 1, channelsDecider, [
  'ChannelAdded',
  'ChannelRemoved',
  'EmailChannelConfirmed',
  'PushSubscriptionRemoved',
  'AlertChannelsChosen',
] satisfies ChannelsEvent['type'][]);

/** A user's latest deliveries, newest first. */
export interface DeliveriesDocument {
  readonly deliveries: readonly DeliveryAnswer[];
}

function applyDelivery(list: readonly DeliveryAnswer[], event: DeliveriesEvent): readonly DeliveryAnswer[] {
  const index = list.findIndex((d) => d.id === event.data.deliveryId);
  if (event.type === 'DeliveryAttempted') {
    const data = event.data;
    if (index >= 0) {
      const current = list[index]!;
      if (data.attempt <= current.attempts) return list;
      const next = { ...current, attempts: data.attempt, status: 'pending' as const, updatedt: data.at };
      return list.map((d, i) => (i === index ? next : d));
    }
    const created: DeliveryAnswer = {
      id: data.deliveryId,
      kind: data.kind,
      alertId: data.alertId,
      channelId: data.channelId,
      channelType: data.channelType,
      status: 'pending',
      attempts: data.attempt,
      lastStatus: null,
      lastError: null,
      retryAt: null,
      createdt: data.at,
      updatedt: data.at,
    };
    return [created, ...list].slice(0, DELIVERIES_KEPT);
  }
  if (index < 0) return list;
  const current = list[index]!;
  const next: DeliveryAnswer =
    event.type === 'DeliverySucceeded'
      ? {
          ...current,
          status: 'succeeded',
          lastStatus: event.data.status,
          lastError: null,
          retryAt: null,
          updatedt: event.data.at,
        }
      : {
          ...current,
          status: event.data.final ? 'failed' : 'pending',
          lastStatus: event.data.status,
          lastError: event.data.error,
          retryAt: event.data.retryAt,
          updatedt: event.data.at,
        };
  return list.map((d, i) => (i === index ? next : d));
}

/** `GET /personalize/deliveries`: each user's latest {@link DELIVERIES_KEPT} deliveries. */
export const deliveriesProjection: Projection<DeliveriesDocument> = {
  name: 'deliveries',
  version: 1,
  handles: ['DeliveryAttempted', 'DeliverySucceeded', 'DeliveryFailed'] satisfies DeliveriesEvent['type'][],
  evolve: (doc, event) => ({
    deliveries: applyDelivery(doc?.deliveries ?? [], { type: event.type, data: event.data } as DeliveriesEvent),
  }),
};
