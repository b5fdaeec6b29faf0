#!/usr/bin/env node
// convfail's ONNX Runtime runner. One JSON request per stdin line, one JSON response per stdout
// line. It generates the inputs it is not given, runs the model with graph optimizations disabled
// and all enabled, and compares the outputs (against reference outputs when given, and optimized
// against unoptimized) itself, so that tensors live only in this sandboxed process: convfail
// sends a small request and gets a bounded summary back. Given tensors travel in files (raw
// little-endian bytes, or a JSON array for string tensors).
//
// {"op":"hello"}
//   -> {"ok":true,"ort_version":"1.20.1","unheld_types":["bfloat16"]}
//   unheld_types: the 16-bit float types this release's binding cannot feed or return, measured
//   once per process by running a one-node Identity model on each (older releases lack float16,
//   every release so far bfloat16). convfail wraps a model whose boundary has one with Cast nodes
//   (repro/boundary_casts) and asks for the widening and narrowing below.
// {"op":"run","model":"m.onnx","levels":["disabled","all"],"threads":1,"max_elements":N,
//  "inputs":[{"name","type","dims","file"} | {"name","type","dims","seed":"7"}],
//  "refs":[{"type","onnx_type","dims","file"}] (optional, by graph output order),
//  "narrow":[null | {"name","type"}] (optional, by graph output order),
//  "atol":1e-5,"rtol":1e-3}
//   An input with "widen":"float32" holds (or is generated as) `type` (float16, bfloat16) and is
//   fed as the float32 of the same values (exact); an output with a "narrow" entry comes out as
//   float32 and is narrowed back to `type` (exact: a Cast to float32 made it) and named `name`,
//   before any comparison or saving, so the comparison is the one of the original type.
//   -> {"ok":true,"levels":{"disabled":{"ms":1.2},...},
//       "checks":[{"output","against":"reference"|"optimized","level","match","problem",
//                  "max_abs_error","max_rel_error","mismatches","min_tolerance"}]}
//   min_tolerance: the smallest t with |a - e| <= t + t * |e| for every element (atol = rtol =
//   t passes), 1e308 when no t does; a tolerance curve is counted from it without a rerun.
//   -> {"ok":false,"level":"all","step":"session"|"run"|"io"|"inputs","error":"..."}
// With "save_outputs":DIR (a folder in the scratch folder) the outputs of each level are written
// there too (raw little-endian bytes, JSON for strings) and the reply lists them:
//   "saved":{"disabled":[{"name","type","dims","file"} | null, ...],"all":[...]}
'use strict';
const fs = require('fs');
const path = require('path');
const readline = require('readline');

// The onnxruntime-node to load: $CONVFAIL_ORT_DIR/node_modules (a release installed by
// `convfail runtimes install`), else the one beside this file (the pinned default).
const ORT_PACKAGE = process.env.CONVFAIL_ORT_DIR
  ? path.join(process.env.CONVFAIL_ORT_DIR, 'node_modules', 'onnxruntime-node')
  : 'onnxruntime-node';
let ort = null;
let loadError = null;
try {
  ort = require(ORT_PACKAGE);
} catch (e) {
  loadError = String(e && e.message ? e.message : e);
}

const ARRAYS = {
  float32: Float32Array, float64: Float64Array, int8: Int8Array, uint8: Uint8Array,
  int16: Int16Array, uint16: Uint16Array, int32: Int32Array, uint32: Uint32Array,
  int64: BigInt64Array, uint64: BigUint64Array, bool: Uint8Array, float16: Uint16Array,
  bfloat16: Uint16Array,
};
// ONNX's names of the runner's types, for messages (compare.h's problem texts).
const ONNX_NAMES = {
  float32: 'FLOAT', float64: 'DOUBLE', int8: 'INT8', uint8: 'UINT8', int16: 'INT16',
  uint16: 'UINT16', int32: 'INT32', uint32: 'UINT32', int64: 'INT64', uint64: 'UINT64',
  bool: 'BOOL', float16: 'FLOAT16', bfloat16: 'BFLOAT16', string: 'STRING',
};
const MAX_TEXT = 2000;  // characters of any text from the model or ORT in a reply

