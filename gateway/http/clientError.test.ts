import { expect } from 'chai';
import net from 'node:net';
import { useTestGateway, type TestGateway } from '../testing/harness.ts';

/** Sends `raw` on a fresh connection and answers everything the server wrote back before closing it. */
function exchange(url: string, raw: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(raw));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function parsed(answer: string): { status: number; type: string; body: { error: string; message: string } } {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  return {
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]),
    type: /^content-type: (.*)$/im.exec(head)?.[1] ?? '',
    body: JSON.parse(body) as { error: string; message: string },
  };
}

describe('requests the HTTP parser refuses', function () {
  let gw: TestGateway;
  useTestGateway((started) => {
    gw = started;
  });

  it('answers an address too long for the headers with 431 and a JSON body saying so', async function () {
    const res = await fetch(`${gw.url}/api/performance?symbols=AAPL&x=${'A'.repeat(20_000)}`);
    expect(res.status).to.equal(431);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    const body = (await res.json()) as { error: string; message: string };
    expect(body.error).to.equal('headers_too_large');
    expect(body.message).to.match(/^request: its address and headers are larger than 16,384 bytes/);
  });

  it('answers a malformed request with 400 and a JSON body', async function () {
    const answer = parsed(await exchange(gw.url, 'GET /api/quotes HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'));
    expect(answer.status).to.equal(400);
    expect(answer.type).to.match(/^application\/json/);
    expect(answer.body).to.deep.equal({ error: 'bad_request', message: 'request: not a well-formed HTTP request' });
  });
});
