/**
 * Test-only, in-process stand-in for an EventStoreDB node, because EventStoreDB cannot run on these machines.
 *
 * It serves EventStoreDB's gRPC Streams service (append, stream and `$all` reads, filtered catch-up subscriptions
 * to `$all` with checkpoints and the caught-up signal) and the server-features query, built from the official
 * client's generated stubs, so the real `@eventstore/db-client` talks to it exactly as to a server. State lives in
 * memory. Like a real node, its `$all` holds system events (`$settings` at start, a `$>` link in `$streams` for
 * every new stream), its positions are sparse byte offsets, and events after the first of an append have
 * `commit != prepare` (the legacy transaction layout), so position mapping is exercised. It also reproduces two
 * server behaviours a client must cope with: an idempotent retry answers without a position, and a subscription
 * from a position starts after the first event at or past it.
 */
import * as grpc from '@grpc/grpc-js';
import { randomUUID } from 'node:crypto';
import streamsGrpc from '@eventstore/db-client/generated/streams_grpc_pb.js';
import streamsPb from '@eventstore/db-client/generated/streams_pb.js';
import sharedPb from '@eventstore/db-client/generated/shared_pb.js';
import featuresGrpc from '@eventstore/db-client/generated/serverfeatures_grpc_pb.js';
import featuresPb from '@eventstore/db-client/generated/serverfeatures_pb.js';

type ReadReq = InstanceType<typeof streamsPb.ReadReq>;
type ReadResp = InstanceType<typeof streamsPb.ReadResp>;
type AppendReq = InstanceType<typeof streamsPb.AppendReq>;
type AppendResp = InstanceType<typeof streamsPb.AppendResp>;
type FilterExpression = InstanceType<typeof streamsPb.ReadReq.Options.FilterOptions.Expression>;
type Uuid = InstanceType<typeof sharedPb.UUID>;

/** A running fake server. */
export interface FakeEsdb {
  /** Connection string for `EventStoreDBClient.connectionString` (single node, no TLS, no gossip). */
  readonly url: string;
  /** Ends every open call and shuts the server down. */
  stop(): Promise<void>;
}

interface StoredEvent {
  readonly streamId: string;
  readonly revision: number;
  readonly id: string;
  readonly type: string;
  readonly contentType: string;
  readonly data: Uint8Array;
  readonly metadata: Uint8Array;
  readonly created: bigint;
  readonly commit: number;
  readonly prepare: number;
}

interface Proposed {
  readonly id: string;
  readonly type: string;
  readonly contentType: string;
  readonly data: Uint8Array;
  readonly metadata: Uint8Array;
}

type Expected =
  { kind: 'any' } | { kind: 'no_stream' } | { kind: 'stream_exists' } | { kind: 'revision'; revision: number };

type AppendOutcome =
  | { kind: 'written'; last: StoredEvent }
  | { kind: 'idempotent'; lastRevision: number }
  | { kind: 'wrong'; current: number | null };

/** How many events a filtered subscription considers per checkpoint when the client sends no window size. */
const DEFAULT_SEARCH_WINDOW = 32;
/** Bytes of log taken by the header of one event record (the rest is data and metadata). */
const RECORD_HEADER_BYTES = 83;
/** Bytes of log taken by the commit record closing a transaction. */
const COMMIT_RECORD_BYTES = 37;
/** Ticks (100 ns) per millisecond, the unit of EventStoreDB's `created` timestamps since the Unix epoch. */
const TICKS_PER_MS = 10_000n;

/** The in-memory log and its notification of new writes. */
class FakeLog {
  readonly all: StoredEvent[] = [];
  private readonly streams = new Map<string, StoredEvent[]>();
  private nextOffset = 4096;
  private waiters: Array<() => void> = [];

  stream(streamId: string): readonly StoredEvent[] {
    return this.streams.get(streamId) ?? [];
  }

