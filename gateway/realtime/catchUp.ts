/**
 * The catch-up of a reconnecting socket: the user's notifications after the position it gives (`auth.since`),
 * read from the log, then what was pushed meanwhile, each once.
 */
import { ALERTS_CONCERN, type AlertTriggered, type AlertTriggeredData } from '../../domain/alerts/alerts.ts';
import type { NotificationPush } from '../../domain/contract/socket.ts';
import { streamName } from '../../domain/ids.ts';
import { readTest, notificationsDecider, type NotificationsState } from '../../domain/notifications/notifications.ts';
import {
  StreamNotFoundError,
  comparePositions,
  type EventStore,
  type LogPosition,
  type RecordedEvent,
} from '../../platform/eventstore/port.ts';
import type { Logger } from '../../platform/logger.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import { notificationReadsProjection } from '../../projections/notifications/notifications.projection.ts';
import { readDocument } from '../../projections/projection.ts';
import { notificationOf } from './fanOut.ts';
import type { RealtimeSocket } from './server.ts';

/** Most missed notifications sent to a reconnecting socket (the newest; older ones are in the GET route). */
export const MAX_CATCH_UP = 200;

/**
 * The notifications of a user after `since`, oldest first (at most {@link MAX_CATCH_UP}, the newest), read
 * from the user's alerts stream in the log, so a trigger appended a moment ago is there even before the
 * notifications read model has it.
 */
export async function missedNotifications(
  events: EventStore,
  readModels: ReadModelStore,
  userId: string,
  since: LogPosition,
): Promise<NotificationPush[]> {
  const found: RecordedEvent<AlertTriggeredData>[] = [];
  const stream = streamName(ALERTS_CONCERN, userId);
  let from: number | 'end' = 'end';
  reading: for (;;) {
    let page: RecordedEvent[];
    try {
      page = await events.readStream(stream, { direction: 'backwards', fromRevision: from, maxCount: 100 });
    } catch (error) {
      if (error instanceof StreamNotFoundError) break;
      throw error;
    }
    for (const event of page) {
      if (comparePositions(event.position, since) <= 0) break reading;
      if (event.type === ('AlertTriggered' satisfies AlertTriggered['type'])) {
        found.push(event as RecordedEvent<AlertTriggeredData>);
        if (found.length >= MAX_CATCH_UP) break reading;
      }
    }
    const last = page.at(-1);
    if (page.length < 100 || last === undefined || last.revision === 0) break;
    from = last.revision - 1;
  }
  if (found.length === 0) return [];
  const reads = await readDocument<NotificationsState>(readModels, notificationReadsProjection, userId);
  const isRead = readTest(reads?.value ?? notificationsDecider.initialState);
  return found.reverse().map((event) => ({
    ...notificationOf({
      eventId: event.id,
      event: { type: 'AlertTriggered', data: event.data },
      position: event.position,
    }),
    createdt: typeof event.data.at === 'string' ? event.data.at : event.created,
    read: isRead(event.id, event.position),
  }));
}

/** Where a catch-up reads. */
export interface CatchUpDeps {
  /** The log, where the missed notifications are read. */
  readonly events: EventStore;
  /** The read models (which notifications are read). */
  readonly readModels: ReadModelStore;
  /** Logger. */
  readonly logger: Logger;
}

/** Sends a reconnecting socket what it missed, then what was pushed meanwhile, each once. */
export function catchUp(socket: RealtimeSocket, since: LogPosition, deps: CatchUpDeps): void {
  const finish = (missed: readonly NotificationPush[]): void => {
    const sent = new Set<string>();
    for (const push of missed) {
      socket.emit('notification', push);
      sent.add(push.id);
    }
    for (const push of socket.data.catchingUp ?? []) if (!sent.has(push.id)) socket.emit('notification', push);
    socket.data.catchingUp = null;
  };
  missedNotifications(deps.events, deps.readModels, socket.data.userId, since).then(finish, (error: unknown) => {
    deps.logger.error({ err: error, userId: socket.data.userId }, 'could not read missed notifications');
    finish([]);
  });
}
