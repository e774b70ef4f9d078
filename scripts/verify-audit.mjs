#!/usr/bin/env node
// Checks an order's audit bundle offline, with node:crypto only (no code of the service):
//   node scripts/verify-audit.mjs BUNDLE --public-keys KEYS [--earlier HEAD --consistency PROOF]
//   node scripts/verify-audit.mjs --log EXPORT [--head HEAD --public-keys KEYS]
// BUNDLE: GET /api/orders/{orderId}/audit-bundle saved as a file; KEYS: GET
// /api/audit/public-keys; HEAD: a signed tree head kept earlier; PROOF: GET
// /api/audit/consistency?from=<HEAD's size>&to=<the bundle head's size>.
// Exit 0: every event hashes to its leaf, every leaf proves into the head (RFC 9162), the
// head's signature holds (and, with --earlier, the head extends the earlier one, whose
// signature holds too). With --log, an export of the whole log (npm run audit:export):
// its tree made from scratch, its size and root printed, or checked against a signed
// head. Otherwise it names the first failure and exits 1.
import { createHash, createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';

const sha256 = (...parts) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};
const node = (l, r) => sha256(Buffer.of(1), l, r);
const same = (a, b) => Buffer.compare(a, b) === 0;
const half = (n) => Math.floor(n / 2);
const hex = (s) => Buffer.from(s, 'hex');

// an event's leaf: its seven fields as stored, each as its UTF-8 bytes after their
// length (4 bytes, big-endian); data and metadata as the JSON text the store keeps
const leafHash = (e) =>
  sha256(
    Buffer.of(0),
    ...[
      e.stream,
      String(e.revision),
      e.id,
      e.type,
      String(e.schemaVersion),
      JSON.stringify(e.data),
      JSON.stringify(e.metadata),
    ].flatMap((f) => {
      const bytes = Buffer.from(f, 'utf8');
      const length = Buffer.alloc(4);
      length.writeUInt32BE(bytes.length);
      return [length, bytes];
    }),
  );

// RFC 9162 2.1.1: the root of the leaves' hashes, from scratch
function rootOf(hashes) {
  if (hashes.length === 0) return sha256();
  if (hashes.length === 1) return hashes[0];
  let k = 1;
  while (k * 2 < hashes.length) k *= 2;
  return node(rootOf(hashes.slice(0, k)), rootOf(hashes.slice(k)));
}

// RFC 9162 2.1.3.2
function verifyInclusion(leaf, index, size, proof, root) {
  if (index >= size) return false;
  let [fn, sn, r] = [index, size - 1, leaf];
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = node(p, r);
      while (fn % 2 === 0 && fn !== 0) [fn, sn] = [half(fn), half(sn)];
    } else r = node(r, p);
    [fn, sn] = [half(fn), half(sn)];
  }
  return sn === 0 && same(r, root);
}

// RFC 9162 2.1.4.2
function verifyConsistency(first, second, proof, firstRoot, secondRoot) {
  if (first > second) return false;
  if (first === second) return proof.length === 0 && same(firstRoot, secondRoot);
  if (first === 0 || proof.length === 0) return first === 0 && proof.length === 0;
  const path = Number.isInteger(Math.log2(first)) ? [firstRoot, ...proof] : proof;
  let [fn, sn] = [first - 1, second - 1];
  while (fn % 2 === 1) [fn, sn] = [half(fn), half(sn)];
  let [fr, sr] = [path[0], path[0]];
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      [fr, sr] = [node(c, fr), node(c, sr)];
      while (fn % 2 === 0 && fn !== 0) [fn, sn] = [half(fn), half(sn)];
    } else sr = node(sr, c);
    [fn, sn] = [half(fn), half(sn)];
  }
  return sn === 0 && same(fr, firstRoot) && same(sr, secondRoot);
}

