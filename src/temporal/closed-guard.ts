import { InterceptingCall, type Interceptor, Metadata, status } from '@grpc/grpc-js';
import { defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';

/**
 * The Temporal client's gRPC interceptors, with a guard beneath the SDK's retry one.
 * The SDK retries a failed call on a timer that closing the connection does not clear;
 * a retry firing after the close throws "Channel has been shut down" from inside the
 * timer, where nothing can catch it, and the process dies (a stop while Temporal is
 * unreachable). Past `close()`, the guard answers each attempt UNAVAILABLE instead of
 * reaching the closed channel, so the call ends with an error its caller handles.
 */
export function closableInterceptors(): { interceptors: Interceptor[]; close(): void } {
  let closed = false;
  const guard: Interceptor = (options, nextCall) =>
    closed ? new InterceptingCall(refusedCall()) : new InterceptingCall(nextCall(options));
  return {
    interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions()), guard],
    close() {
      closed = true;
    },
  };
}

/** grpc-js does not export the interface an InterceptingCall wraps; its constructor names it */
type InnerCall = ConstructorParameters<typeof InterceptingCall>[0];

function refusedCall(): InnerCall {
  return {
    start(_metadata, listener) {
      setImmediate(() =>
        listener?.onReceiveStatus?.({
          code: status.UNAVAILABLE,
          details: 'the Temporal connection is closed',
          metadata: new Metadata(),
        }),
      );
    },
    cancelWithStatus() {},
    getPeer: () => '',
    sendMessageWithContext() {},
    sendMessage() {},
    startRead() {},
    halfClose() {},
    getAuthContext: () => null,
  };
}
