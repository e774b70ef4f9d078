import type { Aggregate, Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/decider.ts';
import type { Design } from './design.ts';
import { type ProjectEvent, projectEvents, projectStream } from './events.ts';

export interface ProjectContent {
  name: string;
  sku: string;
  supplier: string;
  design: Design;
}

export type ProjectCommand =
  | {
      type: 'CreateProject';
      projectId: string;
      labelId: string;
      userRef: string;
      content: ProjectContent;
      at: Date;
    }
  | { type: 'UpdateProject'; labelId: string; userRef: string; content: ProjectContent; at: Date }
  /** by the label's admin: no user check */
  | { type: 'DeleteProject'; labelId: string; at: Date };

export type ProjectState =
  | { status: 'none' }
  | {
      status: 'active' | 'deleted';
      projectId: string;
      labelId: string;
      userRef: string;
      content: ProjectContent;
    };

const notFound = () => new DomainError('not_found', 'project not found', 'project_not_found');

export const projectDecider: Decider<ProjectCommand, ProjectEvent, ProjectState> = {
  initialState: { status: 'none' },
  decide(command, state) {
    switch (command.type) {
      case 'CreateProject': {
        if (state.status !== 'none')
          throw new DomainError('conflict', 'project exists', 'project_exists');
        const { projectId, labelId, userRef, content, at } = command;
        return [
          {
            type: 'ProjectCreated',
            data: { projectId, labelId, userRef, ...content, createdAt: at.toISOString() },
          },
        ];
      }
      case 'UpdateProject': {
        // another user's project, or another label's, is "not found"
        if (
          state.status !== 'active' ||
          state.labelId !== command.labelId ||
          state.userRef !== command.userRef
        ) {
          throw notFound();
        }
        return [
          {
            type: 'ProjectUpdated',
            data: {
              projectId: state.projectId,
              ...command.content,
              updatedAt: command.at.toISOString(),
            },
          },
        ];
      }
      case 'DeleteProject': {
        if (state.status !== 'active' || state.labelId !== command.labelId) throw notFound();
        return [
          {
            type: 'ProjectDeleted',
            data: { projectId: state.projectId, deletedAt: command.at.toISOString() },
          },
        ];
      }
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'ProjectCreated': {
        const { projectId, labelId, userRef, name, sku, supplier, design } = event.data;
        return {
          status: 'active',
          projectId,
          labelId,
          userRef,
          content: { name, sku, supplier, design },
        };
      }
      case 'ProjectUpdated': {
        if (state.status === 'none') return state;
        const { name, sku, supplier, design } = event.data;
        return { ...state, content: { name, sku, supplier, design } };
      }
      case 'ProjectDeleted':
        return state.status === 'none' ? state : { ...state, status: 'deleted' };
    }
  },
};

export const projectAggregate: Aggregate<
  ProjectCommand,
  ProjectEvent,
  ProjectState,
  Parameters<typeof projectStream>
> = {
  events: projectEvents,
  decider: projectDecider,
  stream: projectStream,
};
