import { expect } from 'chai';
import type { EngineTrigger } from './alerts/alertEngine.ts';
import { TriggerReports } from './triggerReports.ts';

/** A trigger of the event `id` (only its id matters here). */
function trigger(id: string): EngineTrigger {
  return { userId: 'u1', eventId: id, event: {} as EngineTrigger['event'], position: undefined };
}

describe('trigger reports', function () {
  it('reports each trigger once to every listener, and none after a listener leaves', function () {
    const errors: unknown[] = [];
    const reports = new TriggerReports({ remembered: 10, held: 10 }, (e) => errors.push(e));
    const a: string[] = [];
    const b: string[] = [];
    const stopA = reports.listen((t) => a.push(t.eventId));
    reports.listen((t) => {
      b.push(t.eventId);
      if (t.eventId === 'e2') throw new Error('listener b failed');
    });
    reports.report(trigger('e1'));
    reports.report(trigger('e1'));
    reports.report(trigger('e2'));
    stopA();
    reports.report(trigger('e3'));
    expect(a).to.deep.equal(['e1', 'e2']);
    expect(b).to.deep.equal(['e1', 'e2', 'e3']);
    expect(errors.map((e) => (e as Error).message)).to.deep.equal(['listener b failed']);
  });

  it('holds the triggers reported while nothing listens for the first listener, the newest when many', function () {
    const reports = new TriggerReports({ remembered: 10, held: 2 }, () => undefined);
    reports.report(trigger('e1'));
    reports.report(trigger('e2'));
    reports.report(trigger('e3'));
    reports.report(trigger('e3'));
    const first: string[] = [];
    const second: string[] = [];
    reports.listen((t) => first.push(t.eventId));
    reports.listen((t) => second.push(t.eventId));
    expect(first, 'a restarted engine fired before its relay listened').to.deep.equal(['e2', 'e3']);
    expect(second).to.deep.equal([]);
    reports.report(trigger('e4'));
    expect(first).to.deep.equal(['e2', 'e3', 'e4']);
    expect(second).to.deep.equal(['e4']);
  });

  it('forgets the oldest event ids past its memory', function () {
    const reports = new TriggerReports({ remembered: 2, held: 10 }, () => undefined);
    const heard: string[] = [];
    reports.listen((t) => heard.push(t.eventId));
    for (const id of ['e1', 'e2', 'e3', 'e1', 'e3']) reports.report(trigger(id));
    expect(heard).to.deep.equal(['e1', 'e2', 'e3', 'e1']);
  });
});
