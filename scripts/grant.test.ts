import { expect } from 'chai';
import { startTestGateway, type TestGateway } from '../gateway/testing/harness.ts';
import { openSqliteEventStore } from '../platform/eventstore/sqlite.ts';
import { join } from 'node:path';
import { runGrant } from './grant.ts';
import type { ScriptIo } from './scriptIo.ts';
import { runScript } from './testing/runScript.ts';

function capture(): ScriptIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(l), err: (l) => errors.push(l) };
}

describe('npm run grant', function () {
  let gw: TestGateway;
  let username: string;
  let dataDir: string;

  beforeEach(async function () {
    gw = await startTestGateway();
    username = (await gw.user('op')).username;
    dataDir = gw.dataDir;
    await gw.close({ keepData: true });
  });
  afterEach(async function () {
    await gw.close();
  });

  async function accountEvents(name: string) {
    const store = openSqliteEventStore({ file: join(dataDir, 'events.db') });
    try {
      return await store.readStream(`account-${name}`).catch(() => []);
    } finally {
      await store.close();
    }
  }

  it('records RoleGranted through the accounts decider, granted by script', async function () {
    const io = capture();
    expect(await runGrant([username, 'auditor'], { DATA_DIR: dataDir }, io)).to.equal(0);
    expect(io.lines[0]).to.match(
      new RegExp(
        `^granted auditor to ${username} \\(RoleGranted at \\d+/\\d+\\); ${username} signs in again to use it$`,
      ),
    );
    const last = (await accountEvents(username)).at(-1)!;
    expect(last.type).to.equal('RoleGranted');
    expect(last.data).to.deep.equal({ role: 'auditor', grantedBy: 'script' });
    expect(last.metadata).to.include({ userId: username, actor: 'script' });
    expect(last.metadata.hash).to.be.a('string');
  });

  it('records nothing when the user already holds the role', async function () {
    await runGrant([username, 'auditor'], { DATA_DIR: dataDir }, capture());
    const before = (await accountEvents(username)).length;
    const io = capture();
    expect(await runGrant([username, 'auditor'], { DATA_DIR: dataDir }, io)).to.equal(0);
    expect(io.lines).to.deep.equal([`${username} already holds auditor; nothing recorded`]);
    expect((await accountEvents(username)).length).to.equal(before);
  });

  const refusals: [string, string[], RegExp][] = [
    ['an unknown user', ['nosuchuser', 'auditor'], /^grant refused: no user "nosuchuser"$/],
    ['an unknown role', ['USER', 'admin'], /^grant refused: unknown role "admin"; roles are user, auditor, operator$/],
    ['a missing role', ['USER'], /^usage: npm run grant -- <username> <role>/],
    ['extra arguments', ['USER', 'auditor', 'more'], /^usage: /],
  ];
  for (const [what, args, message] of refusals) {
    it(`refuses ${what} with exit code 2 and a clear message, recording nothing`, async function () {
      const before = (await accountEvents(username)).length;
      const io = capture();
      const code = await runGrant(
        args.map((a) => (a === 'USER' ? username : a)),
        { DATA_DIR: dataDir },
        io,
      );
      expect(code).to.equal(2);
      expect(io.errors[0]).to.match(message);
      expect(io.lines).to.deep.equal([]);
      expect((await accountEvents(username)).length).to.equal(before);
      expect(await accountEvents('nosuchuser')).to.deep.equal([]);
    });
  }

  it('runs from the command line, and the user gets the role at the next sign-in', async function () {
    const run = await runScript('grant', [username, 'auditor'], { DATA_DIR: dataDir });
    expect(run.code).to.equal(0, run.stderr);
    expect(run.stdout).to.contain(`granted auditor to ${username}`);
    expect((await runScript('grant', ['nosuchuser', 'auditor'], { DATA_DIR: dataDir })).code).to.equal(2);

    gw = await startTestGateway({ dataDir });
    const client = gw.client();
    expect((await client.post('/api/login', { username, password: 'correct horse' })).status).to.equal(200);
    expect((await client.get('/api/audit/users')).status).to.equal(200);
  });
});
