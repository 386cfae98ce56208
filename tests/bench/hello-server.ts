// The baseline: the smallest Express 5 app that answers JSON, on the same Node.js.
import express from 'express';

const app = express();
app.get('/', (_req, res) => {
  res.json({ hello: 'world' });
});
const port = Number(process.env.PORT ?? 3901);
app.listen(port, '127.0.0.1', () => process.stdout.write(`ready ${port}\n`));