function cut(s, max = MAX_TEXT) {
  s = String(s);
  return s.length > max ? s.slice(0, max) + '...' : s;
}

function errorText(e) {
  return cut(String(e && e.message ? e.message : e).split('\n').slice(0, 8).join('\n'));
}

// Element count of `dims`, or an Error when a dimension is negative or the count exceeds `max`.
function elementCount(dims, max) {
  let n = 1;
  for (const d of dims) {
    if (!Number.isSafeInteger(d) || d < 0) throw new Error('bad dimension ' + cut(d, 40));
    n *= d;
    if (n > max) throw new Error('shape [' + dims.join(',') + '] has more than ' + max + ' elements');
  }
  return n;
}

// A tensor file as {type, data, dims}: no ort.Tensor, so a type the binding cannot hold
// (float16 on old releases, bfloat16) is still read, compared and widened.
function readRaw(spec) {
  if (spec.type === 'string') {
    return { type: 'string', data: JSON.parse(fs.readFileSync(spec.file, 'utf8')), dims: spec.dims };
  }
  const Ctor = ARRAYS[spec.type];
  if (!Ctor) throw new Error('unsupported tensor type ' + spec.type);
  const buf = fs.readFileSync(spec.file);
  if (buf.length % Ctor.BYTES_PER_ELEMENT) throw new Error('tensor file size not a multiple');
  // Copy into an aligned buffer: a Buffer's byteOffset may not be a multiple of the element size.
  const ab = new ArrayBuffer(buf.length);
  new Uint8Array(ab).set(buf);
  return { type: spec.type, data: new Ctor(ab), dims: spec.dims };
}

// What the session is fed for an input spec: its data as an ort.Tensor, or with "widen" the
// float32 tensor of the same values.
function feedTensor(raw, spec) {
  if (spec.widen === 'float32') {
    if (raw.type !== 'float16' && raw.type !== 'bfloat16')
      throw new Error('cannot widen ' + cut(raw.type, 20) + ' to float32');
    const wide = new Float32Array(raw.data.length);
    for (let i = 0; i < wide.length; ++i) wide[i] = valueAt(raw, i);
    return new ort.Tensor('float32', wide, raw.dims);
  }
  if (spec.widen !== undefined) throw new Error('cannot widen to ' + cut(spec.widen, 20));
  return new ort.Tensor(raw.type, raw.data, raw.dims);
}

// Deterministic data (the same seed gives the same values): floats in [-1, 1), integers in
// [0, 4), booleans alternating, strings "s0".."s3". The generator is a 64-bit LCG
// (state = state * A + C mod 2^64, value = state >> 33), computed in 32-bit halves.
const A_HI = 0x5851f42d, A_LO = 0x4c957f2d, C_HI = 0x14057b7e, C_LO = 0xf767814f;
const TWO32 = 4294967296;

function lcg(seed) {
  const s = BigInt.asUintN(64, BigInt(seed));
  let hi = Number(s >> 32n), lo = Number(s & 0xffffffffn);
  const step = () => {
    const l1 = lo >>> 16, l0 = lo & 0xffff, a1 = A_LO >>> 16, a0 = A_LO & 0xffff;
    const mid = l1 * a0 + l0 * a1;
    const t = l0 * a0 + (mid % 65536) * 65536;
    const lowWord = t % TWO32;
    const high = l1 * a1 + Math.floor(mid / 65536) + Math.floor(t / TWO32);
    const nlo = lowWord + C_LO;
    hi = (high + (Math.imul(hi, A_LO) >>> 0) + (Math.imul(lo, A_HI) >>> 0) + C_HI +
          (nlo >= TWO32 ? 1 : 0)) % TWO32;
    lo = nlo % TWO32;
  };
  step();  // the state starts at seed * A + C
  return () => {
    step();
    return hi >>> 1;
  };
}

