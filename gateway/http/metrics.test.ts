import { expect } from 'chai';
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import net from 'node:net';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { DurationHistogram, processMetricsRegistry } from './metrics.ts';

describe('request-duration histogram', function () {
  it('writes cumulative buckets, sum and count per method, route and status, le first', function () {
    const histogram = new DurationHistogram('d_seconds', 'Durations.', [0.01, 0.1, 1]);
    for (const seconds of [0.005, 0.01, 0.05, 2]) histogram.observe('GET', '/api/bars/:symbol', 200, seconds);
    histogram.observe('POST', '/api/login', 401, 0.2);
    expect(histogram.text().split('\n')).to.deep.equal([
      '# HELP d_seconds Durations.',
      '# TYPE d_seconds histogram',
      'd_seconds_bucket{le="0.01",method="GET",route="/api/bars/:symbol",status="200"} 2',
      'd_seconds_bucket{le="0.1",method="GET",route="/api/bars/:symbol",status="200"} 3',
      'd_seconds_bucket{le="1",method="GET",route="/api/bars/:symbol",status="200"} 3',
      'd_seconds_bucket{le="+Inf",method="GET",route="/api/bars/:symbol",status="200"} 4',
      'd_seconds_sum{method="GET",route="/api/bars/:symbol",status="200"} 2.065',
      'd_seconds_count{method="GET",route="/api/bars/:symbol",status="200"} 4',
      'd_seconds_bucket{le="0.01",method="POST",route="/api/login",status="401"} 0',
      'd_seconds_bucket{le="0.1",method="POST",route="/api/login",status="401"} 0',
      'd_seconds_bucket{le="1",method="POST",route="/api/login",status="401"} 1',
      'd_seconds_bucket{le="+Inf",method="POST",route="/api/login",status="401"} 1',
      'd_seconds_sum{method="POST",route="/api/login",status="401"} 0.2',
      'd_seconds_count{method="POST",route="/api/login",status="401"} 1',
      '',
    ]);
  });

  it('escapes backslashes, quotes and line breaks in label values', function () {
    const histogram = new DurationHistogram('d_seconds', 'Durations.', [1]);
    histogram.observe('GET', 'a\\b"c\nd', 200, 0.5);
    expect(histogram.text()).to.include('d_seconds_count{method="GET",route="a\\\\b\\"c\\nd",status="200"} 1');
  });
});

describe('process metrics', function () {
  /** The samples of a metric in a Prometheus text: the labels as written, and the value. */
  function samples(text: string, name: string): { labels: string; value: number }[] {
    const found: { labels: string; value: number }[] = [];
    for (const line of text.split('\n')) {
      const match = /^([a-z_]+)(\{[^}]*\})? (\S+)$/.exec(line);
      if (match?.[1] === name) found.push({ labels: match[2] ?? '', value: Number(match[3]) });
    }
    return found;
  }
  const valueOf = (text: string, name: string): number => {
    const [sample, ...more] = samples(text, name);
    expect(sample, name).to.not.equal(undefined);
    expect(more, name).to.have.length(0);
    return sample!.value;
  };
  const sumOf = (text: string, name: string): number => samples(text, name).reduce((sum, s) => sum + s.value, 0);
  const typeCount = (text: string, name: string, type: string): number =>
    samples(text, name).find((s) => s.labels === `{type="${type}"}`)?.value ?? 0;

  /**
   * `count` loopback connections of this process, both ends open (two descriptors and two handles each), and the
   * server that accepted them (one more).
   */
  async function connections(count: number): Promise<{ close: () => Promise<void> }> {
    const accepted: net.Socket[] = [];
    const server = net.createServer((socket) => accepted.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    const clients: net.Socket[] = [];
    for (let i = 0; i < count; i++) {
      clients.push(
        await new Promise<net.Socket>((resolve) => {
          const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
        }),
      );
    }
    while (accepted.length < count) await once(server, 'connection');
    return {
      close: async () => {
        // Each handle is gone once its socket says it closed.
        const closed = [...clients, ...accepted].map(async (socket) => {
          const done = once(socket, 'close');
          socket.destroy();
          await done;
        });
        await Promise.all([...closed, new Promise<void>((resolve) => server.close(() => resolve()))]);
      },
    };
  }

  it('has the names, help and types of prom-client default metrics', async function () {
    const reference = new Registry();
    collectDefaultMetrics({ register: reference });
    const heads = (text: string): string[] =>
      text
        .split('\n')
        .filter((line) => line.startsWith('# '))
        .sort();
    expect(heads(await processMetricsRegistry().metrics())).to.deep.equal(heads(await reference.metrics()));
  });

  it('counts the descriptors, handles and resources that sockets open, and their totals by type', async function () {
    const registry = processMetricsRegistry();
    const before = await registry.metrics();
    const open = await connections(40);
    let during: string;
    try {
      during = await registry.metrics();
    } finally {
      await open.close();
    }
    expect(valueOf(during, 'process_open_fds') - valueOf(before, 'process_open_fds')).to.equal(2 * 40 + 1);
    expect(typeCount(during, 'nodejs_active_handles', 'Socket')).to.be.at.least(80);
    expect(typeCount(during, 'nodejs_active_resources', 'TCPSocketWrap')).to.be.at.least(80);
    for (const text of [before, during]) {
      expect(valueOf(text, 'nodejs_active_handles_total')).to.equal(sumOf(text, 'nodejs_active_handles'));
      expect(valueOf(text, 'nodejs_active_resources_total')).to.equal(sumOf(text, 'nodejs_active_resources'));
    }
    // Closed, they are no longer counted.
    const after = await registry.metrics();
    expect(typeCount(after, 'nodejs_active_handles', 'Socket')).to.be.below(
      typeCount(during, 'nodejs_active_handles', 'Socket'),
    );
    expect(valueOf(after, 'process_open_fds')).to.be.below(valueOf(during, 'process_open_fds'));
    // Less the descriptor of the listing, as prom-client counts.
    expect(valueOf(after, 'process_open_fds')).to.equal(readdirSync('/proc/self/fd').length - 1);
  });
});
