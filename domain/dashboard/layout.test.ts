import { expect } from 'chai';
import { DomainError, fold } from '../decider.ts';
import { given } from '../testing/givenWhenThen.ts';
import {
  DASHBOARD_LAYOUT_LIMIT,
  DEFAULT_DASHBOARD_LAYOUT,
  dashboardLayoutDecider,
  parseDashboardLayouts,
  type DashboardLayoutCommand,
  type DashboardLayoutEntry,
  type DashboardLayoutEvent,
} from './layout.ts';

const save = (...layouts: DashboardLayoutEntry[]): DashboardLayoutCommand => ({
  type: 'SaveDashboardLayout',
  data: { layouts },
});
const toggle = (layoutId: number, compId: number): DashboardLayoutCommand => ({
  type: 'ToggleDashboardComponent',
  data: { layoutId, compId },
});
const saved = (...layouts: DashboardLayoutEntry[]): DashboardLayoutEvent => ({
  type: 'DashboardLayoutSaved',
  data: { layouts },
});
const toggled = (layoutId: number, compId: number, present: boolean): DashboardLayoutEvent => ({
  type: 'DashboardComponentToggled',
  data: { layoutId, compId, present },
});
const layout = (layoutId: number, ...compId: number[]): DashboardLayoutEntry => ({ layoutId, compId });

