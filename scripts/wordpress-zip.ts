// `npm run wordpress:zip`: integrations/wordpress/svc/ as dist/svc-wordpress.zip, the file
// WordPress's Plugins → Add New → Upload Plugin takes (one top folder, `svc/`).
// Dependency-free: Node has deflate (zlib) but no zip writer, and the `zip` CLI is not on every
// machine, so this writes the format itself (APPNOTE 6.3: local headers, central directory, end
// record; deflated entries, no zip64, no extra fields). Entries are sorted and dated 1980-01-01, so
// the same plugin always makes the same bytes.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateRawSync } from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

export function crc32(data: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of data) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Files under `dir` (dot files left out), as zip paths below `prefix`, sorted. */
export function pluginFiles(dir: string, prefix: string): { name: string; file: string }[] {
  const out: { name: string; file: string }[] = [];
  const walk = (at: string, rel: string) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const file = path.join(at, entry.name);
      if (entry.isDirectory()) walk(file, `${rel}${entry.name}/`);
      else if (entry.isFile()) out.push({ name: `${rel}${entry.name}`, file });
    }
  };
  walk(dir, prefix);
  return out.sort((a, b) => (a.name < b.name ? -1 : 1));
}

const DOS_DATE_1980_01_01 = (0 << 9) | (1 << 5) | 1;

export function zip(entries: { name: string; data: Buffer }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const { name, data } of entries) {
    const nameBytes = Buffer.from(name, 'utf8');
    const packed = deflateRawSync(data, { level: 9 });
    const crc = crc32(data);
    // Shared by the local header (from offset 4) and the central one (from offset 6).
    const common = Buffer.alloc(26);
    common.writeUInt16LE(20, 0); // version needed: 2.0 (deflate)
    common.writeUInt16LE(0x0800, 2); // flags: UTF-8 names
    common.writeUInt16LE(8, 4); // method: deflate
    common.writeUInt16LE(0, 6); // time 00:00
    common.writeUInt16LE(DOS_DATE_1980_01_01, 8);
    common.writeUInt32LE(crc, 10);
    common.writeUInt32LE(packed.length, 14);
    common.writeUInt32LE(data.length, 18);
    common.writeUInt16LE(nameBytes.length, 22);
    common.writeUInt16LE(0, 24); // extra field length
    const local = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), common, nameBytes, packed]);
    const tail = Buffer.alloc(14);
    tail.writeUInt16LE(0, 0); // comment length
    tail.writeUInt16LE(0, 2); // disk number
    tail.writeUInt16LE(0, 4); // internal attributes
    tail.writeUInt32LE((0o100644 << 16) >>> 0, 6); // external: a regular file, rw-r--r--
    tail.writeUInt32LE(offset, 10);
    const madeBy = Buffer.alloc(2);
    madeBy.writeUInt16LE((3 << 8) | 20, 0); // Unix, 2.0
    centrals.push(Buffer.concat([Buffer.from([0x50, 0x4b, 0x01, 0x02]), madeBy, common, tail, nameBytes]));
    locals.push(local);
    offset += local.length;
  }
  const central = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(central.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, central, end]);
}

export function buildPluginZip(pluginDir: string, out: string): string[] {
  const files = pluginFiles(pluginDir, 'svc/');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, zip(files.map(({ name, file }) => ({ name, data: fs.readFileSync(file) }))));
  return files.map((f) => f.name);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const out = path.join(root, 'dist', 'svc-wordpress.zip');
  const names = buildPluginZip(path.join(root, 'integrations', 'wordpress', 'svc'), out);
  console.log(`${path.relative(root, out)}: ${names.length} files`);
}
