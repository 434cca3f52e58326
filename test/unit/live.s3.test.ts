// S3 listings that a server gets wrong: a continuation token given again would list the same page
// for ever. No S3 server we can run does that on purpose, so this one server is a few lines of
// HTTP on loopback that answers every listing with the same truncated page.
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { openLive } from '../../src/core/live';
import { ep, options } from './helpers/liveOptions';

describe('live: S3 listings a server gets wrong', function () {
  it('a continuation token given twice ends the listing with a clear error after two pages, not a loop', async () => {
    let pages = 0;
    const server = http.createServer((_req, res) => {
      pages++;
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(`<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name><Prefix></Prefix><KeyCount>1</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>true</IsTruncated><NextContinuationToken>same</NextContinuationToken><Contents><Key>a.txt</Key><LastModified>2026-01-01T00:00:00.000Z</LastModified><ETag>"x"</ETag><Size>1</Size></Contents></ListBucketResult>`);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as AddressInfo).port;
      const fsys = openLive(ep({ server_type: 'AmazonS3', domain: `http://127.0.0.1:${port}/b`, ftp_user: 'key' }, { s3Region: 'us-east-1' }), options('secret'));
      try {
        await assert.rejects(fsys.listAll(''), (e: { kind?: string; message?: string }) => e.kind === 'protocol' && /same continuation token twice/.test(e.message ?? ''));
        // The first page, then the one that gave the token again: no third request.
        assert.equal(pages, 2);
      } finally {
        await fsys.close();
      }
    } finally {
      server.close();
    }
  });
});
