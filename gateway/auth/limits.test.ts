import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { loadConfig } from '../../platform/config.ts';
import { connectRedis, type RedisClient } from '../../platform/redis.ts';
import { startTestRedis, type TestRedis } from '../../platform/testing/redisServer.ts';
import { startTestGateway, useTestGateway, type TestClient, type TestGateway } from '../testing/harness.ts';
import { MAX_SIGN_IN_DELAY_S, createAuthLimiter, signInDelay } from './limits.ts';
import { redisLimiters } from './rateLimit.ts';

const PASSWORD = 'correct horse';

function name(): string {
  return `lim${randomUUID().replaceAll('-', '').slice(0, 12)}`;
}

/** A client address as the TLS proxy in front reports it. */
function from(address: string): Record<string, string> {
  return { 'X-Forwarded-For': `203.0.113.77, ${address}` };
}

async function register(client: TestClient, address: string, username = name()) {
  return client.post('/api/register', { username, password: PASSWORD }, from(address));
}

async function login(client: TestClient, username: string, password: string, address: string) {
  return client.post('/api/login', { username, password }, from(address));
}

function message(res: { body: unknown }): string {
  return (res.body as { message: string }).message;
}

describe('registration and sign-in limits', function () {
  describe('behind a trusted proxy', function () {
    let gw: TestGateway;
    before(async function () {
      // The market is built once per test process; on a busy machine that outlasts a test's time.
      this.timeout(180_000);
      gw = await startTestGateway({
        env: {
          TRUST_PROXY: 'true',
          REGISTRATIONS_PER_ADDRESS: '3',
          REGISTRATIONS_PER_HOUR: '6',
          SIGNIN_FAILURES_PER_ADDRESS: '8',
        },
      });
    });
    after(async function () {
      await gw.close();
    });

    it('limits registrations per address, then overall, with 429 and Retry-After', async function () {
      const client = gw.client();
      for (let i = 0; i < 3; i++) expect((await register(client, '198.51.100.1')).status).to.equal(201);
      const fourth = await register(client, '198.51.100.1');
      expect(fourth.status, fourth.text).to.equal(429);
      expect(Number(fourth.headers.get('retry-after'))).to.be.within(1, 3600);
      expect(message(fourth)).to.match(/^too many registrations; try again in \d+ s$/);
      // Three more addresses bring the whole to six; the seventh registration waits, whatever its address.
      for (const address of ['198.51.100.2', '198.51.100.3', '198.51.100.4']) {
        expect((await register(client, address)).status).to.equal(201);
      }
      const overall = await register(client, '198.51.100.5');
      expect(overall.status, overall.text).to.equal(429);
      expect(overall.headers.get('retry-after')).to.match(/^\d+$/);
    });
  });
});

describe('sign-in delays', function () {
  let gw: TestGateway;
  useTestGateway({ env: { TRUST_PROXY: 'true', SIGNIN_FAILURES_PER_ADDRESS: '8' } }, (started) => {
    gw = started;
  });

  async function account(): Promise<string> {
    const username = name();
    expect((await register(gw.client(), '192.0.2.200', username)).status).to.equal(201);
    return username;
  }

  it('grows the wait per account and address; the right password from another address still signs in', async function () {
    const username = await account();
    const attacker = gw.client();
    for (let i = 0; i < 5; i++) {
      expect((await login(attacker, username, 'wrong guess', '192.0.2.1')).status).to.equal(401);
    }
    const held = await login(attacker, username, PASSWORD, '192.0.2.1');
    expect(held.status, held.text).to.equal(429);
    expect(held.headers.get('retry-after')).to.equal('2');
    expect(message(held)).to.equal('too many failed sign-ins; try again in 2 s');

    const owner = gw.client();
    const signedIn = await login(owner, username, PASSWORD, '192.0.2.2');
    expect(signedIn.status, signedIn.text).to.equal(200);

    // The wait is the delay itself; after it, one more wrong password doubles it.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect((await login(attacker, username, 'wrong guess', '192.0.2.1')).status).to.equal(401);
    const longer = await login(attacker, username, PASSWORD, '192.0.2.1');
    expect(longer.status).to.equal(429);
    expect(longer.headers.get('retry-after')).to.equal('4');
  });

  it('holds wrong passwords sent at once as it holds them one after the other', async function () {
    const username = await account();
    const guesses = await Promise.all(
      Array.from({ length: 20 }, () => login(gw.client(), username, 'wrong guess', '192.0.2.30')),
    );
    // The five free attempts are checked; every other one waits for the turn the one before it earned.
    expect(guesses.filter((r) => r.status === 401)).to.have.length(5);
    expect(guesses.filter((r) => r.status === 429)).to.have.length(15);
    const held = await login(gw.client(), username, PASSWORD, '192.0.2.30');
    expect(held.status, held.text).to.equal(429);
    expect(held.headers.get('retry-after')).to.equal('2');
    expect((await login(gw.client(), username, PASSWORD, '192.0.2.31')).status).to.equal(200);
  });

  it('holds an address guessing many accounts at once beyond its hour', async function () {
    const guesses = await Promise.all(
      Array.from({ length: 12 }, (_, i) => login(gw.client(), `nobody${i}x${name()}`, 'wrong guess', '192.0.2.40')),
    );
    // SIGNIN_FAILURES_PER_ADDRESS is 8 here.
    expect(guesses.filter((r) => r.status === 401)).to.have.length(8);
    expect(guesses.filter((r) => r.status === 429)).to.have.length(4);
  });

  it('does not let users behind one address lock each other out', async function () {
    const victim = await account();
    const neighbour = await account();
    for (let i = 0; i < 5; i++) {
      expect((await login(gw.client(), victim, 'wrong guess', '192.0.2.10')).status).to.equal(401);
    }
    expect((await login(gw.client(), neighbour, PASSWORD, '192.0.2.10')).status).to.equal(200);
  });

  it('holds an address that guesses across many accounts, whatever the account', async function () {
    const accounts = await Promise.all(Array.from({ length: 9 }, () => account()));
    for (const username of accounts.slice(0, 8)) {
      expect((await login(gw.client(), username, 'wrong guess', '192.0.2.20')).status).to.equal(401);
    }
    const held = await login(gw.client(), accounts[8]!, PASSWORD, '192.0.2.20');
    expect(held.status, held.text).to.equal(429);
    expect(Number(held.headers.get('retry-after'))).to.be.within(3000, 3600);
    expect((await login(gw.client(), accounts[8]!, PASSWORD, '192.0.2.21')).status).to.equal(200);
  });

  it('marks cookies Secure when the proxy says the request came over HTTPS', async function () {
    const username = await account();
    const res = await gw
      .client()
      .post('/api/login', { username, password: PASSWORD }, { ...from('192.0.2.30'), 'X-Forwarded-Proto': 'https' });
    expect(res.status).to.equal(200);
    const cookies = res.headers.getSetCookie();
    expect(cookies.length).to.be.greaterThan(0);
    for (const cookie of cookies) expect(cookie.toLowerCase()).to.contain('; secure');
  });
});

