// A bzip2 decompressor: what Python's bz2 module writes, back to bytes (window.arenaBunzip2).
// The replay viewer's data for a long game comes this way (arena/site/frames.py, pack): on that
// data bzip2 is 45% smaller than the deflate a browser could inflate by itself. No checksums are
// verified; a damaged stream throws, or its text fails to parse as JSON.
(function (global) {
  "use strict";
  var MAX_CODE_LEN = 23;

  function Bits(bytes) { this.bytes = bytes; this.pos = 0; this.bit = 0; }
  // The next n bits (n <= 24), most significant first.
  Bits.prototype.read = function (n) {
    var value = 0;
    while (n > 0) {
      if (this.pos >= this.bytes.length) throw new Error("bzip2: the data ends too soon");
      var left = 8 - this.bit;
      var take = n < left ? n : left;
      value = (value << take) | ((this.bytes[this.pos] >> (left - take)) & ((1 << take) - 1));
      this.bit += take;
      n -= take;
      if (this.bit === 8) { this.bit = 0; this.pos++; }
    }
    return value;
  };

  // The decoding tables of one Huffman code (bzip2's BZ2_hbCreateDecodeTables).
  function table(lengths, alphaSize) {
    var minLen = 32, maxLen = 0, i, j;
    for (i = 0; i < alphaSize; i++) {
      if (lengths[i] > maxLen) maxLen = lengths[i];
      if (lengths[i] < minLen) minLen = lengths[i];
    }
    var perm = new Int32Array(alphaSize), pp = 0;
    for (i = minLen; i <= maxLen; i++) {
      for (j = 0; j < alphaSize; j++) if (lengths[j] === i) perm[pp++] = j;
    }
    var base = new Int32Array(MAX_CODE_LEN + 1), limit = new Int32Array(MAX_CODE_LEN + 1);
    for (i = 0; i < alphaSize; i++) base[lengths[i] + 1]++;
    for (i = 1; i <= MAX_CODE_LEN; i++) base[i] += base[i - 1];
    var vec = 0;
    for (i = minLen; i <= maxLen; i++) {
      vec += base[i + 1] - base[i];
      limit[i] = vec - 1;
      vec <<= 1;
    }
    for (i = minLen + 1; i <= maxLen; i++) base[i] = ((limit[i - 1] + 1) << 1) - base[i];
    return { minLen: minLen, limit: limit, base: base, perm: perm };
  }

  function decodeSymbol(bits, t) {
    var n = t.minLen, code = bits.read(n);
    while (code > t.limit[n]) {
      if (++n > 20) throw new Error("bzip2: bad Huffman code");
      code = (code << 1) | bits.read(1);
    }
    return t.perm[code - t.base[n]];
  }

  // One block: its bytes appended to out (an object { bytes, length } that grows).
  function block(bits, blockSize, out) {
    bits.read(16); bits.read(16);  // the block's CRC
    if (bits.read(1)) throw new Error("bzip2: randomised blocks are not supported");
    var origPtr = bits.read(24);
    var used = bits.read(16), seqToUnseq = [], i, j;
    for (i = 0; i < 16; i++) {
      if (used & (0x8000 >> i)) {
        var sub = bits.read(16);
        for (j = 0; j < 16; j++) if (sub & (0x8000 >> j)) seqToUnseq.push(i * 16 + j);
      }
    }
    var nInUse = seqToUnseq.length, alphaSize = nInUse + 2;
    var nGroups = bits.read(3), nSelectors = bits.read(15);
    if (nGroups < 2 || nGroups > 6 || nSelectors < 1) throw new Error("bzip2: bad block header");
    var order = [], selectors = new Uint8Array(nSelectors);
    for (i = 0; i < nGroups; i++) order.push(i);
    for (i = 0; i < nSelectors; i++) {
      j = 0;
      while (bits.read(1)) if (++j >= nGroups) throw new Error("bzip2: bad selector");
      var g = order[j];
      order.splice(j, 1);
      order.unshift(g);
      selectors[i] = g;
    }
    var tables = [];
    for (var t = 0; t < nGroups; t++) {
      var lengths = new Int32Array(alphaSize), len = bits.read(5);
      for (i = 0; i < alphaSize; i++) {
        for (;;) {
          if (len < 1 || len > 20) throw new Error("bzip2: bad code length");
          if (!bits.read(1)) break;
          len += bits.read(1) ? -1 : 1;
        }
        lengths[i] = len;
      }
      tables.push(table(lengths, alphaSize));
    }
    // Huffman, then run lengths of the front symbol (RUNA, RUNB) and move-to-front.
    var eob = nInUse + 1, mtf = [], counts = new Int32Array(256);
    for (i = 0; i < nInUse; i++) mtf.push(i);
    var tt = new Int32Array(blockSize), n = 0, group = -1, left = 0, current = null;
    function next() {
      if (left === 0) {
        if (++group >= nSelectors) throw new Error("bzip2: too few selectors");
        left = 50;
        current = tables[selectors[group]];
      }
      left--;
      return decodeSymbol(bits, current);
    }
    var sym = next(), uc;
    while (sym !== eob) {
      if (sym <= 1) {
        var run = -1, weight = 1;
        do {
          run += (sym + 1) * weight;
          weight *= 2;
          sym = next();
        } while (sym <= 1);
        run++;
        uc = seqToUnseq[mtf[0]];
        counts[uc] += run;
        if (n + run > blockSize) throw new Error("bzip2: block too long");
        while (run-- > 0) tt[n++] = uc;
      } else {
        var k = mtf[sym - 1];
        mtf.splice(sym - 1, 1);
        mtf.unshift(k);
        uc = seqToUnseq[k];
        counts[uc]++;
        if (n >= blockSize) throw new Error("bzip2: block too long");
        tt[n++] = uc;
        sym = next();
      }
    }
    if (origPtr >= n && n > 0) throw new Error("bzip2: bad origin pointer");
    // The inverse Burrows-Wheeler transform, then the first stage's runs (4 equal bytes and
    // a count of more).
    var start = new Int32Array(256), sum = 0;
    for (i = 0; i < 256; i++) { start[i] = sum; sum += counts[i]; }
    for (i = 0; i < n; i++) { uc = tt[i] & 0xff; tt[start[uc]] |= i << 8; start[uc]++; }
    var pos = n ? tt[origPtr] >>> 8 : 0, last = -1, same = 0;
    for (i = 0; i < n; i++) {
      var entry = tt[pos];
      var ch = entry & 0xff;
      pos = entry >>> 8;
      if (same === 4) {
        for (j = 0; j < ch; j++) push(out, last);
        same = 0;
        continue;
      }
      if (ch === last) same++; else { last = ch; same = 1; }
      push(out, ch);
    }
  }

  function push(out, byte) {
    if (out.length === out.bytes.length) {
      var bigger = new Uint8Array(out.bytes.length * 2);
      bigger.set(out.bytes);
      out.bytes = bigger;
    }
    out.bytes[out.length++] = byte;
  }

  // The bytes of a bzip2 stream (a Uint8Array), decompressed.
  function bunzip2(bytes) {
    var bits = new Bits(bytes);
    if (bits.read(8) !== 0x42 || bits.read(8) !== 0x5a || bits.read(8) !== 0x68) {
      throw new Error("bzip2: not a bzip2 stream");
    }
    var level = bits.read(8) - 0x30;
    if (level < 1 || level > 9) throw new Error("bzip2: bad block size");
    var out = { bytes: new Uint8Array(Math.max(1024, bytes.length * 8)), length: 0 };
    for (;;) {
      var high = bits.read(24), low = bits.read(24);
      if (high === 0x314159 && low === 0x265359) block(bits, level * 100000, out);
      else if (high === 0x177245 && low === 0x385090) break;
      else throw new Error("bzip2: bad block magic");
    }
    return out.bytes.subarray(0, out.length);
  }

  global.arenaBunzip2 = bunzip2;
})(typeof window !== "undefined" ? window : globalThis);
