import type { Aggregate, Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/decider.ts';
import { type DatasetEvent, datasetEvents, datasetStream } from './events.ts';

type Uploaded = Extract<DatasetEvent, { type: 'DatasetUploaded' }>['data'];
export type DatasetFacts = Omit<Uploaded, 'uploadedAt'>;

export type DatasetCommand =
  | { type: 'RecordDataset'; facts: DatasetFacts; at: Date }
  | { type: 'EraseDataset'; labelId: string; datasetId: string; at: Date };

export type DatasetState =
  | { status: 'none' }
  | { status: 'kept'; facts: DatasetFacts; uploadedAt: string }
  | { status: 'erased'; facts: DatasetFacts; uploadedAt: string; erasedAt: string };

const notFound = () => new DomainError('not_found', 'data set not found', 'dataset_not_found');

function recordDataset(
  command: Extract<DatasetCommand, { type: 'RecordDataset' }>,
  state: DatasetState,
): DatasetEvent[] {
  // a data set is recorded once, under a new id
  if (state.status !== 'none') return [];
  return [
    { type: 'DatasetUploaded', data: { ...command.facts, uploadedAt: command.at.toISOString() } },
  ];
}

function eraseDataset(
  command: Extract<DatasetCommand, { type: 'EraseDataset' }>,
  state: DatasetState,
): DatasetEvent[] {
  if (state.status === 'none') throw notFound();
  if (state.status === 'erased') return [];
  const { labelId, datasetId } = command;
  return [
    { type: 'DatasetErased', data: { labelId, datasetId, erasedAt: command.at.toISOString() } },
  ];
}

export const datasetDecider: Decider<DatasetCommand, DatasetEvent, DatasetState> = {
  initialState: { status: 'none' },
  decide(command, state) {
    switch (command.type) {
      case 'RecordDataset':
        return recordDataset(command, state);
      case 'EraseDataset':
        return eraseDataset(command, state);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'DatasetUploaded': {
        const { uploadedAt, ...facts } = event.data;
        return { status: 'kept', facts, uploadedAt };
      }
      case 'DatasetErased':
        return state.status === 'kept'
          ? { ...state, status: 'erased', erasedAt: event.data.erasedAt }
          : state;
    }
  },
};

export const datasetAggregate: Aggregate<
  DatasetCommand,
  DatasetEvent,
  DatasetState,
  Parameters<typeof datasetStream>
> = { events: datasetEvents, decider: datasetDecider, stream: datasetStream };
