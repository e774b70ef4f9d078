import { describe, it } from 'vitest';
import { labelDecider, partnerIdDecider } from '../../../src/domain/label/decider.ts';
import type { LabelEvent } from '../../../src/domain/label/events.ts';
import { specFor } from '../../helpers/decider-spec.ts';

const labelId = '22222222-2222-4222-8222-222222222222';
const key = (c: string) => ({ prefix: 'ep_adm_22222222', sha256: c.repeat(64) });
const at = new Date('2026-01-02T03:04:05.000Z');
const command = {
  type: 'CreateLabel' as const,
  labelId,
  name: 'Acme',
  partnerId: 7,
  adminKey: key('a'),
  fulfillmentKey: key('b'),
  at,
};
const created: LabelEvent = {
  type: 'LabelCreated',
  data: {
    labelId,
    name: 'Acme',
    partnerId: 7,
    adminKey: key('a'),
    fulfillmentKey: key('b'),
    createdAt: at.toISOString(),
  },
};

describe('label decider', () => {
  it('creates a label', () => specFor(labelDecider)([]).when(command).thenEvents([created]));
  it('refuses to create it twice', () =>
    specFor(labelDecider)([created]).when(command).thenFails('label_exists'));

  it('sets the ship-by deadline when it changes (72 hours until then)', () => {
    const set: LabelEvent = {
      type: 'LabelShipDeadlineSet',
      data: { labelId, shipWithinHours: 0, setAt: at.toISOString() },
    };
    specFor(labelDecider)([created])
      .when({ type: 'SetShipDeadline', shipWithinHours: 72, at })
      .thenEvents([]);
    specFor(labelDecider)([created])
      .when({ type: 'SetShipDeadline', shipWithinHours: 0, at })
      .thenEvents([set]);
    specFor(labelDecider)([created, set])
      .when({ type: 'SetShipDeadline', shipWithinHours: 0, at })
      .thenEvents([]);
  });

  it("records a label's share factor when it changes, nothing when it is the same", () => {
    const set: LabelEvent = {
      type: 'LabelShareSet',
      data: { labelId, factor: 4, setAt: at.toISOString() },
    };
    specFor(labelDecider)([created]).when({ type: 'SetShare', factor: 1, at }).thenEvents([]);
    specFor(labelDecider)([created]).when({ type: 'SetShare', factor: 4, at }).thenEvents([set]);
    specFor(labelDecider)([created, set]).when({ type: 'SetShare', factor: 4, at }).thenEvents([]);
    specFor(labelDecider)([])
      .when({ type: 'SetShare', factor: 4, at })
      .thenFails('label_not_found');
  });

  it('records the whole branding on each change, what was left out as it was', () => {
    const logo = { sha256: 'c'.repeat(64), width: 300, height: 100 };
    const first: LabelEvent = {
      type: 'LabelBrandingSet',
      data: {
        labelId,
        logo,
        returnAddress: [],
        message: null,
        slipSize: 'A4',
        setAt: at.toISOString(),
      },
    };
    specFor(labelDecider)([created])
      .when({ type: 'SetBranding', branding: { logo }, at })
      .thenEvents([first]);
    specFor(labelDecider)([created, first])
      .when({
        type: 'SetBranding',
        branding: { slipSize: 'A6', returnAddress: ['Acme', 'Main St 1'] },
        at,
      })
      .thenEvents([
        {
          type: 'LabelBrandingSet',
          data: { ...first.data, slipSize: 'A6', returnAddress: ['Acme', 'Main St 1'] },
        } as LabelEvent,
      ]);
    specFor(labelDecider)([created, first])
      .when({ type: 'SetBranding', branding: { logo }, at })
      .thenEvents([]);
  });
});

describe('partner id decider', () => {
  const reserve = { type: 'ReservePartnerId' as const, partnerId: 7, labelId };
  it('reserves a free partner id', () =>
    specFor(partnerIdDecider)([])
      .when(reserve)
      .thenEvents([{ type: 'PartnerIdReserved', data: { partnerId: 7, labelId } }]));
  it('refuses a taken partner id, even for another label', () =>
    specFor(partnerIdDecider)([{ type: 'PartnerIdReserved', data: { partnerId: 7, labelId: 'x' } }])
      .when({ ...reserve, labelId })
      .thenFails('partner_id_taken'));
});
