import { expect } from 'chai';
import type { SessionStore } from './port.ts';
import { tokenHash } from './token.ts';

/** The behaviour every SessionStore adapter must have (on the real clock). */
export function sessionStoreContract(
  name: string,
  open: () => Promise<{ store: SessionStore; close(): Promise<void> }>,
): void {
  describe(`SessionStore contract (${name})`, function () {
    let subject: { store: SessionStore; close(): Promise<void> };

    beforeEach(async function () {
      subject = await open();
    });

    afterEach(async function () {
      await subject.close();
    });

    it('finds the session of a token it created, with user and roles', async function () {
      const token = await subject.store.create('ada', ['user', 'auditor'], 60_000);
      const session = await subject.store.get(token);
      expect(session?.userId).to.equal('ada');
      expect(session?.roles).to.deep.equal(['user', 'auditor']);
    });

    it('answers null for an unknown token', async function () {
      expect(await subject.store.get('no-such-token')).to.equal(null);
    });

    it('gives each session its own token', async function () {
      const a = await subject.store.create('ada', ['user'], 60_000);
      const b = await subject.store.create('ada', ['user'], 60_000);
      expect(a).to.not.equal(b);
      expect(a.length).to.be.at.least(40);
    });

    it('forgets a deleted session', async function () {
      const token = await subject.store.create('ada', ['user'], 60_000);
      await subject.store.delete(token);
      expect(await subject.store.get(token)).to.equal(null);
    });

    it("ends a user's other sessions, answering the hashes of those it ended", async function () {
      const kept = await subject.store.create('ada', ['user'], 60_000);
      const other = await subject.store.create('ada', ['user'], 60_000);
      const third = await subject.store.create('ada', ['user'], 60_000);
      const someoneElse = await subject.store.create('bob', ['user'], 60_000);
      const ended = await subject.store.endOthers('ada', kept);
      expect([...ended].sort()).to.deep.equal([tokenHash(other), tokenHash(third)].sort());
      expect(await subject.store.get(other)).to.equal(null);
      expect(await subject.store.get(third)).to.equal(null);
      expect((await subject.store.get(kept))?.userId).to.equal('ada');
      expect((await subject.store.get(someoneElse))?.userId).to.equal('bob');
      expect(await subject.store.endOthers('ada', kept)).to.deep.equal([]);
      expect(await subject.store.endOthers('ada', null)).to.deep.equal([tokenHash(kept)]);
      expect(await subject.store.get(kept)).to.equal(null);
    });

    it('answers null once the session has expired', async function () {
      const token = await subject.store.create('ada', ['user'], 150);
      expect(await subject.store.get(token)).to.not.equal(null);
      await new Promise((r) => setTimeout(r, 200));
      expect(await subject.store.get(token)).to.equal(null);
    });
  });
}
