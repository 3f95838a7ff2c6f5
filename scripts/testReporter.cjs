'use strict';

/**
 * Mocha reporter: one line per test grouped by suite, the failures in full, then a last plain line
 * `N passed, N failed` (with `, N skipped` when tests were pending). With the reporter option
 * `summary=<file>` it also writes the counts as JSON to that file for the calling script.
 */

const fs = require('node:fs');
const util = require('node:util');

/**
 * Formats an error with its assertion values and stack, indented for the failure list.
 * @param {unknown} err
 * @returns {string}
 */
function describeError(err) {
  if (!(err instanceof Error)) return util.inspect(err);
  const lines = [`${err.name}: ${err.message}`];
  const e = /** @type {Error & {showDiff?: boolean, actual?: unknown, expected?: unknown}} */ (err);
  if (e.showDiff !== false && ('expected' in e || 'actual' in e)) {
    lines.push(`expected: ${util.inspect(e.expected, { depth: 6 })}`);
    lines.push(`actual:   ${util.inspect(e.actual, { depth: 6 })}`);
  }
  if (err.stack) {
    const frames = err.stack.split('\n').filter((line) => /^\s+at /.test(line));
    lines.push(...frames.map((f) => f.trim()).filter((f) => !f.includes('node_modules/mocha/')));
  }
  return lines.join('\n');
}

/**
 * @param {import('mocha').Runner} runner
 * @param {{reporterOption?: {summary?: string}}} [options]
 */
function StockPulseReporter(runner, options) {
  const summaryFile = options?.reporterOption?.summary;
  const out = (/** @type {string} */ line) => process.stdout.write(`${line}\n`);
  let depth = 0;
  let passed = 0;
  let skipped = 0;
  /** @type {{title: string, err: unknown}[]} */
  const failures = [];
  const pad = () => '  '.repeat(depth);

  runner.on('start', () => out(''));

  runner.on('suite', (suite) => {
    if (suite.root) return;
    depth += 1;
    out(`${pad()}${suite.title}`);
  });

  runner.on('suite end', (suite) => {
    if (suite.root) return;
    depth -= 1;
    if (depth === 0) out('');
  });

  runner.on('pass', (test) => {
    passed += 1;
    // Like mocha's spec reporter: show the time only for tests over half their `slow` threshold.
    const duration = test.duration ?? 0;
    const slow = duration > test.slow() / 2 ? ` (${duration}ms)` : '';
    out(`${pad()}  ✓ ${test.title}${slow}`);
  });

  runner.on('pending', (test) => {
    skipped += 1;
    out(`${pad()}  - ${test.title} (skipped)`);
  });

  runner.on('fail', (runnable, err) => {
    failures.push({ title: runnable.fullTitle(), err });
    out(`${pad()}  ✗ ${failures.length}) ${runnable.title}`);
  });

  runner.once('end', () => {
    failures.forEach((f, i) => {
      out(`${i + 1}) ${f.title}`);
      out(
        describeError(f.err)
          .split('\n')
          .map((line) => `   ${line}`)
          .join('\n'),
      );
      out('');
    });
    if (passed + failures.length === 0) out('No tests ran.');
    const counts = `${passed} passed, ${failures.length} failed`;
    out(skipped > 0 ? `${counts}, ${skipped} skipped` : counts);
    if (summaryFile) {
      fs.writeFileSync(summaryFile, JSON.stringify({ passed, failed: failures.length, skipped }));
    }
  });
}

StockPulseReporter.description = 'per-test lines by suite, ending with "N passed, N failed"';

module.exports = StockPulseReporter;
