import { isRefusedAddress, webhookUrlProblem } from './webhook-url';

// The SSRF rule of webhook endpoints (docs/webhooks.md "Refused addresses").
describe('isRefusedAddress', () => {
  it.each([
    '127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255',
    '::1', '::', 'fe80::1', 'fc00::1', 'ff02::1',
    // IPv4 embedded in IPv6: mapped, compatible, translated, 6to4, Teredo, NAT64; discard-only.
    '::ffff:127.0.0.1', '::ffff:7f00:1', '::127.0.0.1', '::ffff:0:7f00:1', '2002:7f00:1::', '2001:0:4136:e378::1', '64:ff9b::7f00:1', '100::1',
  ])('refuses %s', (address) => {
    expect(isRefusedAddress(address)).toBe(true);
  });

  it.each(['1.1.1.1', '8.8.8.8', '93.184.216.34', '::ffff:1.1.1.1', '2606:4700::1111', '2a00:1450:4001::200e', '203.0.113.10', '2001:db8::1'])('allows %s', (address) => {
    expect(isRefusedAddress(address)).toBe(false);
  });

  it('names the url problem for refused literals, and allows them when configured', async () => {
    expect(await webhookUrlProblem('http://[::127.0.0.1]/hook', false)).toMatch(/private, loopback/);
    expect(await webhookUrlProblem('http://[2002:7f00:1::]/hook', false)).toMatch(/private, loopback/);
    expect(await webhookUrlProblem('http://[::127.0.0.1]/hook', true)).toBeUndefined();
    expect(await webhookUrlProblem('https://1.1.1.1/hook', false)).toBeUndefined();
  });
});
