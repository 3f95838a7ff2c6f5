import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { SERVER_NODE_FLAGS } from './nodeFlags.ts';

/** The npm scripts of package.json. */
function npmScripts(): Record<string, string> {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    scripts: Record<string, string>;
  };
  return pkg.scripts;
}

describe("the server's Node.js flags", function () {
  it('are passed by npm start to the server entry point', function () {
    const server = npmScripts()
      .start!.split('&&')
      .find((part) => part.includes('scripts/start.ts'));
    expect(server, 'npm start runs scripts/start.ts').to.be.a('string');
    for (const flag of SERVER_NODE_FLAGS) expect(server!.split(/\s+/)).to.include(flag);
  });

  it('are passed by npm run bench, whose engine benchmarks run the engine in its own process', function () {
    for (const flag of SERVER_NODE_FLAGS) expect(npmScripts().bench!.split(/\s+/)).to.include(flag);
  });

  it('are accepted by this Node.js through tsx, as npm start runs it', function () {
    this.timeout(30_000);
    const tsx = new URL('../node_modules/tsx/dist/cli.mjs', import.meta.url).pathname;
    const seen = execFileSync(
      process.execPath,
      [tsx, ...SERVER_NODE_FLAGS, '--eval', 'process.stdout.write(JSON.stringify(process.execArgv))'],
      { encoding: 'utf8' },
    );
    expect(JSON.parse(seen)).to.include.members([...SERVER_NODE_FLAGS]);
  });
});
