// Python's random.Random, for the replay viewer's game models: the same numbers from the same
// seed (CPython's Mersenne Twister, its seeding of an int, getrandbits, _randbelow, shuffle and
// sample), so a model deals and shuffles exactly as the rules did when the match was played.
// tests/site/test_models.py checks it against Python.
(function () {
  "use strict";
  var N = 624, M = 397;

  function PyRandom(mt, index) {
    this.mt = mt;
    this.index = index;
  }

  function initGenrand(s) {
    var mt = new Uint32Array(N);
    mt[0] = s >>> 0;
    for (var i = 1; i < N; i++) {
      var prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    return mt;
  }

  // init_by_array: random.seed(n) for an int n uses the 32-bit words of abs(n), lowest first.
  function initByArray(key) {
    var mt = initGenrand(19650218);
    var i = 1, j = 0, k = Math.max(N, key.length);
    for (; k; k--) {
      var prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1664525)) + key[j] + j) >>> 0;
      i++; j++;
      if (i >= N) { mt[0] = mt[N - 1]; i = 1; }
      if (j >= key.length) j = 0;
    }
    for (k = N - 1; k; k--) {
      var p = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(p, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) { mt[0] = mt[N - 1]; i = 1; }
    }
    mt[0] = 0x80000000;
    return mt;
  }

  function keyOf(seed) {
    var n = BigInt(String(seed));
    if (n < 0n) n = -n;
    var key = [];
    do {
      key.push(Number(n & 0xffffffffn));
      n >>= 32n;
    } while (n > 0n);
    return key;
  }

  PyRandom.prototype.uint32 = function () {
    var mt = this.mt;
    if (this.index >= N) {
      var kk, y;
      for (kk = 0; kk < N - M; kk++) {
        y = (mt[kk] & 0x80000000) | (mt[kk + 1] & 0x7fffffff);
        mt[kk] = mt[kk + M] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      for (; kk < N - 1; kk++) {
        y = (mt[kk] & 0x80000000) | (mt[kk + 1] & 0x7fffffff);
        mt[kk] = mt[kk + (M - N)] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      y = (mt[N - 1] & 0x80000000) | (mt[0] & 0x7fffffff);
      mt[N - 1] = mt[M - 1] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      this.index = 0;
    }
    var x = mt[this.index++];
    x ^= x >>> 11;
    x ^= (x << 7) & 0x9d2c5680;
    x ^= (x << 15) & 0xefc60000;
    x ^= x >>> 18;
    return x >>> 0;
  };

  // getrandbits(k) for 0 <= k <= 32 (the rules never ask for more).
  PyRandom.prototype.getrandbits = function (k) {
    if (k === 0) return 0;
    if (!(k > 0 && k <= 32)) throw new Error("getrandbits(" + k + ") is not supported");
    return this.uint32() >>> (32 - k);
  };

  function bitLength(n) { return n <= 0 ? 0 : 32 - Math.clz32(n); }

  // _randbelow_with_getrandbits: a uniform int in [0, n).
  PyRandom.prototype.randbelow = function (n) {
    var k = bitLength(n);
    var r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  };

  PyRandom.prototype.random = function () {
    var a = this.uint32() >>> 5, b = this.uint32() >>> 6;
    return (a * 67108864 + b) / 9007199254740992;
  };

  PyRandom.prototype.shuffle = function (x) {
    for (var i = x.length - 1; i > 0; i--) {
      var j = this.randbelow(i + 1);
      var t = x[i]; x[i] = x[j]; x[j] = t;
    }
  };

  // random.sample: its pool method for small populations, its set method past setsize.
  PyRandom.prototype.sample = function (population, k) {
    var n = population.length;
    if (!(k >= 0 && k <= n)) throw new Error("Sample larger than population or is negative");
    var result = new Array(k);
    var setsize = 21;
    if (k > 5) setsize += Math.pow(4, Math.ceil(Math.log(k * 3) / Math.log(4)));
    var i, j;
    if (n <= setsize) {
      var pool = population.slice();
      for (i = 0; i < k; i++) {
        j = this.randbelow(n - i);
        result[i] = pool[j];
        pool[j] = pool[n - i - 1];
      }
    } else {
      var selected = new Set();
      for (i = 0; i < k; i++) {
        j = this.randbelow(n);
        while (selected.has(j)) j = this.randbelow(n);
        selected.add(j);
        result[i] = population[j];
      }
    }
    return result;
  };

  PyRandom.prototype.clone = function () { return new PyRandom(this.mt.slice(), this.index); };

  window.arenaRandom = function (seed) { return new PyRandom(initByArray(keyOf(seed)), N); };
})();
