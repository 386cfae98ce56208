// The chrome proxy benchmark's "customer site" (tests/bench/chrome-proxy.ts): a 100 KB blog page
// like a WordPress theme's (a stylesheet, scripts, ~150 links, ~30 images with srcset, paragraphs),
// served uncacheable (`/site/blog/nocache`) and cacheable for an hour (`/site/blog/cached`), and a
// slow page (`/site/blog/slow`): headers after SLOW_MS, then 10 KB sent over another SLOW_MS.
import http from 'node:http';

function blogPage(bytes = 100 * 1024): string {
  const head = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Trail Notes</title>
<link rel="stylesheet" href="/site/wp-content/themes/trail/style.css">
<link rel="icon" href="/site/favicon.ico">
<script src="/site/wp-includes/js/jquery.min.js"></script>
</head>
<body class="home blog">
<header><a href="/site/">Trail Notes</a> <nav><a href="/site/blog">Blog</a> <a href="/site/about">About</a></nav></header>
<main>
`;
  let body = '';
  for (let i = 0; head.length + body.length < bytes - 200; i++) {
    const image =
      i % 5 === 0
        ? `<img src="/site/wp-content/uploads/${i}.jpg" srcset="/site/wp-content/uploads/${i}-640.jpg 640w, /site/wp-content/uploads/${i}-1280.jpg 1280w" sizes="(max-width: 700px) 100vw, 700px" width="700" height="400" alt="Photo ${i}">\n`
        : '';
    body += `<article class="post">
<h2><a href="/site/blog/post-${i}">A walk along the ridge, part ${i}</a></h2>
${image}<p>We left the car park at seven, with frost on the grass and the ridge still in cloud. By nine the sun had burned through and the view opened all the way to the lakes; the descent was muddy in the usual places. Read <a href="/site/blog/post-${i}#more">more</a>.</p>
</article>
`;
  }
  return `${head}${body}</main>
<footer><p>&copy; Trail Notes</p></footer>
</body>
</html>
`;
}

const page = blogPage();
const slowMs = Number(process.env.SLOW_MS ?? 2000);
const slowBody = blogPage(10 * 1024);

const server = http.createServer((req, res) => {
  const path = (req.url ?? '/').split('?')[0];
  if (path === '/site/blog/nocache' || path === '/site/blog/cached') {
    res.writeHead(200, {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': path.endsWith('cached') ? 'public, max-age=3600' : 'no-store',
    });
    res.end(page);
    return;
  }
  if (path === '/site/blog/slow') {
    setTimeout(() => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
      res.write(slowBody.slice(0, 1024));
      setTimeout(() => res.end(slowBody.slice(1024)), slowMs);
    }, slowMs);
    return;
  }
  res.writeHead(404, { 'Content-Type': 'text/plain' });
  res.end('not found');
});
server.maxConnections = 10_000;
server.listen(Number(process.env.PORT ?? 3921), '127.0.0.1', () => process.stdout.write('ready\n'));
