import { expect } from 'chai';
import { progressBar, renderProgress } from './progress.ts';

function recorder(isTTY: boolean) {
  const chunks: string[] = [];
  return { stream: { isTTY, write: (text: string) => chunks.push(text) }, chunks };
}

describe('progressBar', () => {
  it('renders the label, the bar, the percentage and the counts', () => {
    expect(renderProgress('build', 104, 230, 10)).to.equal('build [#####-----] 45% 104/230');
    expect(renderProgress('build', 0, 0, 4)).to.equal('build [####] 100% 0/0');
  });

  it('redraws one line in place on a terminal, at most once per interval, and ends the line', () => {
    const { stream, chunks } = recorder(true);
    let clock = 0;
    const bar = progressBar('bars', { stream, width: 10, redrawMs: 100, now: () => clock });
    bar.update(1, 4);
    clock = 50;
    bar.update(2, 4);
    clock = 150;
    bar.update(3, 4);
    bar.update(4, 4);
    bar.finish();
    expect(chunks).to.deep.equal([
      '\rbars [###-------] 25% 1/4',
      '\rbars [########--] 75% 3/4',
      '\rbars [##########] 100% 4/4',
      '\rbars [##########] 100% 4/4',
      '\n',
    ]);
  });

  it('writes plain lines at each tenth when the output is not a terminal', () => {
    const { stream, chunks } = recorder(false);
    const bar = progressBar('facts', { stream, width: 10 });
    for (let i = 0; i <= 100; i++) bar.update(i, 100);
    bar.finish();
    bar.finish();
    expect(chunks).to.have.length(11);
    expect(chunks.every((c) => c.endsWith('\n') && !c.includes('\r'))).to.equal(true);
    expect(chunks[0]).to.equal('facts [----------] 0% 0/100\n');
    expect(chunks.at(-1)).to.equal('facts [##########] 100% 100/100\n');
  });
});
