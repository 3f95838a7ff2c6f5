import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../platform/config.ts';
import type { EventStore } from '../../platform/eventstore/port.ts';
import { openSqliteEventStore } from '../../platform/eventstore/sqlite.ts';
import { setUpDelivery } from './setup.ts';

describe('delivery setup', function () {
  let dir: string;
  let events: EventStore;
  let warnings: unknown[][];
  const logger = { warn: (...args: unknown[]) => void warnings.push(args) };

  beforeEach(function () {
    dir = mkdtempSync(join(tmpdir(), 'sp-setup-'));
    events = openSqliteEventStore({ file: join(dir, 'events.db') });
    warnings = [];
  });
  afterEach(async function () {
    await events.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('links to the port the server listens on when PUBLIC_ORIGIN is unset, and warns once', function () {
    const setup = setUpDelivery(loadConfig({ PORT: '0', DATA_DIR: dir }), events, logger);
    setup.listeningOn(38127);
    expect(setup.publicOrigin()).to.equal('http://localhost:38127');
    expect(setup.publicOrigin()).to.equal('http://localhost:38127');
    expect(warnings).to.have.length(1);
    expect(String(warnings[0]![1])).to.contain('PUBLIC_ORIGIN is unset');
    setup.close();
  });

  it('uses a fixed PORT before the server reports it', function () {
    const setup = setUpDelivery(loadConfig({ PORT: '4100', DATA_DIR: dir }), events, logger);
    expect(setup.publicOrigin()).to.equal('http://localhost:4100');
    setup.close();
  });

  it('keeps PUBLIC_ORIGIN whatever the port, without a warning', function () {
    const config = loadConfig({ PORT: '0', DATA_DIR: dir, PUBLIC_ORIGIN: 'https://stocks.example.com' });
    const setup = setUpDelivery(config, events, logger);
    setup.listeningOn(38127);
    expect(setup.publicOrigin()).to.equal('https://stocks.example.com');
    expect(warnings).to.deep.equal([]);
    setup.close();
  });
});
