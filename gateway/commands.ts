/**
 * Issuing a command from a route: the user's stream of the concern, the command handler, then a wait until
 * the read models reflect the new events, so a GET right after a POST sees its effect.
 */
import type { CommandMeta, Decider, DomainEvent } from '../domain/decider.ts';
import { streamName } from '../domain/ids.ts';
import { handleCommand, type CommandOutcome } from '../platform/commandHandler.ts';
import type { EventStore, LogPosition } from '../platform/eventstore/port.ts';

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

/** Runs commands against users' streams. */
export class CommandService {
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
    const outcome = await handleCommand(this.events, def.decider, streamName(def.concern, userId), command, meta);
    if (outcome.position && outcome.events.length > 0) {
      await this.readModels.waitFor(
        outcome.position,
        outcome.events.map((e) => e.type),
      );
    }
    return outcome;
  }
}
