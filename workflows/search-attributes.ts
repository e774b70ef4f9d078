import { defineSearchAttributeKey } from '@temporalio/common';

/**
 * What an order's workflow can be found by in Temporal's UI and list API. Registered on
 * the embedded dev server at its start and by the worker on a server it is pointed at.
 */
export const ORDER_ID = defineSearchAttributeKey('OrderId', 'KEYWORD');
export const LABEL_ID = defineSearchAttributeKey('LabelId', 'KEYWORD');
export const ORDER_STATUS = defineSearchAttributeKey('OrderStatus', 'KEYWORD');

export const SEARCH_ATTRIBUTES = [ORDER_ID, LABEL_ID, ORDER_STATUS];
