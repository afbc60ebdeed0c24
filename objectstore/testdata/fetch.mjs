// Makes HTTP requests with Node's fetch, as a browser or the Mini App
// would make them with a presigned URL: reads a JSON array of requests
// ({url, method, headers, body: base64}) on stdin, and prints a JSON array
// of answers ({status, headers, body: base64}). objectstore's tests run it.
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const requests = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const answers = [];
for (const r of requests) {
  const init = { method: r.method, headers: r.headers ?? {} };
  if (r.body != null) init.body = Buffer.from(r.body, "base64");
  try {
    const res = await fetch(r.url, init);
    const body = Buffer.from(await res.arrayBuffer());
    answers.push({ status: res.status, headers: Object.fromEntries(res.headers), body: body.toString("base64") });
  } catch (e) {
    answers.push({ status: 0, error: String(e?.cause ?? e) });
  }
}
process.stdout.write(JSON.stringify(answers));
