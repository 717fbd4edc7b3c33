// The tests' DNS server is the one `npm run dev` serves its demo zone with (scripts/lib/dns-server.ts).
export { startDnsServer, type TestDnsServer, type ZoneRecord, type Zones } from '../../scripts/lib/dns-server';
