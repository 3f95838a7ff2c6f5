/**
 * The screens of the app by path. Each screen is its own chunk, loaded when first opened, so the entry stays
 * small and Plotly is fetched only by the screens that chart.
 */
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import { isSymbol } from '../../domain/symbol.ts';

/** A screen the shell can show. */
export interface ScreenRoute {
  /** The path, as the spec names it. */
  readonly path: string;
  /** The page title. */
  readonly title: string;
  /** The screen. */
  readonly component: LazyExoticComponent<ComponentType>;
  /** Whether it shows one symbol, named by its `stock` parameter (`/PriceCharts?stock=AAPL`). */
  readonly bySymbol?: boolean;
}

/** Every screen behind the sign-in. */
export const SCREENS: readonly ScreenRoute[] = [
  {
    path: '/Dashboard',
    title: 'Dashboard',
    component: lazy(() => import('../screens/dashboard/DashboardScreen.tsx')),
  },
  {
    path: '/StockSearch',
    title: 'Search',
    component: lazy(() => import('../screens/search/SearchScreen.tsx')),
  },
  {
    path: '/SectorSetUp',
    title: 'Sectors',
    component: lazy(() => import('../screens/sectors/SectorsScreen.tsx')),
  },
  {
    path: '/SectorPerformance',
    title: 'Perform',
    component: lazy(() => import('../screens/perform/PerformScreen.tsx')),
  },
  {
    path: '/Charting',
    title: 'Drill',
    component: lazy(() => import('../screens/drill/DrillScreen.tsx')),
  },
  {
    path: '/Analyzer',
    title: 'Analyze',
    component: lazy(() => import('../screens/analyze/AnalyzeScreen.tsx')),
  },
  {
    path: '/Correlate',
    title: 'Correlate',
    component: lazy(() => import('../screens/correlate/CorrelateScreen.tsx')),
  },
  {
    path: '/Prediction',
    title: 'Predict',
    component: lazy(() => import('../screens/predict/PredictScreen.tsx')),
    bySymbol: true,
  },
  {
    path: '/Maint',
    title: 'Maint',
    component: lazy(() => import('../screens/maint/MaintScreen.tsx')),
  },
  {
    path: '/Art',
    title: 'Art',
    component: lazy(() => import('../screens/art/ArtScreen.tsx')),
  },
  {
    path: '/PriceCharts',
    title: 'Price chart',
    component: lazy(() => import('../screens/pricechart/PriceChartScreen.tsx')),
    bySymbol: true,
  },
  {
    path: '/Watchlist',
    title: 'Watch list',
    component: lazy(() => import('../screens/watchlist/WatchlistScreen.tsx')),
  },
  {
    path: '/Portfolio',
    title: 'Portfolio',
    component: lazy(() => import('../screens/portfolio/PortfolioScreen.tsx')),
  },
  {
    path: '/Alerts',
    title: 'Alerts',
    component: lazy(() => import('../screens/alerts/AlertsScreen.tsx')),
  },
  {
    path: '/CompanyStats',
    title: 'Company statistics',
    component: lazy(() => import('../screens/companystats/CompanyStatsScreen.tsx')),
    bySymbol: true,
  },
  {
    path: '/Settings',
    title: 'Settings',
    component: lazy(() => import('../screens/settings/SettingsScreen.tsx')),
  },
];

/** The screen of a path, or undefined. */
export function screenOf(path: string): ScreenRoute | undefined {
  const lower = path.toLowerCase();
  return SCREENS.find((screen) => screen.path.toLowerCase() === lower);
}

/**
 * The screen a typed address names by its title rather than its path, in any letter case and without the title's
 * spaces: `/Analyze` is the Analyzer (`/Analyzer`), `/drill` the Charting page, `/PriceChart` the price chart.
 * Undefined when the address is a screen's own path or names no screen.
 */
export function screenNamed(path: string): ScreenRoute | undefined {
  if (screenOf(path)) return undefined;
  const lower = path.toLowerCase();
  return SCREENS.find((screen) => `/${screen.title.replaceAll(' ', '')}`.toLowerCase() === lower);
}

/**
 * The address a typed one stands for, when it is not the canonical one: a screen named by its title (see
 * {@link screenNamed}), and a symbol typed as the last part of the path of a screen that shows one, in any letter
 * case (`/PriceChart/aapl` is `/PriceCharts?stock=AAPL`, the rest of the query kept). Undefined when the address
 * is canonical already, or names no screen.
 */
export function canonicalAddress(path: string, query: string): string | undefined {
  const named = screenNamed(path);
  if (named) return named.path + query;
  const slash = path.lastIndexOf('/');
  if (slash <= 0) return undefined;
  const head = path.slice(0, slash);
  const screen = screenOf(head) ?? screenNamed(head);
  const symbol = decodedSegment(path.slice(slash + 1))
    .trim()
    .toUpperCase();
  if (!screen?.bySymbol || !isSymbol(symbol)) return undefined;
  const params = new URLSearchParams(query);
  params.set('stock', symbol);
  return `${screen.path}?${params.toString()}`;
}

/** A path segment as typed, percent-escapes decoded (as typed when they are malformed). */
function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The pages an e-mailed link opens, for whoever opens it, signed in or not: no session check sends them to the
 * sign-in page, and they show without the app's bar. An email channel's confirmation (`/ConfirmEmail`), a
 * password reset (`/ResetPassword`), and an alert email's unsubscribe link (`/Unsubscribe`).
 */
export const PUBLIC_PAGES: readonly ScreenRoute[] = [
  {
    path: '/ConfirmEmail',
    title: 'Confirm your alert address',
    component: lazy(() =>
      import('../screens/confirmemail/ConfirmEmailScreen.tsx').then((m) => ({ default: m.ConfirmEmailScreen })),
    ),
  },
  {
    path: '/ResetPassword',
    title: 'Reset your password',
    component: lazy(() =>
      import('../screens/resetpassword/ResetPasswordScreen.tsx').then((m) => ({ default: m.ResetPasswordScreen })),
    ),
  },
  {
    path: '/Unsubscribe',
    title: 'Unsubscribe from alerts',
    component: lazy(() =>
      import('../screens/unsubscribe/UnsubscribeScreen.tsx').then((m) => ({ default: m.UnsubscribeScreen })),
    ),
  },
];

/** The public page of a path, or undefined. */
export function publicPageOf(path: string): ScreenRoute | undefined {
  const lower = path.toLowerCase();
  return PUBLIC_PAGES.find((page) => page.path.toLowerCase() === lower);
}

/** Whether a path is one of the {@link PUBLIC_PAGES}, which no session check sends to the sign-in page. */
export function isPublicPath(path: string): boolean {
  return publicPageOf(path) !== undefined;
}
