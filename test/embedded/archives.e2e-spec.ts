import type { ParleyApp } from '../../src/app.setup';
import yauzl from 'yauzl';
import { createTestApp, http } from '../helpers/app';
import { createAdminKey } from '../helpers/admin';
import { registerUser } from '../helpers/factories';

/** The archive job (pg-boss in the application database) on the embedded PostgreSQL server. */
describe('archives on the embedded database', () => {
  let app: ParleyApp;

  beforeAll(async () => {
    expect(process.env.PARLEY_TEST_DATABASE_KIND).toBe('embedded');
    app = await createTestApp();
  });
  afterAll(() => app.close());

  it('builds a user archive and serves it through the signed link', async () => {
    const root = await createAdminKey(app, ['*']);
    const user = await registerUser(app);
    const res = await http(app)
      .post('/v1/admin/archives/user')
      .set('Authorization', root.header)
      .send({ user_id: user.userId });
    expect(res.status).toBe(200);
    const path = `/v1/admin/archives/user/${user.userId}/${res.body.archive_id}`;
    const deadline = Date.now() + 30_000;
    let status = res.body.status as string;
    while (status !== 'completed') {
      if (status === 'failed' || Date.now() > deadline) throw new Error(`archive ${status}`);
      await new Promise((r) => setTimeout(r, 100));
      status = (await http(app).get(path).set('Authorization', root.header)).body.status;
    }
    const link = await http(app).get(`${path}/download`).set('Authorization', root.header);
    expect(link.status).toBe(200);
    const url = new URL(link.body.download_url as string);
    const file = await http(app)
      .get(url.pathname + url.search)
      .buffer(true)
      .parse((r, done) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(file.status).toBe(200);
    const profile = await new Promise<string>((resolve, reject) => {
      yauzl.fromBuffer(file.body as Buffer, { lazyEntries: true }, (err, zip) => {
        if (err || !zip) return reject(err ?? new Error('no zip'));
        zip.on('entry', (entry: yauzl.Entry) => {
          if (entry.fileName !== 'profile.json') return zip.readEntry();
          zip.openReadStream(entry, (e, stream) => {
            if (e || !stream) return reject(e ?? new Error('no stream'));
            const chunks: Buffer[] = [];
            stream.on('data', (c: Buffer) => chunks.push(c));
            stream.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
          });
        });
        zip.on('end', () => reject(new Error('no profile.json')));
        zip.readEntry();
      });
    });
    expect(JSON.parse(profile)).toMatchObject({ id: user.userId, email: user.email });
  });
});
