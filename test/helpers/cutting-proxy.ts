import net from 'node:net';

/**
 * A TCP proxy that passes everything on until a connection has sent `limit` bytes, then
 * cuts it (both ends): a network that fails in the middle of an upload.
 */
export async function cuttingProxy(
  target: { host: string; port: number },
  limit: number,
): Promise<{ url: string; cuts(): number; close(): Promise<void> }> {
  let cuts = 0;
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    let sent = 0;
    client.on('data', (chunk) => {
      sent += chunk.length;
      if (sent > limit) {
        cuts++;
        client.destroy();
        upstream.destroy();
      } else upstream.write(chunk);
    });
    upstream.pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    cuts: () => cuts,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
