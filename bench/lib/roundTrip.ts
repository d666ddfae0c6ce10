import http from 'node:http';

/** A new connection, one streamed request, the whole answer: what one model request costs at least. */
export function roundTrip(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const body = JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 16, stream: true, messages: [{ role: 'user', content: 'ping' }] });
    const req = http.request(`${url}/v1/messages`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'x-api-key': 'bench', 'anthropic-version': '2023-06-01' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(performance.now() - t0));
    });
    req.on('error', reject);
    req.end(body);
  });
}
