import { expect } from 'chai';
import { createActor, fromPromise, waitFor } from 'xstate';
import type { ChannelAnswer } from '../../domain/contract/channels.ts';
import { channelListMachine } from './channelList.machine.ts';

const DESK: ChannelAnswer = {
  id: '00000000-0000-4000-8000-000000000001',
  type: 'webhook',
  name: 'Desk',
  url: 'https://example.com/hook',
  confirmed: true,
  createdt: '2026-11-02T15:00:00.000Z',
};

function list(answers: (readonly ChannelAnswer[] | Error)[]) {
  let loads = 0;
  const actor = createActor(
    channelListMachine.provide({
      actors: {
        loadChannels: fromPromise<readonly ChannelAnswer[]>(async () => {
          const answer = answers[Math.min(loads++, answers.length - 1)]!;
          if (answer instanceof Error) throw answer;
          return Promise.resolve(answer);
        }),
      },
    }),
  ).start();
  return { actor, loads: () => loads };
}

describe('channel list machine', () => {
  it('loads the channels once', async () => {
    const { actor, loads } = list([[DESK]]);
    expect(actor.getSnapshot().matches('loading')).to.equal(true);
    const ready = await waitFor(actor, (s) => s.matches('ready'));
    expect(ready.context.channels).to.deep.equal([DESK]);
    expect(loads()).to.equal(1);
  });

  it('says why a load failed, and loads again on retry', async () => {
    const { actor, loads } = list([new Error('The server cannot be reached: check the connection and retry'), [DESK]]);
    const failed = await waitFor(actor, (s) => s.matches('failed'));
    expect(failed.context.error).to.equal('The server cannot be reached: check the connection and retry');
    actor.send({ type: 'user.retry' });
    const ready = await waitFor(actor, (s) => s.matches('ready'));
    expect(ready.context).to.deep.equal({ channels: [DESK], error: null });
    expect(loads()).to.equal(2);
  });
});
