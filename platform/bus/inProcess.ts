/**
 * The in-process TickBus: publishing calls every listener synchronously, in subscription order, so a tick
 * reaches the engine of the same process without a queue or a copy. Keeping nothing itself, it answers a publish
 * once what the batch caused is durable: after the promises its listeners answered have settled.
 */
import {
  TickBusClosedError,
  shardOf,
  type ClosedDay,
  type Tick,
  type TickBus,
  type TickListener,
  type TickSubscribeOptions,
  type TickSubscription,
} from './port.ts';

/** Options of {@link createInProcessTickBus}. */
export interface InProcessTickBusOptions {
  /**
   * Receives what a listener throws; the other listeners still get the batch. Without it, `publish` rejects
   * with the first such error once every listener has been called.
   */
  readonly onError?: (error: unknown) => void;
}

interface Member {
  readonly listener: TickListener;
  active: boolean;
}

const READY = Promise.resolve();

/** A TickBus inside one process. */
export class InProcessTickBus implements TickBus {
  private readonly solo: Member[] = [];
  private readonly groups = new Map<string, Member[]>();
  private readonly hashes = new Map<string, number>();
  private closed = false;

  constructor(private readonly options: InProcessTickBusOptions = {}) {}

  /** Calls every listener with the batch (a group member with its symbols' ticks only). */
  publish(ticks: readonly Tick[]): Promise<void> {
    if (this.closed) return Promise.reject(new TickBusClosedError());
    if (ticks.length === 0) return READY;
    const errors: unknown[] = [];
    const pending: Promise<void>[] = [];
    for (const member of this.solo.slice()) this.deliver(member, ticks, errors, pending);
    for (const members of this.groups.values()) {
      if (members.length === 1) {
        this.deliver(members[0]!, ticks, errors, pending);
        continue;
      }
      const shares: Tick[][] = members.map(() => []);
      for (const tick of ticks) shares[this.shard(tick.symbol, members.length)]!.push(tick);
      members.slice().forEach((member, i) => {
        if (shares[i]!.length > 0) this.deliver(member, shares[i]!, errors, pending);
      });
    }
    if (pending.length === 0) return this.settle(errors);
    // A listener's failure after the call is reported, as its own part is: the batch was taken all the same.
    return Promise.all(pending).then(() => this.settle(errors));
  }

  /** Calls every listener's `onDayClosed`, group members included. */
  publishDayClosed(day: ClosedDay): Promise<void> {
    if (this.closed) return Promise.reject(new TickBusClosedError());
    const errors: unknown[] = [];
    const everyone = [...this.solo, ...[...this.groups.values()].flat()];
    for (const member of everyone) {
      if (!member.active || !member.listener.onDayClosed) continue;
      try {
        member.listener.onDayClosed(day);
      } catch (error) {
        this.report(error, errors);
      }
    }
    return this.settle(errors);
  }

  /** None: a process on this bus lives through every close it sees. */
  recentCloses(): Promise<readonly ClosedDay[]> {
    return Promise.resolve([]);
  }

  /** Adds a listener; it receives what is published from now on. */
  subscribe(listener: TickListener, options: TickSubscribeOptions = {}): TickSubscription {
    if (this.closed) throw new TickBusClosedError();
    const member: Member = { listener, active: true };
    const list = options.group === undefined ? this.solo : this.groupOf(options.group);
    list.push(member);
    return {
      ready: READY,
      unsubscribe: () => {
        member.active = false;
        const at = list.indexOf(member);
        if (at >= 0) list.splice(at, 1);
        if (options.group !== undefined && list.length === 0) this.groups.delete(options.group);
        return READY;
      },
    };
  }

  /** Drops every listener; later publishes reject. */
  close(): Promise<void> {
    this.closed = true;
    for (const member of [...this.solo, ...[...this.groups.values()].flat()]) member.active = false;
    this.solo.length = 0;
    this.groups.clear();
    return READY;
  }

  private groupOf(name: string): Member[] {
    let members = this.groups.get(name);
    if (!members) {
      members = [];
      this.groups.set(name, members);
    }
    return members;
  }

  private shard(symbol: string, members: number): number {
    let hash = this.hashes.get(symbol);
    if (hash === undefined) {
      // shardOf(symbol, 2^32) is the symbol's full hash; taking it modulo the size gives shardOf(symbol, size).
      hash = shardOf(symbol, 0x1_0000_0000);
      this.hashes.set(symbol, hash);
    }
    return hash % members;
  }

  private deliver(member: Member, ticks: readonly Tick[], errors: unknown[], pending: Promise<void>[]): void {
    if (!member.active) return;
    try {
      const result = member.listener.onTicks(ticks);
      // What the batch caused failing later is reported, never thrown at the publisher (it is under way).
      if (result instanceof Promise) pending.push(result.catch((error: unknown) => this.report(error, [])));
    } catch (error) {
      this.report(error, errors);
    }
  }

  private report(error: unknown, errors: unknown[]): void {
    if (this.options.onError) this.options.onError(error);
    else errors.push(error);
  }

  private settle(errors: readonly unknown[]): Promise<void> {
    if (errors.length === 0) return READY;
    const first = errors[0];
    return Promise.reject(first instanceof Error ? first : new Error(String(first)));
  }
}

/** Creates an in-process TickBus. */
export function createInProcessTickBus(options: InProcessTickBusOptions = {}): InProcessTickBus {
  return new InProcessTickBus(options);
}
