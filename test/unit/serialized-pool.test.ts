import { describe, expect, it } from 'vitest';
import { endsTx, startsTx } from '../../src/db/serialized-pool.ts';

describe('transaction boundaries the embedded database pool tracks', () => {
  it('sees a transaction start', () => {
    for (const sql of [
      'BEGIN',
      '  begin',
      'START TRANSACTION',
      'BEGIN ISOLATION LEVEL SERIALIZABLE',
    ])
      expect(startsTx(sql), sql).toBe(true);
    expect(startsTx('SELECT 1')).toBe(false);
  });

  it('sees a transaction end', () => {
    for (const sql of [
      'COMMIT',
      'ROLLBACK',
      'rollback',
      'END',
      'ABORT',
      'ROLLBACK WORK',
      'ROLLBACK TRANSACTION',
    ])
      expect(endsTx(sql), sql).toBe(true);
  });

  it('does not take a rollback to a savepoint for the end of the transaction', () => {
    for (const sql of [
      'ROLLBACK TO SAVEPOINT one_event',
      'rollback to one_event',
      'ROLLBACK WORK TO SAVEPOINT x',
      'ROLLBACK TRANSACTION TO x',
      'RELEASE SAVEPOINT one_event',
      'SAVEPOINT one_event',
    ])
      expect(endsTx(sql), sql).toBe(false);
  });
});
