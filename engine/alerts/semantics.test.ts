import { expect } from 'chai';
import { CHANNEL_OPS } from '../../domain/alerts/conditions.ts';
import { edgeOf, truthOf } from './semantics.ts';

describe('alert semantics: channels', () => {
  const values = [0, 5, 10, 15, 20];

  it('holds within a channel whose bounds are in order, bounds included', () => {
    expect(values.map((v) => truthOf('inside_channel', v, 5, 15))).to.deep.equal([false, true, true, true, false]);
    expect(values.map((v) => truthOf('outside_channel', v, 5, 15))).to.deep.equal([true, false, false, false, true]);
  });

  it('takes a channel whose bounds crossed as the range between them, for every channel operator', () => {
    // A series bound above the other (the 50-day SMA over a constant upper bound): the same channel either way.
    for (const op of CHANNEL_OPS) {
      for (const v of values) {
        expect(truthOf(op, v, 15, 5), `${op} at ${v}`).to.equal(truthOf(op, v, 5, 15));
        for (const pv of values) {
          expect(edgeOf(op, pv, 15, 5, v, 15, 5), `${op} from ${pv} to ${v}`).to.equal(edgeOf(op, pv, 5, 15, v, 5, 15));
        }
      }
    }
    expect(truthOf('inside_channel', 10, 15, 5)).to.equal(true);
    expect(edgeOf('entering_channel', 20, 15, 5, 10, 15, 5)).to.equal(true);
    expect(edgeOf('exiting_channel', 10, 5, 15, 0, 15, 5), 'the bounds swapped between the ticks').to.equal(true);
  });
});
