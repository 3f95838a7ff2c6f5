/** The top bar's menu of the spec: label and route of each analysis page. */
export const MENU_ITEMS: readonly { readonly label: string; readonly path: string }[] = Object.freeze([
  { label: 'Search', path: '/StockSearch' },
  { label: 'Sectors', path: '/SectorSetUp' },
  { label: 'Perform', path: '/SectorPerformance' },
  { label: 'Drill', path: '/Charting' },
  { label: 'Predict', path: '/Prediction' },
  { label: 'Analyze', path: '/Analyzer' },
  { label: 'Correlate', path: '/Correlate' },
  { label: 'Maint', path: '/Maint' },
  { label: 'Art', path: '/Art' },
]);
