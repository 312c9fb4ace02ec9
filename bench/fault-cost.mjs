// The cost of a page fault to a process on this machine: what a first touch of fresh memory costs, measured the way a
// result's copies meet it. Imported by the benches that read a call's or a process's CPU beside its faults; run as a
// script, it prints one measurement in a fresh process (a JSON line), as bench/cli-cpu.mjs takes it each round.
//
//   node bench/fault-cost.mjs   # {"faults":8193,"cpu_ms":98.1,"us_per_fault":11.97,"us_per_page":11.97}
import './help.mjs';
import { fileURLToPath } from 'node:url';
import { round } from './stats.mjs';

/**
 * What one first touch of a fresh page costs this process (µs of CPU a fault): 32 MiB that no one has touched,
 * written a byte a page, as the copies of a call's result are. A guest's page faults cost from about 1 µs to over 20
 * (a fresh 10 MB English call's 1,823 faults are 2–36 ms of it), and they move the whole call's MB/s between guests
 * more than most changes to the code do.
 * @example faultCost() // { faults: 8193, cpu_ms: 98.1, us_per_fault: 11.97, us_per_page: 11.97 }
 */
export function faultCost() {
  const c0 = process.cpuUsage(),
    f0 = process.resourceUsage().minorPageFault;
  const pages = new Uint8Array(32 << 20);
  for (let i = 0; i < pages.length; i += 4096) pages[i] = 1;
  const u = process.cpuUsage(c0),
    faults = process.resourceUsage().minorPageFault - f0;
  const cpu_ms = (u.user + u.system) / 1000;
  if (pages[4096] !== 1) throw new Error('unreachable');
  // a fault of a huge page (an allocator on transparent huge pages) covers 512 pages: the price of a 4 KiB page touched
  // first compares guests and settings where the price of a fault does not
  return {
    faults,
    cpu_ms: round(cpu_ms, 2),
    us_per_fault: faults > 0 ? round((cpu_ms * 1000) / faults, 2) : null,
    us_per_page: round((cpu_ms * 1000) / (pages.length / 4096), 2),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(JSON.stringify(faultCost()));
