/**
 * The zod every contract module builds its schemas with. In a browser it runs without compiling parsers at run
 * time (`jitless`): the web app's Content-Security-Policy refuses `new Function`, and even zod's probe for it is
 * reported as a violation. It must be set before the first schema is built, so the contract modules import `z`
 * from here, first.
 */
import { z } from 'zod';

if ('document' in globalThis) z.config({ jitless: true });

export { z };
