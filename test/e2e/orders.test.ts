import { saleNotificationSuite } from './orders.suite.ts';

saleNotificationSuite('files under DATA_DIR');
