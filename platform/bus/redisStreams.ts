/**
 * The TickBus on Redis Streams, for the distributed mode: every batch of ticks and every day close is one
 * entry of the stream `ticks` (`XADD … MAXLEN ~`), so all readers see one order.
 *
 * A plain subscriber reads the stream with `XREAD` from its end at the time it subscribed. A member of a group
 * reads it through a consumer group of its own (`XREADGROUP`), acknowledges each entry (`XACK`) once what the
 * entry caused is durable (the promise `onTicks` returns), and keeps the ticks of the symbols it owns:
 * `shardOf(symbol, members)` equals its rank in the group. The membership is part of the stream: joining and
 * leaving append an entry listing the members in join order, atomically with the change (a Lua script), so
 * every member switches to the new split at the same entry and no tick is owned twice or by nobody.
 *
 * A member with a stable name (`subscribe(listener, {group, member})`) survives a crash: its consumer group
 * keeps its place and the entries it had not acknowledged, and a restart under the same name reads them again
 * with the membership in force there. It stays a member while it is down or stopped (its symbols wait for
 * it, so a restart loses nothing); `retire(group, member)` hands them to the others for good. An anonymous
 * member leaves when it unsubscribes. A lease (`SET NX PX`, renewed) keeps two live processes from using one
 * name.
 */
import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../redis.ts';
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
import { releaseLease, renewLease, takeLease } from '../redisLease.ts';
import { repeat } from '../repeat.ts';

/** The stream the distributed mode publishes ticks on (api.md, "Feed ingestion"). */
export const TICK_STREAM = 'ticks';

/** Entries kept in the stream by default (almost exact trimming): about half an hour at 50 batches a second. */
export const DEFAULT_TICK_STREAM_MAX_LEN = 100_000;

/**
 * Trading days whose closes the bus keeps for a process that starts after them (`<stream>:closes`): two weeks of
 * sessions, a long weekend and a few days down included.
 */
export const DEFAULT_CLOSES_KEPT = 10;

/** A member name: letters, digits, `.`, `_` and `-`, 1 to 64 characters. */
export const MEMBER_NAME_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/** Options of {@link createRedisTickBus}. */
export interface RedisTickBusOptions {
  /** The stream's key (default `ticks`); group keys are `<stream>:group:<name>:…`. */
  readonly stream?: string;
  /** Entries kept in the stream (`MAXLEN ~`). */
  readonly maxLen?: number;
  /** Trading days whose closes are kept (default {@link DEFAULT_CLOSES_KEPT}). */
  readonly closesKept?: number;
  /** Entries read per call (default 200). */
  readonly readCount?: number;
  /** Longest wait of one blocking read, in ms (default 2000); `unsubscribe` interrupts it. */
  readonly blockMs?: number;
  /** Lifetime of a member name's lease, in ms (default 3000); it is renewed every third of it. */
  readonly leaseMs?: number;
  /** Receives what a listener throws and what a read or an acknowledgement fails with. */
  readonly onError?: (error: unknown) => void;
  /** Whether `close()` also closes `client` (default false: the client is shared). */
  readonly ownsClient?: boolean;
}

/** A member name held by another live process. */
export class TickBusMemberTakenError extends Error {
  override readonly name = 'TickBusMemberTakenError';
  constructor(group: string, member: string) {
    super(`tick bus member ${JSON.stringify(member)} of group ${JSON.stringify(group)} is held by another process`);
  }
}

/**
 * Appends a day close to the stream and keeps it under its date in the closes' hash (a date published again
 * replaces its close), dropping the oldest dates beyond `kept`: one step, which no other command interleaves.
 */
const CLOSE_SCRIPT = `
local stream, closes = KEYS[1], KEYS[2]
local maxlen, data, date, kept = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
redis.call('XADD', stream, 'MAXLEN', '~', maxlen, '*', 'kind', 'day', 'data', data)
redis.call('HSET', closes, date, data)
local dates = redis.call('HKEYS', closes)
if #dates > kept then
  table.sort(dates)
  for i = 1, #dates - kept do redis.call('HDEL', closes, dates[i]) end
end
return 1
`;