  append(streamId: string, expected: Expected, proposed: readonly Proposed[]): AppendOutcome {
    const events = this.stream(streamId);
    const current = events.length === 0 ? null : events.length - 1;
    const retried = this.retriedRevision(events, expected, proposed);
    if (retried === 'corrupt') return { kind: 'wrong', current };
    if (retried !== null) return { kind: 'idempotent', lastRevision: retried };
    const ok =
      expected.kind === 'any' ||
      (expected.kind === 'no_stream' && current === null) ||
      (expected.kind === 'stream_exists' && current !== null) ||
      (expected.kind === 'revision' && expected.revision === current);
    if (!ok) return { kind: 'wrong', current };
    if (proposed.length === 0) {
      return current === null ? { kind: 'wrong', current } : { kind: 'written', last: events[current]! };
    }
    const written = this.write(streamId, proposed);
    if (current === null && !streamId.startsWith('$')) {
      const link = `0@${streamId}`;
      this.write('$streams', [
        {
          id: randomUUID(),
          type: '$>',
          contentType: 'application/octet-stream',
          data: Buffer.from(link),
          metadata: new Uint8Array(),
        },
      ]);
    }
    this.notify();
    return { kind: 'written', last: written };
  }

  /** Revision of the last event of an earlier identical append, `corrupt` for a partial match, else `null`. */
  private retriedRevision(
    events: readonly StoredEvent[],
    expected: Expected,
    proposed: readonly Proposed[],
  ): number | 'corrupt' | null {
    if (proposed.length === 0) return null;
    let start: number;
    if (expected.kind === 'revision') start = expected.revision + 1;
    else if (expected.kind === 'no_stream') start = 0;
    else start = events.findIndex((e) => e.id === proposed[0]!.id);
    if (start < 0 || start >= events.length) return null;
    for (let i = 0; i < proposed.length; i++) {
      if (events[start + i]?.id !== proposed[i]!.id) return expected.kind === 'any' || i > 0 ? 'corrupt' : null;
    }
    return start + proposed.length - 1;
  }

  private write(streamId: string, proposed: readonly Proposed[]): StoredEvent {
    let events = this.streams.get(streamId);
    if (!events) {
      events = [];
      this.streams.set(streamId, events);
    }
    const commit = this.nextOffset;
    let prepare = commit;
    const created = BigInt(Date.now()) * TICKS_PER_MS;
    let last: StoredEvent | undefined;
    for (const p of proposed) {
      last = { ...p, streamId, revision: events.length, created, commit, prepare };
      events.push(last);
      this.all.push(last);
      prepare += RECORD_HEADER_BYTES + streamId.length + p.type.length + p.data.length + p.metadata.length;
    }
    this.nextOffset = prepare + COMMIT_RECORD_BYTES;
    return last!;
  }

  writeSystemEvent(streamId: string, type: string, data: unknown): void {
    this.write(streamId, [
      {
        id: randomUUID(),
        type,
        contentType: 'application/json',
        data: Buffer.from(JSON.stringify(data)),
        metadata: new Uint8Array(),
      },
    ]);
    this.notify();
  }

