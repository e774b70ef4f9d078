import type { Aggregate, Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/decider.ts';
import {
  type MockupTemplateEvent,
  mockupTemplateEvents,
  mockupTemplateStream,
  type TemplateContent,
} from './events.ts';

export type MockupTemplateCommand =
  | {
      type: 'SetMockupTemplate';
      labelId: string;
      templateId: string;
      content: TemplateContent;
      at: Date;
    }
  | { type: 'DeleteMockupTemplate'; labelId: string; templateId: string; at: Date };

export type MockupTemplateState = {
  /** the last revision recorded (deleted ones count: a template set again goes on from it) */
  revision: number;
  content: TemplateContent | undefined;
};

const same = (a: TemplateContent, b: TemplateContent) => JSON.stringify(a) === JSON.stringify(b);

export const mockupTemplateDecider: Decider<
  MockupTemplateCommand,
  MockupTemplateEvent,
  MockupTemplateState
> = {
  initialState: { revision: 0, content: undefined },
  decide(command, state) {
    const { labelId, templateId } = command;
    const at = command.at.toISOString();
    switch (command.type) {
      case 'SetMockupTemplate':
        // the same template again is no change: its mockups stay those of its revision
        if (state.content && same(state.content, command.content)) return [];
        return [
          {
            type: 'MockupTemplateSet',
            data: {
              labelId,
              templateId,
              ...command.content,
              revision: state.revision + 1,
              setAt: at,
            },
          },
        ];
      case 'DeleteMockupTemplate':
        if (!state.content)
          throw new DomainError('not_found', 'mockup template not found', 'template_not_found');
        return [{ type: 'MockupTemplateDeleted', data: { labelId, templateId, deletedAt: at } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'MockupTemplateSet': {
        const { match, photo, areas } = event.data;
        return { revision: event.data.revision, content: { match, photo, areas } };
      }
      case 'MockupTemplateDeleted':
        return { ...state, content: undefined };
    }
  },
};

export const mockupTemplateAggregate: Aggregate<
  MockupTemplateCommand,
  MockupTemplateEvent,
  MockupTemplateState,
  Parameters<typeof mockupTemplateStream>
> = {
  events: mockupTemplateEvents,
  decider: mockupTemplateDecider,
  stream: mockupTemplateStream,
};
