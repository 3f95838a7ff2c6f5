import path from 'node:path';
import { expect } from 'chai';
import { ConfigError, loadAlpacaDataConfig, loadConfig, type Config } from './config.ts';

function refusal(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).to.be.instanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`expected ${JSON.stringify(env)} to be refused`);
}

describe('loadConfig', () => {
  describe('defaults', () => {
    let config: Config;
    before(() => {
      config = loadConfig({});
    });

    it('listens on port 3000', () => expect(config.port).to.equal(3000));
    it('keeps data in ./var resolved to an absolute path', () => expect(config.dataDir).to.equal(path.resolve('var')));
    it('uses the embedded event store and in-process buses', () => {
      expect(config.eventStoreUrl).to.equal(null);
      expect(config.redisUrl).to.equal(null);
    });
    it('runs every role with the simulator', () => {
      expect(config.role).to.equal('all');
      expect(config.tickSource).to.equal('simulator');
    });
    it('has no feed token, seed 42 and level info', () => {
      expect(config.feedToken).to.equal(null);
      expect(config.marketSeed).to.equal(42);
      expect(config.logLevel).to.equal('info');
    });
    it('is frozen', () => expect(Object.isFrozen(config)).to.equal(true));
    it('treats empty values as unset', () => {
      expect(loadConfig({ PORT: '', ROLE: ' ', EVENTSTORE_URL: '' })).to.deep.equal(config);
    });
    it('reads process.env when no environment is given', () => {
      expect(loadConfig()).to.have.property('port').that.is.a('number');
    });
  });

  describe('PORT', () => {
    it('accepts integers 0 to 65535', () => {
      expect(loadConfig({ PORT: '0' }).port).to.equal(0);
      expect(loadConfig({ PORT: '8080' }).port).to.equal(8080);
      expect(loadConfig({ PORT: '65535' }).port).to.equal(65535);
    });
    for (const bad of ['abc', '65536', '-1', '80.5', '1e3', '0x50']) {
      it(`refuses ${JSON.stringify(bad)}`, () => {
        const err = refusal({ PORT: bad });
        expect(err.variable).to.equal('PORT');
        expect(err.message).to.equal(`PORT must be an integer 0-65535, got ${JSON.stringify(bad)}`);
      });
    }
  });

  describe('DATA_DIR', () => {
    it('resolves a relative directory against the working directory', () => {
      expect(loadConfig({ DATA_DIR: 'data/run' }).dataDir).to.equal(path.resolve('data/run'));
    });
    it('keeps an absolute directory', () => {
      expect(loadConfig({ DATA_DIR: '/srv/stockpulse' }).dataDir).to.equal(path.resolve('/srv/stockpulse'));
    });
  });

  describe('EVENTSTORE_URL', () => {
    for (const url of [
      'esdb://localhost:2113?tls=false',
      'esdb+discover://cluster.example:2113',
      'kurrentdb://localhost:2113?tls=false',
      'kurrentdb+discover://cluster.example:2113',
      'esdb://a:2113,b:2113,c:2113?tls=false',
    ]) {
      it(`accepts ${url}`, () => expect(loadConfig({ EVENTSTORE_URL: url }).eventStoreUrl).to.equal(url));
    }
    for (const bad of ['http://localhost:2113', 'localhost:2113', 'esdb://', 'ESDB:/x']) {
      it(`refuses ${JSON.stringify(bad)}`, () => {
        const err = refusal({ EVENTSTORE_URL: bad });
        expect(err.variable).to.equal('EVENTSTORE_URL');
        expect(err.message).to.equal(
          'EVENTSTORE_URL must be a URL starting with esdb://, esdb+discover://, kurrentdb://, ' +
            `kurrentdb+discover://, got ${JSON.stringify(bad)}`,
        );
      });
    }
  });

  describe('REDIS_URL', () => {
    it('accepts redis:// and rediss://', () => {
      expect(loadConfig({ REDIS_URL: 'redis://localhost:6379' }).redisUrl).to.equal('redis://localhost:6379');
      expect(loadConfig({ REDIS_URL: 'rediss://cache:6380/1' }).redisUrl).to.equal('rediss://cache:6380/1');
    });
    for (const bad of ['http://localhost:6379', 'localhost:6379', 'redis://']) {
      it(`refuses ${JSON.stringify(bad)}`, () => {
        const err = refusal({ REDIS_URL: bad });
        expect(err.variable).to.equal('REDIS_URL');
        expect(err.message).to.equal(
          `REDIS_URL must be a URL starting with redis://, rediss://, got ${JSON.stringify(bad)}`,
        );
      });
    }
  });

  describe('ROLE', () => {
    for (const role of ['all', 'gateway', 'engine', 'projections'] as const) {
      it(`accepts ${role}`, () => expect(loadConfig({ ROLE: role }).role).to.equal(role));
    }
    it('refuses other roles, naming the allowed ones', () => {
      const err = refusal({ ROLE: 'Gateway' });
      expect(err.message).to.equal('ROLE must be one of all, gateway, engine, projections, delivery, got "Gateway"');
    });
  });

  describe('PUBLIC_ORIGIN with ROLE=delivery', () => {
    it('is required: the links of its e-mails cannot name its own port, which serves no page', () => {
      const err = refusal({ ROLE: 'delivery' });
      expect(err.message).to.match(/^PUBLIC_ORIGIN must be an origin such as .* with ROLE=delivery, whose e-mails/);
      expect(loadConfig({ ROLE: 'delivery', PUBLIC_ORIGIN: 'https://stocks.example.com' }).publicOrigin).to.equal(
        'https://stocks.example.com',
      );
      expect(loadConfig({ ROLE: 'engine' }).publicOrigin).to.equal(null);
    });
  });

  describe('TICK_SOURCE', () => {
    for (const source of ['simulator', 'replay', 'feed'] as const) {
      it(`accepts ${source}`, () => {
        expect(loadConfig({ TICK_SOURCE: source, TICK_FILE: 'ticks.csv' }).tickSource).to.equal(source);
      });
    }
    it('refuses other sources, naming the allowed ones', () => {
      const err = refusal({ TICK_SOURCE: 'random' });
      expect(err.message).to.equal('TICK_SOURCE must be one of simulator, replay, feed, alpaca, finnhub, got "random"');
    });
  });

  describe('provider streams', () => {
    const alpaca = { TICK_SOURCE: 'alpaca', ALPACA_KEY_ID: 'PKKEY', ALPACA_SECRET_KEY: 'secret' };
    it('reads the Alpaca key, secret and feed, with the public stream URL of the feed', () => {
      expect(loadConfig(alpaca).alpaca).to.deep.equal({
        keyId: 'PKKEY',
        secretKey: 'secret',
        feed: 'iex',
        streamUrl: 'wss://stream.data.alpaca.markets/v2/iex',
      });
      expect(loadConfig({ ...alpaca, ALPACA_FEED: 'sip' }).alpaca?.streamUrl).to.equal(
        'wss://stream.data.alpaca.markets/v2/sip',
      );
      expect(loadConfig({ ...alpaca, ALPACA_STREAM_URL: 'ws://127.0.0.1:9000' }).alpaca?.streamUrl).to.equal(
        'ws://127.0.0.1:9000',
      );
    });
    it('refuses an Alpaca source without its key or secret, naming the variable and never the other value', () => {
      expect(refusal({ TICK_SOURCE: 'alpaca', ALPACA_SECRET_KEY: 'secret' })).to.deep.include({
        variable: 'ALPACA_KEY_ID',
        message: 'ALPACA_KEY_ID must be set when TICK_SOURCE=alpaca',
      });
      expect(refusal({ TICK_SOURCE: 'alpaca', ALPACA_KEY_ID: 'PKKEY' }).variable).to.equal('ALPACA_SECRET_KEY');
      expect(refusal({ ...alpaca, ALPACA_FEED: 'otc' }).variable).to.equal('ALPACA_FEED');
      expect(refusal({ ...alpaca, ALPACA_STREAM_URL: 'https://example.com' }).variable).to.equal('ALPACA_STREAM_URL');
      const spaced = refusal({ ...alpaca, ALPACA_SECRET_KEY: 'se cret' });
      expect(spaced.variable).to.equal('ALPACA_SECRET_KEY');
      expect(spaced.message).to.not.include('se cret');
    });
    it('reads the Finnhub token and stream URL, and refuses a Finnhub source without a token', () => {
      expect(loadConfig({ TICK_SOURCE: 'finnhub', FINNHUB_TOKEN: 'tok' }).finnhub).to.deep.equal({
        token: 'tok',
        streamUrl: 'wss://ws.finnhub.io',
      });
      expect(refusal({ TICK_SOURCE: 'finnhub' }).variable).to.equal('FINNHUB_TOKEN');
      expect(refusal({ TICK_SOURCE: 'finnhub', FINNHUB_TOKEN: 'tok', FINNHUB_STREAM_URL: 'x' }).variable).to.equal(
        'FINNHUB_STREAM_URL',
      );
    });
    it('ignores provider variables for another source', () => {
      const config = loadConfig({ ALPACA_KEY_ID: 'PKKEY', FINNHUB_TOKEN: 'tok' });
      expect([config.alpaca, config.finnhub]).to.deep.equal([null, null]);
    });
  });

  describe('MARKET_CLOCK', () => {
    it('defaults to the accelerated demo clock', () => expect(loadConfig({}).marketClock).to.equal('accelerated'));
    for (const ok of ['regular', 'accelerated', 'accelerated:2', 'accelerated:0.5']) {
      it(`accepts ${ok}`, () => expect(loadConfig({ MARKET_CLOCK: ok }).marketClock).to.equal(ok));
    }
    for (const bad of ['fast', 'accelerated:', 'accelerated:0', 'accelerated:-1']) {
      it(`refuses ${JSON.stringify(bad)}`, () => {
        expect(() => loadConfig({ MARKET_CLOCK: bad }))
          .to.throw(ConfigError, /MARKET_CLOCK must be regular/)
          .with.property('variable', 'MARKET_CLOCK');
      });
    }
  });

  describe('TICK_FILE', () => {
    it('is unset by default', () => expect(loadConfig({}).replayFile).to.equal(null));
    it('resolves the file against the working directory', () => {
      expect(loadConfig({ TICK_SOURCE: 'replay', TICK_FILE: 'ticks.csv' }).replayFile).to.equal(
        path.resolve('ticks.csv'),
      );
    });
    it('is required by the replay source', () => {
      expect(() => loadConfig({ TICK_SOURCE: 'replay' }))
        .to.throw(ConfigError, /TICK_FILE must be/)
        .with.property('variable', 'TICK_FILE');
    });
  });

  describe('ENGINE_NAME', () => {
    it('is unset by default and accepts lower-case letters and digits', () => {
      expect(loadConfig({}).engineName).to.equal(null);
      expect(loadConfig({ ENGINE_NAME: 'engine2' }).engineName).to.equal('engine2');
    });
    it('refuses other characters, naming the variable', () => {
      const err = refusal({ ENGINE_NAME: 'Engine-2' });
      expect(err.variable).to.equal('ENGINE_NAME');
      expect(err.message).to.equal('ENGINE_NAME must be 1 to 32 lower-case letters or digits, got "Engine-2"');
    });
  });

  describe('PUBLIC_ORIGIN', () => {
    it('is unset by default and keeps the origin of an http or https URL', () => {
      expect(loadConfig({}).publicOrigin).to.equal(null);
      expect(loadConfig({ PUBLIC_ORIGIN: 'https://Stocks.example.com' }).publicOrigin).to.equal(
        'https://stocks.example.com',
      );
      expect(loadConfig({ PUBLIC_ORIGIN: 'http://localhost:3000/' }).publicOrigin).to.equal('http://localhost:3000');
    });
    for (const bad of [
      'stocks.example.com',
      'ftp://stocks.example.com',
      'https://stocks.example.com/app',
      'https://a@b.c',
    ]) {
      it(`refuses ${JSON.stringify(bad)}, naming the variable`, () => {
        const err = refusal({ PUBLIC_ORIGIN: bad });
        expect(err.variable).to.equal('PUBLIC_ORIGIN');
        expect(err.message).to.match(/^PUBLIC_ORIGIN must be an origin/);
      });
    }
  });

  describe('TRUST_PROXY', () => {
    it('is off by default and reads true or false', () => {
      expect(loadConfig({}).trustProxy).to.equal(false);
      expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).to.equal(true);
      expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).to.equal(false);
    });
    it('refuses other values, naming the variable', () => {
      const err = refusal({ TRUST_PROXY: 'yes' });
      expect(err.variable).to.equal('TRUST_PROXY');
      expect(err.message).to.equal('TRUST_PROXY must be true or false, got "yes"');
    });
  });

  describe('registration and sign-in limits', () => {
    it('default to 10 registrations per address and 500 in all per hour, 5 free failures, 100 per address', () => {
      expect(loadConfig({}).authLimits).to.deep.equal({
        registrationsPerAddress: 10,
        registrationsPerHour: 500,
        signInFreeFailures: 5,
        signInFailuresPerAddress: 100,
      });
    });
    it('reads each from its variable', () => {
      const limits = loadConfig({
        REGISTRATIONS_PER_ADDRESS: '3',
        REGISTRATIONS_PER_HOUR: '40',
        SIGNIN_FREE_FAILURES: '2',
        SIGNIN_FAILURES_PER_ADDRESS: '9',
      }).authLimits;
      expect(limits).to.deep.equal({
        registrationsPerAddress: 3,
        registrationsPerHour: 40,
        signInFreeFailures: 2,
        signInFailuresPerAddress: 9,
      });
    });
    for (const name of [
      'REGISTRATIONS_PER_ADDRESS',
      'REGISTRATIONS_PER_HOUR',
      'SIGNIN_FREE_FAILURES',
      'SIGNIN_FAILURES_PER_ADDRESS',
    ]) {
      it(`refuses 0 and words for ${name}, naming it`, () => {
        for (const bad of ['0', 'many']) {
          const err = refusal({ [name]: bad });
          expect(err.variable).to.equal(name);
          expect(err.message).to.match(new RegExp(`^${name} must be an integer 1-`));
        }
      });
    }
  });

  describe('CHAIN_KEY', () => {
    it('is unset by default and accepts a secret of 32 characters or more', () => {
      expect(loadConfig({}).chainKey).to.equal(null);
      expect(loadConfig({ CHAIN_KEY: 'k'.repeat(32) }).chainKey).to.equal('k'.repeat(32));
    });
    it('refuses a shorter secret without echoing it', () => {
      const err = refusal({ CHAIN_KEY: 'too-short-secret' });
      expect(err.variable).to.equal('CHAIN_KEY');
      expect(err.message).to.equal('CHAIN_KEY must be at least 32 characters, got 16');
    });
  });

  describe('FEED_TOKEN', () => {
    it('accepts a token of 16 characters or more', () => {
      expect(loadConfig({ FEED_TOKEN: '0123456789abcdef' }).feedToken).to.equal('0123456789abcdef');
    });
    it('refuses a shorter token without echoing it', () => {
      const err = refusal({ FEED_TOKEN: 'short-secret' });
      expect(err.variable).to.equal('FEED_TOKEN');
      expect(err.message).to.equal('FEED_TOKEN must be at least 16 characters, got 12');
      expect(err.message).not.to.contain('short-secret');
    });
  });

  describe('MARKET_SEED', () => {
    it('accepts integers, negative ones included', () => {
      expect(loadConfig({ MARKET_SEED: '7' }).marketSeed).to.equal(7);
      expect(loadConfig({ MARKET_SEED: '-12' }).marketSeed).to.equal(-12);
    });
    for (const bad of ['seven', '1.5', '99999999999999999999']) {
      it(`refuses ${JSON.stringify(bad)}`, () => {
        expect(refusal({ MARKET_SEED: bad }).message).to.equal(
          `MARKET_SEED must be an integer, got ${JSON.stringify(bad)}`,
        );
      });
    }
  });

  describe('MARKET_AS_OF', () => {
    it('is unset by default (the wall clock) and accepts a calendar date', () => {
      expect(loadConfig({}).marketAsOf).to.equal(null);
      expect(loadConfig({ MARKET_AS_OF: '2025-03-14' }).marketAsOf).to.equal('2025-03-14');
    });
    for (const bad of ['2025-02-30', '14/03/2025', 'today']) {
      it(`refuses ${JSON.stringify(bad)}`, () => {
        expect(refusal({ MARKET_AS_OF: bad }).message).to.equal(
          `MARKET_AS_OF must be a YYYY-MM-DD date, got ${JSON.stringify(bad)}`,
        );
      });
    }
  });

  describe('ALPACA_DATA_URL and the bars import settings', () => {
    it('defaults to Alpaca and takes an http(s) URL', () => {
      expect(loadConfig({}).alpacaDataUrl).to.equal('https://data.alpaca.markets');
      expect(loadConfig({ ALPACA_DATA_URL: 'http://127.0.0.1:9' }).alpacaDataUrl).to.equal('http://127.0.0.1:9');
      expect(refusal({ ALPACA_DATA_URL: 'ftp://x' }).message).to.equal(
        'ALPACA_DATA_URL must be a URL starting with http://, https://, got "ftp://x"',
      );
    });
    it('needs both keys for the import, whatever the tick source', () => {
      expect(loadAlpacaDataConfig({ ALPACA_KEY_ID: 'k', ALPACA_SECRET_KEY: 's' })).to.deep.equal({
        keyId: 'k',
        secretKey: 's',
        feed: 'iex',
        baseUrl: 'https://data.alpaca.markets',
      });
      expect(() => loadAlpacaDataConfig({ ALPACA_KEY_ID: 'k' })).to.throw(
        ConfigError,
        'ALPACA_SECRET_KEY must be set to import bars from Alpaca',
      );
    });
  });

  describe('LOG_LEVEL', () => {
    for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const) {
      it(`accepts ${level}`, () => expect(loadConfig({ LOG_LEVEL: level }).logLevel).to.equal(level));
    }
    it('refuses other levels, naming the allowed ones', () => {
      expect(refusal({ LOG_LEVEL: 'verbose' }).message).to.equal(
        'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"',
      );
    });
  });
});
