import { describe, expect, it } from 'vitest';
import { allProjections } from '../../projections/index.ts';
import { previewsReactor } from '../../src/reactions/previews.ts';
import { workflowStartsReactor } from '../../src/reactions/workflow-starts.ts';

// Projections and reactors keep their checkpoints in one table, by name: two with the
// same name would move each other's checkpoint and skip events.
describe('subscription names', () => {
  it('are unique across projections and reactors', () => {
    // biome-ignore lint/suspicious/noExplicitAny: only the names are read; no dependency is called
    const none = undefined as any;
    const names = [
      ...allProjections.map((p) => p.name),
      workflowStartsReactor(none, none).name,
      previewsReactor(none, none).name,
    ];
    expect(new Set(names).size).toBe(names.length);
  });
});
