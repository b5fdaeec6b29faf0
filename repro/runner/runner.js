#!/usr/bin/env node
// convfail's ONNX Runtime runner. One JSON request per stdin line, one JSON response per stdout
// line; tensors travel in files (raw little-endian bytes, or a JSON array for string tensors).
//
// {"op":"hello"}
//   -> {"ok":true,"ort_version":"1.20.1"}
// {"op":"run","model":"m.onnx","inputs":[{"name","type","dims","file"}],"out_dir":"d",
//  "levels":["disabled","all"],"threads":1}
//   -> {"ok":true,"levels":{"disabled":{"ms":1.2,"outputs":[{"name","type","dims","file"}]},...}}
//   -> {"ok":false,"level":"all","step":"session"|"run"|"io","error":"..."}
'use strict';
const fs = require('fs');
const path = require('path');
const readline = require('readline');

let ort = null;
let loadError = null;
try {
  ort = require('onnxruntime-node');
} catch (e) {
  loadError = String(e && e.message ? e.message : e);
}

const ARRAYS = {
  float32: Float32Array, float64: Float64Array, int8: Int8Array, uint8: Uint8Array,
  int16: Int16Array, uint16: Uint16Array, int32: Int32Array, uint32: Uint32Array,
  int64: BigInt64Array, uint64: BigUint64Array, bool: Uint8Array, float16: Uint16Array,
};

function readTensor(spec) {
  if (spec.type === 'string') {
    return new ort.Tensor('string', JSON.parse(fs.readFileSync(spec.file, 'utf8')), spec.dims);
  }
  const Ctor = ARRAYS[spec.type];
  if (!Ctor) throw new Error('unsupported input type ' + spec.type);
  const buf = fs.readFileSync(spec.file);
  // Copy into an aligned buffer: a Buffer's byteOffset may not be a multiple of the element size.
  const ab = new ArrayBuffer(buf.length);
  new Uint8Array(ab).set(buf);
  return new ort.Tensor(spec.type, new Ctor(ab), spec.dims);
}

function writeTensor(tensor, file) {
  if (tensor.type === 'string') {
    fs.writeFileSync(file, JSON.stringify(Array.from(tensor.data)));
  } else {
    const d = tensor.data;
    fs.writeFileSync(file, Buffer.from(d.buffer, d.byteOffset, d.byteLength));
  }
}

function errorText(e) {
  return String(e && e.message ? e.message : e).split('\n').slice(0, 8).join('\n');
}

async function runLevel(req, level, feeds, index) {
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
    step = 'io';
    const outputs = [];
    session.outputNames.forEach((name, i) => {
      const t = results[name];
      if (t === undefined || t === null) {
        outputs.push({ name, type: 'none', dims: [], file: '' });
        return;
      }
      const file = path.join(req.out_dir, `${level}_${index}_${i}.bin`);
      writeTensor(t, file);
      outputs.push({ name, type: t.type, dims: Array.from(t.dims), file });
    });
    if (session.release) await session.release();
    return { ok: true, ms, outputs };
  } catch (e) {
    return { ok: false, level, step, error: errorText(e) };
  }
}

async function handle(req) {
  if (!ort) return { ok: false, step: 'load', error: 'onnxruntime-node not available: ' + loadError };
  if (req.op === 'hello') {
    let version = '';
    try {
      version = require('onnxruntime-node/package.json').version;
    } catch (e) {
      version = ort.env && ort.env.versions ? ort.env.versions.node : '';
    }
    return { ok: true, ort_version: version };
  }
  if (req.op === 'crash') process.kill(process.pid, 'SIGSEGV');  // protocol test hook
  if (req.op !== 'run') return { ok: false, step: 'protocol', error: 'unknown op ' + req.op };
  let feeds = {};
  try {
    for (const spec of req.inputs || []) feeds[spec.name] = readTensor(spec);
  } catch (e) {
    return { ok: false, step: 'io', error: errorText(e) };
  }
  const levels = {};
  let index = 0;
  for (const level of req.levels || ['disabled', 'all']) {
    const r = await runLevel(req, level, feeds, index++);
    if (!r.ok) return r;
    levels[level] = { ms: r.ms, outputs: r.outputs };
  }
  return { ok: true, levels };
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