function generateRaw(spec, max) {
  const n = elementCount(spec.dims, max);
  const next = lcg(spec.seed);
  const type = spec.type;
  if (type === 'string') {
    const data = new Array(n);
    for (let i = 0; i < n; ++i) {
      next();
      data[i] = 's' + (next() % 4);
    }
    return { type, data, dims: spec.dims };
  }
  const Ctor = ARRAYS[type];
  if (!Ctor) throw new Error('cannot generate data of type ' + type);
  const data = new Ctor(n);
  const f32 = new Float32Array(1), u32 = new Uint32Array(f32.buffer);
  for (let i = 0; i < n; ++i) {
    const unit = next() / 2147483648.0 * 2 - 1;
    const small = next() % 4;
    if (type === 'float32' || type === 'float64') {
      data[i] = unit;
    } else if (type === 'float16') {  // a value in [-1, 1) with a 10-bit mantissa
      f32[0] = unit;
      const bits = u32[0], exp = (bits >>> 23) & 0xff;
      data[i] = ((bits >>> 16) & 0x8000) | (exp < 113 ? 0 : ((exp - 112) << 10)) |
                ((bits >>> 13) & 0x3ff);
    } else if (type === 'bfloat16') {  // the value in [-1, 1) with its mantissa cut to 7 bits
      f32[0] = unit;
      data[i] = u32[0] >>> 16;
    } else if (type === 'bool') {
      data[i] = i % 2;
    } else if (type === 'int64' || type === 'uint64') {
      data[i] = BigInt(small);
    } else {
      data[i] = small;
    }
  }
  return { type, data, dims: spec.dims };
}

function halfToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  if (exp === 0) return sign * mant * Math.pow(2, -24);
  if (exp === 31) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * Math.pow(2, exp - 15);
}

const F32 = new Float32Array(1), U32 = new Uint32Array(F32.buffer);

function bfloatToFloat(b) {
  U32[0] = b << 16;
  return F32[0];
}

// The float16 bits of a float32 value, rounded to nearest even (exact for a value a Cast to
// float32 made from a float16); NaN stays NaN, overflow is infinity.
function floatToHalf(f) {
  F32[0] = f;
  const x = U32[0], sign = (x >>> 16) & 0x8000, exp = (x >>> 23) & 0xff, mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 31) return sign | 0x7c00;
  if (e <= 0) {  // a float16 subnormal (or zero)
    if (e < -10) return sign;
    const m = mant | 0x800000, shift = 14 - e;
    let h = m >>> shift;
    const rest = m & ((1 << shift) - 1), half = 1 << (shift - 1);
    if (rest > half || (rest === half && (h & 1))) ++h;
    return sign | h;
  }
  let h = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (h & 1))) ++h;  // a carry into the exponent is right
  return sign | h;
}

// The bfloat16 bits of a float32 value, rounded to nearest even; NaN stays NaN.
function floatToBfloat(f) {
  F32[0] = f;
  const x = U32[0];
  if ((x & 0x7fffffff) > 0x7f800000) return ((x >>> 16) | 0x40) & 0xffff;
  return ((x + 0x7fff + ((x >>> 16) & 1)) >>> 16) & 0xffff;
}

// A float32 output narrowed back to the type the model declared (see "narrow" above).
function narrowTensor(t, type) {
  if (t.type !== 'float32') throw new Error('narrowing a ' + cut(t.type, 20) + ' output');
  const to = type === 'float16' ? floatToHalf : type === 'bfloat16' ? floatToBfloat : null;
  if (!to) throw new Error('cannot narrow to ' + cut(type, 20));
  const data = new Uint16Array(t.data.length);
  for (let i = 0; i < data.length; ++i) data[i] = to(t.data[i]);
  return { type, data, dims: t.dims };
}

