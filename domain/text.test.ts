import { expect } from 'chai';
import { z } from 'zod';
import { PLAIN_TEXT_MESSAGE, isPlainText, plainText } from './text.ts';

describe('plain text', function () {
  it('accepts printable text, accents and emoji (surrogate pairs) included', function () {
    for (const text of ['Tech leaders', 'Énergie – 2026', 'Rockets 🚀', '', 'שוק \u200fההון', 'سهم\u200e AAPL'])
      expect(isPlainText(text), text).to.equal(true);
  });

  for (const [what, text] of [
    ['NUL', 'a\u0000b'],
    ['ESC', 'red \u001b[31m'],
    ['CR', 'a\rb'],
    ['LF', 'a\nb'],
    ['tab', 'a\tb'],
    ['DEL', 'a\u007f'],
    ['a C1 control', 'a\u009b'],
    ['a lone high surrogate', 'a\ud83d'],
    ['a lone low surrogate', '\ude80b'],
    ['swapped surrogates', '\ude80\ud83d'],
    ['a right-to-left override', 'AAPL\u202eetirovaf'],
    ['a left-to-right embedding', '\u202aname\u202c'],
    ['a first-strong isolate', 'a\u2068b\u2069'],
  ] as const) {
    it(`refuses ${what}`, function () {
      expect(isPlainText(text)).to.equal(false);
      const result = z.object({ name: plainText() }).safeParse({ name: text });
      expect(result.success).to.equal(false);
      expect(result.error?.issues[0]).to.deep.include({ path: ['name'], message: PLAIN_TEXT_MESSAGE });
    });
  }
});
