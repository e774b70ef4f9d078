import { describe, it } from 'vitest';
import type { OrderEvent } from '../../../../src/domain/order/events.ts';
import {
  a,
  at,
  b,
  batch as batchOf,
  iso,
  later,
  printed,
  received,
  ship,
  spec,
  stage,
  started,
} from './fixtures.ts';

/** item a needs the buyer's and then the shop's approval; b needs none */
const required: OrderEvent = {
  type: 'ApprovalRequired',
  data: {
    orderItemIds: [a.orderItemId],
    approvers: [{ role: 'buyer', name: 'Anna' }, { role: 'shop' }],
    finalApprover: 'shop',
    remindAfterHours: 24,
    requiredAt: iso,
  },
};
const pages = [{ page: 1, storageKey: 'k', sha256: 'p', width: 10, height: 10 }];
const proof = (version: number, sha: string): OrderEvent => ({
  type: 'ProofMade',
  data: {
    orderItemId: a.orderItemId,
    version,
    printFileSha256: sha,
    pages,
    approvers: [{ role: 'buyer', name: 'Anna' }, { role: 'shop' }],
    linksExpireAt: '2026-02-01T03:04:05.000Z',
    madeAt: iso,
  },
});
const rendered = [
  received,
  required,
  started,
  printed(a.orderItemId, 'aa'),
  printed(b.orderItemId, 'bb'),
];
const proofed = [...rendered, proof(1, 'aa')];
const decide = (approver: number, decision: 'approve' | 'reject', version?: number) => ({
  type: 'DecideProof' as const,
  orderItemId: a.orderItemId,
  decision,
  approver,
  via: 'link' as const,
  version,
  at,
});
const buyerApproved: OrderEvent = {
  type: 'ProofApproved',
  data: {
    orderItemId: a.orderItemId,
    by: { role: 'buyer', name: 'Anna', via: 'link' },
    version: 1,
    printFileSha256: 'aa',
    approvedAt: iso,
  },
};
const shopApproved: OrderEvent = {
  type: 'ProofApproved',
  data: {
    orderItemId: a.orderItemId,
    by: { role: 'shop', via: 'link' },
    version: 1,
    printFileSha256: 'aa',
    approvedAt: iso,
  },
};
const batch = batchOf();