function valueAt(t, i) {
  const v = t.data[i];
  if (t.type === 'float16') return halfToFloat(v);
  if (t.type === 'bfloat16') return bfloatToFloat(v);
  return typeof v === 'bigint' ? Number(v) : Number(v);
}

function dimsText(dims) {
  return '[' + Array.from(dims).join(',') + ']';
}

// `actual` against `expected` ({type, onnx_type, dims, data}): same type and shape, then
// |a - e| <= atol + rtol * |e| element-wise; NaN equals NaN, infinities must be equal; strings
// compare exactly.
function compareTensors(actual, expected, tol) {
  const at = ONNX_NAMES[actual.type] || actual.type;
  const et = expected.onnx_type || ONNX_NAMES[expected.type] || expected.type;
  // `type`: the expected element type (FLOAT, INT64, ...), which tells an index flip of ArgMax
  // from a float difference.
  const r = { match: true, problem: '', max_abs_error: 0, max_rel_error: 0, mismatches: 0,
              min_tolerance: 0, type: cut(et, 20) };
  if (at !== et) {
    r.match = false;
    r.problem = 'type ' + at + ' vs expected ' + et;
    r.min_tolerance = Infinity;
    return r;
  }
  if (dimsText(actual.dims) !== dimsText(expected.dims)) {
    r.match = false;
    r.problem = 'shape ' + dimsText(actual.dims) + ' vs expected ' + dimsText(expected.dims);
    r.min_tolerance = Infinity;
    return r;
  }
  const n = expected.data.length;
  if (expected.type === 'string') {
    for (let i = 0; i < n; ++i)
      if (actual.data[i] !== expected.data[i]) ++r.mismatches;
    if (r.mismatches) r.min_tolerance = Infinity;
  } else {
    for (let i = 0; i < n; ++i) {
      const a = valueAt(actual, i), e = valueAt(expected, i);
      if (Number.isNaN(a) || Number.isNaN(e)) {
        if (Number.isNaN(a) !== Number.isNaN(e)) {
          ++r.mismatches;
          r.max_abs_error = Infinity;
          r.min_tolerance = Infinity;
        }
        continue;
      }
      if (!Number.isFinite(a) || !Number.isFinite(e)) {
        if (a !== e) {
          ++r.mismatches;
          r.max_abs_error = Infinity;
          r.min_tolerance = Infinity;
        }
        continue;
      }
      const diff = Math.abs(a - e);
      r.max_abs_error = Math.max(r.max_abs_error, diff);
      r.min_tolerance = Math.max(r.min_tolerance, diff / (1 + Math.abs(e)));
      if (e !== 0) r.max_rel_error = Math.max(r.max_rel_error, diff / Math.abs(e));
      if (diff > tol.atol + tol.rtol * Math.abs(e)) ++r.mismatches;
    }
  }
  if (r.mismatches) {
    r.match = false;
    r.problem = r.mismatches + ' of ' + n + ' elements differ';
  }
  return r;
}

// JSON has no infinity: the reply carries 1e308 instead (reproduce.cpp reads it back).
function finite(v) {
  return v === Infinity ? 1e308 : v;
}

async function runLevel(req, level, feeds) {
  let step = 'session';
  // Step markers on stderr tell convfail where a runner that died (signal, OOM) was.
  const mark = (s) => process.stderr.write(`convfail-step ${level} ${s}\n`);
  try {
    mark('session');
    const session = await ort.InferenceSession.create(req.model, {
      graphOptimizationLevel: level,
      executionProviders: ['cpu'],
      intraOpNumThreads: req.threads || 1,
      interOpNumThreads: 1,
    });
    step = 'run';
    mark('run');
    const t0 = process.hrtime.bigint();
    const results = await session.run(feeds);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const narrow = Array.isArray(req.narrow) ? req.narrow : [];
    const outputs = session.outputNames.map((name, i) => {
      const t = results[name];
      const to = narrow[i];
      if (t === undefined || t === null) return { name: to ? String(to.name) : name, tensor: null };
      return to ? { name: String(to.name), tensor: narrowTensor(t, to.type) } : { name, tensor: t };
    });
    if (session.release) await session.release();
    return { ok: true, ms, outputs };
  } catch (e) {
    return { ok: false, level, step, error: errorText(e) };
  }
}

