// Renders every determinism case in a process of its own and prints their sha256 as
// JSON. Arguments: `concurrent` (all at once), or the index of the case to render first.
import { renderAll } from './render-cases.ts';

const arg = process.argv[2];
const opts = arg === 'concurrent' ? { concurrent: true } : arg ? { first: Number(arg) } : {};
process.stdout.write(JSON.stringify(await renderAll(opts)));
