/**
 * One layout of the dashboard: its components in order, and the menu that toggles each component into or out
 * of it (saved at once) or removes the layout.
 */
import { useId, useState } from 'react';
import { Empty } from '../../components/LoadState.tsx';
import { useDismiss } from '../../components/useDismiss.ts';
import { ActivityPanel } from './ActivityPanel.tsx';
import { COMPONENTS, type LayoutEntry } from './dashboard.logic.ts';
import { Dashboard } from './dashboardActor.ts';
import { MoversPanel } from './MoversPanel.tsx';
import { PatternsPanel } from './PatternsPanel.tsx';
import { PerformancePanel } from './PerformancePanel.tsx';
import { StockCards } from './StockCards.tsx';

function ComponentMenu({ layout }: { readonly layout: LayoutEntry }) {
  const actor = Dashboard.useActorRef();
  const [open, setOpen] = useState(false);
  const ref = useDismiss(open, () => setOpen(false), true);
  const popup = useId();
  return (
    <div className="dash-menu" ref={ref}>
      <button
        type="button"
        className="button small"
        aria-label={`Components of layout ${layout.layoutId}`}
        aria-expanded={open}
        aria-controls={popup}
        onClick={() => setOpen((v) => !v)}
      >
        Components ▾
      </button>
      {open && (
        <div className="dash-popup" id={popup}>
          <fieldset>
            <legend>Show in layout {layout.layoutId}</legend>
            {COMPONENTS.map((component, i) => (
              <label key={component.id} className="check">
                <input
                  type="checkbox"
                  autoFocus={i === 0}
                  checked={layout.compId.includes(component.id)}
                  onChange={() =>
                    actor.send({ type: 'user.toggleComponent', layoutId: layout.layoutId, compId: component.id })
                  }
                />
                {component.name}
              </label>
            ))}
          </fieldset>
          <button
            type="button"
            className="button danger"
            onClick={() => {
              setOpen(false);
              actor.send({ type: 'user.removeLayout', layoutId: layout.layoutId });
            }}
          >
            Remove layout {layout.layoutId}
          </button>
        </div>
      )}
    </div>
  );
}

function DashboardComponent({ id }: { readonly id: number }) {
  switch (id) {
    case 1:
      return <PerformancePanel />;
    case 2:
      return <StockCards />;
    case 3:
      return <ActivityPanel />;
    case 4:
      return <MoversPanel />;
    case 5:
      return <PatternsPanel />;
    default:
      return null;
  }
}

/** A layout and its components. */
export function LayoutRow({ layout }: { readonly layout: LayoutEntry }) {
  return (
    <section className="dash-layout" aria-label={`Layout ${layout.layoutId}`}>
      <div className="dash-layout-head">
        <span className="dash-layout-title">Layout {layout.layoutId}</span>
        <ComponentMenu layout={layout} />
      </div>
      {layout.compId.length === 0 ? (
        <Empty>This layout is empty: choose what it shows with its Components menu.</Empty>
      ) : (
        <div className="dash-layout-body">
          {layout.compId.map((id) => (
            <DashboardComponent key={id} id={id} />
          ))}
        </div>
      )}
    </section>
  );
}
