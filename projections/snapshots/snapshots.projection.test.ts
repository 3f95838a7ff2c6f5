import { expect } from 'chai';
import { STOCKPULSE_NAMESPACE, uuidV5 } from '../../domain/ids.ts';
import { applyToDocuments, project, recorded } from '../testing/inMemory.ts';
import { snapshotImagesProjection, snapshotsProjection } from './snapshots.projection.ts';

const P1 = uuidV5('p1', STOCKPULSE_NAMESPACE);
const P2 = uuidV5('p2', STOCKPULSE_NAMESPACE);
const AT = '2025-03-10T15:00:00.000Z';
const SHA_A = 'a'.repeat(64);
const SHA_B = 'b'.repeat(64);
const event = (userId: string, type: string, data: unknown) => recorded(userId, type, data, 'snapshots');
const saved = (userId: string, snapshotId: string, sha256: string) =>
  event(userId, 'SnapshotSaved', { snapshotId, symbol: null, title: 'T', bytes: 10, sha256, createdt: AT });
const deleted = (userId: string, snapshotId: string, sha256: string) =>
  event(userId, 'SnapshotDeleted', { snapshotId, sha256 });

describe('snapshots projections', () => {
  const events = [
    saved('ada', P1, SHA_A),
    saved('ada', P2, SHA_B),
    saved('bob', P1, SHA_A),
    deleted('ada', P1, SHA_A),
    deleted('ada', P2, SHA_B),
  ];

  it("holds each user's snapshots", async () => {
    const docs = await project(snapshotsProjection, events);
    expect(docs.get('ada')).to.deep.equal({ snapshots: [] });
    expect(docs.get('bob')).to.deep.equal({
      snapshots: [{ id: P1, symbol: null, title: 'T', createdt: AT, bytes: 10, sha256: SHA_A }],
    });
  });

  it('counts the snapshots of every user that refer to each image, and drops an image no one refers to', async () => {
    const docs = await project(snapshotImagesProjection, events);
    expect([...docs]).to.deep.equal([[SHA_A, { refs: 1 }]]);
    const after = await project(snapshotImagesProjection, [...events, deleted('bob', P1, SHA_A)]);
    expect(after.size).to.equal(0);
  });

  it('leaves the documents unchanged when the same events come again', async () => {
    for (const projection of [snapshotsProjection, snapshotImagesProjection] as const) {
      const once = await applyToDocuments<unknown>(projection, events);
      const before = structuredClone([...once]);
      await applyToDocuments<unknown>(projection, events, once);
      expect([...once]).to.deep.equal(before);
    }
  });
});
