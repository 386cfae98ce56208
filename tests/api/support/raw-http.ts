// Raw HTTP to a test server, for tests that set Host, Origin, Cookie and X-Forwarded-* exactly as
// a browser (or a forger) would; fetch would refuse or rewrite some of them.
import http from 'node:http';

export interface RawResponse { status: number; headers: http.IncomingHttpHeaders; body: any; text: string }

export function rawRequest(port: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = '';
      res.on('data', (c) => { text += c; });
      res.on('end', () => {
        let parsed: unknown;
        try { parsed = text ? JSON.parse(text) : undefined; } catch { parsed = undefined; }
        resolve({ status: res.statusCode!, headers: res.headers, body: parsed, text });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
