import type { Linter } from 'eslint';

/** The layering of `style.md` as ESLint flat config (see `layering.js`). */
export declare const layering: Linter.Config[];
