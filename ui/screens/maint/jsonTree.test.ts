import { expect } from 'chai';
import * as React from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { JSON_TREE_PAGE, JsonTree } from './JsonTree.tsx';

const render = (value: unknown): string =>
  renderToStaticMarkup(React.createElement(JsonTree, { value, label: 'state' }));

describe('the audit state tree', () => {
  // The mocha run compiles .tsx with the classic JSX transform, which calls the global React.
  before(() => {
    (globalThis as { React?: typeof React }).React = React;
  });

  it('draws the first two levels open, and none of the children of a folded node', () => {
    const html = render({ lots: { AAPL: [{ id: 'lot-1', quantity: 5, deep: { hidden: 'not drawn' } }] } });
    expect(html).to.contain('lots: ');
    expect(html).to.contain('AAPL: ');
    // AAPL's list (the third level) is folded: its count shows, its lot is not drawn.
    expect(html).to.contain('[ 1 items ]');
    expect(html).to.not.contain('lot-1');
    expect(html).to.not.contain('not drawn');
  });

  it(`draws a long list ${JSON_TREE_PAGE} items at a time, saying how many more there are`, () => {
    const html = render({ transactions: Array.from({ length: 250 }, (_, i) => `t${i}`) });
    expect(html).to.contain('[ 250 items ]');
    expect(html).to.contain('&quot;t99&quot;');
    expect(html).to.not.contain('t100');
    expect(html).to.contain('Show 100 more (of 250)');
  });

  it('draws a short list whole, without a button', () => {
    const html = render({ symbols: ['MSFT', 'AAPL'] });
    expect(html).to.contain('&quot;MSFT&quot;');
    expect(html).to.contain('&quot;AAPL&quot;');
    expect(html).to.not.contain('Show');
  });
});