  /** Resolves on the next write (or on `wake`). */
  nextWrite(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

function comparePos(e: StoredEvent, commit: bigint, prepare: bigint): number {
  const c = BigInt(e.commit);
  if (c !== commit) return c < commit ? -1 : 1;
  const p = BigInt(e.prepare);
  return p === prepare ? 0 : p < prepare ? -1 : 1;
}

/** Index of the first event at or after a position (the log length when none). */
function firstIndexAtOrAfter(all: readonly StoredEvent[], commit: bigint, prepare: bigint): number {
  let lo = 0;
  let hi = all.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (comparePos(all[mid]!, commit, prepare) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function parseUuid(uuid: Uuid | undefined): string {
  if (!uuid) return randomUUID();
  if (uuid.hasStructured()) {
    const s = uuid.getStructured()!;
    const buf = Buffer.alloc(16);
    buf.writeBigInt64BE(BigInt(s.getMostSignificantBits()), 0);
    buf.writeBigInt64BE(BigInt(s.getLeastSignificantBits()), 8);
    const hex = buf.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
  return uuid.getString();
}

function makeUuid(id: string, structured: boolean): Uuid {
  const uuid = new sharedPb.UUID();
  if (!structured) return uuid.setString(id);
  const buf = Buffer.from(id.replace(/-/g, ''), 'hex');
  const s = new sharedPb.UUID.Structured();
  s.setMostSignificantBits(buf.readBigInt64BE(0).toString());
  s.setLeastSignificantBits(buf.readBigInt64BE(8).toString());
  return uuid.setStructured(s);
}

function streamIdentifier(streamId: string): InstanceType<typeof sharedPb.StreamIdentifier> {
  return new sharedPb.StreamIdentifier().setStreamName(Buffer.from(streamId, 'utf8'));
}

function eventResp(e: StoredEvent, structuredIds: boolean): ReadResp {
  const rec = new streamsPb.ReadResp.ReadEvent.RecordedEvent();
  rec.setId(makeUuid(e.id, structuredIds));
  rec.setStreamIdentifier(streamIdentifier(e.streamId));
  rec.setStreamRevision(String(e.revision));
  rec.setCommitPosition(String(e.commit));
  rec.setPreparePosition(String(e.prepare));
  const md = rec.getMetadataMap();
  md.set('type', e.type);
  md.set('content-type', e.contentType);
  md.set('created', e.created.toString());
  rec.setData(e.data);
  rec.setCustomMetadata(e.metadata);
  const ev = new streamsPb.ReadResp.ReadEvent();
  ev.setEvent(rec);
  ev.setCommitPosition(String(e.commit));
  return new streamsPb.ReadResp().setEvent(ev);
}

function matchesExpression(value: string, expr: FilterExpression): boolean {
  const regex = expr.getRegex();
  if (regex) return new RegExp(regex).test(value);
  return expr.getPrefixList().some((p) => value.startsWith(p));
}

/** Writes to a server stream, waiting for the transport when its buffer is full; false once the call is gone. */
async function send(call: grpc.ServerWritableStream<ReadReq, ReadResp>, msg: ReadResp): Promise<boolean> {
  if (call.cancelled || call.destroyed) return false;
  if (!call.write(msg)) {
    await new Promise<void>((resolve) => {
      const done = (): void => {
        call.off('drain', done);
        call.off('cancelled', done);
        call.off('close', done);
        resolve();
      };
      call.on('drain', done);
      call.on('cancelled', done);
      call.on('close', done);
    });
  }
  return !call.cancelled && !call.destroyed;
}

/** Starts a fake EventStoreDB on a free loopback port. */
export async function startFakeEsdb(): Promise<FakeEsdb> {
  const log = new FakeLog();
  log.writeSystemEvent('$settings', '$settings', {
    $userStreamAcl: { $r: '$all' },
    $systemStreamAcl: { $r: '$admins' },
  });
  const openCalls = new Set<grpc.ServerWritableStream<ReadReq, ReadResp>>();
  let stopping = false;

  function parseExpected(options: InstanceType<typeof streamsPb.AppendReq.Options>): Expected {
    if (options.hasRevision()) return { kind: 'revision', revision: Number(options.getRevision()) };
    if (options.hasNoStream()) return { kind: 'no_stream' };
    if (options.hasStreamExists()) return { kind: 'stream_exists' };
    return { kind: 'any' };
  }

  function appendResponse(outcome: AppendOutcome, expected: Expected): AppendResp {
    const resp = new streamsPb.AppendResp();
    if (outcome.kind === 'wrong') {
      const wrong = new streamsPb.AppendResp.WrongExpectedVersion();
      if (outcome.current === null) wrong.setCurrentNoStream(new sharedPb.Empty());
      else wrong.setCurrentRevision(String(outcome.current));
      if (expected.kind === 'revision') wrong.setExpectedRevision(String(expected.revision));
      else if (expected.kind === 'no_stream') wrong.setExpectedNoStream(new sharedPb.Empty());
      else if (expected.kind === 'stream_exists') wrong.setExpectedStreamExists(new sharedPb.Empty());
      else wrong.setExpectedAny(new sharedPb.Empty());
      return resp.setWrongExpectedVersion(wrong);
    }
    const success = new streamsPb.AppendResp.Success();
    if (outcome.kind === 'written') {
      success.setCurrentRevision(String(outcome.last.revision));
      const pos = new streamsPb.AppendResp.Position();
      pos.setCommitPosition(String(outcome.last.commit));
      pos.setPreparePosition(String(outcome.last.prepare));
      success.setPosition(pos);
    } else {
      success.setCurrentRevision(String(outcome.lastRevision));
      success.setNoPosition(new sharedPb.Empty());
    }
    return resp.setSuccess(success);
  }

  const append: grpc.handleClientStreamingCall<AppendReq, AppendResp> = (call, callback) => {
    let options: InstanceType<typeof streamsPb.AppendReq.Options> | undefined;
    const proposed: Proposed[] = [];
    let failed = false;
    call.on('data', (req: AppendReq) => {
      if (req.hasOptions()) {
        options = req.getOptions();
        return;
      }
      const m = req.getProposedMessage();
      if (!m) return;
      const md = m.getMetadataMap();
      const type = md.get('type');
      if (!type) {
        failed = true;
        const metadata = new grpc.Metadata();
        metadata.set('exception', 'missing-required-metadata-property');
        metadata.set('required-metadata-properties', 'type');
        callback({ code: grpc.status.INVALID_ARGUMENT, details: 'type is required', metadata });
        return;
      }
      proposed.push({
        id: parseUuid(m.getId()),
        type,
        contentType: md.get('content-type') ?? 'application/octet-stream',
        data: m.getData_asU8(),
        metadata: m.getCustomMetadata_asU8(),
      });
    });
    call.on('end', () => {
      if (failed) return;
      if (!options) {
        callback({ code: grpc.status.INVALID_ARGUMENT, details: 'append without options' });
        return;
      }
      const streamId = Buffer.from(options.getStreamIdentifier()!.getStreamName_asU8()).toString('utf8');
      const expected = parseExpected(options);
      callback(null, appendResponse(log.append(streamId, expected, proposed), expected));
    });
    call.on('error', () => undefined);
  };

  async function readStream(
    call: grpc.ServerWritableStream<ReadReq, ReadResp>,
    o: InstanceType<typeof streamsPb.ReadReq.Options>,
  ) {
    const so = o.getStream()!;
    const streamId = Buffer.from(so.getStreamIdentifier()!.getStreamName_asU8()).toString('utf8');
    const events = log.stream(streamId);
    const structured = o.getUuidOption()?.hasStructured() ?? false;
    if (events.length === 0) {
      const nf = new streamsPb.ReadResp.StreamNotFound().setStreamIdentifier(streamIdentifier(streamId));
      await send(call, new streamsPb.ReadResp().setStreamNotFound(nf));
      call.end();
      return;
    }
    const count = Math.min(Number(BigInt(o.getCount() || '0')), events.length);
    const backwards = o.getReadDirection() === streamsPb.ReadReq.Options.ReadDirection.BACKWARDS;
    const selected: StoredEvent[] = [];
    if (backwards) {
      const from = so.hasRevision() ? Math.min(Number(BigInt(so.getRevision())), events.length - 1) : events.length - 1;
      for (let r = from; r >= 0 && selected.length < count; r--) selected.push(events[r]!);
    } else {
      const from = so.hasRevision() ? Number(BigInt(so.getRevision())) : so.hasEnd() ? events.length : 0;
      for (let r = from; r < events.length && selected.length < count; r++) selected.push(events[r]!);
    }
    for (const e of selected) if (!(await send(call, eventResp(e, structured)))) return;
    call.end();
  }

  async function readAll(
    call: grpc.ServerWritableStream<ReadReq, ReadResp>,
    o: InstanceType<typeof streamsPb.ReadReq.Options>,
  ) {
    const ao = o.getAll()!;
    const structured = o.getUuidOption()?.hasStructured() ?? false;
    const count = Number(BigInt(o.getCount() || '0'));
    const backwards = o.getReadDirection() === streamsPb.ReadReq.Options.ReadDirection.BACKWARDS;
    const all = log.all;
    const selected: StoredEvent[] = [];
    if (backwards) {
      let from = all.length - 1;
      if (ao.hasPosition()) {
        const p = ao.getPosition()!;
        from = firstIndexAtOrAfter(all, BigInt(p.getCommitPosition()), BigInt(p.getPreparePosition())) - 1;
      } else if (ao.hasStart()) from = -1;
      for (let i = from; i >= 0 && selected.length < count; i--) selected.push(all[i]!);
    } else {
      let from = 0;
      if (ao.hasPosition()) {
        const p = ao.getPosition()!;
        from = firstIndexAtOrAfter(all, BigInt(p.getCommitPosition()), BigInt(p.getPreparePosition()));
      } else if (ao.hasEnd()) from = all.length;
      for (let i = from; i < all.length && selected.length < count; i++) selected.push(all[i]!);
    }
    for (const e of selected) if (!(await send(call, eventResp(e, structured)))) return;
    call.end();
  }

  async function subscribeToAll(
    call: grpc.ServerWritableStream<ReadReq, ReadResp>,
    o: InstanceType<typeof streamsPb.ReadReq.Options>,
  ) {
    const ao = o.getAll()!;
    const structured = o.getUuidOption()?.hasStructured() ?? false;
    let cursor = 0;
    if (ao.hasEnd()) cursor = log.all.length;
    else if (ao.hasPosition()) {
      const p = ao.getPosition()!;
      // EventStoreDB reads one event from the given position and starts after it.
      cursor = Math.min(
        firstIndexAtOrAfter(log.all, BigInt(p.getCommitPosition()), BigInt(p.getPreparePosition())) + 1,
        log.all.length,
      );
    }
    const filter = o.hasFilter() ? o.getFilter()! : null;
    const window = filter?.hasMax() ? filter.getMax() : DEFAULT_SEARCH_WINDOW;
    const checkpointInterval = filter ? Math.max(1, filter.getCheckpointintervalmultiplier()) * window : 0;
    const accepts = (e: StoredEvent): boolean => {
      if (!filter) return true;
      if (filter.hasStreamIdentifier()) return matchesExpression(e.streamId, filter.getStreamIdentifier()!);
      if (filter.hasEventType()) return matchesExpression(e.type, filter.getEventType()!);
      return true;
    };

    const confirmation = new streamsPb.ReadResp.SubscriptionConfirmation().setSubscriptionId(randomUUID());
    if (!(await send(call, new streamsPb.ReadResp().setConfirmation(confirmation)))) return;
    let considered = 0;
    let caughtUp = false;
    while (!stopping && !call.cancelled && !call.destroyed) {
      if (cursor < log.all.length) {
        const e = log.all[cursor++]!;
        considered++;
        if (accepts(e) && !(await send(call, eventResp(e, structured)))) return;
        if (filter && considered >= checkpointInterval) {
          considered = 0;
          const cp = new streamsPb.ReadResp.Checkpoint();
          cp.setCommitPosition(String(e.commit));
          cp.setPreparePosition(String(e.prepare));
          if (!(await send(call, new streamsPb.ReadResp().setCheckpoint(cp)))) return;
        }
        continue;
      }
      if (!caughtUp) {
        caughtUp = true;
        if (!(await send(call, new streamsPb.ReadResp().setCaughtUp(new streamsPb.ReadResp.CaughtUp())))) return;
        continue;
      }
      await log.nextWrite();
    }
    if (!call.cancelled && !call.destroyed) call.end();
  }

  const read: grpc.handleServerStreamingCall<ReadReq, ReadResp> = (call) => {
    const o = call.request.getOptions();
    if (!o) {
      call.destroy(Object.assign(new Error('read without options'), { code: grpc.status.INVALID_ARGUMENT }));
      return;
    }
    openCalls.add(call);
    const done = () => openCalls.delete(call);
    call.on('cancelled', () => {
      done();
      log.notify();
    });
    call.on('error', () => undefined);
    let work: Promise<void>;
    if (o.hasSubscription()) {
      if (!o.hasAll()) {
        done();
        call.destroy(
          Object.assign(new Error('stream subscriptions are not served'), { code: grpc.status.UNIMPLEMENTED }),
        );
        return;
      }
      work = subscribeToAll(call, o);
    } else if (o.hasStream()) work = readStream(call, o);
    else work = readAll(call, o);
    work.then(done, (err: unknown) => {
      done();
      call.destroy(err instanceof Error ? err : new Error(String(err)));
    });
  };

  const unimplemented = (_call: unknown, callback: grpc.sendUnaryData<never>) =>
    callback({ code: grpc.status.UNIMPLEMENTED, details: 'not served by the fake' });

  const streamsImpl: streamsGrpc.IStreamsServer = {
    read,
    append,
    delete: unimplemented,
    tombstone: unimplemented,
    batchAppend: (call) => {
      call.destroy(Object.assign(new Error('batch append is not served'), { code: grpc.status.UNIMPLEMENTED }));
    },
  };

  const featuresImpl: featuresGrpc.IServerFeaturesServer = {
    getSupportedMethods: (_call, callback) => {
      const methods = ['read', 'append'].map((name) =>
        new featuresPb.SupportedMethod().setServiceName('event_store.client.streams.streams').setMethodName(name),
      );
      callback(null, new featuresPb.SupportedMethods().setMethodsList(methods).setEventStoreServerVersion('23.10.0'));
    },
  };

  const server = new grpc.Server();
  server.addService(streamsGrpc.StreamsService, streamsImpl);
  server.addService(featuresGrpc.ServerFeaturesService, featuresImpl);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    );
  });

  return {
    url: `esdb://127.0.0.1:${port}?tls=false`,
    async stop() {
      stopping = true;
      log.notify();
      for (const call of openCalls) if (!call.cancelled && !call.destroyed) call.end();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, 1000);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}
