// The browser's proof that it waited before a sign-in is checked (no puzzle for the person): find the
// first counter n such that SHA-256 of "<challenge>:<n>" (ASCII) starts with `bits` zero bits, as
// corpus.store.signin.proof_holds checks it. The work runs in a Web Worker (the page stays
// responsive), with its own SHA-256 (crypto.subtle's promise per hash is ten times slower); the
// answer goes back once, as a trigger {challenge, counter}. Text is set with textContent only.

const WORKER_SOURCE = `
const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2]);
const W = new Uint32Array(64);
const H = new Uint32Array(8);
const MID = new Uint32Array(8);
const IV = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

function rotr(x, n) { return (x >>> n) | (x << (32 - n)); }

// One 64-byte block of msg at off, into the state H.
function block(msg, off) {
  for (let i = 0; i < 16; i++) {
    const j = off + i * 4;
    W[i] = (msg[j] << 24) | (msg[j + 1] << 16) | (msg[j + 2] << 8) | msg[j + 3];
  }
  for (let i = 16; i < 64; i++) {
    const a = W[i - 15], b = W[i - 2];
    const s0 = rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3);
    const s1 = rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10);
    W[i] = (W[i - 16] + s0 + W[i - 7] + s1) | 0;
  }
  let a = H[0], b = H[1], c = H[2], d = H[3], e = H[4], f = H[5], g = H[6], h = H[7];
  for (let i = 0; i < 64; i++) {
    const t1 = (h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + W[i]) | 0;
    const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
  }
  H[0] += a; H[1] += b; H[2] += c; H[3] += d; H[4] += e; H[5] += f; H[6] += g; H[7] += h;
}

// SHA-256 of msg[0..len) (msg has room for the padding), the blocks before "from" already in MID.
function sha256From(msg, len, from) {
  const total = ((len + 9 + 63) >> 6) << 6;
  msg[len] = 0x80;
  for (let i = len + 1; i < total - 4; i++) msg[i] = 0;
  const bitLen = len * 8;
  msg[total - 4] = (bitLen >>> 24) & 255; msg[total - 3] = (bitLen >>> 16) & 255;
  msg[total - 2] = (bitLen >>> 8) & 255; msg[total - 1] = bitLen & 255;
  H.set(MID);
  for (let off = from; off < total; off += 64) block(msg, off);
}

function leadingZeros(bits) {
  for (let i = 0; i < 8; i++) {
    const need = Math.min(32, bits - 32 * i);
    if (need <= 0) return true;
    if (need === 32 ? H[i] !== 0 : (H[i] >>> (32 - need)) !== 0) return false;
  }
  return true;
}

onmessage = (event) => {
  const { challenge, bits } = event.data;
  const prefix = challenge + ":";
  const msg = new Uint8Array(320);
  for (let i = 0; i < prefix.length; i++) msg[i] = prefix.charCodeAt(i) & 255;
  // The prefix's whole blocks never change: their state is computed once (the midstate).
  const from = Math.floor(prefix.length / 64) * 64;
  H.set(IV);
  for (let off = 0; off < from; off += 64) block(msg, off);
  MID.set(H);
  const expected = Math.pow(2, bits);
  // The counter's decimal digits, kept as bytes and counted up in place.
  let digits = [48];
  for (let n = 0; n < 1e15; n++) {
    let len = prefix.length;
    for (let i = 0; i < digits.length; i++) msg[len++] = digits[i];
    sha256From(msg, len, from);
    if (leadingZeros(bits)) { postMessage({ done: true, counter: n }); return; }
    if ((n & 0xffff) === 0xffff) postMessage({ done: false, share: (n + 1) / expected });
    let i = digits.length - 1;
    while (i >= 0 && digits[i] === 57) { digits[i] = 48; i--; }
    if (i < 0) digits.unshift(49); else digits[i]++;
  }
};
`;

let workerUrl = null;

function startWorker() {
  if (workerUrl === null) workerUrl = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "text/javascript" }));
  return new Worker(workerUrl);
}

function describe(share) {
  // The expected share of the work done so far (a proof may come sooner or later than expected).
  const percent = Math.min(99, Math.floor(share * 100));
  return `Your browser is proving it waited: about ${percent} % of the expected work done.`;
}

export default function proveWork(component) {
  const { data, parentElement, setTriggerValue } = component;
  const challenge = String((data && data.challenge) || "");
  const bits = Math.floor(Number(data && data.bits) || 0);
  let root = parentElement.querySelector(".gw-proof");
  if (!root) {
    root = document.createElement("div");
    root.className = "gw-proof";
    root.setAttribute("role", "status");
    root.setAttribute("aria-live", "polite");
    parentElement.append(root);
  }
  if (!/^[0-9A-Za-z._-]{1,200}$/.test(challenge) || bits < 1 || bits > 40) {
    root.textContent = "";
    return undefined;
  }
  if (root.dataset.challenge === challenge) return undefined; // already working on (or done with) it
  if (root.worker) root.worker.terminate();
  root.dataset.challenge = challenge;
  root.textContent = describe(0);
  const worker = startWorker();
  root.worker = worker;
  worker.onmessage = (event) => {
    if (root.dataset.challenge !== challenge) return;
    if (event.data.done) {
      root.textContent = "Proof done: checking your password...";
      worker.terminate();
      root.worker = null;
      setTriggerValue("solved", { challenge, counter: event.data.counter });
    } else {
      root.textContent = describe(event.data.share);
    }
  };
  worker.postMessage({ challenge, bits });
  return () => {
    if (!root.isConnected && root.worker) {
      root.worker.terminate();
      root.worker = null;
    }
  };
}
