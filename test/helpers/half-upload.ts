import { type ClientRequest, request } from 'node:http';

/**
 * A data set upload that sends 2 MB of the 10 MB it announces and goes no further: the
 * caller cuts it off (`destroy`) or kills the server under it. Errors of the request are
 * expected and ignored.
 */
export function halfUpload(baseUrl: string, adminKey: string): ClientRequest {
  const url = new URL(`${baseUrl}/api/datasets`);
  const req = request({
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    method: 'POST',
    headers: {
      'x-api-key': adminKey,
      'content-type': 'text/csv',
      'content-length': String(10 * 1024 * 1024),
    },
  });
  req.on('error', () => {});
  req.write(`name\n${'y\n'.repeat(1024 * 1024)}`);
  return req;
}
