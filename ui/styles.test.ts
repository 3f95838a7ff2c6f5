import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';

const UI = import.meta.dirname;

/** The web app's style sheets: `styles.css` and each screen's and component's, not the build's output. */
function styleSheets(dir: string = UI): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'dist' || entry.name === 'node_modules') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...styleSheets(full));
    else if (entry.name.endsWith('.css')) found.push(full);
  }
  return found.sort();
}

/** The custom properties a style sheet defines (`--line: …`) and those it reads (`var(--line)`), with where. */
function customProperties(file: string): { defined: Set<string>; read: { name: string; where: string }[] } {
  const text = fs.readFileSync(file, 'utf8');
  const defined = new Set([...text.matchAll(/(--[\w-]+)\s*:/g)].map((m) => m[1]!));
  const read = [...text.matchAll(/var\(\s*(--[\w-]+)/g)].map((m) => ({
    name: m[1]!,
    where: `${path.relative(UI, file)}:${text.slice(0, m.index).split('\n').length}`,
  }));
  return { defined, read };
}

describe('web app: the style sheets', function () {
  it('read only the custom properties the theme defines, so each colour follows the light and dark themes', function () {
    const sheets = styleSheets();
    expect(sheets.map((f) => path.relative(UI, f))).to.include.members(['styles.css', 'screens/settings/settings.css']);
    const all = sheets.map(customProperties);
    const defined = new Set(all.flatMap((sheet) => [...sheet.defined]));
    // The theme's own: the page's colours of both themes.
    expect([...defined]).to.include.members(['--bg', '--panel', '--ink', '--line', '--up', '--down', '--muted']);
    // A property no sheet defines falls back to the value after its comma, the same in both themes, or to nothing.
    const undefinedReads = all.flatMap((sheet) => sheet.read).filter((use) => !defined.has(use.name));
    expect(undefinedReads.map((use) => `${use.where} reads ${use.name}`)).to.deep.equal([]);
  });
});
