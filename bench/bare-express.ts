/**
 * The framework ceiling, run by the bench as its own process on the same runtime as Parley:
 * Express 5, JSON body parser on, one route answering a small object. `PORT` from the
 * environment; listens on 127.0.0.1.
 */
import express from 'express';

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.use(express.json());
app.get('/ping', (_req, res) => {
  res.json({ ok: true, service: 'bench' });
});
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
server.keepAliveTimeout = 65_000;
process.on('SIGTERM', () => process.exit(0));
