/**
 * The model-host policy judges every IPv6 form that embeds or translates an IPv4 address by the IPv4 inside it
 * (local-use NAT64, SIIT, Teredo and ISATAP forms of 127.0.0.1 once passed), in URLs and in resolved addresses.
 */
import { describe, expect, it } from 'vitest';
import { isInternalAddress, isInternalHost } from '../../src/net/egress.js';

const internalUrl = (host: string) => isInternalHost(new URL(`http://[${host}]/v1`));

/** Each form of an internal IPv4 (127.0.0.1, 10.1.2.3, 169.254.169.254), then of a public one (8.8.8.8 / 93.184.215.14). */
const FORMS: ReadonlyArray<readonly [form: string, internal: readonly string[], external: readonly string[]]> = [
  ['IPv4-mapped ::ffff:0:0/96', ['::ffff:7f00:1', '::ffff:10.1.2.3'], ['::ffff:8.8.8.8']],
  ['IPv4-compatible ::/96', ['::7f00:1', '::a01:203', '::169.254.169.254'], ['::808:808']],
  ['SIIT ::ffff:0:0:0/96', ['::ffff:0:7f00:1', '::ffff:0:a9fe:a9fe'], ['::ffff:0:808:808']],
  ['NAT64 well-known 64:ff9b::/96', ['64:ff9b::7f00:1', '64:ff9b::a9fe:a9fe'], ['64:ff9b::808:808']],
  // local-use: refused whole, whatever it embeds (the IPv4's place depends on the local prefix length)
  ['NAT64 local-use 64:ff9b:1::/48', ['64:ff9b:1::7f00:1', '64:ff9b:1:7f00:1::', '64:ff9b:1::808:808'], []],
  ['6to4 2002::/16', ['2002:7f00:1::1', '2002:a01:203::', '2002:a9fe:a9fe::1'], ['2002:808:808::1']],
  [
    'Teredo 2001::/32',
    [
      '2001:0:4136:e378:8000:63bf:80ff:fffe', // client 127.0.0.1 (~0x80fffffe), server 65.54.227.120
      '2001:0:a01:203:8000:63bf:f7f7:f7f7', // server 10.1.2.3, client 8.8.8.8
      '2001:0:4136:e378::5601:5656', // client ~0x56015656 = 169.254.169.169
    ],
    ['2001:0:4136:e378:8000:63bf:a2b1:2aeb'], // server 65.54.227.120, client 93.78.213.20
  ],
  [
    'ISATAP ::0:5efe:a.b.c.d and ::200:5efe:a.b.c.d under any prefix',
    ['2a00:1450::5efe:7f00:1', '2a00:1450::200:5efe:a00:1', '2001:db9:1:2:0:5efe:169.254.169.254'],
    ['2a00:1450::5efe:808:808', '2a00:1450::200:5efe:5db8:d70e', '2a00:1450::100:5efe:7f00:1'],
  ],
];

describe('IPv4 inside IPv6, judged by the IPv4', () => {
  for (const [form, internal, external] of FORMS) {
    it(form, () => {
      for (const a of internal) {
        expect(internalUrl(a), a).toBe(true);
        expect(isInternalAddress(a), a).toBe(true);
      }
      for (const a of external) {
        expect(internalUrl(a), a).toBe(false);
        expect(isInternalAddress(a), a).toBe(false);
      }
    });
  }

  it('leaves public IPv6 alone', () => {
    for (const a of ['2606:2800:21f:cb07:6820:80da:af6b:8b2c', '2001:4860:4860::8888', '2a00:1450:4001:80e::200e'])
      expect(isInternalAddress(a), a).toBe(false);
  });
});
