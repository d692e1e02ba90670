/**
 * CRC-32C (Castagnoli), as Kafka's RecordBatch v2 uses it. Slicing-by-8 tables, integer
 * maths only (segments are megabytes, so the byte-at-a-time loop was too slow).
 *
 * `crc32cUpdate` works on the raw register (no initial value or final xor), so a caller
 * can feed bytes as it writes them; `crc32cSkip` moves the register over a block whose own
 * raw CRC is known, in four table look-ups whatever the block's length. CRC is affine in
 * its input: reg(S || B) = zeros_|B|(reg(S)) xor reg0(B), where zeros_n is the linear map of
 * feeding n zero bytes. The encoder uses it for the record values' common filler.
 */
const T: Uint32Array[] = (() => {
  const tables = Array.from({ length: 8 }, () => new Uint32Array(256));
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    tables[0][n] = c >>> 0;
  }
  for (let n = 0; n < 256; n++) {
    for (let t = 1; t < 8; t++) tables[t][n] = (tables[t - 1][n] >>> 8) ^ tables[0][tables[t - 1][n] & 0xff];
  }
  return tables;
})();

/** Feeds bytes[start, end) to a raw CRC-32C register and returns the new register. */
export function crc32cUpdate(reg: number, bytes: Uint8Array, start = 0, end = bytes.length): number {
  const [t0, t1, t2, t3, t4, t5, t6, t7] = T;
  let crc = reg;
  let i = start;
  for (; i + 8 <= end; i += 8) {
    crc ^= bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24);
    crc =
      t7[crc & 0xff] ^ t6[(crc >>> 8) & 0xff] ^ t5[(crc >>> 16) & 0xff] ^ t4[crc >>> 24] ^
      t3[bytes[i + 4]] ^ t2[bytes[i + 5]] ^ t1[bytes[i + 6]] ^ t0[bytes[i + 7]];
  }
  for (; i < end; i++) crc = t0[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return crc >>> 0;
}

export function crc32c(bytes: Uint8Array, start = 0, end = bytes.length): number {
  return (crc32cUpdate(0xffffffff, bytes, start, end) ^ 0xffffffff) >>> 0;
}

/** A block of fixed bytes to skip over: its raw CRC from a zero register and the zeros map by bytes. */
export interface CrcSkip {
  raw: number;
  /** zeros_n of each byte of the register, by byte position: 4 x 256 entries. */
  map: Uint32Array;
}

/** Prepares skipping over `block` (its bytes are fixed, its length any). */
export function crc32cSkipOf(block: Uint8Array): CrcSkip {
  const n = block.length;
  const t0 = T[0];
  // zeros_n of each of the 32 basis bits, by feeding n zero bytes.
  const basis = new Uint32Array(32);
  for (let b = 0; b < 32; b++) {
    let c = (1 << b) >>> 0;
    for (let i = 0; i < n; i++) c = t0[c & 0xff] ^ (c >>> 8);
    basis[b] = c >>> 0;
  }
  const map = new Uint32Array(1024);
  for (let byte = 0; byte < 4; byte++) {
    for (let v = 1; v < 256; v++) {
      const low = v & -v;
      const bit = 31 - Math.clz32(low);
      map[byte * 256 + v] = map[byte * 256 + (v ^ low)] ^ basis[byte * 8 + bit];
    }
  }
  return { raw: crc32cUpdate(0, block), map };
}

/** The register after feeding the skip's block. */
export function crc32cSkip(reg: number, s: CrcSkip): number {
  const m = s.map;
  return (m[reg & 0xff] ^ m[256 + ((reg >>> 8) & 0xff)] ^ m[512 + ((reg >>> 16) & 0xff)] ^ m[768 + (reg >>> 24)] ^ s.raw) >>> 0;
}
