import { expect } from 'chai';
import { DomainError, fold } from '../decider.ts';
import { given } from '../testing/givenWhenThen.ts';
import {
  DASHBOARD_SECTOR_MAX,
  DASHBOARD_SLIDER_MAX,
  DEFAULT_DASHBOARD_OPTIONS,
  dashboardOptionsDecider,
  parseDashboardOptionChanges,
  type DashboardOptions,
  type DashboardOptionsCommand,
  type DashboardOptionsEvent,
} from './options.ts';

const change = (changes: Record<string, unknown>): DashboardOptionsCommand => ({
  type: 'ChangeDashboardOptions',
  data: { changes },
});
const changed = (changes: Partial<DashboardOptions>): DashboardOptionsEvent => ({
  type: 'DashboardOptionsChanged',
  data: { changes },
});

describe('dashboard options decider', () => {
  it("starts from the product's defaults", () => {
    expect(fold(dashboardOptionsDecider, []).options).to.deep.equal({
      addstks: true,
      subheader: 'basic',
      showcarddetail: true,
      showcardactions: true,
      slider: { type: 'M', val: 3 },
      selectedsector: 0,
      sectorflag: false,
      watchlistflag: false,
    });
  });

  it('records only the options that change', () => {
    given(dashboardOptionsDecider)
      .when(change({ addstks: true, subheader: 'detailed', slider: { type: 'M', val: 3 }, sectorflag: true }))
      .then([changed({ subheader: 'detailed', sectorflag: true })]);
  });

  it('decides nothing when every option named already has its value', () => {
    given(dashboardOptionsDecider)
      .when(change({ ...DEFAULT_DASHBOARD_OPTIONS }))
      .thenNothing();
    given(dashboardOptionsDecider).when(change({})).thenNothing();
    given(dashboardOptionsDecider, [changed({ selectedsector: 4 })])
      .when(change({ selectedsector: 4 }))
      .thenNothing();
  });

  it('sets the slider whole', () => {
    given(dashboardOptionsDecider)
      .when(change({ slider: { type: 'Y', val: 2 } }))
      .then([changed({ slider: { type: 'Y', val: 2 } })]);
    given(dashboardOptionsDecider)
      .when(change({ slider: { type: 'M', val: 6 } }))
      .then([changed({ slider: { type: 'M', val: 6 } })]);
  });

  it('accepts the edges of every range', () => {
    given(dashboardOptionsDecider)
      .when(change({ slider: { type: 'D', val: 1 }, selectedsector: DASHBOARD_SECTOR_MAX }))
      .then([changed({ slider: { type: 'D', val: 1 }, selectedsector: DASHBOARD_SECTOR_MAX })]);
    given(dashboardOptionsDecider)
      .when(change({ slider: { type: 'W', val: DASHBOARD_SLIDER_MAX } }))
      .then([changed({ slider: { type: 'W', val: DASHBOARD_SLIDER_MAX } })]);
  });

  const bad: [string, Record<string, unknown>, string][] = [
    ['an unknown option', { colour: 'red' }, 'changes.colour'],
    ['a text for a boolean', { addstks: 'yes' }, 'changes.addstks'],
    ['null for a boolean', { showcarddetail: null }, 'changes.showcarddetail'],
    ['an unknown sub-header', { subheader: 'fancy' }, 'changes.subheader'],
    ['a slider that is not an object', { slider: 3 }, 'changes.slider'],
    ['a slider without its type', { slider: { val: 3 } }, 'changes.slider.type'],
    ['a slider of an unknown unit', { slider: { type: 'H', val: 3 } }, 'changes.slider.type'],
    ['a slider of 0', { slider: { type: 'M', val: 0 } }, 'changes.slider.val'],
    [
      `a slider past ${DASHBOARD_SLIDER_MAX}`,
      { slider: { type: 'M', val: DASHBOARD_SLIDER_MAX + 1 } },
      'changes.slider.val',
    ],
    ['a fractional slider', { slider: { type: 'M', val: 1.5 } }, 'changes.slider.val'],
    ['a slider with an extra field', { slider: { type: 'M', val: 3, unit: 'x' } }, 'changes.slider.unit'],
    ['a negative sector', { selectedsector: -1 }, 'changes.selectedsector'],
    [`a sector past ${DASHBOARD_SECTOR_MAX}`, { selectedsector: DASHBOARD_SECTOR_MAX + 1 }, 'changes.selectedsector'],
    ['a fractional sector', { selectedsector: 0.5 }, 'changes.selectedsector'],
  ];
  for (const [what, changes, field] of bad) {
    it(`refuses ${what}, naming ${field}`, () => {
      given(dashboardOptionsDecider).when(change(changes)).thenError('invalid_option');
      expect(() => parseDashboardOptionChanges(changes))
        .to.throw(DomainError, field)
        .with.property('field', field);
    });
  }

  it('refuses changes that are not an object', () => {
    for (const changes of [null, [], 'x']) {
      given(dashboardOptionsDecider)
        .when(change(changes as unknown as Record<string, unknown>))
        .thenError('invalid_option');
    }
  });

  it('refuses a command type it does not know', () => {
    given(dashboardOptionsDecider)
      .when({ type: 'ResetDashboardOptions', data: {} } as unknown as DashboardOptionsCommand)
      .thenError('unknown_command');
  });

  describe('evolve', () => {
    it('merges changes over the options so far', () => {
      const state = fold(dashboardOptionsDecider, [
        changed({ subheader: 'detailed', addstks: false }),
        changed({ slider: { type: 'Y', val: 5 } }),
        changed({ addstks: true, selectedsector: 3 }),
      ]);
      expect(state.options).to.deep.equal({
        ...DEFAULT_DASHBOARD_OPTIONS,
        subheader: 'detailed',
        slider: { type: 'Y', val: 5 },
        selectedsector: 3,
      });
    });

    it('ignores a field it does not know and an event type it does not know', () => {
      const state = fold(dashboardOptionsDecider, []);
      const odd = { type: 'DashboardOptionsChanged', data: { changes: { theme: 'dark' } } } as DashboardOptionsEvent;
      expect(dashboardOptionsDecider.evolve(state, odd)).to.deep.equal(state);
      const unknown = { type: 'DashboardOptionsReset', data: {} } as unknown as DashboardOptionsEvent;
      expect(dashboardOptionsDecider.evolve(state, unknown)).to.deep.equal(state);
    });
  });
});
