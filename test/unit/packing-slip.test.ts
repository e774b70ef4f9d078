import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderPackingSlip } from '../../src/print/packing-slip.ts';
import { decodeBarcodes } from '../helpers/pdf.ts';

const slip = (orderId: string, giftMessage: string | null = null) =>
  renderPackingSlip({
    orderId,
    receivedAt: '2026-11-26T10:00:00.000Z',
    size: 'A4',
    logo: undefined,
    returnAddress: ['Print & Co'],
    message: null,
    giftMessage,
    items: [{ itemId: 'i1', sku: 'S-1', quantity: 1, thumbnail: undefined }],
  });

/** The slip's text as poppler extracts it (a reader's view, bidi applied). */
function textOf(pdf: Uint8Array): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'slip-'));
  try {
    writeFileSync(path.join(dir, 's.pdf'), pdf);
    return execFileSync('pdftotext', ['-enc', 'UTF-8', path.join(dir, 's.pdf'), '-'], {
      encoding: 'utf8',
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('packing slips', () => {
  it('carries any order id in a code that scans: Code 128 for a short one, QR for a long or non-ASCII one', async () => {
    const ids = ['SHOP-1001', `Bestellung-Äpfel-日本-${'x'.repeat(30)}`, 'L'.repeat(128)];
    for (const id of ids) expect(decodeBarcodes(await slip(id))[0], id).toEqual([id]);
  });

  it('drops bidi controls from the customer text and never cuts a word inside a grapheme', async () => {
    const pdf = await slip('SHOP-1', `Hello \u202Edlrow\u202C ${'e\u0301'.repeat(90)}`);
    const text = textOf(pdf);
    expect(text).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
    expect(text).toContain('Hello dlrow');
    // every line of the long word holds whole "é" (e + combining acute), none split
    const lines = text.split('\n').filter((l) => l.includes('e\u0301') || l.includes('\u0301'));
    expect(lines.length).toBeGreaterThan(1);
    for (const l of lines) expect(l.trim()).toMatch(/^(e\u0301)+$/);
  });
});
