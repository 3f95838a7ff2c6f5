/**
 * Outbound HTTP to addresses users give (webhooks, push endpoints) without letting them reach the inside:
 * the host is resolved first and every address checked (loopback, private, link-local, carrier-grade NAT,
 * multicast, reserved and cloud metadata addresses are refused), then the request connects to the address
 * that was checked, so a second DNS answer cannot swap it. Redirects are answers, never followed. A host in
 * the allowed list (`WEBHOOK_ALLOWED_HOSTS`) skips the address check. The same rule refuses a URL when it is
 * added, when its host is written as an address (or is `localhost`): {@link forbiddenLiteralHost}.
 */
import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';

/** A request refused before it left: the address is not public. */
export class ForbiddenAddressError extends Error {
  override readonly name = 'ForbiddenAddressError';
}

/**
 * The addresses a user's URL may not reach, in Node's own `BlockList`, which also matches an IPv4-mapped IPv6
 * address (`::ffff:7f00:1`, as the URL parser writes `[::ffff:127.0.0.1]`) against the IPv4 blocks.
 */
const FORBIDDEN: net.BlockList = (() => {
  const list = new net.BlockList();
  const v4: readonly [string, number][] = [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.0.2.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ];
  // ::/96 IPv4-compatible (also :: and ::1), 64:ff9b::/96 and 64:ff9b:1::/48 NAT64, 2001::/32 Teredo and
  // 2002::/16 6to4 (both carry an IPv4 address), 2001:db8::/32 documentation, fc00::/7 unique local (AWS's
  // metadata fd00:ec2::254 too), fe80::/10 link-local, ff00::/8 multicast.
  const v6: readonly [string, number][] = [
    ['::', 96],
    ['64:ff9b::', 96],
    ['64:ff9b:1::', 48],
    ['2001::', 32],
    ['2001:db8::', 32],
    ['2002::', 16],
    ['fc00::', 7],
    ['fe80::', 10],
    ['ff00::', 8],
  ];
  for (const [base, bits] of v4) list.addSubnet(base, bits, 'ipv4');
  for (const [base, bits] of v6) list.addSubnet(base, bits, 'ipv6');
  return list;
})();

/** Whether an IP address is one a user's URL may not reach: anything but a public unicast address. */
export function isForbiddenAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return true;
  return FORBIDDEN.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** The allowed hosts of a comma-separated list, lower-cased. */
export function parseAllowedHosts(list: string | undefined | null): ReadonlySet<string> {
  return new Set(
    (list ?? '')
      .split(',')
      .map((host) => host.trim().toLowerCase())
      .filter((host) => host !== ''),
  );
}

/** A URL's host as the address check reads it: lower-cased, an IPv6 address without its brackets. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

/** Whether a URL's host is in the allowed list, by name alone or with its port (`127.0.0.1:8080`). */
export function isAllowedHost(url: URL, allowedHosts: ReadonlySet<string>): boolean {
  return allowedHosts.has(hostOf(url)) || allowedHosts.has(url.host.toLowerCase());
}

/** Whether a host name is loopback by name (`localhost`, `*.localhost`, RFC 6761, with or without the root dot). */
function isLocalhostName(host: string): boolean {
  const name = host.replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * The reason a URL would be refused when sent, when that is known without DNS: its host is an IP address
 * that is not public, or `localhost`, and not in the allowed list; null otherwise. A host name needing DNS is
 * not answered here: it is checked when each request is sent ({@link resolveChecked}), as its addresses may
 * change after it is added.
 */
export function forbiddenLiteralHost(url: URL, allowedHosts: ReadonlySet<string>): string | null {
  if (isAllowedHost(url, allowedHosts)) return null;
  const host = hostOf(url);
  if (net.isIP(host) !== 0) return isForbiddenAddress(host) ? `${host} is not a public address` : null;
  return isLocalhostName(host) ? `${host} is a loopback name, not a public address` : null;
}

/** The address a URL's host may be reached at, after the check; throws {@link ForbiddenAddressError}. */
export async function resolveChecked(
  url: URL,
  allowedHosts: ReadonlySet<string>,
): Promise<{ address: string; family: number }> {
  const host = hostOf(url);
  const allowed = isAllowedHost(url, allowedHosts);
  const addresses = net.isIP(host) ? [{ address: host, family: net.isIP(host) }] : await lookup(host, { all: true });
  if (addresses.length === 0) throw new ForbiddenAddressError(`${host} has no address`);
  if (!allowed) {
    const bad = addresses.find((a) => isForbiddenAddress(a.address));
    if (bad) throw new ForbiddenAddressError(`${host} resolves to ${bad.address}, which is not a public address`);
  }
  return addresses[0]!;
}

/** What an outbound request answered. */
export interface OutboundAnswer {
  /** The HTTP status. */
  readonly status: number;
  /** The first bytes of the answer's body (at most 1 KiB), for the record. */
  readonly body: string;
  /** The answer's `Retry-After` header as sent (seconds or an HTTP date), null without one. */
  readonly retryAfter: string | null;
}

/** Options of {@link postChecked}. */
export interface OutboundRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Buffer;
  /** Milliseconds before the request is abandoned (connection and answer together). */
  readonly timeoutMs: number;
  readonly allowedHosts: ReadonlySet<string>;
}

// Connections are kept open between deliveries to the same receiver. A pooled connection goes to an address
// that was checked when it was opened; a new one is opened only to the address this request checked.
const keepAlive = { keepAlive: true, maxFreeSockets: 256, scheduling: 'lifo' } as const;
const httpAgent = new http.Agent(keepAlive);
const httpsAgent = new https.Agent(keepAlive);

/**
 * POSTs to a user's URL through the address check; resolves with any answer (a redirect included, not followed),
 * rejects on a refused address, a network error or the timeout.
 */
export async function postChecked(request: OutboundRequest): Promise<OutboundAnswer> {
  const url = new URL(request.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ForbiddenAddressError(`${url.protocol} URLs are not reached`);
  }
  const signal = AbortSignal.timeout(request.timeoutMs);
  const pinned = await resolveChecked(url, request.allowedHosts);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<OutboundAnswer>((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: 'POST',
        headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
        signal,
        agent: url.protocol === 'https:' ? httpsAgent : httpAgent,
        // Connect to the address that was checked, whatever the resolver would say now.
        lookup: (_hostname, options, callback) => {
          if ((options as { all?: boolean }).all) callback(null, [pinned]);
          else callback(null, pinned.address, pinned.family);
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size < 1024) chunks.push(chunk);
          size += chunk.length;
        });
        const retryAfter = res.headers['retry-after'];
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8').slice(0, 1024),
            retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', (error) => reject(signal.aborted ? new Error(`no answer within ${request.timeoutMs} ms`) : error));
    req.end(request.body);
  });
}
