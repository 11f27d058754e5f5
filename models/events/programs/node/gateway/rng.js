'use strict';
// mulberry32: a small seeded PRNG (Math.random cannot be seeded)
module.exports = function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  next.int = (lo, hi) => lo + Math.floor(next() * (hi - lo));
  next.pick = (xs) => xs[Math.floor(next() * xs.length)];
  return next;
};
