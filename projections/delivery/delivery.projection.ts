/**
 * The delivery read models: each user's channels (folded with the channels decider), and each user's latest
 * deliveries with where each stands after its last attempt.
 */
import { CHANNELS_EVENT_TYPES, channelsDecider, type ChannelsState } from '../../domain/channels/channels.ts';
import type { DeliveryAnswer } from '../../domain/contract/channels.ts';
import type { DeliveriesEvent, DeliveryAbandoned, DeliveryAttempted } from '../../domain/deliveries/deliveries.ts';
import { isAfter, type LogPosition } from '../../platform/eventstore/port.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import {
  deciderProjection,
  userKey,
  type Projection,
  type StoredDocument,
  type WriterProjection,
} from '../projection.ts';
import { ringKey, ringPrefix, takeRingSlot } from '../ring.ts';

/** Most deliveries kept per user, newest first. */
export const DELIVERIES_KEPT = 500;

/** `GET /personalize/channels`: each user's channels and the channels each alert named. */
export const channelsProjection: Projection<ChannelsState> = deciderProjection(
  'channels',
  1,
  channelsDecider,
  // A resent confirmation leaves the channel as it was (the delivery processor sends the e-mail).
  CHANNELS_EVENT_TYPES.filter((type) => type !== 'EmailConfirmationResent'),
);

/** A delivery's entry in its user's ring of the latest {@link DELIVERIES_KEPT}: the delivery, and which it is. */
export interface DeliverySlot {
  /** How many deliveries of the user were created before it. */
  readonly seq: number;
  readonly delivery: DeliveryAnswer;
}

/** Where a kept delivery is in its user's ring. */
interface DeliveryPointer {
  readonly slot: number;
}

const DELIVERIES = 'deliveries';

/** The key of where a delivery is kept: `<userId>/<deliveryId>`. */
function pointerKey(userId: string, deliveryId: string): string {
  return `${userId}/${deliveryId}`;
}

/** A delivery as its first event records it: its first attempt, or its end before any (abandoned). */
function createdDelivery(event: DeliveryAttempted | DeliveryAbandoned): DeliveryAnswer {
  const { data } = event;
  return {
    id: data.deliveryId,
    kind: data.kind,
    alertId: data.alertId,
    triggerId: data.triggerId,
    channelId: data.channelId,
    channelType: data.channelType,
    status: event.type === 'DeliveryAbandoned' ? 'failed' : 'pending',
    attempts: event.type === 'DeliveryAbandoned' ? 0 : event.data.attempt,
    lastStatus: null,
    lastError: event.type === 'DeliveryAbandoned' ? event.data.error : null,
    retryAt: null,
    createdt: data.at,
    updatedt: data.at,
  };
}

/** A kept delivery after a later event of its own (itself when the event tells nothing new). */
function updatedDelivery(current: DeliveryAnswer, event: DeliveriesEvent): DeliveryAnswer {
  switch (event.type) {
    case 'DeliveryAttempted':
      if (event.data.attempt <= current.attempts) return current;
      return { ...current, attempts: event.data.attempt, status: 'pending', updatedt: event.data.at };
    case 'DeliverySucceeded':
      return {
        ...current,
        status: 'succeeded',
        lastStatus: event.data.status,
        lastError: null,
        retryAt: null,
        updatedt: event.data.at,
      };
    case 'DeliveryFailed':
      return {
        ...current,
        status: event.data.final ? 'failed' : 'pending',
        lastStatus: event.data.status,
        lastError: event.data.error,
        retryAt: event.data.retryAt,
        updatedt: event.data.at,
      };
    case 'DeliveryAbandoned':
      // Recorded only for a delivery of which nothing was: its first event, never an update.
      return current;
  }
}

/**
 * `GET /personalize/deliveries`: each user's latest {@link DELIVERIES_KEPT} deliveries, in a ring of that many
 * slots: a delivery's first attempt takes the next slot (its older occupant goes), its later events rewrite that
 * slot only, found from `<userId>/<deliveryId>`. Events of a delivery no longer kept change nothing.
 */
export const deliveriesProjection: WriterProjection = {
  name: DELIVERIES,
  version: 3,
  handles: [
    'DeliveryAttempted',
    'DeliverySucceeded',
    'DeliveryFailed',
    'DeliveryAbandoned',
  ] satisfies DeliveriesEvent['type'][],
  write: async (recorded, tx) => {
    const userId = userKey(recorded);
    if (userId === null) return;
    const event = { type: recorded.type, data: recorded.data } as DeliveriesEvent;
    const position = recorded.position;
    const pointer = await tx.get<StoredDocument<DeliveryPointer>>(
      DELIVERIES,
      pointerKey(userId, event.data.deliveryId),
    );
    if (pointer) {
      const key = ringKey(userId, pointer.value.slot);
      const stored = await tx.get<StoredDocument<DeliverySlot>>(DELIVERIES, key);
      if (!stored || stored.value.delivery.id !== event.data.deliveryId || !isAfter(position, stored.position)) {
        return;
      }
      const delivery = updatedDelivery(stored.value.delivery, event);
      if (delivery === stored.value.delivery) return;
      tx.put(DELIVERIES, key, {
        position,
        value: { ...stored.value, delivery },
      } satisfies StoredDocument<DeliverySlot>);
      return;
    }
    if (event.type !== 'DeliveryAttempted' && event.type !== 'DeliveryAbandoned') return;
    const taken = await takeRingSlot(tx, DELIVERIES, userId, position, DELIVERIES_KEPT);
    if (taken === null) return;
    const gone = await tx.get<StoredDocument<DeliverySlot>>(DELIVERIES, taken.key);
    if (gone) tx.delete(DELIVERIES, pointerKey(userId, gone.value.delivery.id));
    tx.put(DELIVERIES, taken.key, {
      position,
      value: { seq: taken.seq, delivery: createdDelivery(event) },
    } satisfies StoredDocument<DeliverySlot>);
    tx.put(DELIVERIES, pointerKey(userId, event.data.deliveryId), {
      position,
      value: { slot: taken.slot },
    } satisfies StoredDocument<DeliveryPointer>);
  },
};

/** A user's kept deliveries, newest first, and the latest log position they reflect (none when they have none). */
export async function readDeliveries(
  readModels: ReadModelStore,
  userId: string,
): Promise<{ readonly deliveries: DeliveryAnswer[]; readonly position: LogPosition | undefined }> {
  const slots = await readModels.list<StoredDocument<DeliverySlot>>(DELIVERIES, { prefix: ringPrefix(userId) });
  // The newest slot carries the position of the user's head (both written by the newest first attempt).
  let position: LogPosition | undefined;
  for (const { doc } of slots) if (position === undefined || isAfter(doc.position, position)) position = doc.position;
  const deliveries = slots.map(({ doc }) => doc.value).sort((a, b) => b.seq - a.seq);
  return { deliveries: deliveries.map((slot) => slot.delivery), position };
}

/** One kept delivery of a user, or undefined. */
export async function readDelivery(
  readModels: ReadModelStore,
  userId: string,
  deliveryId: string,
): Promise<DeliveryAnswer | undefined> {
  const pointer = await readModels.get<StoredDocument<DeliveryPointer>>(DELIVERIES, pointerKey(userId, deliveryId));
  if (!pointer) return undefined;
  const slot = await readModels.get<StoredDocument<DeliverySlot>>(DELIVERIES, ringKey(userId, pointer.value.slot));
  return slot?.value.delivery.id === deliveryId ? slot.value.delivery : undefined;
}
