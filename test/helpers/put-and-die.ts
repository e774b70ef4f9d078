// A process that puts a large file into a folder store and is killed (by the test)
// while it writes: prints "writing" just before the put. Arguments: root, key, size.
import { FilesystemStorage } from '../../src/storage/filesystem.ts';

const [root, key, size] = process.argv.slice(2) as [string, string, string];
const bytes = Buffer.alloc(Number(size));
for (let i = 0; i < bytes.length; i += 512) bytes[i] = (i / 512) % 251;
const store = await FilesystemStorage.open(root);
console.log('writing');
await store.put(key, bytes);
console.log('written');
