import { expect } from 'chai';
import type { QuotesAck } from '../../domain/contract/socket.ts';
import type { Quote } from '../../domain/market/types.ts';
import { frameScheduler, LiveConnection, type AnimationFrames, type FrameScheduler, type LiveSocket } from './live.ts';

type Handler = (...args: never[]) => void;

/** A socket whose server the test plays: it calls the connection's handlers and answers its subscriptions. */
class FakeSocket {
  connected = false;
  /** The symbols of each subscription asked for, and the ones asked to end. */
  readonly subscribed: string[][] = [];
  readonly unsubscribed: string[][] = [];
  /** The answers the subscriptions wait for, oldest first. */
  readonly acks: ((answer: QuotesAck) => void)[] = [];
  private readonly handlers = new Map<string, Handler[]>();

  on(event: string, handler: Handler): this {
    this.handlers.set(event, [...(this.handlers.get(event) ?? []), handler]);
    return this;
  }

  emit(event: string, request: { symbols: string[] }, ack: (answer: QuotesAck) => void): this {
    if (event === 'quotes:subscribe') {
      this.subscribed.push(request.symbols);
      this.acks.push(ack);
    } else if (event === 'quotes:unsubscribe') this.unsubscribed.push(request.symbols);
    return this;
  }

  disconnect(): this {
    this.connected = false;
    return this;
  }

  /** The server sends `event`. */
  serve(event: string, ...args: unknown[]): void {
    for (const handler of this.handlers.get(event) ?? []) (handler as (...values: unknown[]) => void)(...args);
  }
}

/** Frames the test draws itself. */
function manualFrames() {
  const waiting: (() => void)[] = [];
  let asked = 0;
  const frame: FrameScheduler = (run) => {
    asked += 1;
    waiting.push(run);
    return () => {
      const at = waiting.indexOf(run);
      if (at >= 0) waiting.splice(at, 1);
    };
  };
  return {
    frame,
    /** How many frames were asked for. */
    asked: () => asked,
    /** How many asked for are still to come. */
    waiting: () => waiting.length,
    /** Draws the frames asked for. */
    draw: () => {
      for (const run of waiting.splice(0)) run();
    },
  };
}

/** A connection on a fake socket and manual frames, connected. */
function connected() {
  const socket = new FakeSocket();
  const frames = manualFrames();
  const connection = new LiveConnection({ open: () => socket as unknown as LiveSocket, frame: frames.frame });
  connection.connect();
  socket.connected = true;
  socket.serve('connect');
  return { socket, frames, connection };
}

let seconds = 0;
function quote(symbol: string, price: number): Quote {
  seconds += 1;
  const ts = new Date(Date.UTC(2026, 0, 5, 15, 0, seconds)).toISOString();
  return { symbol, price, change: 0, changepct: 0, volume: 0, ts, source: 'simulated' };
}

const SYMBOLS = ['AAPL', 'MSFT', 'NVDA'];

describe('live connection: quotes', () => {
  it('hands a burst of quotes over at the next frame, every one in the order it came, all in one go', () => {
    const { socket, frames, connection } = connected();
    const got: Quote[] = [];
    connection.onQuotes(SYMBOLS, (q) => got.push(q));
    expect(socket.subscribed).to.deep.equal([SYMBOLS]);
    const snapshot = SYMBOLS.map((s) => quote(s, 100));
    socket.acks[0]!({ ok: true, symbols: SYMBOLS, quotes: snapshot });

    const sent = Array.from({ length: 100 }, (_, i) => quote(SYMBOLS[i % 3]!, 100 + i / 100));
    for (const q of sent) socket.serve('quote', q);
    expect(got, 'nothing before the frame').to.deep.equal([]);
    expect(frames.asked(), 'one frame for the whole burst').to.equal(1);

    frames.draw();
    expect(got).to.deep.equal([...snapshot, ...sent]);
    expect(frames.asked()).to.equal(1);

    // A screen opened now starts from the latest quote of each symbol.
    const latest = new Map<string, number>();
    connection.onQuotes(SYMBOLS, (q) => latest.set(q.symbol, q.price));
    const last = new Map(sent.map((q) => [q.symbol, q.price]));
    expect(latest).to.deep.equal(last);
    expect(last.get('AAPL')).to.equal(sent[99]!.price);
    expect(socket.subscribed, 'symbols followed already are not asked for again').to.have.length(1);
  });

  it('asks for a frame again for a quote that comes after one was drawn, so that each shows promptly', () => {
    const { socket, frames, connection } = connected();
    const got: number[] = [];
    connection.onQuotes(['AAPL'], (q) => got.push(q.price));
    socket.serve('quote', quote('AAPL', 101));
    frames.draw();
    expect(got).to.deep.equal([101]);
    socket.serve('quote', quote('AAPL', 102));
    expect(frames.asked()).to.equal(2);
    frames.draw();
    expect(got).to.deep.equal([101, 102]);
  });

  it('hands a quote to whoever follows its symbol when the frame comes, and keeps none for the others', () => {
    const { socket, frames, connection } = connected();
    const gone: number[] = [];
    const kept: number[] = [];
    const off = connection.onQuotes(['AAPL'], (q) => gone.push(q.price));
    connection.onQuotes(['MSFT'], (q) => kept.push(q.price));
    socket.serve('quote', quote('AAPL', 101));
    socket.serve('quote', quote('MSFT', 401));
    off();
    expect(socket.unsubscribed).to.deep.equal([['AAPL']]);
    frames.draw();
    expect(gone).to.deep.equal([]);
    expect(kept).to.deep.equal([401]);

    const again: number[] = [];
    connection.onQuotes(['AAPL'], (q) => again.push(q.price));
    expect(again, 'no quote kept of a symbol nobody followed').to.deep.equal([]);
  });

  it('hands every quote over even when a listener throws, and throws its error after', () => {
    const { socket, frames, connection } = connected();
    const got: string[] = [];
    connection.onQuotes(['AAPL'], (q) => {
      if (q.price === 101) throw new Error('broken screen');
    });
    connection.onQuotes(SYMBOLS, (q) => got.push(`${q.symbol} ${q.price}`));
    socket.serve('quote', quote('AAPL', 101));
    socket.serve('quote', quote('MSFT', 401));
    expect(() => frames.draw()).to.throw('broken screen');
    expect(got).to.deep.equal(['AAPL 101', 'MSFT 401']);
  });

  it('forgets the quotes waiting for a frame when the connection is closed', () => {
    const { socket, frames, connection } = connected();
    const got: number[] = [];
    connection.onQuotes(['AAPL'], (q) => got.push(q.price));
    socket.serve('quote', quote('AAPL', 101));
    expect(frames.waiting()).to.equal(1);
    connection.disconnect();
    expect(frames.waiting()).to.equal(0);
    frames.draw();
    expect(got).to.deep.equal([]);
  });
});