function checkSignature(head, keys, what) {
  const key = keys.find((k) => k.keyId === head.keyId);
  if (!key) return `${what} is signed by key ${head.keyId}, which the public keys do not list`;
  const message = `editor-platform tree head v1\n${head.treeSize}\n${head.rootHash}\n${head.timestamp}`;
  const publicKey = createPublicKey({
    key: Buffer.from(key.publicKey, 'base64'),
    format: 'der',
    type: 'spki',
  });
  return verify(null, Buffer.from(message), publicKey, Buffer.from(head.signature, 'base64'))
    ? undefined
    : `the signature of ${what} does not hold`;
}

const USAGE = `usage: verify-audit.mjs BUNDLE --public-keys KEYS [--earlier HEAD --consistency PROOF]
       verify-audit.mjs --log EXPORT [--head HEAD --public-keys KEYS]`;

function check(argv) {
  const opt = (name) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const read = (path) => JSON.parse(readFileSync(path, 'utf8'));
  const keysPath = opt('--public-keys');
  const keys = keysPath ? read(keysPath).keys : undefined;
  if (opt('--log')) return checkLog(opt('--log'), opt('--head'), keys);
  const bundlePath = argv[0];
  if (!bundlePath || bundlePath.startsWith('--') || !keys) return USAGE;
  const bundle = read(bundlePath);
  const head = bundle.treeHead;
  const signed = checkSignature(head, keys, `the bundle's tree head (size ${head.treeSize})`);
  if (signed) return signed;
  for (const e of bundle.events) {
    const proof = e.inclusionProof.map(hex);
    if (!verifyInclusion(leafHash(e.event), e.leafIndex, head.treeSize, proof, hex(head.rootHash)))
      return `event ${e.event.id} (${e.event.type}, ${e.event.stream} revision ${e.event.revision}) does not prove into the tree head at leaf ${e.leafIndex}`;
  }
  const earlierPath = opt('--earlier');
  if (earlierPath) {
    const earlier = read(earlierPath);
    const proofPath = opt('--consistency');
    if (!proofPath) return '--earlier needs --consistency PROOF';
    const earlierSigned = checkSignature(
      earlier,
      keys,
      `the earlier tree head (size ${earlier.treeSize})`,
    );
    if (earlierSigned) return earlierSigned;
    const ok = verifyConsistency(
      earlier.treeSize,
      head.treeSize,
      read(proofPath).proof.map(hex),
      hex(earlier.rootHash),
      hex(head.rootHash),
    );
    if (!ok)
      return `the tree head of size ${head.treeSize} does not extend the earlier one of size ${earlier.treeSize}: the log was changed between them`;
  }
  console.log('OK: every event proves into the signed tree head');
  return undefined;
}

// an export of the log (one event as stored per line, in the log's order): its tree made
// from scratch, and with a signed head, whether its first events make the head's root
function checkLog(exportPath, headPath, keys) {
  const hashes = readFileSync(exportPath, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => leafHash(JSON.parse(line)));
  if (!headPath) {
    console.log(`${hashes.length} events, root ${rootOf(hashes).toString('hex')}`);
    return undefined;
  }
  if (!keys) return USAGE;
  const head = JSON.parse(readFileSync(headPath, 'utf8'));
  const signed = checkSignature(head, keys, `the tree head (size ${head.treeSize})`);
  if (signed) return signed;
  if (hashes.length < head.treeSize)
    return `the export holds ${hashes.length} events, the tree head ${head.treeSize}`;
  if (!same(rootOf(hashes.slice(0, head.treeSize)), hex(head.rootHash)))
    return `the first ${head.treeSize} events of the export do not make the tree head's root: the log was changed since it was signed`;
  console.log(
    `OK: the first ${head.treeSize} events of the export make the signed tree head's root`,
  );
  return undefined;
}

const failure = check(process.argv.slice(2));
if (failure) {
  console.error(`FAILED: ${failure}`);
  process.exit(1);
}
