import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FilesystemStorage } from '../../src/storage/filesystem.ts';
import { storageContract } from './storage.contract.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'storage-'));
storageContract('filesystem', (prefix) => FilesystemStorage.open(path.join(root, prefix)));
