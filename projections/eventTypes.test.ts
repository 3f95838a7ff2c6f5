import { expect } from 'chai';
import { USER_CONCERNS, USER_EVENT_TYPES } from '../domain/concerns.ts';
import { ALL_PROJECTIONS } from './index.ts';

describe('event types', function () {
  it('names each type once, in one concern', function () {
    const all = USER_CONCERNS.flatMap((c) => c.eventTypes);
    expect(all.length).to.be.greaterThan(50);
    expect(new Set(all).size).to.equal(all.length);
    expect(USER_EVENT_TYPES.size).to.equal(all.length);
  });

  it('knows every type a projection reads (the audit filter refuses the others)', function () {
    const unknown = ALL_PROJECTIONS.flatMap((p) =>
      p.handles.filter((type) => !USER_EVENT_TYPES.has(type)).map((type) => `${p.name}: ${type}`),
    );
    expect(unknown).to.deep.equal([]);
  });
});
