/**
 * The Socket.IO relay of a process without HTTP (an engine, a projections process) in the distributed mode:
 * a Socket.IO server with no sockets of its own on the Redis Streams adapter, through which the triggers it
 * appends reach the user's sockets on every gateway, and its read-model commits reach them as
 * `readmodel:changed`.
 */
import { Server } from 'socket.io';
import type { RedisClient } from '../../platform/redis.ts';
import type { ReadModelCommitListener } from '../../projections/index.ts';
import type { EngineTrigger } from '../../engine/alerts/alertEngine.ts';
import { changeOf, notificationOf, usersOf } from './fanOut.ts';
import { redisAdapter, userRoom, type RealtimeServer } from './server.ts';

/** What the relay forwards. */
export interface RelayDeps {
  /** The shared Redis. */
  readonly redis: RedisClient;
  /** Triggers of the engine this process runs, when it runs one. */
  readonly triggers: ((listener: (trigger: EngineTrigger) => void) => () => void) | null;
  /** Commits of the projections this process runs, when it runs them. */
  readonly onReadModelCommit?: ((listener: ReadModelCommitListener) => () => void) | undefined;
}

/** A running relay. */
export interface Relay {
  /** Stops forwarding and closes the adapter. */
  close(): Promise<void>;
}

/** Starts forwarding triggers and read-model commits to the gateways. */
export function startRelay(deps: RelayDeps): Relay {
  const io: RealtimeServer = new Server({ adapter: redisAdapter(deps.redis) });
  const stopTriggers = deps.triggers?.((trigger) => {
    io.serverSideEmit('notification', trigger.userId, notificationOf(trigger));
  });
  // One message on the stream for every user a commit wrote documents of.
  const stopCommits = deps.onReadModelCommit?.((name, position, writes) => {
    const rooms = [...usersOf(writes)].map(userRoom);
    if (rooms.length > 0) io.to(rooms).emit('readmodel:changed', changeOf(name, position));
  });
  return {
    close: async () => {
      stopTriggers?.();
      stopCommits?.();
      await io.of('/').adapter.close();
    },
  };
}
