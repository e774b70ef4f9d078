import { z } from 'zod';
import { defineEvent, type EventOf, EventRegistry } from '../shared/events.ts';
import { storedDesignSchema as designSchema } from './design.ts';

const content = { name: z.string(), sku: z.string(), supplier: z.string(), design: designSchema };

export const ProjectCreated = defineEvent(
  'ProjectCreated',
  1,
  z.object({
    projectId: z.uuid(),
    labelId: z.uuid(),
    userRef: z.uuid(),
    ...content,
    createdAt: z.iso.datetime(),
  }),
);
export const ProjectUpdated = defineEvent(
  'ProjectUpdated',
  1,
  z.object({ projectId: z.uuid(), ...content, updatedAt: z.iso.datetime() }),
);
export const ProjectDeleted = defineEvent(
  'ProjectDeleted',
  1,
  z.object({ projectId: z.uuid(), deletedAt: z.iso.datetime() }),
);

export type ProjectEvent =
  | EventOf<typeof ProjectCreated>
  | EventOf<typeof ProjectUpdated>
  | EventOf<typeof ProjectDeleted>;
export const projectEvents = new EventRegistry<ProjectEvent>([
  ProjectCreated,
  ProjectUpdated,
  ProjectDeleted,
]);
export const projectStream = (projectId: string) => `Project-${projectId}`;
