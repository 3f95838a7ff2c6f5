import { expect } from 'chai';
import type { AlertAnswer } from '../../domain/contract/alerts.ts';
import {
  draftOf,
  draftProblem,
  fieldLabel,
  levelUnit,
  levelView,
  problemText,
  newDraft,
  refusalField,
  requestOf,
  seriesChoicesFor,
  seriesLabel,
  sourceChipsOf,
  withSource,
  type OperandDraft,
} from './conditionDraft.ts';
import type { AlertSource } from '../../domain/alerts/conditions.ts';
import { formatDateTime, toFieldValue } from '../services/time.ts';

const number = (text: string) => ({ kind: 'number' as const, number: text, series: 'sma:50' as const });

const series = (ref: AlertSource): OperandDraft => ({ kind: 'series', number: '', series: ref });

/** The options of a level's select, as shown. */
const labels = (view: ReturnType<typeof levelView>) => view.options.map((option) => option.label);

const RSI_ALERT: AlertAnswer = {
  id: 'a1',
  symbol: 'NVDA',
  threshold: null,
  alerttype: null,
  kind: 'CONDITION',
  status: 'armed',
  createdt: '2026-11-20T15:00:00.000Z',
  condition: { op: 'less_than', source: 'rsi:14', value: 30, lower: null, upper: null, bars: null },
  conditiontext: 'RSI(14) is at or below 30',
  frequency: 'once_per_bar_close',
  expires: '2026-12-31T21:00:00.000Z',
  lastfired: null,
  triggercount: 0,
  note: null,
  channels: null,
};