/** Adds or removes a member, appends the membership entry, records it in the history; answers `[id, json]`. */
const MEMBERSHIP_SCRIPT = `
local members, seq, stream, history = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local name, op, group, maxlen = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
if op == 'join' then
  if not redis.call('ZSCORE', members, name) then
    redis.call('ZADD', members, redis.call('INCR', seq), name)
  end
else
  redis.call('ZREM', members, name)
end
local list = redis.call('ZRANGE', members, 0, -1)
local json = '[]'
if #list > 0 then json = cjson.encode(list) end
local id = redis.call('XADD', stream, 'MAXLEN', '~', maxlen, '*', 'kind', 'members', 'group', group, 'data', json)
redis.call('RPUSH', history, id .. ' ' .. json)
redis.call('LTRIM', history, -200, -1)
return {id, json}
`;

/** One stream entry: its id and its fields. */
interface Entry {
  readonly id: string;
  readonly fields: Readonly<Record<string, string>>;
}

/** Compares two stream ids (`<ms>-<seq>`). */
export function compareStreamIds(a: string, b: string): number {
  const [am = '0', as = '0'] = a.split('-');
  const [bm = '0', bs = '0'] = b.split('-');
  const ms = BigInt(am) - BigInt(bm);
  if (ms !== 0n) return ms < 0n ? -1 : 1;
  const seq = BigInt(as) - BigInt(bs);
  return seq === 0n ? 0 : seq < 0n ? -1 : 1;
}

/**
 * The entries of an `XREAD`/`XREADGROUP` reply for one stream (none when it timed out): the client answers
 * `[[stream, entries]]` or, mapped, `{stream: entries}`.
 */
