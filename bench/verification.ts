/**
 * bench/verification: address checks per minute through the built-in checks, without the SMTP probe
 * and with it, each beside the stand-ins' own ceiling measured in the same run on the same machine.
 *
 * - Without the probe: N addresses at D domains (a DNS server of our own) checked by C concurrent
 *   callers (the worker's providers slots), beside N bare MX lookups at the same concurrency.
 * - With the probe: addresses at the same D domains, whose mail hosts are SMTP stand-ins that refuse
 *   unknown addresses or accept everything, at the production pause between two probes of a domain
 *   (one connection per domain at a time), beside two ceilings: the pacing rule's own (D domains, one
 *   probe per pause each) and bare SMTP conversations (the same commands, every address its own
 *   domain, so nothing waits).
 *
 *   npm run bench:verification [-- --addresses 2000 --domains 20 --concurrency 8 --probe-addresses 200 --pause-ms 2000]
 *
 * Needs no database nor Temporal: the verifiers are what is measured.
 */
import { parseArgs } from 'node:util';
import { createDnsResolver } from '../activities/providers/dns/resolver';
import { createBuiltinVerifier } from '../activities/providers/verification/builtin';
import { createSmtpProbe } from '../activities/providers/verification/smtp-probe';
import { emailStatus } from '../domain/contacts/email-verification';
import { startDnsServer, type Zones } from '../scripts/lib/dns-server';
import { startProbeSmtpServer } from '../test/helpers/probe-smtp-servers';

const { values } = parseArgs({
  options: {
    addresses: { type: 'string', default: '2000' },
    domains: { type: 'string', default: '20' },
    concurrency: { type: 'string', default: '8' },
    'probe-addresses': { type: 'string', default: '200' },
    'pause-ms': { type: 'string', default: '2000' },
  },
});
const N = Number(values.addresses);
const D = Number(values.domains);
const C = Number(values.concurrency);
const P = Number(values['probe-addresses']);
const PAUSE = Number(values['pause-ms']);

const domain = (i: number) => `d${i % D}.bench-verify.nl`;
const perMinute = (n: number, ms: number) => Math.round((n / ms) * 60_000);
const line = (label: string, n: number, ms: number, ceiling: number) =>
  console.log(
    `${label.padEnd(54)} ${String(perMinute(n, ms)).padStart(8)}/min  (${n} in ${(ms / 1000).toFixed(1)} s)  ${(perMinute(n, ms) / ceiling).toFixed(2)} of the ceiling`,
  );

/** Runs `work` over 0..n-1 with `c` callers at once; answers the elapsed milliseconds. */
async function timed(n: number, c: number, work: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: c }, async () => {
      while (next < n) await work(next++);
    }),
  );
  return performance.now() - started;
}

async function main() {
  const zones: Zones = {};
  for (let i = 0; i < D; i++) zones[domain(i)] = [{ type: 'MX', exchange: `mx.${domain(i)}`, priority: 10 }];
  const dns = await startDnsServer(zones);
  const refusing = await startProbeSmtpServer({ kind: 'refusing', known: ['known'] });
  const acceptAll = await startProbeSmtpServer({ kind: 'acceptAll' });
  try {
    const resolver = createDnsResolver({ servers: [dns.address], timeoutMs: 2000, tries: 1 });
    console.log(`verification bench: ${N} addresses at ${D} domains, ${C} at once; the probe: ${P} addresses, ${PAUSE} ms between two probes of a domain`);

    // Without the probe, beside bare MX lookups.
    const bareDns = await timed(N, C, (i) => resolver.resolve(domain(i), 'MX'));
    const builtin = createBuiltinVerifier({ dns: resolver });
    const statuses = new Map<string, number>();
    const checked = await timed(N, C, async (i) => {
      const s = emailStatus(await builtin.verify(`p${i}@${domain(i)}`));
      statuses.set(s, (statuses.get(s) ?? 0) + 1);
    });
    const dnsCeiling = perMinute(N, bareDns);
    console.log(`${'ceiling: bare MX lookups'.padEnd(54)} ${String(dnsCeiling).padStart(8)}/min`);
    line('built-in checks, no probe', N, checked, dnsCeiling);
    console.log(`  statuses: ${JSON.stringify(Object.fromEntries(statuses))}`);

    // With the probe: odd domains refuse strangers, even ones accept everything.
    const serverFor = (mxHost: string) => (Number(/^mx\.d(\d+)\./.exec(mxHost)?.[1] ?? 0) % 2 ? refusing : acceptAll);
    const connect = (mxHost: string) => ({ host: '127.0.0.1', port: serverFor(mxHost).port });
    const options = { heloName: 'bench.outreach.test', sender: 'verify@outreach.test', connect };
    const bare = createSmtpProbe({ ...options, perDomainIntervalMs: 0 });
    const bareSmtp = await timed(P, C, (i) => bare.probe(`known@u${i}.bench-verify.nl`, [`mx.d${i % D}.bench-verify.nl`]));
    const smtpCeiling = perMinute(P, bareSmtp);
    const pacing = Math.round((D * 60_000) / Math.max(PAUSE, 1));
    console.log(`${'ceiling: bare SMTP conversations (nothing waits)'.padEnd(54)} ${String(smtpCeiling).padStart(8)}/min`);
    console.log(`${`ceiling: the pacing rule (${D} domains, one per ${PAUSE} ms)`.padEnd(54)} ${String(pacing).padStart(8)}/min`);
    const probed = createBuiltinVerifier({ dns: resolver, probe: createSmtpProbe({ ...options, perDomainIntervalMs: PAUSE }) });
    const withProbe = new Map<string, number>();
    const probeMs = await timed(P, C, async (i) => {
      const a = await probed.check(`${i % 3 ? 'known' : `p${i}`}@${domain(i)}`);
      const s = emailStatus(a.check, { temporary: a.temporary });
      withProbe.set(s, (withProbe.get(s) ?? 0) + 1);
    });
    line('built-in checks with the probe', P, probeMs, Math.min(smtpCeiling, pacing));
    console.log(`  statuses: ${JSON.stringify(Object.fromEntries(withProbe))}; DATA seen by the stand-ins: ${refusing.dataSeen || acceptAll.dataSeen}`);
  } finally {
    await refusing.close();
    await acceptAll.close();
    await dns.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