function compareAll(req, levels) {
  const tol = { atol: Number(req.atol), rtol: Number(req.rtol) };
  let refs = null;
  if (Array.isArray(req.refs)) {
    refs = req.refs.map((spec) => {
      // A type the runner cannot hold (complex, ...) still has a name and a shape to compare.
      const t = spec.type ? readRaw(spec) : { type: '', data: [] };
      return { type: spec.type, onnx_type: spec.onnx_type, dims: spec.dims, data: t.data };
    });
  }
  const checks = [];
  const add = (output, against, level, r) => {
    checks.push(Object.assign({ output: cut(output, 200), against, level }, r, {
      max_abs_error: finite(r.max_abs_error), max_rel_error: finite(r.max_rel_error),
      min_tolerance: finite(r.min_tolerance === undefined ? Infinity : r.min_tolerance),
    }));
  };
  for (const level of ['disabled', 'all']) {
    const outs = levels[level];
    if (!outs || !refs) continue;
    outs.forEach((o, i) => {
      if (i >= refs.length) return;
      const r = o.tensor ? compareTensors(o.tensor, refs[i], tol)
                         : { match: false, problem: 'output missing', max_abs_error: 0,
                             max_rel_error: 0, mismatches: 0 };
      add(o.name, 'reference', level, r);
    });
  }
  const d = levels.disabled, a = levels.all;
  if (d && a) {
    for (let i = 0; i < d.length && i < a.length; ++i) {
      if (!d[i].tensor || !a[i].tensor) {
        if (!d[i].tensor !== !a[i].tensor) {
          add(d[i].name, 'optimized', 'all', { match: false,
            problem: 'output present in one session only', max_abs_error: 0, max_rel_error: 0,
            mismatches: 0 });
        }
        continue;
      }
      add(d[i].name, 'optimized', 'all', compareTensors(a[i].tensor, d[i].tensor, tol));
    }
  }
  return checks;
}

async function handle(req) {
  if (!ort) return { ok: false, step: 'load', error: 'onnxruntime-node not available: ' + loadError };
  if (req.op === 'hello') {
    let version = '';
    try {
      version = require(ORT_PACKAGE + '/package.json').version;
    } catch (e) {
      version = ort.env && ort.env.versions ? ort.env.versions.node : '';
    }
    return { ok: true, ort_version: version, unheld_types: await unheldTypes() };
  }
  if (req.op === 'crash') process.kill(process.pid, 'SIGSEGV');  // protocol test hook
  if (req.op !== 'run') return { ok: false, step: 'protocol', error: 'unknown op ' + cut(req.op, 100) };
  const max = Number(req.max_elements) > 0 ? Number(req.max_elements) : 268435456;
  const feeds = {};
  try {
    for (const spec of req.inputs || []) {
      if (spec.file) {
        feeds[spec.name] = feedTensor(readRaw(spec), spec);
      } else {
        harnessStep('inputs');
        feeds[spec.name] = feedTensor(generateRaw(spec, max), spec);
      }
    }
  } catch (e) {
    return { ok: false, step: 'inputs', error: errorText(e) };
  }
  const levels = {}, ms = {};
  for (const level of req.levels || ['disabled', 'all']) {
    const r = await runLevel(req, level, feeds);
    if (!r.ok) return r;
    levels[level] = r.outputs;
    ms[level] = { ms: r.ms };
  }
  let checks;
  try {
    harnessStep('compare');
    checks = compareAll(req, levels);
  } catch (e) {
    return { ok: false, step: 'io', error: errorText(e) };
  }
  const reply = { ok: true, levels: ms, checks };
  if (typeof req.save_outputs === 'string' && req.save_outputs) {
    try {
      harnessStep('io');
      reply.saved = saveOutputs(req.save_outputs, levels);
    } catch (e) {
      return { ok: false, step: 'io', error: errorText(e) };
    }
  }
  return reply;
}