describe('condition draft', () => {
  it('sends only the fields the operator uses', () => {
    const draft = newDraft('AAPL', {
      op: 'entering_channel',
      value: number('5'),
      lower: number('180'),
      upper: number('190.5'),
      frequency: 'every_time',
    });
    expect(requestOf(draft)).to.deep.equal({
      symbol: 'AAPL',
      condition: { op: 'entering_channel', source: 'price', lower: 180, upper: 190.5 },
      frequency: 'every_time',
      expires: null,
      note: null,
    });
    expect(draftProblem(draft)).to.equal(null);
    expect(requestOf({ ...draft, op: 'moving_up_pct', value: number('3'), bars: '5' }, 'a1')).to.deep.equal({
      symbol: 'AAPL',
      condition: { op: 'moving_up_pct', source: 'price', value: 3, bars: 5 },
      frequency: 'every_time',
      expires: null,
      note: null,
      channels: null,
      id: 'a1',
      update: true,
    });
  });

  it('sends the channels ticked; a new alert for every channel leaves them out, a change sends null', () => {
    const desk = '00000000-0000-4000-8000-000000000001';
    const draft = newDraft('AAPL', { op: 'greater_than', value: number('190') });
    expect(requestOf(draft)).to.not.have.property('channels');
    expect(requestOf({ ...draft, channels: [desk] }).channels).to.deep.equal([desk]);
    const named = draftOf({ ...RSI_ALERT, channels: [desk] });
    expect(named.channels).to.deep.equal([desk]);
    expect(requestOf({ ...named, channels: null }, RSI_ALERT.id).channels).to.equal(null);
    expect(draftProblem({ ...draft, channels: [] })).to.deep.equal({
      field: 'channels',
      message: 'must name at least one channel; leave it out for every channel',
    });
  });

  it('refers to another series, and refuses the source itself, naming the field', () => {
    const golden = newDraft('MSFT', {
      op: 'crossing_up',
      source: 'sma:50',
      value: { kind: 'series', number: '', series: 'sma:200' },
    });
    expect(requestOf(golden).condition).to.deep.equal({
      op: 'crossing_up',
      source: 'sma:50',
      value: { ref: 'sma:200' },
    });
    expect(draftProblem(golden)).to.equal(null);
    expect(draftProblem({ ...golden, value: { kind: 'series', number: '', series: 'sma:50' } })).to.deep.equal({
      field: 'condition.value.ref',
      message: 'must name a series other than the source',
    });
  });

  it('offers a series as a level only between series in dollars, and sends the number typed elsewhere', () => {
    expect(seriesChoicesFor('price')).to.include.members(['sma:50', 'ema:12']);
    expect(seriesChoicesFor('price')).not.to.include.members(['price', 'rsi:14']);
    expect(seriesChoicesFor('sma:50')).to.include('price').and.not.include('sma:50');
    for (const source of ['rsi:14', 'volume', 'changepct'] as const) expect(seriesChoicesFor(source)).to.deep.equal([]);
    const rsi = newDraft('MSFT', {
      op: 'less_than',
      source: 'rsi:14',
      value: { kind: 'series', number: '30', series: 'sma:50' },
    });
    expect(requestOf(rsi).condition).to.deep.equal({ op: 'less_than', source: 'rsi:14', value: 30 });
    expect(draftProblem(rsi)).to.equal(null);
  });

  it("says what a level's number is of its source: a price, RSI's range, shares or the day's change", () => {
    const sources: AlertSource[] = ['price', 'sma:50', 'ema:12', 'rsi:14', 'volume', 'changepct'];
    expect(sources.map(levelUnit)).to.deep.equal(['price', 'price', 'price', '0 to 100', 'shares', '% on the day']);
  });

  it('offers and selects a series the level holds that no chip names, labelled like the chips', () => {
    const ema9: AlertAnswer = {
      ...RSI_ALERT,
      id: 'a9',
      symbol: 'MSFT',
      condition: { op: 'crossing_up', source: 'price', value: { ref: 'ema:9' }, lower: null, upper: null, bars: null },
      conditiontext: 'Price crosses above the 9-day EMA',
    };
    const draft = draftOf(ema9);
    const view = levelView(draft.value, draft.source);
    expect(view).to.deep.include({ select: true, selected: 'ema:9', numberBox: false });
    expect(labels(view)).to.deep.equal([
      'Value',
      'SMA 20',
      'SMA 50',
      'SMA 100',
      'SMA 200',
      'EMA 9',
      'EMA 12',
      'EMA 26',
    ]);
    expect(view.options.find((option) => option.value === 'ema:9')?.label).to.equal('EMA 9');
    expect(requestOf(draft, ema9.id).condition).to.deep.equal({
      op: 'crossing_up',
      source: 'price',
      value: { ref: 'ema:9' },
    });
    // "Value" shows the number box, and the 9-day EMA stays offered to go back to.
    const typed = { ...draft.value, kind: 'number' as const, number: '410' };
    const asNumber = levelView(typed, draft.source);
    expect(asNumber).to.deep.include({ selected: 'number', numberBox: true });
    expect(labels(asNumber)).to.include('EMA 9');
    expect(requestOf({ ...draft, value: typed }).condition).to.deep.equal({
      op: 'crossing_up',
      source: 'price',
      value: 410,
    });
    // Another series chosen: the alert's own is still offered through `also`, and only there.
    expect(labels(levelView(series('sma:20'), 'price'))).not.to.include('EMA 9');
    const other = levelView(series('sma:20'), 'price', ['ema:9']);
    expect(other).to.deep.include({ selected: 'sma:20', numberBox: false });
    expect(labels(other)).to.include('EMA 9');
    // Never the source itself, nor a series a level cannot be.
    expect(labels(levelView(number('5'), 'ema:9', ['ema:9', 'rsi:14']))).to.deep.equal([
      'Value',
      'Price',
      'SMA 20',
      'SMA 50',
      'SMA 100',
      'SMA 200',
      'EMA 12',
      'EMA 26',
    ]);
  });

  it('shows a number only where the source takes numbers only, the series held kept for later', () => {
    const view = levelView(series('ema:9'), 'rsi:14', ['ema:9']);
    expect(view).to.deep.equal({
      select: false,
      options: [{ value: 'number', label: 'Value' }],
      selected: 'number',
      numberBox: true,
    });
    expect(
      requestOf(newDraft('MSFT', { op: 'less_than', source: 'rsi:14', value: series('ema:9') })).condition,
    ).to.deep.equal({
      op: 'less_than',
      source: 'rsi:14',
      value: undefined,
    });
  });

  it('names a series like the chips: a chip by its label, another EMA period in the same style', () => {
    expect(seriesLabel('sma:50')).to.equal('SMA 50');
    expect(seriesLabel('ema:12')).to.equal('EMA 12');
    expect(seriesLabel('ema:9')).to.equal('EMA 9');
    expect(seriesLabel('ema:150')).to.equal('EMA 150');
    expect(seriesLabel('price')).to.equal('Price');
  });

  it("takes a level back to its number when the source becomes the level's series, so Create sends the screen", () => {
    const draft = newDraft('AAPL', { op: 'crossing_up', value: series('sma:50') });
    const changed = withSource(draft, 'sma:50');
    expect(changed.source).to.equal('sma:50');
    expect(changed.value).to.deep.equal({ kind: 'number', number: '', series: 'sma:50' });
    const view = levelView(changed.value, changed.source);
    expect(view).to.deep.include({ select: true, selected: 'number', numberBox: true });
    expect(labels(view)).to.deep.equal(['Value', 'Price', 'SMA 20', 'SMA 100', 'SMA 200', 'EMA 12', 'EMA 26']);
    // The empty number box is what is refused, by its own name.
    expect(draftProblem(changed)).to.deep.equal({ field: 'condition.value', message: 'is required for crossing_up' });
    // A number typed before comes back with the box.
    const typed = withSource({ ...draft, value: { kind: 'series', number: '190', series: 'sma:50' } }, 'sma:50');
    expect(requestOf(typed).condition).to.deep.equal({ op: 'crossing_up', source: 'sma:50', value: 190 });
    expect(draftProblem(typed)).to.equal(null);
    // An EMA period typed to the level's own period does the same.
    expect(withSource(newDraft('MSFT', { value: series('ema:9') }), 'ema:9').value.kind).to.equal('number');
  });

  it('keeps a level of another series, and each bound of a channel apart, when the source changes', () => {
    const golden = newDraft('MSFT', { op: 'crossing_up', value: series('sma:200') });
    expect(withSource(golden, 'sma:50').value).to.deep.equal(series('sma:200'));
    expect(requestOf(withSource(golden, 'sma:50')).condition).to.deep.equal({
      op: 'crossing_up',
      source: 'sma:50',
      value: { ref: 'sma:200' },
    });
    const channel = newDraft('MSFT', { op: 'inside_channel', lower: series('sma:50'), upper: series('price') });
    const moved = withSource(channel, 'price');
    expect(moved.lower).to.deep.equal(series('sma:50'));
    expect(moved.upper).to.deep.equal({ kind: 'number', number: '', series: 'price' });
  });

  it('shows a level as sent for every source and level: the option selected is offered, the box shows numbers', () => {
    const sources: AlertSource[] = ['price', 'sma:20', 'sma:50', 'ema:9', 'ema:12', 'rsi:14', 'volume', 'changepct'];
    const levels: OperandDraft[] = [number('100'), series('sma:50'), series('ema:9'), series('price')];
    for (const source of sources) {
      for (const level of levels) {
        const draft = withSource(newDraft('AAPL', { op: 'greater_than', source: 'price', value: level }), source);
        const view = levelView(draft.value, draft.source, ['ema:9']);
        const sent = requestOf(draft).condition?.value;
        const where = `${source} with ${level.kind} ${level.series}`;
        expect(
          view.options.map((option) => option.value),
          where,
        ).to.include(view.selected);
        expect(view.numberBox, where).to.equal(view.selected === 'number');
        if (view.selected === 'number') expect(sent, where).to.be.oneOf([100, undefined]);
        else expect(sent, where).to.deep.equal({ ref: view.selected });
        expect(draftProblem(draft)?.message ?? '', where).not.to.equal('must name a series other than the source');
      }
    }
  });

  it('shows a level that refers to its own source as it is, so its refusal matches the screen', () => {
    const view = levelView(series('sma:50'), 'sma:50');
    expect(view).to.deep.include({ selected: 'sma:50', numberBox: false });
    expect(labels(view)).to.include('SMA 50');
  });

  it('reads commas as grouping thousands only: a decimal comma is not a number, never a level 100 times higher', () => {
    const grouped = newDraft('AMZN', { op: 'greater_than', value: number('1,250.5') });
    expect(requestOf(grouped).condition).to.deep.equal({ op: 'greater_than', source: 'price', value: 1250.5 });
    const decimalComma = newDraft('AMZN', { op: 'greater_than', value: number('182,50') });
    expect(draftProblem(decimalComma)?.field).to.equal('condition.value');
    const moving = newDraft('AMZN', { op: 'moving_up_pct', value: number('0,5'), bars: '1' });
    expect(draftProblem(moving)?.field).to.equal('condition.value');
  });

  it("names a refused field by its control's words", () => {
    expect(fieldLabel('condition.value', 'crossing_up')).to.equal('Level');
    expect(fieldLabel('condition.value.ref', 'greater_than')).to.equal('Level');
    expect(fieldLabel('condition.value', 'moving_up_pct')).to.equal('By (%)');
    expect(fieldLabel('condition.value', 'moving_down')).to.equal('By');
    // The day's change moves by percentage points, or by a percent of its value.
    expect(fieldLabel('condition.value', 'moving_down', 'changepct')).to.equal('By (points)');
    expect(fieldLabel('condition.value', 'moving_down_pct', 'changepct')).to.equal('By (%)');
    expect(fieldLabel('condition.value', 'moving_up', 'rsi:14')).to.equal('By');
    expect(fieldLabel('condition.upper.ref', 'inside_channel')).to.equal('Upper');
    expect(fieldLabel('condition.bars', 'moving_up')).to.equal('Bars');
    expect(fieldLabel('expires', 'crossing')).to.equal('Expires');
    expect(fieldLabel('symbol', 'crossing')).to.equal('Symbol');
    expect(fieldLabel('channels', 'crossing')).to.equal('Deliver to');
    expect(fieldLabel('channels.0', 'crossing')).to.equal('Deliver to');
    expect(fieldLabel('kind', 'crossing')).to.equal('kind');
  });

  it('shows a refusal of a field with its label, and one of the whole request in its own words', () => {
    expect(problemText({ field: 'condition.upper', message: 'must be above lower (190)' }, 'inside_channel')).to.equal(
      'Upper: must be above lower (190)',
    );
    // An operator the server names by its id is named as the form's Operator shows it.
    expect(problemText({ field: 'condition.value', message: 'is required for greater_than' }, 'greater_than')).to.equal(
      'Level: is required for Greater Than',
    );
    expect(problemText({ field: 'condition.bars', message: 'is not used by crossing_up' }, 'crossing_up')).to.equal(
      'Bars: is not used by Crossing Up',
    );
    const limit = 'alerts: already 500 held; at most 500, delete one first';
    expect(problemText({ field: 'body', message: limit }, 'crossing')).to.equal(
      'Alerts: already 500 held; at most 500, delete one first',
    );
  });

  it('refuses what the contract refuses: missing, unreadable and out-of-order fields', () => {
    const channel = newDraft('AAPL', { op: 'outside_channel', lower: number('190'), upper: number('') });
    expect(draftProblem(channel)).to.deep.equal({
      field: 'condition.upper',
      message: 'is required for outside_channel',
    });
    expect(draftProblem({ ...channel, upper: number('180') })).to.deep.equal({
      field: 'condition.upper',
      message: 'must be above lower (190)',
    });
    expect(draftProblem({ ...channel, upper: number('abc') })?.field).to.equal('condition.upper');
    expect(draftProblem(newDraft('AAPL', { op: 'moving_down', value: number('2'), bars: '0' }))?.field).to.equal(
      'condition.bars',
    );
    expect(draftProblem(newDraft('', { value: number('10') }))?.field).to.equal('symbol');
    expect(draftProblem(newDraft('AAPL', { value: number('10'), expires: 'soon' }))?.field).to.equal('expires');
  });

  it("refuses an expiry that is not after now, saying now in the form's zone", () => {
    const now = Date.parse('2026-11-27T19:30:00.000Z');
    const field = toFieldValue('2026-11-27T19:30:00.000Z');
    const past = newDraft('AAPL', { value: number('10'), expires: field });
    expect(draftProblem(past, undefined, now)).to.deep.equal({
      field: 'expires',
      message: `is not after now (${formatDateTime(now)}): set a later time, or clear it`,
    });
    expect(formatDateTime(now)).to.match(/^2026-11-27 \d\d:30 /);
    expect(draftProblem(past, undefined, now - 60_000)).to.equal(null);
    expect(draftProblem({ ...past, expires: '' }, undefined, now)).to.equal(null);
  });

  it('edits an alert as it was answered, expiry included', () => {
    expect(requestOf(draftOf(RSI_ALERT), 'a1')).to.deep.equal({
      symbol: 'NVDA',
      condition: { op: 'less_than', source: 'rsi:14', value: 30 },
      frequency: 'once_per_bar_close',
      expires: '2026-12-31T21:00:00.000Z',
      note: null,
      channels: null,
      id: 'a1',
      update: true,
    });
  });

  it('sends the note as typed, a blank one as null (which clears it on a change), and edits it as answered', () => {
    const draft = newDraft('AAPL', { op: 'greater_than', value: number('190'), note: 'Sell half at the open' });
    expect(requestOf(draft).note).to.equal('Sell half at the open');
    expect(requestOf({ ...draft, note: '   ' }, 'a1').note).to.equal(null);
    expect(draftProblem({ ...draft, note: 'x'.repeat(201) })).to.deep.equal({
      field: 'note',
      message: 'must be at most 200 characters, got 201',
    });
    expect(problemText({ field: 'note', message: 'must be one line' }, 'greater_than')).to.equal(
      'Note: must be one line',
    );
    const answered = draftOf({ ...RSI_ALERT, note: 'Watch the open' });
    expect(answered.note).to.equal('Watch the open');
    expect(requestOf(answered, RSI_ALERT.id).note).to.equal('Watch the open');
  });

  it('presses a source chip only when the source is exactly its own: an EMA of a typed period presses none', () => {
    const pressed = (source: Parameters<typeof sourceChipsOf>[0]) =>
      sourceChipsOf(source)
        .filter((chip) => chip.pressed)
        .map((chip) => chip.label);
    expect(pressed('ema:9')).to.deep.equal([]);
    expect(pressed('ema:1')).to.deep.equal([]);
    expect(pressed('ema:12')).to.deep.equal(['EMA 12']);
    expect(pressed('ema:26')).to.deep.equal(['EMA 26']);
    expect(pressed('sma:50')).to.deep.equal(['SMA 50']);
    expect(sourceChipsOf('price').map((chip) => chip.label)).to.have.length(10);
  });

  it('reads the field a server refusal names', () => {
    expect(refusalField('body.condition.upper: must be above lower (190)')).to.equal('condition.upper');
    expect(refusalField('body.symbol: must be 1-10 characters')).to.equal('symbol');
    expect(refusalField('Not found')).to.equal(null);
    expect(refusalField('body.lots[1].quantity: x')).to.equal('lots.1.quantity');
    expect(refusalField('body: the connection closed'), 'the body as a whole').to.equal(null);
    expect(refusalField('params.id: unknown alert'), 'not the body').to.equal(null);
  });
});
