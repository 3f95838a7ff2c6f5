import { expect } from 'chai';
import { SECTORS, type CapClass, type UniverseEntry } from '../../domain/market/types.ts';
import {
  DEFAULT_SEARCH_LIMIT,
  UNIVERSE_DATE,
  UniverseError,
  loadUniverse,
  parseUniverse,
  searchUniverse,
  universeBySymbol,
} from './universe.ts';

const HEADER = 'symbol,name,sector,industry,shares,close';

/** A universe text made of the header and the given data lines. */
function csv(...rows: string[]): string {
  return [HEADER, ...rows].join('\n') + '\n';
}

function refusal(text: string): UniverseError {
  try {
    parseUniverse(text);
  } catch (err) {
    expect(err).to.be.instanceOf(UniverseError);
    return err as UniverseError;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be refused`);
}

function entry(symbol: string, name: string, marketcap: number, sector: UniverseEntry['sector'] = 'Industrials') {
  return parseUniverse(csv(`${symbol},${name},${sector},Machinery,${marketcap},1`))[0] as UniverseEntry;
}

describe('universe', () => {
  describe('the shipped file', () => {
    let universe: UniverseEntry[];
    before(() => {
      universe = loadUniverse();
    });

    const count = (keep: (e: UniverseEntry) => boolean) => universe.filter(keep).length;

    it('refers to the last trading day of 2024', () => expect(UNIVERSE_DATE).to.equal('2024-12-31'));
    it('holds at least 220 companies', () => expect(universe.length).to.be.at.least(220));
    for (const sector of SECTORS) {
      it(`holds at least 12 companies of ${sector}`, () => {
        expect(count((e) => e.sector === sector)).to.be.at.least(12);
      });
    }
    it('holds at least 35 mid caps and 25 small caps', () => {
      expect(count((e) => e.capclass === 'mid')).to.be.at.least(35);
      expect(count((e) => e.capclass === 'small')).to.be.at.least(25);
    });
    it('puts well-known companies in their class', () => {
      const bySymbol = universeBySymbol();
      const expected: Record<string, CapClass> = {
        AAPL: 'large',
        MSFT: 'large',
        NVDA: 'large',
        'BRK.B': 'large',
        JPM: 'large',
        XOM: 'large',
        JNJ: 'large',
        NYT: 'mid',
        WING: 'mid',
        DENN: 'small',
        YORW: 'small',
      };
      for (const [symbol, cap] of Object.entries(expected)) {
        expect(bySymbol.get(symbol)?.capclass, symbol).to.equal(cap);
      }
    });
    it('gives Apple a market cap in the trillions', () => {
      const apple = universeBySymbol().get('AAPL');
      expect(apple?.marketcap).to.be.within(3e12, 4.5e12);
      expect(apple?.sector).to.equal('Information Technology');
    });
    it('reads quoted industries with commas', () => {
      expect(universeBySymbol().get('XOM')?.industry).to.equal('Oil, Gas & Consumable Fuels');
    });
    it('hands out a new array of the same frozen entries on each call', () => {
      const again = loadUniverse();
      expect(again).to.not.equal(universe);
      expect(again).to.deep.equal(universe);
      expect(again[0]).to.equal(universe[0]);
      expect(Object.isFrozen(again[0])).to.equal(true);
    });
  });

  describe('parseUniverse', () => {
    it('derives market cap and cap class from shares and close', () => {
      const [big, mid, small] = parseUniverse(
        csv(
          'BIG,Big Co,Energy,Oil,1000000000,10.01',
          'MID,Mid Co,Energy,Oil,1000000000,10',
          'SML,Small Co,Energy,Oil,1999999,1000',
        ),
      );
      expect(big).to.include({ marketcap: 10_010_000_000, capclass: 'large' });
      expect(mid).to.include({ marketcap: 10_000_000_000, capclass: 'mid' });
      expect(small).to.include({ marketcap: 1_999_999_000, capclass: 'small' });
    });

    it('accepts quoted names with commas and doubled quotes, CRLF line ends and a byte-order mark', () => {
      const text = `\uFEFF${HEADER}\r\n"ABC","Abc, Inc. ""The Letters""",Financials,"Banks, Regional",100,"2.5"\r\n`;
      expect(parseUniverse(text)).to.deep.equal([
        {
          symbol: 'ABC',
          name: 'Abc, Inc. "The Letters"',
          sector: 'Financials',
          industry: 'Banks, Regional',
          shares: 100,
          close: 2.5,
          marketcap: 250,
          capclass: 'small',
        },
      ]);
    });

    it('skips blank lines and accepts a file without a final line break', () => {
      const entries = parseUniverse(`${HEADER}\n\nA,A Co,Utilities,Gas,1,1\n\nB,B Co,Utilities,Gas,1,1`);
      expect(entries.map((e) => e.symbol)).to.deep.equal(['A', 'B']);
    });

    it('accepts symbols with a dot or a dash', () => {
      const entries = parseUniverse(
        csv('BRK.B,Berkshire,Financials,Insurance,1,1', 'BF-B,Brown,Consumer Staples,Beverages,1,1'),
      );
      expect(entries.map((e) => e.symbol)).to.deep.equal(['BRK.B', 'BF-B']);
    });

    it('refuses shares that are not a positive number, naming the line', () => {
      const err = refusal(csv('A,A Co,Utilities,Gas,1,1', 'B,B Co,Utilities,Gas,abc,1'));
      expect(err.message).to.equal('line 3: shares must be a positive number, got "abc"');
      expect(err.line).to.equal(3);
      expect(err.field).to.equal('shares');
    });

    for (const bad of ['0', '-5', '1e9', '1,000', ' 10', '', '.5', 'NaN', 'Infinity']) {
      it(`refuses the close ${JSON.stringify(bad)}`, () => {
        const err = refusal(csv(`A,A Co,Utilities,Gas,1,"${bad}"`));
        expect(err.message).to.equal(`line 2: close must be a positive number, got ${JSON.stringify(bad)}`);
        expect(err.field).to.equal('close');
      });
    }

    it('refuses an unknown sector, naming the line', () => {
      const err = refusal(
        csv('A,A Co,Utilities,Gas,1,1', 'B,B Co,Utilities,Gas,1,1', 'C,C Co,Technology,Software,1,1'),
      );
      expect(err.message).to.equal('line 4: sector must be one of the 11 GICS sectors, got "Technology"');
      expect(err.field).to.equal('sector');
    });

    it('refuses a sector spelled in another case', () => {
      expect(refusal(csv('A,A Co,health care,Pharma,1,1')).message).to.match(/^line 2: sector /);
    });

    it('refuses a repeated symbol, naming both lines', () => {
      const err = refusal(csv('A,A Co,Utilities,Gas,1,1', 'B,B Co,Utilities,Gas,1,1', 'A,Other A,Energy,Oil,1,1'));
      expect(err.message).to.equal('line 4: symbol repeats line 2, got "A"');
      expect(err.field).to.equal('symbol');
    });

    for (const bad of ['aapl', 'AB CD', '.A', 'ABCDEFGHIJK', '', 'A/B']) {
      it(`refuses the symbol ${JSON.stringify(bad)}`, () => {
        const err = refusal(csv('A,A Co,Utilities,Gas,1,1', `"${bad}",Bad Co,Utilities,Gas,1,1`));
        expect(err.message).to.match(/^line 3: symbol must be 1 to 10 of A-Z, 0-9, '\.', '-'/);
        expect(err.message).to.contain(`got ${JSON.stringify(bad)}`);
        expect(err.field).to.equal('symbol');
      });
    }

    it('refuses a wrong header', () => {
      const err = refusal('symbol,name,sector,industry,close,shares\nA,A Co,Utilities,Gas,1,1\n');
      expect(err.message).to.equal(
        'line 1: the header must be "symbol,name,sector,industry,shares,close", got "symbol,name,sector,industry,close,shares"',
      );
      expect(err.line).to.equal(1);
    });

    it('refuses an empty text for want of a header', () => {
      expect(refusal('').message).to.equal('line 1: the header "symbol,name,sector,industry,shares,close" is missing');
    });

    it('refuses a record with too few or too many fields', () => {
      expect(refusal(csv('A,A Co,Utilities,Gas,1')).message).to.equal('line 2: expected 6 fields, got 5');
      expect(refusal(csv('A,A, Co,Utilities,Gas,1,1')).message).to.equal('line 2: expected 6 fields, got 7');
    });

    it('refuses an empty name or industry', () => {
      expect(refusal(csv('A,,Utilities,Gas,1,1')).field).to.equal('name');
      expect(refusal(csv('A,A Co,Utilities," ",1,1')).field).to.equal('industry');
    });

    it('refuses a name running over two lines, naming the line it starts on', () => {
      const err = refusal(csv('A,A Co,Utilities,Gas,1,1', 'B,"B\nCo",Utilities,Gas,1,1'));
      expect(err.message).to.match(/^line 3: name /);
    });

    it('counts the line breaks inside quotes when naming the line of a bad closing quote', () => {
      const err = refusal(csv('A,A Co,Utilities,Gas,1,1', 'B,"B\n\nCo"x,Utilities,Gas,1,1'));
      expect(err.message).to.equal('line 5: a closing quote must end its field');
    });

    it('refuses an unclosed quote and a stray quote', () => {
      expect(refusal(csv('A,"A Co,Utilities,Gas,1,1')).message).to.equal('line 2: a quoted field is never closed');
      expect(refusal(csv('A,A "Co",Utilities,Gas,1,1')).message).to.match(/^line 2: a quote may only open a field/);
      expect(refusal(csv('A,"A Co"x,Utilities,Gas,1,1')).message).to.equal(
        'line 2: a closing quote must end its field',
      );
    });
  });

  describe('searchUniverse', () => {
    const universe = [
      entry('AA', 'Alcoa Corporation', 5e9, 'Materials'),
      entry('AAL', 'American Airlines Group', 8e9),
      entry('A', 'Agilent Technologies', 40e9, 'Health Care'),
      entry('AAPL', 'Apple Inc.', 3.7e12, 'Information Technology'),
      entry('DAL', 'Delta Air Lines', 38e9),
      entry('KO', 'The Coca-Cola Company', 270e9, 'Consumer Staples'),
      entry('SML', 'Small Air Freight', 1e9),
    ];
    const symbols = (found: UniverseEntry[]) => found.map((e) => e.symbol);

    it('ranks the exact symbol first, then symbol prefixes by market cap, then name matches', () => {
      expect(symbols(searchUniverse(universe, { q: 'a' }))).to.deep.equal(['A', 'AAPL', 'AAL', 'AA', 'DAL', 'SML']);
    });

    it('puts the exact symbol ahead of a bigger company whose symbol it begins', () => {
      expect(symbols(searchUniverse(universe, { q: 'aa' }))).to.deep.equal(['AA', 'AAPL', 'AAL']);
    });

    it('matches the start of any word of the name, case-insensitively', () => {
      expect(symbols(searchUniverse(universe, { q: 'AIR' }))).to.deep.equal(['DAL', 'AAL', 'SML']);
      expect(symbols(searchUniverse(universe, { q: 'cola' }))).to.deep.equal(['KO']);
      expect(symbols(searchUniverse(universe, { q: 'delta air' }))).to.deep.equal(['DAL']);
    });

    it('reads a symbol or a name whatever separates its letters, in full-width forms too', () => {
      const brk = [...universe, entry('BRK.B', 'Berkshire Hathaway Inc.', 1e12), entry('WMT', 'Walmart Inc.', 7e11)];
      for (const q of ['brk b', 'brk-b', 'BRK/B', 'brk.b', 'brkb'])
        expect(symbols(searchUniverse(brk, { q }))[0], q).to.equal('BRK.B');
      expect(symbols(searchUniverse(brk, { q: 'coca cola' }))).to.deep.equal(['KO']);
      expect(symbols(searchUniverse(brk, { q: 'cocacola' }))).to.deep.equal(['KO']);
      expect(symbols(searchUniverse(brk, { q: 'wal-mart' }))).to.deep.equal(['WMT']);
      expect(symbols(searchUniverse(brk, { q: 'ａａｐｌ' }))[0]).to.equal('AAPL');
      expect(searchUniverse(brk, { q: '-/.' })).to.deep.equal([]);
    });

    it('does not match the middle of a word', () => {
      expect(searchUniverse(universe, { q: 'irlines' })).to.deep.equal([]);
    });

    it('filters by sector and cap class', () => {
      expect(symbols(searchUniverse(universe, { q: 'a', sector: 'Industrials' }))).to.deep.equal(['AAL', 'DAL', 'SML']);
      expect(symbols(searchUniverse(universe, { cap: 'mid' }))).to.deep.equal(['AAL', 'AA']);
      expect(symbols(searchUniverse(universe, { sector: 'Industrials', cap: 'small' }))).to.deep.equal(['SML']);
    });

    it('orders by market cap when there is no text', () => {
      expect(symbols(searchUniverse(universe, { q: '  ' }))).to.deep.equal([
        'AAPL',
        'KO',
        'A',
        'DAL',
        'AAL',
        'AA',
        'SML',
      ]);
    });

    it('returns at most 50 results unless a limit is given', () => {
      const shipped = loadUniverse();
      expect(DEFAULT_SEARCH_LIMIT).to.equal(50);
      expect(searchUniverse(shipped)).to.have.length(50);
      expect(searchUniverse(shipped, { limit: 3 })).to.have.length(3);
      expect(searchUniverse(shipped, { limit: 1000 })).to.have.length(shipped.length);
      expect(() => searchUniverse(shipped, { limit: -1 })).to.throw(RangeError);
    });

    it('finds shipped companies by symbol and by name', () => {
      const shipped = loadUniverse();
      expect(searchUniverse(shipped, { q: 'aapl' })[0]?.symbol).to.equal('AAPL');
      expect(symbols(searchUniverse(shipped, { q: 'microsoft' }))).to.deep.equal(['MSFT']);
      expect(searchUniverse(shipped, { q: 'brk.b' })[0]?.symbol).to.equal('BRK.B');
    });
  });
});
