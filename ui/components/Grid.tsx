/**
 * AG Grid with the app's modules and theme registered once. Every table of the app goes through it.
 */
import { AgGridReact, type AgGridReactProps } from 'ag-grid-react';
import { AllCommunityModule, ModuleRegistry, themeQuartz } from 'ag-grid-community';

ModuleRegistry.registerModules([AllCommunityModule]);

/** The app's grid theme. */
export const gridTheme = themeQuartz.withParams({
  fontFamily: 'inherit',
  fontSize: 13,
  headerFontWeight: 600,
  spacing: 6,
  accentColor: '#2563eb',
});

/** The compact variant (the bell's panel). */
export const compactGridTheme = gridTheme.withParams({ spacing: 3, fontSize: 12, rowHeight: 28, headerHeight: 30 });

/** A grid; `compact` selects the compact theme. */
export function Grid<Row>(props: AgGridReactProps<Row> & { readonly compact?: boolean }) {
  const { compact, ...rest } = props;
  return (
    <AgGridReact<Row>
      theme={compact ? compactGridTheme : gridTheme}
      suppressDragLeaveHidesColumns
      {...rest}
      defaultColDef={{ suppressHeaderMenuButton: true, sortable: true, resizable: true, ...rest.defaultColDef }}
    />
  );
}
