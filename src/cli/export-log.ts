// npm run audit:export -- FILE
// Writes every event of the log, in its global order, exactly as stored (the fields an
// audit leaf is made of), one JSON object a line: what `node scripts/verify-audit.mjs
// --log FILE` makes the audit tree of from scratch, to compare with a signed tree head.

import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { storedFacts } from '#projections/audit-tree';
import { ConfigError } from '../config.ts';
import { START } from '../eventstore/port.ts';
import { openConfigured } from './open-store.ts';

const PAGE = 1000;

async function main() {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: npm run audit:export -- FILE');
    process.exit(2);
  }
  const { db, store } = await openConfigured();
  const out = createWriteStream(file);
  let count = 0;
  try {
    for (let after = START; ; ) {
      const page = await store.readAll({ after, limit: PAGE });
      for (const e of page)
        if (!out.write(`${JSON.stringify(storedFacts(e))}\n`)) await once(out, 'drain');
      count += page.length;
      if (page.length < PAGE) break;
      after = page.at(-1)!.position;
    }
    out.end();
    await once(out, 'finish');
    console.log(`${count} events written to ${file}`);
  } finally {
    await store.close();
    await db.close();
  }
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