// Writes each level's outputs into `dir` (see the protocol above).
function saveOutputs(dir, levels) {
  const saved = {};
  for (const level of Object.keys(levels)) {
    saved[level] = levels[level].map((o, i) => {
      const t = o.tensor;
      if (!t || !t.data) return null;
      const file = path.join(dir, `${level}_${i}.bin`);
      if (t.type === 'string') {
        fs.writeFileSync(file, JSON.stringify(Array.from(t.data)));
      } else if (ArrayBuffer.isView(t.data)) {
        fs.writeFileSync(file, Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
      } else {
        return null;
      }
      return { name: cut(o.name, 200), type: t.type, dims: Array.from(t.dims), file };
    });
  }
  return saved;
}

// Protobuf, just enough to write the probe model: a varint, a length-delimited field, an integer
// field.
function varint(n) {
  const out = [];
  for (; n > 127; n = Math.floor(n / 128)) out.push((n % 128) | 128);
  out.push(n);
  return out;
}
const bytesField = (num, bytes) => [...varint(num * 8 + 2), ...varint(bytes.length), ...bytes];
const textField = (num, s) => bytesField(num, Array.from(Buffer.from(s)));
const intField = (num, n) => [...varint(num * 8), ...varint(n)];

// An ONNX model (IR 7, opset 13) y = Identity(x) over one element of ONNX element type `elem`.
function identityModel(elem) {
  // ValueInfoProto {name, type: TypeProto {tensor_type {elem_type, shape {dim {dim_value 1}}}}}
  const value = (name) => [...textField(1, name),
    ...bytesField(2, bytesField(1, [...intField(1, elem), ...bytesField(2, bytesField(1, intField(1, 1)))]))];
  const node = [...textField(1, 'x'), ...textField(2, 'y'), ...textField(4, 'Identity')];
  const graph = [...bytesField(1, node), ...textField(2, 'probe'), ...bytesField(11, value('x')),
    ...bytesField(12, value('y'))];
  return Uint8Array.from([...intField(1, 7), ...bytesField(7, graph), ...bytesField(8, intField(2, 13))]);
}

// Whether this binding feeds and returns `type` (ONNX element type `elem`): the value 1.0 (`one`,
// its bits) goes through an Identity model and comes back as the same bits in a Uint16Array.
async function bindingHolds(type, elem, one) {
  try {
    const session = await ort.InferenceSession.create(identityModel(elem),
      { executionProviders: ['cpu'], graphOptimizationLevel: 'disabled' });
    const out = (await session.run({ x: new ort.Tensor(type, Uint16Array.from([one]), [1]) })).y;
    if (session.release) await session.release();
    return !!out && out.type === type && out.data instanceof Uint16Array && out.data[0] === one;
  } catch (e) {
    return false;
  }
}

let unheld = null;
async function unheldTypes() {
  if (unheld) return unheld;
  unheld = [];
  if (!(await bindingHolds('float16', 10, 0x3c00))) unheld.push('float16');
  if (!(await bindingHolds('bfloat16', 16, 0x3f80))) unheld.push('bfloat16');
  return unheld;
}

// A step of the harness itself (not of ONNX Runtime), for convfail when the runner dies in it.
function harnessStep(step) {
  process.stderr.write(`convfail-step harness ${step}\n`);
}

// Requests are handled one at a time, in order.
const rl = readline.createInterface({ input: process.stdin, terminal: false });
let chain = Promise.resolve();
rl.on('line', (line) => {
  chain = chain.then(async () => {
    let reply;
    try {
      reply = await handle(JSON.parse(line));
    } catch (e) {
      reply = { ok: false, step: 'protocol', error: errorText(e) };
    }
    process.stdout.write(JSON.stringify(reply) + '\n');
  });
});
rl.on('close', () => chain.then(() => process.exit(0)));