describe('live connection: read-model changes', () => {
  it('hands each change to every listener, in the order pushed, until it unsubscribes', () => {
    const { socket, connection } = connected();
    const first: string[] = [];
    const second: string[] = [];
    const stopFirst = connection.onReadModelChanged((c) => first.push(`${c.name}@${c.position}`));
    connection.onReadModelChanged((c) => second.push(c.name));
    socket.serve('readmodel:changed', { name: 'alerts', position: '12/12' });
    socket.serve('readmodel:changed', { name: 'notifications', position: '12/12' });
    stopFirst();
    socket.serve('readmodel:changed', { name: 'alerthistory', position: '13/13' });
    expect(first).to.deep.equal(['alerts@12/12', 'notifications@12/12']);
    expect(second).to.deep.equal(['alerts', 'notifications', 'alerthistory']);
  });
});

describe('live connection: frames', () => {
  /** Animation frames the test draws, and the ones cancelled. */
  function fakeFrames() {
    const callbacks = new Map<number, FrameRequestCallback>();
    const cancelled: number[] = [];
    let next = 0;
    const frames: AnimationFrames = {
      requestAnimationFrame: (callback) => {
        next += 1;
        callbacks.set(next, callback);
        return next;
      },
      cancelAnimationFrame: (id) => {
        cancelled.push(id);
        callbacks.delete(id);
      },
    };
    const draw = () => {
      const waiting = [...callbacks.values()];
      callbacks.clear();
      for (const callback of waiting) callback(0);
    };
    return { frames, cancelled, draw, waiting: () => callbacks.size };
  }

  /** Resolves once the timers due by `ms` from now have run (a timer of the same delay set before runs first). */
  const after = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

  it('runs at the next animation frame, and not again when the longest wait is over', async () => {
    const { frames, draw } = fakeFrames();
    let runs = 0;
    frameScheduler(frames, 5)(() => (runs += 1));
    const over = after(5);
    expect(runs).to.equal(0);
    draw();
    expect(runs).to.equal(1);
    await over;
    expect(runs).to.equal(1);
  });

  it('runs after the longest wait when no frame came (a hidden page), and cancels the frame', async () => {
    const { frames, cancelled, waiting } = fakeFrames();
    const ran = new Promise<void>((resolve) => frameScheduler(frames, 5)(resolve));
    await ran;
    expect(cancelled).to.deep.equal([1]);
    expect(waiting()).to.equal(0);
  });

  it('runs after the longest wait where there are no frames, and runs nothing once cancelled', async () => {
    await new Promise<void>((resolve) => frameScheduler(null, 1)(resolve));
    let runs = 0;
    const { frames, waiting } = fakeFrames();
    frameScheduler(frames, 1)(() => (runs += 1))();
    const cancelledToo = frameScheduler(null, 1);
    cancelledToo(() => (runs += 1))();
    await after(1);
    expect(waiting()).to.equal(0);
    expect(runs).to.equal(0);
  });
});