describe('without a trusted proxy', function () {
  let gw: TestGateway;
  useTestGateway((started) => {
    gw = started;
  });

  it('ignores X-Forwarded-For: changing it does not escape the wait', async function () {
    const username = name();
    expect((await register(gw.client(), '192.0.2.40', username)).status).to.equal(201);
    for (let i = 0; i < 5; i++) {
      expect((await login(gw.client(), username, 'wrong guess', `192.0.2.${50 + i}`)).status).to.equal(401);
    }
    expect((await login(gw.client(), username, PASSWORD, '192.0.2.99')).status).to.equal(429);
  });

  it('ignores X-Forwarded-Proto: cookies are not marked Secure over plain HTTP', async function () {
    const username = name();
    expect((await register(gw.client(), '192.0.2.41', username)).status).to.equal(201);
    const res = await gw
      .client()
      .post('/api/login', { username, password: PASSWORD }, { 'X-Forwarded-Proto': 'https' });
    expect(res.status).to.equal(200);
    for (const cookie of res.headers.getSetCookie()) expect(cookie.toLowerCase()).not.to.contain('secure');
  });
});

describe('sign-in delays in Redis', function () {
  let redis: TestRedis;
  const clients: RedisClient[] = [];
  before(async function () {
    // The market is built once per test process; on a busy machine that outlasts a test's time.
    this.timeout(180_000);
    redis = await startTestRedis();
  });
  after(async function () {
    for (const client of clients) await client.quit();
    await redis.stop();
  });

  it('are shared by the gateways on one Redis', async function () {
    const limits = loadConfig({}).authLimits;
    const [a, b] = await Promise.all([connectRedis(redis.url), connectRedis(redis.url)]);
    clients.push(a, b);
    const gatewayA = createAuthLimiter(limits, redisLimiters(a));
    const gatewayB = createAuthLimiter(limits, redisLimiters(b));
    for (let i = 0; i < limits.signInFreeFailures; i++) {
      expect(await gatewayA.signInBegin('ada', '192.0.2.1')).to.equal(0);
      await gatewayA.signInEnded('ada', '192.0.2.1', false);
    }
    expect(await gatewayB.signInBegin('ada', '192.0.2.1')).to.equal(2);
    expect(await gatewayB.signInBegin('ada', '192.0.2.2')).to.equal(0);
    expect(await a.keys('sp-signin-*')).to.have.length.greaterThan(0);
    await gatewayB.signInEnded('ada', '192.0.2.1', true);
    expect(await gatewayA.signInBegin('ada', '192.0.2.1')).to.equal(0);
  });

  it('count registrations across gateways', async function () {
    const limits = { ...loadConfig({}).authLimits, registrationsPerAddress: 2 };
    const [a, b] = await Promise.all([connectRedis(redis.url), connectRedis(redis.url)]);
    clients.push(a, b);
    const gatewayA = createAuthLimiter(limits, redisLimiters(a));
    const gatewayB = createAuthLimiter(limits, redisLimiters(b));
    expect(await gatewayA.register('192.0.2.9')).to.equal(0);
    expect(await gatewayB.register('192.0.2.9')).to.equal(0);
    expect(await gatewayA.register('192.0.2.9')).to.be.within(3500, 3600);
  });
});

describe('signInDelay', function () {
  it('is 0 for the free failures, then doubles from 2 s up to 15 minutes', function () {
    expect(MAX_SIGN_IN_DELAY_S).to.equal(900);
    expect([1, 4, 5, 6, 7, 14, 40].map((n) => signInDelay(n, 5))).to.deep.equal([
      0,
      0,
      2,
      4,
      8,
      MAX_SIGN_IN_DELAY_S,
      MAX_SIGN_IN_DELAY_S,
    ]);
  });
});