describe('order decider: approvals', () => {
  it('records the approval rules with the order, for the items the policy names', () => {
    spec([])
      .when({
        type: 'ReceiveOrder',
        orderId: 'SHOP-1',
        labelId: received.type === 'OrderReceived' ? received.data.labelId : '',
        bodyHash: 'h',
        source: { channel: 'shop' },
        customer: null,
        items: [a, b],
        renderWithinMinutes: 30,
        print: received.type === 'OrderReceived' ? received.data.print : (undefined as never),
        shipWithinHours: 72,
        giftMessage: null,
        shipTo: null,
        shipToCountry: null,
        personalDataKey: null,
        approval: {
          orderItemIds: [a.orderItemId],
          approvers: [{ role: 'buyer', name: 'Anna' }, { role: 'shop' }],
          finalApprover: 'shop',
          remindAfterHours: 24,
        },
        at,
      })
      .thenEvents([received, required]);
  });

  it('draws a proof of the latest print file once, version by version', () => {
    const record = (sha: string) => ({
      type: 'RecordProof' as const,
      orderItemId: a.orderItemId,
      printFileSha256: sha,
      pages,
      at,
    });
    spec(rendered)
      .when(record('aa'))
      .thenEvents([proof(1, 'aa')]);
    // drawn twice (a reaction run again): once
    spec(proofed).when(record('aa')).thenEvents([]);
    // a proof of a file made over since is not recorded
    spec([...rendered, printed(a.orderItemId, 'a2')])
      .when(record('aa'))
      .thenEvents([]);
    // a new print file needs a new proof, the next version
    spec([...proofed, printed(a.orderItemId, 'a2')])
      .when(record('a2'))
      .thenEvents([proof(2, 'a2')]);
    spec(rendered)
      .when({ ...record('bb'), orderItemId: b.orderItemId })
      .thenFails('approval_not_required');
  });

  it('keeps the item off the shop floor until every approver approved, the final one last', () => {
    for (const when of [batch, stage(a.orderItemId, 'printed'), ship])
      spec(proofed).when(when).thenFails('awaiting_approval');
    spec(proofed).when(decide(1, 'approve')).thenFails('final_approver_last');
    spec(rendered).when(decide(0, 'approve')).thenFails('proof_not_ready');
    spec(proofed).when(decide(0, 'approve')).thenEvents([buyerApproved]);
    // the same approver again: nothing new (racing clicks)
    spec([...proofed, buyerApproved])
      .when(decide(0, 'approve'))
      .thenEvents([]);
    spec([...proofed, buyerApproved])
      .when(batch)
      .thenFails('awaiting_approval');
    // the last approval of the order's last waiting item lets the order go
    spec([...proofed, buyerApproved])
      .when(decide(1, 'approve', 1))
      .thenEvents([shopApproved, { type: 'OrderApproved', data: { approvedAt: iso } }]);
    spec([...proofed, buyerApproved, shopApproved])
      .when(batch)
      .thenEvents([
        {
          type: 'OrderItemBatched',
          data: { orderItemId: a.orderItemId, batchId: batch.batchId, batchedAt: iso },
        },
      ]);
    spec([...proofed, buyerApproved, shopApproved])
      .when(decide(1, 'approve'))
      .thenEvents([]);
    spec(proofed).when(decide(7, 'approve')).thenFails('not_an_approver');
    spec(proofed)
      .when(decide(0, 'approve', 2))
      .thenFails('proof_superseded');
  });

  it('sends the proof back on one rejection, with its comment and pins', () => {
    const pins = [{ page: 1, xMm: 10, yMm: 20, text: 'typo' }];
    const rejected: OrderEvent = {
      type: 'ProofRejected',
      data: {
        orderItemId: a.orderItemId,
        by: { role: 'buyer', name: 'Anna', via: 'link' },
        version: 1,
        printFileSha256: 'aa',
        comment: 'wrong name',
        pins,
        rejectedAt: iso,
      },
    };
    spec([...proofed, buyerApproved])
      .when({ ...decide(0, 'reject'), comment: 'wrong name', pins })
      .thenEvents([rejected]);
    spec([...proofed, rejected])
      .when(decide(1, 'approve'))
      .thenFails('proof_rejected');
    spec([...proofed, rejected])
      .when(batch)
      .thenFails('awaiting_approval');
    // a new print file (a revision) asks again
    spec([...proofed, rejected, printed(a.orderItemId, 'a2'), proof(2, 'a2')])
      .when(decide(0, 'approve'))
      .thenEvents([
        {
          type: 'ProofApproved',
          data: { ...(buyerApproved.data as object), version: 2, printFileSha256: 'a2' } as never,
        },
      ]);
  });

  it('lets the operator waive it, and starts the ship-by clock when the last item is let go', () => {
    const waived: OrderEvent = {
      type: 'ApprovalWaived',
      data: {
        orderItemId: a.orderItemId,
        by: 'operator',
        reason: 'phoned',
        waivedAt: later(60 * 24).toISOString(),
      },
    };
    const approvedThen: OrderEvent = {
      type: 'OrderApproved',
      data: { approvedAt: later(60 * 24).toISOString() },
    };
    spec(proofed)
      .when({
        type: 'WaiveApproval',
        orderItemId: a.orderItemId,
        by: 'operator',
        reason: 'phoned',
        at: later(60 * 24),
      })
      .thenEvents([waived, approvedThen]);
    spec([...proofed, waived, approvedThen])
      .when({ type: 'WaiveApproval', orderItemId: a.orderItemId, by: 'operator', reason: 'x', at })
      .thenEvents([]);
    // not late while it waits, however long
    spec(proofed)
      .when({ type: 'MarkLate', at: later(60 * 24 * 30) })
      .thenEvents([]);
    // 72 hours from the waiver a day in: not late at 80 h, late at 97 h
    spec([...proofed, waived, approvedThen])
      .when({ type: 'MarkLate', at: later(80 * 60) })
      .thenEvents([]);
    spec([...proofed, waived, approvedThen])
      .when({ type: 'MarkLate', at: later(97 * 60) })
      .thenEvents([
        {
          type: 'OrderWentLate',
          data: { shipBy: later(96 * 60).toISOString(), noticedAt: later(97 * 60).toISOString() },
        },
      ]);
  });

  it('reminds the approvers once a version, and expires a proof past its time, cancelling an order with nothing left', () => {
    const timed: OrderEvent = {
      type: 'ApprovalRequired',
      data: { ...(required.data as object), expireAfterHours: 72 } as never,
    };
    const only = [
      received,
      timed,
      started,
      printed(a.orderItemId, 'aa'),
      printed(b.orderItemId, 'bb'),
      proof(1, 'aa'),
    ];
    const watch = (hours: number) => ({ type: 'WatchApprovals' as const, at: later(hours * 60) });
    spec(only).when(watch(23)).thenEvents([]);
    const reminded: OrderEvent = {
      type: 'ProofReminded',
      data: {
        orderItemId: a.orderItemId,
        version: 1,
        pending: [
          { role: 'buyer', name: 'Anna', approver: 0 },
          { role: 'shop', approver: 1 },
        ],
        linksExpireAt: later(72 * 60).toISOString(),
        remindedAt: later(25 * 60).toISOString(),
      },
    };
    spec(only).when(watch(25)).thenEvents([reminded]);
    spec([...only, reminded])
      .when(watch(26))
      .thenEvents([]);
    const expired: OrderEvent = {
      type: 'ProofExpired',
      data: { orderItemId: a.orderItemId, version: 1, expiredAt: later(73 * 60).toISOString() },
    };
    // b needs no approval: the order goes on with it
    spec([...only, reminded])
      .when(watch(73))
      .thenEvents([expired]);
    spec([...only, expired])
      .when(decide(0, 'approve'))
      .thenFails('proof_expired');
    spec([...only, expired])
      .when(watch(80))
      .thenEvents([]);
  });
});