function entriesOf(reply: unknown): Entry[] {
  if (reply === null || typeof reply !== 'object') return [];
  const first: unknown = Array.isArray(reply)
    ? (reply[0] as unknown[] | undefined)?.[1]
    : reply instanceof Map
      ? [...(reply as Map<unknown, unknown>).values()][0]
      : Object.values(reply)[0];
  const raw = (Array.isArray(first) ? first : []) as [string, string[] | null][];
  return raw.map(([id, flat]) => {
    const fields: Record<string, string> = {};
    for (let i = 0; flat && i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
    return { id, fields };
  });
}

/** The fields of one `XINFO` record, whether the client answers it as a flat array, a map or an object. */
function recordOf(reply: unknown): Map<string, unknown> {
  if (reply instanceof Map) return new Map([...(reply as Map<unknown, unknown>)].map(([k, v]) => [String(k), v]));
  if (Array.isArray(reply)) {
    const fields = new Map<string, unknown>();
    for (let i = 0; i + 1 < reply.length; i += 2) fields.set(String(reply[i]), reply[i + 1]);
    return fields;
  }
  return new Map(Object.entries((reply ?? {}) as Record<string, unknown>));
}

/** Reads the ticks of an entry, dropping what is not a tick (an external producer may write the stream). */
function ticksOf(data: string | undefined): Tick[] {
  const parsed = JSON.parse(data ?? '[]') as unknown;
  if (!Array.isArray(parsed)) throw new TypeError('tick stream entry: data must be a JSON array of ticks');
  const ticks: Tick[] = [];
  for (const item of parsed as unknown[]) {
    const t = item as Partial<Tick> | null;
    if (
      t !== null &&
      typeof t === 'object' &&
      typeof t.symbol === 'string' &&
      typeof t.price === 'number' &&
      Number.isFinite(t.price) &&
      t.price > 0
    ) {
      ticks.push({
        symbol: t.symbol,
        price: t.price,
        size: typeof t.size === 'number' && Number.isFinite(t.size) ? t.size : 0,
        ts: typeof t.ts === 'number' && Number.isFinite(t.ts) ? t.ts : Date.now(),
      });
    }
  }
  return ticks;
}

/** What a group read answers once the group that Redis lost was created again. */
const LOST_GROUP = Symbol('lost group');

/** A running reader of the stream for one subscriber. */
class Reader {
  active = true;
  private connection: RedisClient | undefined;
  private loop: Promise<void> = Promise.resolve();
  private readonly outstanding = new Set<Promise<void>>();
  private view: readonly string[] | null = null;
  private stopRenewing: (() => void) | undefined;
  private leaveAt: string | null = null;
  private stopping: Promise<void> | undefined;
  private readonly token = randomUUID();
  private readonly consumerGroup: string;
  /** The id of the last entry read through the group, where a group lost with Redis's data is created again. */
  private lastRead: string | null = null;
  readonly ready: Promise<void>;

  constructor(
    private readonly bus: RedisTickBus,
    private readonly listener: TickListener,
    private readonly group: string | undefined,
    private readonly member: string,
    private readonly durable: boolean,
  ) {
    this.consumerGroup = `${group ?? ''}:${member}`;
    this.ready = this.start();
    // A failed start is reported through `ready`; the loop is not started then.
    this.ready.catch(() => undefined);
  }

  private get keys() {
    const base = `${this.bus.stream}:group:${this.group ?? ''}`;
    return {
      members: `${base}:members`,
      seq: `${base}:seq`,
      history: `${base}:history`,
      lease: `${base}:lease:${this.member}`,
    };
  }

  private async start(): Promise<void> {
    const connection = this.bus.client.duplicate();
    connection.on('error', (error: Error) => {
      if (this.active) this.bus.report(error);
    });
    await connection.connect();
    this.connection = connection;
    if (this.group === undefined) {
      const last = await this.bus.client.sendCommand<[string, string[]][] | null>([
        'XREVRANGE',
        this.bus.stream,
        '+',
        '-',
        'COUNT',
        '1',
      ]);
      const from = last?.[0]?.[0] ?? '0-0';
      this.loop = this.readPlain(from);
      return;
    }
    await this.claimLease();
    const created = await this.createGroup('$');
    let pendingFrom: string | null = null;
    if (!created) {
      pendingFrom = '0-0';
      this.view = await this.viewAtResume();
    }
    await this.membership('join');
    this.loop = this.readGroup(pendingFrom);
  }

  /** Creates the consumer group reading after `from` (and the stream if need be); false when it exists. */
  private createGroup(from: string): Promise<boolean> {
    return this.bus.client
      .sendCommand(['XGROUP', 'CREATE', this.bus.stream, this.consumerGroup, from, 'MKSTREAM'])
      .then(
        () => true,
        (error: unknown) => {
          if (error instanceof Error && error.message.startsWith('BUSYGROUP')) return false;
          throw error;
        },
      );
  }

  /**
   * Joins again after Redis lost the group (a restart without persistence, a failover to a replica behind, a
   * flush): the group is created after the last entry read, so what was published since is read, and the member
   * joins the membership again (its lease taken again if free), so that the entries are its own to evaluate.
   */
  private async rejoin(): Promise<void> {
    await this.createGroup(this.lastRead ?? '$');
    await takeLease(this.bus.client, this.keys.lease, this.token, this.bus.leaseMs);
    await this.membership('join');
  }

  /** Waits (up to a lease and a second) for a name's previous holder to let its lease lapse, then holds it. */
  private async claimLease(): Promise<void> {
    const { leaseMs } = this.bus;
    const deadline = Date.now() + leaseMs + 1000;
    while (!(await takeLease(this.bus.client, this.keys.lease, this.token, leaseMs))) {
      if (Date.now() > deadline || this.stopping) throw new TickBusMemberTakenError(this.group ?? '', this.member);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    this.stopRenewing = repeat(
      Math.max(50, Math.floor(leaseMs / 3)),
      async () => {
        await renewLease(this.bus.client, this.keys.lease, this.token, leaseMs);
      },
      (error) => this.bus.report(error),
    );
  }

  /**
   * The membership in force where a restarted member resumes: the last membership entry before its first
   * unacknowledged entry, or at or before the last entry delivered to it.
   */
  private async viewAtResume(): Promise<readonly string[] | null> {
    const stream = this.bus.stream;
    const pending = await this.bus.client.sendCommand<[string, ...unknown[]][]>([
      'XPENDING',
      stream,
      this.consumerGroup,
      '-',
      '+',
      '1',
    ]);
    const groups = await this.bus.client.sendCommand<unknown[]>(['XINFO', 'GROUPS', stream]);
    let lastDelivered = '0-0';
    for (const info of groups) {
      const fields = recordOf(info);
      if (fields.get('name') === this.consumerGroup) lastDelivered = String(fields.get('last-delivered-id'));
    }
    const firstPending = pending[0]?.[0];
    const before = (id: string): boolean =>
      firstPending !== undefined ? compareStreamIds(id, firstPending) < 0 : compareStreamIds(id, lastDelivered) <= 0;
    const history = await this.bus.client.sendCommand<string[]>(['LRANGE', this.keys.history, '0', '-1']);
    for (let i = history.length - 1; i >= 0; i--) {
      const record = history[i]!;
      const space = record.indexOf(' ');
      if (before(record.slice(0, space))) return JSON.parse(record.slice(space + 1)) as string[];
    }
    return await this.bus.client.sendCommand<string[]>(['ZRANGE', this.keys.members, '0', '-1']);
  }

  /** Joins or leaves the group; answers the id of the membership entry appended. */
  private async membership(op: 'join' | 'leave'): Promise<string> {
    const k = this.keys;
    const reply = await this.bus.client.sendCommand<[string, string]>([
      'EVAL',
      MEMBERSHIP_SCRIPT,
      '4',
      k.members,
      k.seq,
      this.bus.stream,
      k.history,
      this.member,
      op,
      this.group ?? '',
      String(this.bus.maxLen),
    ]);
    return reply[0];
  }

  private async readPlain(from: string): Promise<void> {
    let cursor = from;
    while (this.active) {
      const reply = await this.read([
        'XREAD',
        'COUNT',
        String(this.bus.readCount),
        'BLOCK',
        String(this.bus.blockMs),
        'STREAMS',
        this.bus.stream,
        cursor,
      ]);
      for (const entry of entriesOf(reply)) {
        cursor = entry.id;
        if (!this.active) return;
        void this.deliver(entry, null);
      }
    }
  }

  private async readGroup(pendingFrom: string | null): Promise<void> {
    let cursor = pendingFrom;
    while (this.active) {
      const reply = await this.read([
        'XREADGROUP',
        'GROUP',
        this.consumerGroup,
        this.member,
        'COUNT',
        String(this.bus.readCount),
        ...(cursor === null ? ['BLOCK', String(this.bus.blockMs)] : []),
        'STREAMS',
        this.bus.stream,
        cursor ?? '>',
      ]);
      if (reply === LOST_GROUP) {
        cursor = null;
        continue;
      }
      const entries = entriesOf(reply);
      // The pending entries are read again first; once they are exhausted, the new ones.
      if (cursor !== null && entries.length === 0) cursor = null;
      const settling: Promise<void>[] = [];
      const ids: string[] = [];
      for (const entry of entries) {
        if (cursor !== null) cursor = entry.id;
        if (!this.active) break;
        ids.push(entry.id);
        this.lastRead = entry.id;
        const result = this.deliver(entry, this.group ?? null);
        if (result) settling.push(result);
        if (this.leaveAt !== null && compareStreamIds(entry.id, this.leaveAt) >= 0) this.active = false;
      }
      if (ids.length > 0) this.acknowledge(ids, settling);
    }
  }

  /** Acknowledges entries once what they caused is durable, without holding up the next read. */
  private acknowledge(ids: readonly string[], settling: readonly Promise<void>[]): void {
    const ack = (): Promise<void> =>
      this.bus.client.sendCommand(['XACK', this.bus.stream, this.consumerGroup, ...ids]).then(
        () => undefined,
        (error: unknown) => this.bus.report(error),
      );
    const done = settling.length === 0 ? ack() : Promise.allSettled(settling).then(ack);
    this.outstanding.add(done);
    void done.finally(() => this.outstanding.delete(done));
  }

  /**
   * One blocking read on the reader's own connection; null once unsubscribed or on a read error, {@link LOST_GROUP}
   * once the group that Redis lost is there again.
   */
  private async read(command: string[]): Promise<unknown> {
    try {
      return await this.connection!.sendCommand(command);
    } catch (error) {
      if (!this.active) return null;
      this.bus.report(error);
      if (this.group !== undefined && error instanceof Error && error.message.startsWith('NOGROUP')) {
        const rejoined = await this.rejoin().then(
          () => true,
          (failure: unknown) => {
            this.bus.report(failure);
            return false;
          },
        );
        if (rejoined) return LOST_GROUP;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
      return null;
    }
  }

  /** Hands an entry to the listener; answers what `onTicks` answered (a promise when the ticks caused work). */
  private deliver(entry: Entry, group: string | null): Promise<void> | undefined {
    const { kind, data } = entry.fields;
    try {
      if (kind === 'members') {
        if (group !== null && entry.fields.group === group) this.view = JSON.parse(data ?? '[]') as string[];
        return undefined;
      }
      if (kind === 'day') {
        if (group !== null && !this.view?.includes(this.member)) return undefined;
        this.listener.onDayClosed?.(JSON.parse(data ?? 'null') as ClosedDay);
        return undefined;
      }
      if (kind !== 'ticks') return undefined;
      let ticks = ticksOf(data);
      if (group !== null) {
        const view = this.view;
        const rank = view ? view.indexOf(this.member) : -1;
        if (view === null || rank < 0) return undefined;
        if (view.length > 1) ticks = ticks.filter((tick) => shardOf(tick.symbol, view.length) === rank);
      }
      if (ticks.length === 0) return undefined;
      const result = this.listener.onTicks(ticks);
      if (result instanceof Promise) {
        return result.catch((error: unknown) => this.bus.report(error));
      }
      return undefined;
    } catch (error) {
      this.bus.report(error);
      return undefined;
    }
  }

  /**
   * Stops reading. An anonymous member first appends its leave and reads up to it, so the ticks before the
   * leave are its own and those after it the others': none is lost in the hand-over; then its consumer group is
   * removed. A named member keeps its place (it is expected back, as after a crash). Either waits for the
   * acknowledgements under way and releases its name.
   */
  stop(): Promise<void> {
    this.stopping ??= this.shutDown();
    return this.stopping;
  }

  private async shutDown(): Promise<void> {
    const started = await this.ready.then(
      () => true,
      () => false,
    );
    const leaves = started && this.group !== undefined && !this.durable;
    if (leaves && this.active) {
      try {
        this.leaveAt = await this.membership('leave');
        const deadline = Date.now() + this.bus.blockMs * 2;
        while (this.active && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 2));
      } catch (error) {
        this.bus.report(error);
      }
    }
    this.active = false;
    this.connection?.destroy();
    await this.loop.catch(() => undefined);
    while (this.outstanding.size > 0) await Promise.all([...this.outstanding]);
    this.stopRenewing?.();
    if (!started || this.group === undefined) return;
    try {
      if (leaves) await this.bus.client.sendCommand(['XGROUP', 'DESTROY', this.bus.stream, this.consumerGroup]);
      await releaseLease(this.bus.client, this.keys.lease, this.token);
    } catch (error) {
      this.bus.report(error);
    }
  }

  /** Stops reading without leaving: the group and the name stay as a crash would leave them (for tests). */
  async abandon(): Promise<void> {
    this.stopping ??= Promise.resolve();
    this.active = false;
    this.stopRenewing?.();
    await this.ready.catch(() => undefined);
    this.connection?.destroy();
    await this.loop.catch(() => undefined);
    await this.bus.client.sendCommand(['DEL', this.keys.lease]);
  }
}

/** A TickBus on one Redis stream. */
export class RedisTickBus implements TickBus {
  readonly stream: string;
  readonly maxLen: number;
  readonly readCount: number;
  readonly blockMs: number;
  readonly leaseMs: number;
  private readonly readers = new Set<Reader>();
  private closed = false;

  constructor(
    /** The connection publishing and managing the groups; each subscriber reads on a duplicate of it. */
    readonly client: RedisClient,
    private readonly options: RedisTickBusOptions = {},
  ) {
    this.stream = options.stream ?? TICK_STREAM;
    this.maxLen = options.maxLen ?? DEFAULT_TICK_STREAM_MAX_LEN;
    this.readCount = options.readCount ?? 200;
    this.blockMs = options.blockMs ?? 2000;
    this.leaseMs = options.leaseMs ?? 3000;
  }

  /** Appends the batch as one entry; resolves once Redis has it. */
  async publish(ticks: readonly Tick[]): Promise<void> {
    if (this.closed) throw new TickBusClosedError();
    if (ticks.length === 0) return;
    await this.append('ticks', JSON.stringify(ticks));
  }

  /**
   * Appends the day close as one entry, in order with the ticks; a trading day's (not `played`) is kept under its
   * date too, with the latest {@link RedisTickBusOptions.closesKept} dates', in the same step.
   */
  async publishDayClosed(day: ClosedDay): Promise<void> {
    if (this.closed) throw new TickBusClosedError();
    const data = JSON.stringify(day);
    if (day.played !== undefined) {
      await this.append('day', data);
      return;
    }
    const kept = String(this.options.closesKept ?? DEFAULT_CLOSES_KEPT);
    await this.client.sendCommand([
      'EVAL',
      CLOSE_SCRIPT,
      '2',
      this.stream,
      this.closesKey,
      String(this.maxLen),
      data,
      day.date,
      kept,
    ]);
  }

  /** The kept closes dated after `after`, oldest first; one that cannot be read is reported and left out. */
  async recentCloses(after = ''): Promise<readonly ClosedDay[]> {
    if (this.closed) throw new TickBusClosedError();
    const dates = (await this.client.sendCommand<string[]>(['HKEYS', this.closesKey])).filter((d) => d > after);
    if (dates.length === 0) return [];
    const texts = await this.client.sendCommand<(string | null)[]>(['HMGET', this.closesKey, ...dates]);
    const days: ClosedDay[] = [];
    for (const text of texts) {
      if (text === null) continue;
      try {
        days.push(JSON.parse(text) as ClosedDay);
      } catch (error) {
        this.report(error);
      }
    }
    return days.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  }

  /** The hash of the kept closes. */
  private get closesKey(): string {
    return `${this.stream}:closes`;
  }

  /**
   * Reads the stream for `listener`: from its end (plain), or through the member's consumer group (`group`);
   * `member` names a member that resumes after a crash (without it the name is random and used once).
   */
  subscribe(listener: TickListener, options: TickSubscribeOptions = {}): TickSubscription {
    if (this.closed) throw new TickBusClosedError();
    const durable = options.member !== undefined;
    const member = options.member ?? `m-${randomUUID()}`;
    if (!MEMBER_NAME_PATTERN.test(member)) {
      throw new RangeError(`member ${JSON.stringify(member)} must be 1 to 64 letters, digits, '.', '_' or '-'`);
    }
    if (options.group !== undefined && !MEMBER_NAME_PATTERN.test(options.group)) {
      throw new RangeError(`group ${JSON.stringify(options.group)} must be 1 to 64 letters, digits, '.', '_' or '-'`);
    }
    const reader = new Reader(this, listener, options.group, member, durable);
    this.readers.add(reader);
    return {
      ready: reader.ready,
      unsubscribe: async () => {
        this.readers.delete(reader);
        await reader.stop();
      },
    };
  }

  /**
   * Stops every reader as a crash would (members stay in their groups, unacknowledged entries stay pending),
   * so tests can restart a member; the bus is closed afterwards.
   */
  async crash(): Promise<void> {
    this.closed = true;
    const readers = [...this.readers];
    this.readers.clear();
    await Promise.all(readers.map((r) => r.abandon()));
  }

  /** Ends every subscription (members leave their groups); publishing afterwards rejects. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const readers = [...this.readers];
    this.readers.clear();
    await Promise.all(readers.map((r) => r.stop()));
    if (this.options.ownsClient === true && this.client.isOpen) await this.client.close();
  }

  /**
   * Takes a named member out of its group for good (an engine retired while stopped): the others own its
   * symbols from the membership entry on, and its consumer group is removed.
   */
  async retire(group: string, member: string): Promise<void> {
    const base = `${this.stream}:group:${group}`;
    await this.client.sendCommand([
      'EVAL',
      MEMBERSHIP_SCRIPT,
      '4',
      `${base}:members`,
      `${base}:seq`,
      this.stream,
      `${base}:history`,
      member,
      'leave',
      group,
      String(this.maxLen),
    ]);
    await this.client.sendCommand(['XGROUP', 'DESTROY', this.stream, `${group}:${member}`]);
  }

  /** Passes an error to `onError`. */
  report(error: unknown): void {
    this.options.onError?.(error);
  }

  private async append(kind: string, data: string): Promise<void> {
    await this.client.sendCommand([
      'XADD',
      this.stream,
      'MAXLEN',
      '~',
      String(this.maxLen),
      '*',
      'kind',
      kind,
      'data',
      data,
    ]);
  }
}

/** Creates a TickBus on the Redis stream `ticks` (or `options.stream`) over a connected client. */
export function createRedisTickBus(client: RedisClient, options: RedisTickBusOptions = {}): RedisTickBus {
  return new RedisTickBus(client, options);
}
