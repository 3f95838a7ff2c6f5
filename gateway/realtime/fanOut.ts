/**
 * Fan-out of what happens elsewhere to the sockets: a durable trigger becomes a `notification` for its user's
 * sockets (on every gateway, through the Redis adapter), and a projection's commit a `readmodel:changed` for
 * each user whose documents it wrote.
 */
import type { AlertTriggeredData } from '../../domain/alerts/alerts.ts';
import type { NotificationPush, ReadModelChange } from '../../domain/contract/socket.ts';
import type { EngineTrigger } from '../../engine/alerts/alertEngine.ts';
import { formatPosition, type LogPosition } from '../../platform/eventstore/port.ts';
import type { DocumentWrite } from '../../platform/readmodels/port.ts';
import type { ReadModelCommitListener } from '../../projections/index.ts';
import { userRoom, type RealtimeServer, type RealtimeSocket } from './server.ts';

/** The push of a trigger: the notification as the GET route answers it, plus its position. */
export function notificationOf(trigger: Pick<EngineTrigger, 'eventId' | 'event' | 'position'>): NotificationPush {
  const data: AlertTriggeredData = trigger.event.data;
  return {
    id: trigger.eventId,
    symbol: data.symbol,
    notificationtype: data.notificationtype,
    notifcationmessage: data.message,
    createdt: data.at,
    read: false,
    note: data.note ?? null,
    position: trigger.position ? formatPosition(trigger.position) : '',
  };
}
/** The users whose documents a commit wrote (document keys are `<userId>` or `<userId>/…`). */
export function usersOf(writes: readonly DocumentWrite[]): Set<string> {
  const users = new Set<string>();
  for (const write of writes) users.add(write.key.split('/', 1)[0]!);
  return users;
}

/** The `readmodel:changed` of a commit. */
export function changeOf(name: string, position: LogPosition): ReadModelChange {
  return { name, position: formatPosition(position) };
}

/** What the fan-out forwards. */
export interface FanOutDeps {
  /** Triggers of the engine this process runs, when it runs one. */
  readonly triggers: ((listener: (trigger: EngineTrigger) => void) => () => void) | null;
  /** Commits of the projections this process runs (for `readmodel:changed`). */
  readonly onReadModelCommit?: ((listener: ReadModelCommitListener) => () => void) | undefined;
  /** Whether the server shares its rooms with other gateways through Redis. */
  readonly shared: boolean;
}

/**
 * Pushes notifications and read-model changes to the sockets of a gateway's Socket.IO server; answers the stop.
 */
export function startFanOut(io: RealtimeServer, deps: FanOutDeps): () => void {
  const localRooms = (): Map<string, Set<string>> => io.of('/').adapter.rooms;
  // Notifications: to this gateway's sockets of the user; a socket still catching up gets it afterwards.
  const deliver = (userId: string, push: NotificationPush): void => {
    const room = userRoom(userId);
    const members = localRooms().get(room);
    if (!members) return;
    const sockets = io.of('/').sockets;
    let holding = false;
    let lone: RealtimeSocket | undefined;
    for (const id of members) {
      const socket = sockets.get(id);
      if (socket?.data.catchingUp) {
        socket.data.catchingUp.push(push);
        holding = true;
      }
      lone = socket;
    }
    if (!holding) {
      // The common case: a user's one socket here is written to directly, several get one packet encoded once.
      if (members.size === 1) lone?.emit('notification', push);
      else io.local.to(room).emit('notification', push);
      return;
    }
    for (const id of members) {
      const socket = sockets.get(id);
      if (socket && !socket.data.catchingUp) socket.emit('notification', push);
    }
  };
  io.on('notification', deliver);
  const stopTriggers = deps.triggers?.((trigger) => {
    const push = notificationOf(trigger);
    deliver(trigger.userId, push);
    if (deps.shared) io.serverSideEmit('notification', trigger.userId, push);
  });

  // Read models: each user whose documents a commit wrote hears of it, in one packet for all of them.
  const stopCommits = deps.onReadModelCommit?.((name, position, writes) => {
    const rooms = localRooms();
    const targets: string[] = [];
    for (const userId of usersOf(writes)) {
      const room = userRoom(userId);
      // Through Redis every gateway may have sockets of the user; alone, only local rooms matter.
      if (deps.shared || rooms.has(room)) targets.push(room);
    }
    if (targets.length > 0) io.to(targets).emit('readmodel:changed', changeOf(name, position));
  });
  return () => {
    io.off('notification', deliver);
    stopTriggers?.();
    stopCommits?.();
  };
}