describe('dashboard layout decider', () => {
  it('starts from the default layout: 1 with component 1, 2 with 2, 3 with 3', () => {
    expect(fold(dashboardLayoutDecider, [])).to.deep.equal({
      layouts: [layout(1, 1), layout(2, 2), layout(3, 3)],
    });
    expect(DEFAULT_DASHBOARD_LAYOUT).to.deep.equal([layout(1, 1), layout(2, 2), layout(3, 3)]);
  });

  describe('saving a layout list', () => {
    it('records the new list', () => {
      given(dashboardLayoutDecider)
        .when(save(layout(1, 1, 4), layout(7, 5)))
        .then([saved(layout(1, 1, 4), layout(7, 5))]);
    });

    it('decides nothing when the list is the one already saved', () => {
      given(dashboardLayoutDecider, [saved(layout(1, 2))])
        .when(save(layout(1, 2)))
        .thenNothing();
    });

    it('decides nothing when the default is saved before any change', () => {
      given(dashboardLayoutDecider)
        .when(save(layout(1, 1), layout(2, 2), layout(3, 3)))
        .thenNothing();
    });

    it('records a change of component order', () => {
      given(dashboardLayoutDecider, [saved(layout(1, 1, 2))])
        .when(save(layout(1, 2, 1)))
        .then([saved(layout(1, 2, 1))]);
    });

    it('accepts an empty list and layouts without components', () => {
      given(dashboardLayoutDecider).when(save()).then([saved()]);
      given(dashboardLayoutDecider)
        .when(save(layout(4)))
        .then([saved(layout(4))]);
    });

    it(`accepts exactly ${DASHBOARD_LAYOUT_LIMIT} layouts and refuses one more`, () => {
      const many = Array.from({ length: DASHBOARD_LAYOUT_LIMIT + 1 }, (_, i) => layout(i + 1, 1));
      given(dashboardLayoutDecider)
        .when(save(...many.slice(0, DASHBOARD_LAYOUT_LIMIT)))
        .then([saved(...many.slice(0, DASHBOARD_LAYOUT_LIMIT))]);
      given(dashboardLayoutDecider)
        .when(save(...many))
        .thenError('limit');
    });

    it('refuses a layout id used twice, naming the second', () => {
      given(dashboardLayoutDecider)
        .when(save(layout(1, 1), layout(1, 2)))
        .thenError('duplicate');
      expect(() => parseDashboardLayouts([layout(1, 1), layout(1, 2)]))
        .to.throw(DomainError, 'layouts[1].layoutId 1 appears twice')
        .with.property('field', 'layouts[1].layoutId');
    });

    it('refuses a component twice in one layout but allows it in two layouts', () => {
      given(dashboardLayoutDecider)
        .when(save(layout(1, 2, 2)))
        .thenError('duplicate');
      given(dashboardLayoutDecider)
        .when(save(layout(1, 2), layout(2, 2)))
        .then([saved(layout(1, 2), layout(2, 2))]);
    });

    for (const bad of [0, -1, 1.5, Number.NaN, '1', null]) {
      it(`refuses the layout id ${String(bad)}`, () => {
        given(dashboardLayoutDecider)
          .when(save({ layoutId: bad as number, compId: [1] }))
          .thenError('invalid_layout');
      });
    }

    for (const bad of [0, 6, 2.5, '3', null]) {
      it(`refuses the component id ${String(bad)}, naming its place`, () => {
        given(dashboardLayoutDecider)
          .when(save(layout(1, 1, bad as number)))
          .thenError('invalid_component');
        expect(() => parseDashboardLayouts([layout(1, 1, bad as number)]))
          .to.throw(DomainError)
          .with.property('field', 'layouts[0].compId[1]');
      });
    }

    it('accepts components 1 to 5', () => {
      given(dashboardLayoutDecider)
        .when(save(layout(1, 5, 4, 3, 2, 1)))
        .then([saved(layout(1, 5, 4, 3, 2, 1))]);
    });

    it('refuses entries that are not layouts', () => {
      given(dashboardLayoutDecider)
        .when(save(null as unknown as DashboardLayoutEntry))
        .thenError('invalid_layout');
      given(dashboardLayoutDecider)
        .when(save({ layoutId: 1, compId: 3 as unknown as number[] }))
        .thenError('invalid_component');
      given(dashboardLayoutDecider)
        .when({ type: 'SaveDashboardLayout', data: { layouts: 'x' as unknown as DashboardLayoutEntry[] } })
        .thenError('invalid_layout');
    });

    it('keeps only layoutId and compId of each entry', () => {
      const withExtra = { layoutId: 1, compId: [1], title: 'x' } as DashboardLayoutEntry;
      given(dashboardLayoutDecider)
        .when(save(withExtra, layout(2)))
        .then([saved(layout(1, 1), layout(2))]);
    });
  });

  describe('toggling a component', () => {
    it('adds a component absent from the layout, at its end', () => {
      given(dashboardLayoutDecider)
        .when(toggle(1, 4))
        .then([toggled(1, 4, true)]);
      expect(fold(dashboardLayoutDecider, [toggled(1, 4, true)]).layouts[0]).to.deep.equal(layout(1, 1, 4));
    });

    it('removes a component present in the layout', () => {
      given(dashboardLayoutDecider)
        .when(toggle(2, 2))
        .then([toggled(2, 2, false)]);
      expect(fold(dashboardLayoutDecider, [toggled(2, 2, false)]).layouts[1]).to.deep.equal(layout(2));
    });

    it('toggles back and forth from what the log says', () => {
      given(dashboardLayoutDecider, [toggled(3, 5, true)])
        .when(toggle(3, 5))
        .then([toggled(3, 5, false)]);
      given(dashboardLayoutDecider, [toggled(3, 5, true), toggled(3, 5, false)])
        .when(toggle(3, 5))
        .then([toggled(3, 5, true)]);
    });

    it('toggles in a saved layout', () => {
      given(dashboardLayoutDecider, [saved(layout(9, 1, 2))])
        .when(toggle(9, 1))
        .then([toggled(9, 1, false)]);
    });

    it('refuses a layout that does not exist with not_found', () => {
      given(dashboardLayoutDecider).when(toggle(4, 1)).thenError('not_found');
      given(dashboardLayoutDecider, [saved(layout(9, 1))])
        .when(toggle(1, 1))
        .thenError('not_found');
    });

    it('refuses a bad layout or component id', () => {
      given(dashboardLayoutDecider).when(toggle(0, 1)).thenError('invalid_layout');
      given(dashboardLayoutDecider).when(toggle(1, 6)).thenError('invalid_component');
      given(dashboardLayoutDecider).when(toggle(1, 0)).thenError('invalid_component');
    });
  });

  it('refuses a command type it does not know', () => {
    given(dashboardLayoutDecider)
      .when({ type: 'ResetDashboard', data: {} } as unknown as DashboardLayoutCommand)
      .thenError('unknown_command');
  });

  describe('evolve', () => {
    it('is total: a toggle of a missing layout or to the present state changes nothing', () => {
      const state = fold(dashboardLayoutDecider, []);
      expect(dashboardLayoutDecider.evolve(state, toggled(8, 1, true))).to.deep.equal(state);
      expect(dashboardLayoutDecider.evolve(state, toggled(1, 1, true))).to.deep.equal(state);
      expect(dashboardLayoutDecider.evolve(state, toggled(1, 2, false))).to.deep.equal(state);
    });

    it('ignores an event type it does not know', () => {
      const state = fold(dashboardLayoutDecider, []);
      const unknown = { type: 'DashboardThemeChanged', data: {} } as unknown as DashboardLayoutEvent;
      expect(dashboardLayoutDecider.evolve(state, unknown)).to.deep.equal(state);
    });

    it('folds saves and toggles in order', () => {
      const state = fold(dashboardLayoutDecider, [
        toggled(1, 2, true),
        saved(layout(5, 1), layout(6)),
        toggled(6, 3, true),
        toggled(5, 1, false),
        toggled(6, 4, true),
      ]);
      expect(state).to.deep.equal({ layouts: [layout(5), layout(6, 3, 4)] });
    });

    it('does not change the state it is given', () => {
      const before = fold(dashboardLayoutDecider, [saved(layout(1, 1))]);
      const copy = structuredClone(before);
      dashboardLayoutDecider.evolve(before, toggled(1, 2, true));
      dashboardLayoutDecider.evolve(before, toggled(1, 1, false));
      expect(before).to.deep.equal(copy);
    });
  });
});
