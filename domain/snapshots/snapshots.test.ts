import { expect } from 'chai';
import { fold } from '../decider.ts';
import { STOCKPULSE_NAMESPACE, uuidV5 } from '../ids.ts';
import { given } from '../testing/givenWhenThen.ts';
import {
  SNAPSHOTS_LIMIT,
  SNAPSHOT_MAX_BYTES,
  SNAPSHOT_TITLE_MAX_LENGTH,
  snapshotsDecider,
  type SaveSnapshot,
  type SnapshotsCommand,
  type SnapshotsEvent,
} from './snapshots.ts';

const AT = '2025-03-10T15:00:00.000Z';
const id = (n: number): string => uuidV5(`snapshot-${n}`, STOCKPULSE_NAMESPACE);
const SHA_A = 'a'.repeat(64);
const SHA_B = '0123456789abcdef'.repeat(4);

const save = (snapshotId: string, overrides: Partial<SaveSnapshot['data']> = {}): SnapshotsCommand => ({
  type: 'SaveSnapshot',
  data: { snapshotId, symbol: 'NVDA', title: 'NVDA 3M', bytes: 1000, sha256: SHA_A, at: AT, ...overrides },
});
const del = (snapshotId: string): SnapshotsCommand => ({ type: 'DeleteSnapshot', data: { snapshotId } });
const saved = (
  snapshotId: string,
  overrides: Partial<Extract<SnapshotsEvent, { type: 'SnapshotSaved' }>['data']> = {},
) =>
  ({
    type: 'SnapshotSaved',
    data: { snapshotId, symbol: 'NVDA', title: 'NVDA 3M', bytes: 1000, sha256: SHA_A, createdt: AT, ...overrides },
  }) as SnapshotsEvent;
const deleted = (snapshotId: string, sha256 = SHA_A): SnapshotsEvent => ({
  type: 'SnapshotDeleted',
  data: { snapshotId, sha256 },
});

describe('snapshots decider', () => {
  describe('saving a snapshot', () => {
    it('saves a snapshot with its title trimmed and its symbol upper-cased', () => {
      given(snapshotsDecider)
        .when(save(id(1), { title: '  Chips  ', symbol: 'nvda' }))
        .then([saved(id(1), { title: 'Chips' })]);
    });

    it('saves a snapshot without a symbol', () => {
      given(snapshotsDecider)
        .when(save(id(1), { symbol: null }))
        .then([saved(id(1), { symbol: null })]);
    });

    it('lets two snapshots share one image', () => {
      given(snapshotsDecider, [saved(id(1))])
        .when(save(id(2)))
        .then([saved(id(2))]);
    });

    for (const [what, overrides, code] of [
      ['an empty title', { title: '  ' }, 'invalid_title'],
      ['a title that is too long', { title: 't'.repeat(SNAPSHOT_TITLE_MAX_LENGTH + 1) }, 'invalid_title'],
      ['a bad symbol', { symbol: 'NOT A SYMBOL' }, 'invalid_symbol'],
      ['a digest that is not a SHA-256', { sha256: 'abc' }, 'invalid_sha256'],
      ['an upper-case digest', { sha256: SHA_A.toUpperCase() }, 'invalid_sha256'],
      ['an empty image', { bytes: 0 }, 'invalid_bytes'],
      ['an image that is too large', { bytes: SNAPSHOT_MAX_BYTES + 1 }, 'invalid_bytes'],
      ['a fractional size', { bytes: 10.5 }, 'invalid_bytes'],
      ['an id that is not a snapshot id', { snapshotId: 'x' }, 'invalid_id'],
    ] as const) {
      it(`refuses ${what}`, () => {
        given(snapshotsDecider)
          .when(save(id(1), overrides))
          .thenError(code);
      });
    }

    it(`accepts a title of ${SNAPSHOT_TITLE_MAX_LENGTH} characters and an image of exactly the largest size`, () => {
      const title = 't'.repeat(SNAPSHOT_TITLE_MAX_LENGTH);
      given(snapshotsDecider)
        .when(save(id(1), { title, bytes: SNAPSHOT_MAX_BYTES }))
        .then([saved(id(1), { title, bytes: SNAPSHOT_MAX_BYTES })]);
    });

    it('refuses an id already used', () => {
      given(snapshotsDecider, [saved(id(1))])
        .when(save(id(1), { sha256: SHA_B }))
        .thenError('taken');
    });

    it(`keeps at most ${SNAPSHOTS_LIMIT} snapshots, with room again after a deletion`, () => {
      const full = Array.from({ length: SNAPSHOTS_LIMIT }, (_, i) => saved(id(100 + i)));
      given(snapshotsDecider, full.slice(1))
        .when(save(id(1)))
        .then([saved(id(1))]);
      given(snapshotsDecider, full)
        .when(save(id(1)))
        .thenError('limit');
      given(snapshotsDecider, [...full, deleted(id(100))])
        .when(save(id(1)))
        .then([saved(id(1))]);
    });
  });

  describe('deleting a snapshot', () => {
    it('deletes a snapshot, naming its image', () => {
      given(snapshotsDecider, [saved(id(1), { sha256: SHA_B })])
        .when(del(id(1)))
        .then([deleted(id(1), SHA_B)]);
    });

    it('refuses a snapshot the user does not have, or no longer has', () => {
      given(snapshotsDecider)
        .when(del(id(1)))
        .thenError('not_found');
      given(snapshotsDecider, [saved(id(1)), deleted(id(1))])
        .when(del(id(1)))
        .thenError('not_found');
    });
  });

  it('refuses a command type it does not know', () => {
    const unknown = { type: 'RenameSnapshot', data: {} } as unknown as SnapshotsCommand;
    given(snapshotsDecider).when(unknown).thenError('unknown_command');
  });

  describe('evolve', () => {
    it('folds the snapshots in the order they were saved', () => {
      const state = fold(snapshotsDecider, [saved(id(1)), saved(id(2), { sha256: SHA_B }), deleted(id(1))]);
      expect(state).to.deep.equal({
        snapshots: [{ id: id(2), symbol: 'NVDA', title: 'NVDA 3M', createdt: AT, bytes: 1000, sha256: SHA_B }],
      });
    });

    it('is total: a repeated save and an absent deletion leave the state as it is', () => {
      const one = fold(snapshotsDecider, [saved(id(1))]);
      expect(snapshotsDecider.evolve(one, saved(id(1), { title: 'other' }))).to.deep.equal(one);
      expect(snapshotsDecider.evolve(one, deleted(id(2)))).to.deep.equal(one);
    });
  });
});
