import { Context } from '@temporalio/activity';

/**
 * Tells Temporal the activity is alive, so a worker that died is noticed within the heartbeat
 * timeout.
 */
export function beat(): void {
  try {
    Context.current().heartbeat();
  } catch {
    // called outside an activity (directly, in tests): nobody to tell
  }
}
