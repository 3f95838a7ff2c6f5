/**
 * Issuing a command from a route: the user's stream of the concern, the command handler, then a wait until
 * the read models reflect the new events, so a GET right after a POST sees its effect.
 */
import type { CommandMeta, Decider, DomainEvent } from '../domain/decider.ts';
import { streamName } from '../domain/ids.ts';
import { handleCommand, type CommandOutcome } from '../platform/commandHandler.ts';
import type { EventStore, LogPosition } from '../platform/eventstore/port.ts';
import { KeyedQueue } from '../platform/keyedQueue.ts';

/** What the read side offers the command side: a wait until read models include a position. */
export interface ReadModelSync {
  /** Resolves when every read model that reads one of `types` reflects `position`. */
  waitFor(position: LogPosition, types: readonly string[], timeoutMs?: number): Promise<void>;
}

/** A concern as the gateway sees it: its stream name prefix and its decider. */
export interface ConcernDef<C, E extends DomainEvent, S> {
  /** Concern name (the stream category). */
  readonly concern: string;
  /** Its rules. */
  readonly decider: Decider<C, E, S>;
}

/**
 * Runs commands against users' streams. Commands on one stream run one after the other in this process, so a
 * client sending many at once (ten alerts created together) meets no conflict of its own: without it, each of
 * the simultaneous commands read the same revision and all but one retried, and after three conflicts in a row
 * some were refused. Processes sharing a store still meet, and retry, each other's appends.
 */
export class CommandService {
  private readonly streams = new KeyedQueue();

  constructor(
    private readonly events: EventStore,
    private readonly readModels: ReadModelSync,
  ) {}

  /** Handles `command` on `<concern>-<meta.userId>` and waits for the read models to include its events. */
  async execute<C, E extends DomainEvent, S>(
    def: ConcernDef<C, E, S>,
    command: C,
    meta: CommandMeta,
    userId: string = meta.userId,
  ): Promise<CommandOutcome<E, S>> {
    const stream = streamName(def.concern, userId);
    const outcome = await this.streams.run(stream, () =>
      handleCommand(this.events, def.decider, stream, command, meta),
    );
    if (outcome.position && outcome.events.length > 0) {
      await this.readModels.waitFor(
        outcome.position,
        outcome.events.map((e) => e.type),
      );
    }
    return outcome;
  }
}
