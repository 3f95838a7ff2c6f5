/**
 * The screens of the app by path. Each screen is its own chunk, loaded when first opened, so the entry stays
 * small and Plotly is fetched only by the screens that chart.
 */
import { type ComponentType, type LazyExoticComponent } from 'react';

/** A screen the shell can show. */
export interface ScreenRoute {
  /** The path, as the spec names it. */
  readonly path: string;
  /** The page title. */
  readonly title: string;
  /** The screen. */
  readonly component: LazyExoticComponent<ComponentType>;
}

/** Every screen behind the sign-in. */
export const SCREENS: readonly ScreenRoute[] = [];

/** The screen of a path, or undefined. */
export function screenOf(path: string): ScreenRoute | undefined {
  const lower = path.toLowerCase();
  return SCREENS.find((screen) => screen.path.toLowerCase() === lower);
}
