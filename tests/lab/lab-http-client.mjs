// A tiny HTTP client run INSIDE a client namespace (`ip netns exec <ns> node lab-http-client.mjs`):
// the lab's administrator sits on the LAN like a real one. Reads one JSON request on stdin
// ({method, url, headers, body}) and prints one JSON answer ({status, headers, body}).
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const request = JSON.parse(Buffer.concat(chunks).toString('utf8'));
try {
  const res = await fetch(request.url, {
    method: request.method ?? 'GET',
    headers: request.headers ?? {},
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
    signal: AbortSignal.timeout(request.timeoutMs ?? 4000),
  });
  const text = await res.text();
  process.stdout.write(JSON.stringify({ status: res.status, setCookie: res.headers.getSetCookie(), body: text }));
} catch (error) {
  process.stdout.write(JSON.stringify({ status: 0, error: String(error) }));
}
